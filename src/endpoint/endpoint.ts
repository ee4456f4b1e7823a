/**
 * The endpoint model, in the JSON shape external-dns uses (`dnsName`, `targets`, `recordType`,
 * `setIdentifier`, `recordTTL`, `labels`, `providerSpecific`) so that files, webhook bodies and
 * `plan --output json` are interchangeable with external-dns.
 */
import { isIPv6 } from 'node:net';
import { canonicalNaptr } from './naptr.ts';

export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'TXT', 'SRV', 'MX', 'NS', 'CAA', 'PTR', 'NAPTR', 'DNAME'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export function isRecordType(value: string): value is RecordType {
  return (RECORD_TYPES as readonly string[]).includes(value);
}

/** Label keys stored in the ownership TXT record, as external-dns names them. */
export const LABEL_OWNER = 'owner';
export const LABEL_RESOURCE = 'resource';
export const LABEL_OWNED_RECORD = 'ownedRecord';
export const LABEL_ENCRYPTION_NONCE = 'txt-encryption-nonce';

export type Labels = Record<string, string>;

export interface ProviderSpecificProperty {
  name: string;
  value: string;
}

/** An endpoint as the planner and providers see it: every field present, names normalised. */
export interface Endpoint {
  dnsName: string;
  targets: string[];
  recordType: RecordType;
  setIdentifier: string;
  /** 0 means "not set": the provider's default applies and the planner never updates for TTL. */
  recordTTL: number;
  labels: Labels;
  providerSpecific: ProviderSpecificProperty[];
}

export interface EndpointInit {
  dnsName: string;
  targets: readonly string[];
  recordType: RecordType;
  setIdentifier?: string;
  recordTTL?: number;
  labels?: Labels;
  providerSpecific?: readonly ProviderSpecificProperty[];
}

export function newEndpoint(init: EndpointInit): Endpoint {
  return {
    dnsName: init.dnsName,
    targets: [...init.targets],
    recordType: init.recordType,
    setIdentifier: init.setIdentifier ?? '',
    recordTTL: init.recordTTL ?? 0,
    labels: { ...(init.labels ?? {}) },
    providerSpecific: (init.providerSpecific ?? []).map((p) => ({ name: p.name, value: p.value })),
  };
}

export function cloneEndpoint(ep: Endpoint): Endpoint {
  return newEndpoint(ep);
}

/**
 * Makes an endpoint read-only, in place, and returns it. The Kubernetes sources, the records cache
 * and the in-memory provider hand out the endpoints they keep instead of copies (tens of thousands
 * per sync), so an accidental write downstream must fail loudly rather than corrupt a cache.
 * Whoever needs a changed endpoint clones it first.
 */
export function freezeEndpoint(ep: Endpoint): Endpoint {
  if (Object.isFrozen(ep)) return ep;
  Object.freeze(ep.targets);
  Object.freeze(ep.labels);
  // Most endpoints have no provider-specific properties: one shared empty list serves them all.
  if (ep.providerSpecific.length === 0) ep.providerSpecific = NO_PROVIDER_SPECIFIC;
  for (const p of ep.providerSpecific) Object.freeze(p);
  Object.freeze(ep.providerSpecific);
  return Object.freeze(ep);
}

const NO_PROVIDER_SPECIFIC: ProviderSpecificProperty[] = Object.freeze([]) as unknown as ProviderSpecificProperty[];

/** The endpoint itself when it is read-only (shared safely), else a copy to keep. */
export function retainEndpoint(ep: Endpoint): Endpoint {
  return Object.isFrozen(ep) ? ep : cloneEndpoint(ep);
}

/** Field-wise equality, without allocating: it runs over every endpoint of every sync. */
export function sameEndpoint(a: Endpoint, b: Endpoint): boolean {
  if (a === b) return true;
  if (a.dnsName !== b.dnsName || a.recordType !== b.recordType || a.setIdentifier !== b.setIdentifier || a.recordTTL !== b.recordTTL) return false;
  if (a.targets.length !== b.targets.length || a.providerSpecific.length !== b.providerSpecific.length) return false;
  for (let i = 0; i < a.targets.length; i++) if (a.targets[i] !== b.targets[i]) return false;
  for (let i = 0; i < a.providerSpecific.length; i++) {
    const x = a.providerSpecific[i];
    const y = b.providerSpecific[i];
    if (x?.name !== y?.name || x?.value !== y?.value) return false;
  }
  for (const k in a.labels) if (a.labels[k] !== b.labels[k]) return false;
  for (const k in b.labels) if (!Object.hasOwn(a.labels, k)) return false;
  return true;
}

/** Same endpoints in the same order. */
export function sameEndpoints(a: readonly Endpoint[], b: readonly Endpoint[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameEndpoint(a[i] as Endpoint, b[i] as Endpoint)) return false;
  return true;
}

/** Identity of a record set: name, type and set identifier. */
export function endpointKey(ep: Pick<Endpoint, 'dnsName' | 'recordType' | 'setIdentifier'>): string {
  return `${ep.dnsName}\u0000${ep.recordType}\u0000${ep.setIdentifier}`;
}

export function getProviderSpecific(ep: Endpoint, name: string): string | undefined {
  return ep.providerSpecific.find((p) => p.name === name)?.value;
}

/**
 * Canonical form of a target for comparison: hostnames lower-cased without a trailing dot,
 * IPv6 addresses in their shortest form. TXT and CAA values are compared as written; NAPTR in
 * its canonical presentation form (naptr.ts), whose replacement keeps its trailing dot.
 */
export function canonicalTarget(recordType: RecordType, target: string): string {
  switch (recordType) {
    case 'TXT':
      // Registries write TXT values in presentation quotes; providers may return them bare.
      return target.length >= 2 && target.startsWith('"') && target.endsWith('"') ? target.slice(1, -1) : target;
    case 'CAA':
      return target;
    case 'NAPTR':
      return canonicalNaptr(target) ?? target;
    case 'AAAA':
      return isIPv6(target) ? normaliseIPv6(target) : target.toLowerCase();
    default: {
      const lower = target.toLowerCase();
      return lower.endsWith('.') && lower.length > 1 ? lower.slice(0, -1) : lower;
    }
  }
}

/** Targets are equal as sets, ignoring order, case of hostnames and IPv6 spelling. */
export function sameTargets(recordType: RecordType, a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const ca = a.map((t) => canonicalTarget(recordType, t)).sort();
  const cb = b.map((t) => canonicalTarget(recordType, t)).sort();
  return ca.every((t, i) => t === cb[i]);
}

export function sameProviderSpecific(a: readonly ProviderSpecificProperty[], b: readonly ProviderSpecificProperty[]): boolean {
  if (a.length !== b.length) return false;
  const ma = new Map(a.map((p) => [p.name, p.value]));
  return b.every((p) => ma.get(p.name) === p.value);
}

function normaliseIPv6(address: string): string {
  // URL parsing yields the RFC 5952 form ("[2001:db8::1]") without external dependencies.
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address.toLowerCase();
  }
}

/** The external-dns JSON shape: empty optional fields are omitted. */
export interface EndpointJSON {
  dnsName: string;
  targets: string[];
  recordType: string;
  setIdentifier?: string;
  recordTTL?: number;
  labels?: Labels;
  providerSpecific?: ProviderSpecificProperty[];
}

export function endpointToJSON(ep: Endpoint): EndpointJSON {
  const out: EndpointJSON = { dnsName: ep.dnsName, targets: [...ep.targets], recordType: ep.recordType };
  if (ep.setIdentifier !== '') out.setIdentifier = ep.setIdentifier;
  if (ep.recordTTL > 0) out.recordTTL = ep.recordTTL;
  if (Object.keys(ep.labels).length > 0) out.labels = { ...ep.labels };
  if (ep.providerSpecific.length > 0) out.providerSpecific = ep.providerSpecific.map((p) => ({ ...p }));
  return out;
}

export function describeEndpoint(ep: Pick<Endpoint, 'dnsName' | 'recordType' | 'setIdentifier'>): string {
  return ep.setIdentifier === '' ? `${ep.dnsName} ${ep.recordType}` : `${ep.dnsName} ${ep.recordType} [${ep.setIdentifier}]`;
}
