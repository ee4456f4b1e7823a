/**
 * Translation between endpoints and Azure DNS record sets (public and private zones share the
 * SDK model). Azure keeps one record set per name and type, names relative to the zone ('@' at
 * the apex), hostnames without a trailing dot and TXT values unquoted as arrays of strings that
 * the client must split itself (at most 255 bytes each, as in DNS).
 */
import { canonicalTarget, describeEndpoint, isRecordType, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../../endpoint/endpoint.ts';
import { InvalidEndpointError } from '../../errors.ts';
import { metadataOfEndpoint, metadataOfRecordSet } from './metadata.ts';

/** The fields of the SDK's RecordSet (arm-dns and arm-privatedns) the provider reads and writes. */
export interface AzureRecordSetModel {
  name?: string;
  type?: string;
  etag?: string;
  ttl?: number;
  aRecords?: { ipv4Address?: string }[];
  aaaaRecords?: { ipv6Address?: string }[];
  cnameRecord?: { cname?: string };
  txtRecords?: { value?: string[] }[];
  mxRecords?: { preference?: number; exchange?: string }[];
  srvRecords?: { priority?: number; weight?: number; port?: number; target?: string }[];
  ptrRecords?: { ptrdname?: string }[];
  nsRecords?: { nsdname?: string }[];
  caaRecords?: { flags?: number; tag?: string; value?: string }[];
  /** `properties.metadata`: external-dns writes the azure-tags annotation here. */
  metadata?: Record<string, string>;
}

export const PUBLIC_TYPES: readonly RecordType[] = ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'SRV', 'PTR', 'NS', 'CAA'];
export const PRIVATE_TYPES: readonly RecordType[] = ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'SRV', 'PTR'];
/** Types endpoints may carry that neither Azure DNS nor Azure Private DNS can store. */
export const AZURE_UNSUPPORTED_TYPES: readonly RecordType[] = ['NAPTR', 'DNAME'];

const MAX_TXT_STRING = 255;

/** Splits a TXT value into strings of at most 255 UTF-8 bytes without cutting a character. */
export function splitTxt(value: string): string[] {
  const parts: string[] = [];
  let current = '';
  let size = 0;
  for (const ch of value) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (size + n > MAX_TXT_STRING) {
      parts.push(current);
      current = '';
      size = 0;
    }
    current += ch;
    size += n;
  }
  parts.push(current);
  return parts;
}

/** The record type of an SDK record set: its `type` is 'Microsoft.Network/dnszones/A'. */
export function recordTypeOf(set: AzureRecordSetModel): string {
  return (set.type ?? '').split('/').pop()?.toUpperCase() ?? '';
}

/** The endpoint name of a relative record set name in `zone`. */
export function fqdnOf(relative: string, zone: string): string {
  return relative === '@' || relative === '' ? zone : `${relative.toLowerCase()}.${zone}`;
}

/** The relative record set name of `dnsName` in `zone` ('@' at the apex). */
export function relativeName(dnsName: string, zone: string): string {
  return dnsName === zone ? '@' : dnsName.slice(0, dnsName.length - zone.length - 1);
}

const host = (t: string | undefined): string => canonicalTarget('CNAME', t ?? '');

function targetsOf(type: RecordType, set: AzureRecordSetModel): string[] {
  switch (type) {
    case 'A':
      return (set.aRecords ?? []).map((r) => r.ipv4Address ?? '');
    case 'AAAA':
      return (set.aaaaRecords ?? []).map((r) => canonicalTarget('AAAA', r.ipv6Address ?? ''));
    case 'CNAME':
      return set.cnameRecord?.cname === undefined ? [] : [host(set.cnameRecord.cname)];
    case 'TXT':
      return (set.txtRecords ?? []).map((r) => (r.value ?? []).join(''));
    case 'MX':
      return (set.mxRecords ?? []).map((r) => `${r.preference ?? 0} ${host(r.exchange)}`);
    case 'SRV':
      return (set.srvRecords ?? []).map((r) => `${r.priority ?? 0} ${r.weight ?? 0} ${r.port ?? 0} ${host(r.target)}`);
    case 'PTR':
      return (set.ptrRecords ?? []).map((r) => host(r.ptrdname));
    case 'NS':
      return (set.nsRecords ?? []).map((r) => host(r.nsdname));
    case 'CAA':
      return (set.caaRecords ?? []).map((r) => `${r.flags ?? 0} ${r.tag ?? ''} "${r.value ?? ''}"`);
    case 'NAPTR':
    case 'DNAME':
      return [];
  }
}

/** The endpoint of one listed record set in `zone`, or undefined for types not managed here (SOA, …). */
export function recordSetToEndpoint(set: AzureRecordSetModel, zone: string, types: readonly RecordType[]): Endpoint | undefined {
  const type = recordTypeOf(set);
  if (!isRecordType(type) || !types.includes(type)) return undefined;
  const targets = targetsOf(type, set).filter((t) => t !== '');
  if (targets.length === 0) return undefined;
  return newEndpoint({
    dnsName: fqdnOf(set.name ?? '@', zone),
    recordType: type,
    targets,
    recordTTL: set.ttl ?? 0,
    providerSpecific: metadataOfRecordSet(set.metadata),
  });
}

function fields(ep: Endpoint, target: string, count: number): string[] {
  const parts = target.trim().split(/\s+/);
  if (parts.length !== count) throw new InvalidEndpointError(`${describeEndpoint(ep)}: target ${JSON.stringify(target)} needs ${count} fields`);
  return parts;
}

/**
 * The record set body for an endpoint: TTL, the one records field of its type and its metadata
 * (a PUT replaces the whole set, so an endpoint without metadata properties clears it).
 */
export function endpointToRecordSet(ep: Endpoint, defaultTTL: number): AzureRecordSetModel {
  const set: AzureRecordSetModel = { ttl: ep.recordTTL > 0 ? ep.recordTTL : defaultTTL };
  const metadata = metadataOfEndpoint(ep);
  if (metadata !== undefined) set.metadata = metadata;
  const t = ep.targets;
  switch (ep.recordType) {
    case 'A':
      set.aRecords = t.map((ipv4Address) => ({ ipv4Address }));
      break;
    case 'AAAA':
      set.aaaaRecords = t.map((ipv6Address) => ({ ipv6Address }));
      break;
    case 'CNAME':
      // Azure holds one CNAME per record set, as DNS does.
      if (t.length !== 1) throw new InvalidEndpointError(`${describeEndpoint(ep)}: a CNAME has exactly one target`);
      set.cnameRecord = { cname: host(t[0]) };
      break;
    case 'TXT':
      set.txtRecords = t.map((v) => ({ value: splitTxt(canonicalTarget('TXT', v)) }));
      break;
    case 'MX':
      set.mxRecords = t.map((v) => {
        const [pref, exchange] = fields(ep, v, 2);
        return { preference: Number(pref), exchange: host(exchange) };
      });
      break;
    case 'SRV':
      set.srvRecords = t.map((v) => {
        const [priority, weight, port, target] = fields(ep, v, 4);
        return { priority: Number(priority), weight: Number(weight), port: Number(port), target: host(target) };
      });
      break;
    case 'PTR':
      set.ptrRecords = t.map((v) => ({ ptrdname: host(v) }));
      break;
    case 'NS':
      set.nsRecords = t.map((v) => ({ nsdname: host(v) }));
      break;
    case 'CAA':
      set.caaRecords = t.map((v) => {
        const m = /^(\d+)\s+(\S+)\s+"?(.*?)"?$/.exec(v.trim());
        if (m === null) throw new InvalidEndpointError(`${describeEndpoint(ep)}: CAA target ${JSON.stringify(v)} is not "flags tag value"`);
        return { flags: Number(m[1]), tag: m[2] as string, value: m[3] as string };
      });
      break;
    case 'NAPTR':
    case 'DNAME':
      throw new InvalidEndpointError(`${describeEndpoint(ep)}: Azure DNS has no ${ep.recordType} record type`);
  }
  return set;
}
