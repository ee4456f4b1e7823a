/**
 * Drops exact duplicates: endpoints with the same name, type, set identifier, targets (compared
 * canonically, in any order) and resource label. Two objects asking for the same record stay two
 * endpoints so the planner can see and resolve the conflict.
 */
import { EndpointsByName } from '../../endpoint/by-name.ts';
import { LABEL_RESOURCE, canonicalTarget } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { Source } from '../source.ts';

export function dedupKey(ep: Endpoint): string {
  const targets = ep.targets.map((t) => canonicalTarget(ep.recordType, t)).sort();
  return JSON.stringify([ep.dnsName, ep.recordType, ep.setIdentifier, targets, ep.labels[LABEL_RESOURCE] ?? '']);
}

export function dedupEndpoints(endpoints: readonly Endpoint[]): Endpoint[] {
  // Runs over every desired endpoint on every sync, so it builds no string per endpoint: endpoints
  // are grouped by their name (a string they hold), and the full key, with canonical targets, is
  // only built inside the rare group of two endpoints with the same name, type, set and resource.
  const kept = new EndpointsByName();
  const out: Endpoint[] = [];
  for (const ep of endpoints) {
    if (
      kept.get(ep.dnsName, ep.recordType, ep.setIdentifier) !== undefined &&
      kept.at(ep.dnsName).some((k) => sameIdentity(k, ep) && dedupKey(k) === dedupKey(ep))
    )
      continue;
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
