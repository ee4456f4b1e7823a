/**
 * Endpoints several objects ask for, merged into one as external-dns's pod and node sources do
 * (the planner keeps one endpoint per name and type, so without this only one object would count).
 */
import { LABEL_RESOURCE, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';

/**
 * external-dns's MergeEndpoints over every object's endpoints (its pod and node sources merge): one endpoint per name, type, set
 * identifier and TTL with the sorted, de-duplicated targets of all (CNAMEs per target). The
 * merged endpoint carries the labels of the object whose `resource` label sorts first, so its owner
 * label does not move with the order objects changed in.
 */
export function mergeEndpoints(endpoints: readonly Endpoint[]): Endpoint[] {
  const byKey = new Map<string, Endpoint[]>();
  for (const ep of endpoints) {
    // NUL cannot occur in a name, type or identifier: a plain join is an unambiguous key (and cheaper than JSON per endpoint).
    const key = `${ep.dnsName}\0${ep.recordType}\0${ep.setIdentifier}\0${ep.recordTTL}\0${ep.recordType === 'CNAME' ? (ep.targets[0] ?? '') : ''}`;
    const list = byKey.get(key);
    if (list === undefined) byKey.set(key, [ep]);
    else list.push(ep);
  }
  const out: Endpoint[] = [];
  for (const list of byKey.values()) {
    const first = list[0] as Endpoint;
    if (list.length === 1) {
      out.push(first);
      continue;
    }
    const targets = [...new Set(list.flatMap((e) => e.targets))].sort();
    // The labels of the object whose resource label sorts first: the same whichever changed last.
    const owner = list.reduce((a, b) => ((b.labels[LABEL_RESOURCE] ?? '') < (a.labels[LABEL_RESOURCE] ?? '') ? b : a));
    out.push(newEndpoint({ ...owner, targets }));
  }
  return out;
}
