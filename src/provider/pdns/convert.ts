/**
 * Translation between endpoints and PowerDNS rrsets. PowerDNS speaks zone-file presentation
 * format with absolute names: owner names and hostname targets end with a dot and TXT content is
 * quoted (one quoted string per 255 bytes). Endpoints carry neither, so both directions convert.
 */
import { describeEndpoint, isRecordType, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { normalizeRecordName, tryNormalizeRecordName } from '../../endpoint/name.ts';
import { InvalidEndpointError } from '../../errors.ts';
import { absoluteName, fromPresentation, toPresentation, zoneOf } from '../presentation.ts';

export interface PdnsRecord {
  content: string;
  disabled?: boolean;
}

export interface PdnsRRSet {
  name: string;
  type: string;
  ttl?: number;
  changetype?: 'REPLACE' | 'DELETE';
  records?: PdnsRecord[];
}

/** The rrsets of one zone's PATCH: deletes and replacements, at most one entry per name and type. */
export interface ZonePatch {
  zone: string;
  rrsets: PdnsRRSet[];
  /** `name type` of each endpoint in the patch, for error messages. */
  records: string[];
}

/**
 * Endpoints of a zone's rrsets; types Hostwarden does not model (SOA, …) and disabled records are
 * left out. Names an endpoint cannot hold (e.g. RFC 2317 `0/26.2.0.192.in-addr.arpa`) are
 * returned in `skipped` rather than failing the whole zone: Hostwarden never manages them anyway.
 */
export function rrsetsToEndpoints(rrsets: readonly PdnsRRSet[], skipped: string[] = []): Endpoint[] {
  const out: Endpoint[] = [];
  for (const set of rrsets) {
    // An ALIAS rrset is a CNAME endpoint with alias=true, as external-dns models it.
    const alias = set.type === ALIAS_TYPE;
    const type = alias ? 'CNAME' : set.type;
    if (!isRecordType(type)) continue;
    const targets = (set.records ?? []).filter((r) => r.disabled !== true).map((r) => fromPresentation(type, r.content));
    if (targets.length === 0) continue;
    const dnsName = tryNormalizeRecordName(set.name);
    if (dnsName === undefined) {
      skipped.push(`${set.name} ${type}`);
      continue;
    }
    out.push(newEndpoint({ dnsName, recordType: type, targets, recordTTL: set.ttl ?? 0, providerSpecific: alias ? [ALIAS_TRUE] : [] }));
  }
  return out;
}

/** PowerDNS's ALIAS type: a CNAME-like record PowerDNS resolves itself (needs `expand-alias`). */
export const ALIAS_TYPE = 'ALIAS';
const ALIAS_TRUE = { name: 'alias', value: 'true' } as const;

/**
 * The rrset type an endpoint is written as: a CNAME with `alias=true` (the annotation, or
 * --prefer-alias) or at a zone apex, where a CNAME cannot be, is an ALIAS, as in external-dns.
 */
export function pdnsType(ep: Endpoint, zone: string): string {
  if (ep.recordType !== 'CNAME') return ep.recordType;
  const alias = ep.providerSpecific.some((p) => p.name === 'alias' && p.value === 'true');
  return alias || normalizeRecordName(ep.dnsName) === zone ? ALIAS_TYPE : 'CNAME';
}

/**
 * Desired endpoints as records() returns them: PowerDNS stores no provider-specific properties, so
 * only `alias=true` stays, on the CNAMEs written as ALIAS (apex ones included).
 */
export function adjustForPdns(ep: Endpoint, zones: readonly string[]): Endpoint {
  const name = tryNormalizeRecordName(ep.dnsName);
  const zone = name === undefined ? undefined : zoneOf(name, zones);
  const alias = zone !== undefined && pdnsType(ep, zone) === ALIAS_TYPE;
  if (!alias && ep.providerSpecific.length === 0) return ep;
  if (alias && ep.providerSpecific.length === 1 && ep.providerSpecific[0]?.name === 'alias' && ep.providerSpecific[0].value === 'true') return ep;
  return newEndpoint({ ...ep, providerSpecific: alias ? [ALIAS_TRUE] : [] });
}

export interface PatchPlan {
  patches: ZonePatch[];
  /** Endpoints no known zone contains. */
  orphans: Endpoint[];
}

/**
 * Groups changes into one PATCH per zone. Creates and new versions of updates become REPLACE of
 * the whole rrset, with the targets of every endpoint sharing name and type merged (PowerDNS has
 * no set identifiers); deletes become DELETE unless the same rrset is replaced in this batch.
 * Old versions of updates need nothing: REPLACE overwrites them.
 */
export function planPatches(
  changes: { create: readonly Endpoint[]; updateOld?: readonly Endpoint[]; updateNew: readonly Endpoint[]; delete: readonly Endpoint[] },
  zones: readonly string[],
  defaultTTL: number,
): PatchPlan {
  const orphans: Endpoint[] = [];
  const byZone = new Map<string, { replace: Map<string, PdnsRRSet>; remove: Map<string, PdnsRRSet>; records: string[] }>();
  const entry = (
    ep: Endpoint,
    describe = true,
  ): { zone: string; replace: Map<string, PdnsRRSet>; remove: Map<string, PdnsRRSet>; records: string[] } | undefined => {
    const name = normalizeRecordName(ep.dnsName);
    const zone = zoneOf(name, zones);
    if (zone === undefined) {
      if (describe) orphans.push(ep);
      return undefined;
    }
    let e = byZone.get(zone);
    if (e === undefined) {
      e = { replace: new Map(), remove: new Map(), records: [] };
      byZone.set(zone, e);
    }
    if (describe) e.records.push(describeEndpoint(ep));
    return { zone, ...e };
  };
  const typeOf = (ep: Endpoint): string => {
    const zone = zoneOf(normalizeRecordName(ep.dnsName), zones);
    return zone === undefined ? ep.recordType : pdnsType(ep, zone);
  };
  const key = (ep: Endpoint): string => `${normalizeRecordName(ep.dnsName)}\u0000${typeOf(ep)}`;

  for (const ep of [...changes.create, ...changes.updateNew]) {
    if (ep.targets.length === 0) throw new InvalidEndpointError(`${describeEndpoint(ep)}: no targets`);
    const e = entry(ep);
    if (e === undefined) continue;
    const k = key(ep);
    const contents = ep.targets.map((t) => toPresentation(ep.recordType, t));
    const existing = e.replace.get(k);
    if (existing === undefined) {
      e.replace.set(k, {
        name: absoluteName(normalizeRecordName(ep.dnsName)),
        type: typeOf(ep),
        ttl: ep.recordTTL > 0 ? ep.recordTTL : defaultTTL,
        changetype: 'REPLACE',
        records: [...new Set(contents)].map((content) => ({ content, disabled: false })),
      });
    } else {
      const seen = new Set((existing.records ?? []).map((r) => r.content));
      for (const content of contents) if (!seen.has(content)) existing.records?.push({ content, disabled: false });
    }
  }
  const remove = (ep: Endpoint, describe: boolean): void => {
    const e = entry(ep, describe);
    if (e === undefined) return;
    const k = key(ep);
    if (!e.replace.has(k)) e.remove.set(k, { name: absoluteName(normalizeRecordName(ep.dnsName)), type: typeOf(ep), changetype: 'DELETE', records: [] });
  };
  for (const ep of changes.delete) remove(ep, true);
  // The old version of an update is overwritten by the new one's REPLACE, unless its rrset type
  // differs (CNAME ↔ ALIAS when the alias property changes): then the old rrset is deleted.
  for (const ep of changes.updateOld ?? []) remove(ep, false);
  const patches: ZonePatch[] = [];
  for (const [zone, e] of byZone) {
    const rrsets = [...e.remove.values(), ...e.replace.values()];
    if (rrsets.length > 0) patches.push({ zone, rrsets, records: e.records });
  }
  return { patches, orphans };
}
