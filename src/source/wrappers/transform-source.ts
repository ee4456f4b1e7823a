/**
 * A source wrapper that rewrites the endpoint list of the source it wraps (external-dns's NAT64,
 * target-filter, PTR and post-processor wrappers each are one such rewrite). The rewrite must not
 * change the endpoints it gets: the Kubernetes sources hand out frozen, shared ones.
 */
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { Source } from '../source.ts';

export type EndpointRewrite = (endpoints: Endpoint[]) => Endpoint[];

export class TransformSource implements Source {
  readonly name: string;
  private readonly source: Source;
  private readonly rewrite: EndpointRewrite;

  constructor(source: Source, rewrite: EndpointRewrite) {
    this.source = source;
    this.name = source.name;
    this.rewrite = rewrite;
  }

  async endpoints(): Promise<Endpoint[]> {
    return this.rewrite(await this.source.endpoints());
  }

  heldResources(): ReadonlySet<string> {
    return this.source.heldResources?.() ?? new Set();
  }

  addEventHandler(handler: () => void): () => void {
    return this.source.addEventHandler(handler);
  }

  async close(): Promise<void> {
    await this.source.close?.();
  }
}
