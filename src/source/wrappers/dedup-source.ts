/**
 * Drops exact duplicates: endpoints with the same name, type, set identifier, targets (compared
 * canonically, in any order) and resource label. Two objects asking for the same record stay two
 * endpoints so the planner can see and resolve the conflict.
 */
import { LABEL_RESOURCE, canonicalTarget } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { Source } from '../source.ts';

export function dedupKey(ep: Endpoint): string {
  const targets = ep.targets.map((t) => canonicalTarget(ep.recordType, t)).sort();
  return JSON.stringify([ep.dnsName, ep.recordType, ep.setIdentifier, targets, ep.labels[LABEL_RESOURCE] ?? '']);
}

export function dedupEndpoints(endpoints: readonly Endpoint[]): Endpoint[] {
  // Runs over every desired endpoint on every sync: endpoints are grouped by the cheap part of the
  // key first, and targets are only canonicalised for the rare group with more than one member.
  const firstByIdentity = new Map<string, Endpoint>();
  const fullKeys = new Map<string, Set<string>>();
  const out: Endpoint[] = [];
  for (const ep of endpoints) {
    const identity = `${ep.dnsName}\u0000${ep.recordType}\u0000${ep.setIdentifier}\u0000${ep.labels[LABEL_RESOURCE] ?? ''}`;
    const first = firstByIdentity.get(identity);
    if (first === undefined) {
      firstByIdentity.set(identity, ep);
      out.push(ep);
      continue;
    }
    let seen = fullKeys.get(identity);
    if (seen === undefined) {
      seen = new Set([dedupKey(first)]);
      fullKeys.set(identity, seen);
    }
    const key = dedupKey(ep);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(ep);
  }
  return out;
}

export class DedupSource implements Source {
  readonly name: string;
  private readonly source: Source;

  constructor(options: { source: Source }) {
    this.source = options.source;
    this.name = options.source.name;
  }

  async endpoints(): Promise<Endpoint[]> {
    return dedupEndpoints(await this.source.endpoints());
  }

  addEventHandler(handler: () => void): () => void {
    return this.source.addEventHandler(handler);
  }

  async close(): Promise<void> {
    await this.source.close?.();
  }
}
