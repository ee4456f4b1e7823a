/**
 * Conflict resolution with the semantics of external-dns's `PerResource` resolver: when several
 * resources want the same record set, exactly one wins, and the winner stays the winner while it
 * exists so records do not flap between resources on every run.
 *
 * The order extends external-dns's `Targets.IsLess` into a total order (resource label, TTL,
 * provider-specific and labels break ties) so that the plan never depends on input order.
 */
import { isIP } from 'node:net';
import { LABEL_RESOURCE, canonicalTarget } from '../endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../endpoint/endpoint.ts';

/**
 * Orders target lists: fewer targets first; then, target by target after sorting, IP addresses
 * before hostnames, IPs numerically (IPv4 before IPv6), hostnames lexically.
 */
export function compareTargets(recordType: RecordType, a: readonly string[], b: readonly string[]): number {
  if (a.length !== b.length) return a.length - b.length;
  if (a.length === 1) return compareTarget(canonicalTarget(recordType, a[0] ?? ''), canonicalTarget(recordType, b[0] ?? ''));
  const ca = a.map((t) => canonicalTarget(recordType, t)).sort();
  const cb = b.map((t) => canonicalTarget(recordType, t)).sort();
  for (let i = 0; i < ca.length; i++) {
    const c = compareTarget(ca[i] ?? '', cb[i] ?? '');
    if (c !== 0) return c;
  }
  return 0;
}

function compareTarget(a: string, b: string): number {
  if (a === b) return 0;
  const ka = ipSortKey(a);
  const kb = ipSortKey(b);
  if (ka !== undefined && kb !== undefined) return compareStrings(ka, kb);
  // An IP is "less" than a hostname, so "1-2-3-4.example.com" never beats "1.2.3.4".
  if (ka !== undefined) return -1;
  if (kb !== undefined) return 1;
  return compareStrings(a, b);
}

/** A fixed-width hex key whose lexical order is numeric address order, IPv4 before IPv6. */
function ipSortKey(target: string): string | undefined {
  const family = isIP(target);
  if (family === 4) {
    let key = '4';
    for (const octet of target.split('.')) key += Number(octet).toString(16).padStart(2, '0');
    return key;
  }
  if (family === 6) return `6${expandIPv6(target)}`;
  return undefined;
}

function expandIPv6(address: string): string {
  let addr = address.toLowerCase();
  const zone = addr.indexOf('%');
  if (zone >= 0) addr = addr.slice(0, zone);
  const lastColon = addr.lastIndexOf(':');
  const tail = addr.slice(lastColon + 1);
  if (tail.includes('.')) {
    const o = tail.split('.').map(Number);
    const hi = (((o[0] ?? 0) << 8) | (o[1] ?? 0)).toString(16);
    const lo = (((o[2] ?? 0) << 8) | (o[3] ?? 0)).toString(16);
    addr = `${addr.slice(0, lastColon + 1)}${hi}:${lo}`;
  }
  const gap = addr.indexOf('::');
  let groups: string[];
  if (gap >= 0) {
    const head = addr.slice(0, gap) === '' ? [] : addr.slice(0, gap).split(':');
    const rest = addr.slice(gap + 2) === '' ? [] : addr.slice(gap + 2).split(':');
    groups = [...head, ...new Array<string>(Math.max(0, 8 - head.length - rest.length)).fill('0'), ...rest];
  } else {
    groups = addr.split(':');
  }
  return groups.map((g) => g.padStart(4, '0')).join('');
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function resourceOf(ep: Endpoint): string {
  return ep.labels[LABEL_RESOURCE] ?? '';
}

function serialiseLabels(ep: Endpoint): string {
  return Object.keys(ep.labels)
    .sort()
    .map((k) => `${k}=${ep.labels[k] ?? ''}`)
    .join('\u0000');
}

function serialiseProviderSpecific(ep: Endpoint): string {
  return ep.providerSpecific
    .map((p) => `${p.name}=${p.value}`)
    .sort()
    .join('\u0000');
}

/** Total order on candidates for one record set (all share dnsName, type and set identifier). */
export function compareCandidates(a: Endpoint, b: Endpoint): number {
  if (a === b) return 0;
  const byTargets = compareTargets(a.recordType, a.targets, b.targets);
  if (byTargets !== 0) return byTargets;
  const byResource = compareStrings(resourceOf(a), resourceOf(b));
  if (byResource !== 0) return byResource;
  if (a.recordTTL !== b.recordTTL) return a.recordTTL - b.recordTTL;
  const byProviderSpecific = compareStrings(serialiseProviderSpecific(a), serialiseProviderSpecific(b));
  if (byProviderSpecific !== 0) return byProviderSpecific;
  const byLabels = compareStrings(serialiseLabels(a), serialiseLabels(b));
  if (byLabels !== 0) return byLabels;
  // Targets equal only after canonicalisation (e.g. letter case): still pick one deterministically.
  return compareStrings(a.targets.join('\u0000'), b.targets.join('\u0000'));
}

/** Nobody holds the record set yet: the smallest candidate takes it. */
export function resolveCreate(candidates: readonly Endpoint[]): Endpoint {
  let best = candidates[0];
  if (best === undefined) throw new RangeError('resolveCreate needs at least one candidate');
  for (let i = 1; i < candidates.length; i++) {
    const c = candidates[i] as Endpoint;
    if (compareCandidates(c, best) < 0) best = c;
  }
  return best;
}

/**
 * The record set exists: the resource that already holds it keeps it, so a second resource
 * claiming the name cannot take it over; when that resource is gone the create rule decides.
 */
export function resolveUpdate(current: Endpoint, candidates: readonly Endpoint[]): Endpoint {
  if (candidates.length === 1) return candidates[0] as Endpoint;
  const holder = resourceOf(current);
  let best: Endpoint | undefined;
  for (const c of candidates) {
    if (resourceOf(c) === holder && (best === undefined || compareCandidates(c, best) < 0)) best = c;
  }
  return best ?? resolveCreate(candidates);
}

/**
 * A CNAME cannot share a name with any other type (RFC 1034 §3.6.2). When the desired records
 * ask for both, the side that already exists keeps the name (a CNAME keeps it only when it is the
 * only current type), and among new records A/AAAA and friends win over the CNAME, as in
 * external-dns. external-dns also replaces a live CNAME then; Hostwarden keeps it, so a resource
 * added later cannot take a serving name over by asking for another type (a deliberate
 * difference, recorded in test/conformance/external-dns/plan). Returns which candidates lose, or
 * undefined when there is no conflict.
 */
export function cnameConflictLoser(
  hasCnameCandidate: boolean,
  hasOtherCandidate: boolean,
  hasCnameCurrent: boolean,
  hasOtherCurrent: boolean,
): 'cname' | 'other' | undefined {
  if (!hasCnameCandidate || !hasOtherCandidate) return undefined;
  return hasCnameCurrent && !hasOtherCurrent ? 'other' : 'cname';
}
