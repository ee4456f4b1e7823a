/**
 * Several sources as one: endpoints are concatenated in source order and change events fan in.
 * If any source fails the whole list fails, because a partial list would make the planner delete
 * the failed source's records.
 */
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { HostwardenError, SourceError } from '../../errors.ts';
import type { InvalidEndpoint, Source } from '../source.ts';

export class MultiSource implements Source {
  readonly name: string;
  private readonly sources: readonly Source[];

  constructor(options: { sources: readonly Source[] }) {
    this.sources = [...options.sources];
    this.name = this.sources.map((s) => s.name).join('+') || 'multi';
  }

  async endpoints(): Promise<Endpoint[]> {
    const lists = await Promise.all(
      this.sources.map(async (source) => {
        try {
          return await source.endpoints();
        } catch (err) {
          if (err instanceof HostwardenError) throw err;
          throw new SourceError(`source ${source.name}: ${(err as Error).message}`, { transient: true, cause: err });
        }
      }),
    );
    return lists.flat();
  }

  invalidEndpoints(): InvalidEndpoint[] {
    return this.sources.flatMap((s) => s.invalidEndpoints?.() ?? []);
  }

  heldResources(): ReadonlySet<string> {
    const held = new Set<string>();
    for (const s of this.sources) for (const r of s.heldResources?.() ?? []) held.add(r);
    return held;
  }

  addEventHandler(handler: () => void): () => void {
    const unsubscribes = this.sources.map((s) => s.addEventHandler(handler));
    return () => {
      for (const unsubscribe of unsubscribes) unsubscribe();
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.sources.map((s) => s.close?.()));
  }
}
