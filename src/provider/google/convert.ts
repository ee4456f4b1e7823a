/**
 * Translation between endpoints and Cloud DNS resource record sets, and the grouping of a sync's
 * changes into Cloud DNS change requests. Cloud DNS speaks presentation format with absolute
 * names (trailing dots, quoted TXT), the same text PowerDNS uses, so the conversions are shared.
 */
import { describeEndpoint, isRecordType, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { isInZone, normalizeRecordName } from '../../endpoint/name.ts';
import type { Changes } from '../../plan/changes.ts';
import { absoluteName, fromPresentation, toPresentation, zoneOf } from '../presentation.ts';

export interface GoogleRRSet {
  name: string;
  type: string;
  ttl: number;
  rrdatas: string[];
}

/** One Cloud DNS change: applied all or nothing by the API. */
export interface GoogleChange {
  zone: string;
  additions: GoogleRRSet[];
  deletions: GoogleRRSet[];
  /** `name type` of each endpoint in the change, for error messages. */
  records: string[];
}

export const rrsetKey = (name: string, type: string): string => `${normalizeRecordName(name)} ${type}`;

export function rrsetToEndpoint(set: GoogleRRSet): Endpoint | undefined {
  if (!isRecordType(set.type) || set.rrdatas.length === 0) return undefined;
  const type = set.type;
  return newEndpoint({
    dnsName: normalizeRecordName(set.name),
    recordType: type,
    targets: set.rrdatas.map((d) => fromPresentation(type, d)),
    recordTTL: set.ttl,
  });
}

export function endpointToRRSet(ep: Endpoint, defaultTTL: number): GoogleRRSet {
  return {
    name: absoluteName(ep.dnsName),
    type: ep.recordType,
    ttl: ep.recordTTL > 0 ? ep.recordTTL : defaultTTL,
    rrdatas: ep.targets.map((t) => toPresentation(ep.recordType, t)),
  };
}

/**
 * Whether a zone is worth reading for these --domain-filter domains: the zone lies inside one of
 * them or holds one of them (a filter `app.example.org` needs zone `example.org`). No domains: every zone.
 */
export function zoneMatchesDomains(zone: string, domains: readonly string[]): boolean {
  if (domains.length === 0) return true;
  return domains.some((d) => {
    const domain = d.replace(/^\./, '').replace(/\.$/, '').toLowerCase();
    return domain === '' || isInZone(zone, domain) || isInZone(domain, zone);
  });
}

export interface ChangePlan {
  changes: GoogleChange[];
  /** Endpoints no managed zone contains. */
  orphans: Endpoint[];
}

/**
 * Groups a sync's changes per zone and then by owner name, so the delete and add of an update
 * (and all types at one name) always travel in the same change; groups are packed into changes
 * of at most `batchSize` rrsets. A deletion uses the rrset exactly as last listed when known,
 * because Cloud DNS refuses a deletion whose ttl or rrdatas differ from what it holds.
 */
export function planChanges(
  changes: Changes,
  zones: readonly string[],
  opts: { defaultTTL: number; batchSize: number; listed: ReadonlyMap<string, GoogleRRSet> },
): ChangePlan {
  const byZone = new Map<string, Map<string, { additions: GoogleRRSet[]; deletions: GoogleRRSet[]; records: string[] }>>();
  const orphans: Endpoint[] = [];
  const add = (ep: Endpoint, kind: 'additions' | 'deletions'): void => {
    const zone = zoneOf(ep.dnsName, zones);
    if (zone === undefined) {
      orphans.push(ep);
      return;
    }
    let groups = byZone.get(zone);
    if (groups === undefined) byZone.set(zone, (groups = new Map()));
    let group = groups.get(ep.dnsName);
    if (group === undefined) groups.set(ep.dnsName, (group = { additions: [], deletions: [], records: [] }));
    const rendered = endpointToRRSet(ep, opts.defaultTTL);
    group[kind].push(kind === 'deletions' ? (opts.listed.get(rrsetKey(ep.dnsName, ep.recordType)) ?? rendered) : rendered);
    const label = describeEndpoint(ep);
    if (!group.records.includes(label)) group.records.push(label);
  };
  for (const ep of changes.delete) add(ep, 'deletions');
  for (const ep of changes.updateOld) add(ep, 'deletions');
  for (const ep of changes.create) add(ep, 'additions');
  for (const ep of changes.updateNew) add(ep, 'additions');

  const out: GoogleChange[] = [];
  const size = Math.max(1, opts.batchSize);
  for (const [zone, groups] of byZone) {
    let current: GoogleChange | undefined;
    for (const group of groups.values()) {
      const n = group.additions.length + group.deletions.length;
      if (current === undefined || (current.additions.length + current.deletions.length + n > size && current.records.length > 0)) {
        current = { zone, additions: [], deletions: [], records: [] };
        out.push(current);
      }
      current.additions.push(...group.additions);
      current.deletions.push(...group.deletions);
      current.records.push(...group.records);
    }
  }
  return { changes: out, orphans };
}
