/**
 * Drops exact duplicates: endpoints with the same name, type, set identifier, targets (compared
 * canonically, in any order) and resource label. Two objects asking for the same record stay two
 * endpoints so the planner can see and resolve the conflict.
 */
import { EndpointsByName } from '../../endpoint/by-name.ts';
import { LABEL_RESOURCE, canonicalTarget } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { InvalidEndpoint, Source } from '../source.ts';
import type { SourceChainMetrics } from './metrics.ts';

export function dedupKey(ep: Endpoint): string {
  const targets = ep.targets.map((t) => canonicalTarget(ep.recordType, t)).sort();
  return JSON.stringify([ep.dnsName, ep.recordType, ep.setIdentifier, targets, ep.labels[LABEL_RESOURCE] ?? '']);
}

/** `endpoints` without exact duplicates; the dropped ones are pushed onto `dropped` when given. */
export function dedupEndpoints(endpoints: readonly Endpoint[], dropped?: Endpoint[]): Endpoint[] {
  // Runs over every desired endpoint on every sync, so it builds no string per endpoint: endpoints
  // are grouped by their name (a string they hold), and the full key, with canonical targets, is
  // only built inside the rare group of two endpoints with the same name, type, set and resource.
  const kept = new EndpointsByName();
  const out: Endpoint[] = [];
  for (const ep of endpoints) {
    if (
      kept.get(ep.dnsName, ep.recordType, ep.setIdentifier) !== undefined &&
      kept.at(ep.dnsName).some((k) => sameIdentity(k, ep) && dedupKey(k) === dedupKey(ep))
    ) {
      dropped?.push(ep);
      continue;
    }
    kept.add(ep);
    out.push(ep);
  }
  return out;
}

function sameIdentity(a: Endpoint, b: Endpoint): boolean {
  return a.recordType === b.recordType && a.setIdentifier === b.setIdentifier && (a.labels[LABEL_RESOURCE] ?? '') === (b.labels[LABEL_RESOURCE] ?? '');
}

export class DedupSource implements Source {
  readonly name: string;
  private readonly source: Source;
  private readonly metrics: SourceChainMetrics | undefined;

  /** `metrics`: the dedup step reports what the sources below it dropped as invalid and what it dropped as duplicates. */
  constructor(options: { source: Source; metrics?: SourceChainMetrics }) {
    this.source = options.source;
    this.name = options.source.name;
    this.metrics = options.metrics;
  }

  async endpoints(): Promise<Endpoint[]> {
    const all = await this.source.endpoints();
    if (this.metrics === undefined) return dedupEndpoints(all);
    const dropped: Endpoint[] = [];
    const kept = dedupEndpoints(all, dropped);
    this.metrics.set(this.source.invalidEndpoints?.() ?? [], dropped);
    return kept;
  }

  invalidEndpoints(): InvalidEndpoint[] {
    return this.source.invalidEndpoints?.() ?? [];
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
