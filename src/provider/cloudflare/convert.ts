/**
 * Cloudflare records ↔ endpoints, as external-dns's cloudflare provider converts them. Cloudflare
 * holds one record per value, so records are grouped by name and type into one endpoint; MX reads
 * as "priority host", SRV as "priority weight port target." and CAA as Cloudflare formats it.
 * The record's proxied flag, comment and tags, and the zone's custom hostnames pointing at the
 * name, come back as provider-specific properties, so that a change in any of them is an update.
 */
import { describeEndpoint, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../../endpoint/endpoint.ts';
import { tryNormalizeRecordName } from '../../endpoint/name.ts';
import { ALPHA_PREFIX, annotationPrefixes } from '../../source/translate/annotations.ts';
import type { CfRecord, CfRecordData, CfRecordInput } from './api.ts';

/** Types Cloudflare holds that Hostwarden reads and writes. */
export const CLOUDFLARE_TYPES: readonly RecordType[] = ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'SRV', 'NS', 'CAA'];
export const UNSUPPORTED_TYPES: readonly RecordType[] = ['PTR', 'NAPTR', 'DNAME'];
/** Types Cloudflare cannot proxy (external-dns's list). */
export const NOT_PROXIABLE: ReadonlySet<string> = new Set(['LOC', 'MX', 'NS', 'SPF', 'TXT', 'SRV']);
/** TTL 1 is Cloudflare's "automatic", what an endpoint without a TTL gets. */
export const AUTOMATIC_TTL = 1;

/** The provider-specific property names, named after their annotation as the sources name them. */
export interface PropertyNames {
  proxied: string;
  customHostname: string;
  regionKey: string;
  comment: string;
  tags: string;
}

/** As the annotation translator names them: the alpha prefix by default, else the one custom prefix. */
export function propertyNames(annotationPrefix?: string): PropertyNames {
  const prefixes = annotationPrefixes(annotationPrefix);
  const p = prefixes.length > 1 ? ALPHA_PREFIX : (prefixes[0] ?? ALPHA_PREFIX);
  return {
    proxied: `${p}cloudflare-proxied`,
    customHostname: `${p}cloudflare-custom-hostname`,
    regionKey: `${p}cloudflare-region-key`,
    comment: `${p}cloudflare-record-comment`,
    tags: `${p}cloudflare-tags`,
  };
}

/** Comma-separated tags, trimmed, empty ones dropped, sorted: one spelling for comparing. */
export function parseTags(value: string): string[] {
  return value
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '')
    .sort();
}

/** external-dns's SRV target: with a trailing dot (Cloudflare stores it without). */
function srvTargetOut(target: string): string {
  return target === '.' || target.endsWith('.') ? target : `${target}.`;
}

/** The endpoint target of one Cloudflare record. */
export function targetOf(r: CfRecord): string {
  if (r.type === 'MX') return `${r.priority ?? 0} ${r.content}`;
  if (r.type === 'SRV' && r.data?.target !== undefined && r.data.target !== '') {
    return `${r.data.priority ?? 0} ${r.data.weight ?? 0} ${r.data.port ?? 0} ${srvTargetOut(r.data.target)}`;
  }
  if (r.type === 'CAA' && r.data?.tag !== undefined && (r.content === '' || r.content === undefined)) {
    return `${r.data.flags ?? 0} ${r.data.tag} "${r.data.value ?? ''}"`;
  }
  return r.content;
}

/** The key upstream finds a record's id by: name, type and target. */
export function recordIndex(name: string, type: string, target: string): string {
  return `${name.toLowerCase()}\u0000${type}\u0000${type === 'CAA' || type === 'TXT' ? target : target.toLowerCase()}`;
}

export function indexOfRecord(r: CfRecord): string {
  return recordIndex(r.name, r.type, targetOf(r));
}

/**
 * Records grouped into endpoints by name and type, with the first record's TTL, proxied flag,
 * comment and tags (external-dns reads them from the first record of a group as well), and the
 * custom hostnames whose origin is the name.
 */
export function recordsToEndpoints(
  records: Iterable<CfRecord>,
  names: PropertyNames,
  customHostnames: ReadonlyMap<string, string[]> | undefined,
  onInvalidName: (r: CfRecord) => void = () => undefined,
): Endpoint[] {
  const groups = new Map<string, CfRecord[]>();
  for (const r of records) {
    if (!(CLOUDFLARE_TYPES as readonly string[]).includes(r.type)) continue;
    // A name no endpoint can carry (a label over 63 characters) is left alone, as external-dns does.
    if (tryNormalizeRecordName(r.name) === undefined) {
      onInvalidName(r);
      continue;
    }
    const key = `${r.name.toLowerCase()}\u0000${r.type}`;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [r]);
    else g.push(r);
  }
  const out: Endpoint[] = [];
  for (const g of groups.values()) {
    const first = g[0] as CfRecord;
    const providerSpecific = [{ name: names.proxied, value: String(first.proxied) }];
    const chs = customHostnames?.get(first.name.toLowerCase());
    if (chs !== undefined && chs.length > 0) providerSpecific.push({ name: names.customHostname, value: [...chs].sort().join(',') });
    if (first.comment !== undefined && first.comment !== null && first.comment !== '') providerSpecific.push({ name: names.comment, value: first.comment });
    if (first.tags !== undefined && first.tags.length > 0) providerSpecific.push({ name: names.tags, value: [...first.tags].sort().join(',') });
    out.push(
      newEndpoint({
        dnsName: first.name.toLowerCase(),
        recordType: first.type as RecordType,
        targets: g.map(targetOf),
        recordTTL: first.ttl,
        providerSpecific,
      }),
    );
  }
  return out;
}

/** What one record of an endpoint carries besides its value. */
export interface RecordSettings {
  proxied: boolean;
  ttl: number;
  comment: string;
  tags: string[];
}

/** One Cloudflare record for one target of an endpoint; throws on an MX, SRV or CAA value it cannot parse. */
export function recordInput(ep: Endpoint, target: string, s: RecordSettings): CfRecordInput {
  const base = { name: ep.dnsName, type: ep.recordType, ttl: s.ttl, proxied: s.proxied, comment: s.comment, tags: s.tags };
  const fields = target.trim().split(/\s+/);
  switch (ep.recordType) {
    case 'MX': {
      const [prio, host] = fields;
      if (fields.length !== 2 || !/^\d+$/.test(prio ?? ''))
        throw new Error(`${describeEndpoint(ep)}: MX target ${JSON.stringify(target)} is not "priority host"`);
      return { ...base, content: (host as string).replace(/\.$/, ''), priority: Number(prio) };
    }
    case 'SRV': {
      const [prio, weight, port, host] = fields;
      if (fields.length !== 4 || ![prio, weight, port].every((n) => /^\d+$/.test(n ?? '')))
        throw new Error(`${describeEndpoint(ep)}: SRV target ${JSON.stringify(target)} is not "priority weight port target"`);
      const data: CfRecordData = {
        priority: Number(prio),
        weight: Number(weight),
        port: Number(port),
        target: host === '.' ? '.' : (host as string).replace(/\.$/, ''),
      };
      return { ...base, content: target, data };
    }
    case 'CAA': {
      const m = /^(\d+)\s+(\S+)\s+"?(.*?)"?$/.exec(target.trim());
      if (m === null) throw new Error(`${describeEndpoint(ep)}: CAA target ${JSON.stringify(target)} is not "flags tag value"`);
      return { ...base, content: target, data: { flags: Number(m[1]), tag: m[2] as string, value: m[3] as string } };
    }
    default:
      return { ...base, content: target };
  }
}
