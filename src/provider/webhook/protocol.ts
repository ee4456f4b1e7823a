/**
 * The external-dns webhook protocol, version 1: media type, and the JSON of domain filters,
 * endpoint lists and change sets in both directions. external-dns's Go decoder matches keys
 * case-insensitively and turns `null` into empty lists, so what we read does the same; what we
 * write is the lower-camel-case form external-dns's own webhook server declares.
 */
import { DomainFilter } from '../../endpoint/domain-filter.ts';
import { endpointToJSON, isRecordType } from '../../endpoint/endpoint.ts';
import type { Endpoint, EndpointJSON } from '../../endpoint/endpoint.ts';
import { endpointFromJSON } from '../../endpoint/json.ts';
import { InvalidEndpointError } from '../../errors.ts';
import type { Changes } from '../../plan/changes.ts';

export const MEDIA_TYPE = 'application/external.dns.webhook+json;version=1';

/** True for a Content-Type naming the protocol's media type and version 1 (spacing and case aside). */
export function isWebhookMediaType(contentType: string | null | undefined): boolean {
  if (contentType === null || contentType === undefined) return false;
  const [type, ...params] = contentType.split(';').map((p) => p.trim().toLowerCase());
  return type === 'application/external.dns.webhook+json' && params.some((p) => p.replace(/\s+/g, '') === 'version=1');
}

/** Reads `key` from a JSON object ignoring case, as Go's encoding/json does. */
function field(o: Record<string, unknown>, key: string): unknown {
  if (key in o) return o[key];
  const lower = key.toLowerCase();
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) return o[k];
  return undefined;
}

function asObject(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidEndpointError(`${where}: expected a JSON object`);
  return value as Record<string, unknown>;
}

function stringList(value: unknown, where: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new InvalidEndpointError(`${where}: expected a list of strings`);
  return value as string[];
}

function regex(value: unknown, where: string): RegExp | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new InvalidEndpointError(`${where}: expected a string`);
  try {
    return new RegExp(value);
  } catch (err) {
    throw new InvalidEndpointError(`${where}: invalid regular expression ${JSON.stringify(value)}: ${(err as Error).message}`);
  }
}

export interface DomainFilterJSON {
  include?: string[];
  exclude?: string[];
  regexInclude?: string;
  regexExclude?: string;
}

/** As external-dns serialises it: regex fields when a regex is set, else the lists; empty parts omitted. */
export function domainFilterToJSON(filter: DomainFilter): DomainFilterJSON {
  if (filter.usesRegex) {
    const out: DomainFilterJSON = {};
    if (filter.regexInclude !== undefined) out.regexInclude = filter.regexInclude.source;
    if (filter.regexExclude !== undefined) out.regexExclude = filter.regexExclude.source;
    return out;
  }
  const out: DomainFilterJSON = {};
  if (filter.include.length > 0) out.include = [...filter.include].sort();
  if (filter.exclude.length > 0) out.exclude = [...filter.exclude].sort();
  return out;
}

/** `{}` (or null) is "no filter"; older servers name the include list `filters`. */
export function domainFilterFromJSON(value: unknown): DomainFilter {
  if (value === null) return new DomainFilter();
  const o = asObject(value, 'domain filter');
  const include = stringList(field(o, 'include') ?? field(o, 'filters'), 'domain filter include');
  const exclude = stringList(field(o, 'exclude'), 'domain filter exclude');
  const regexInclude = regex(field(o, 'regexInclude'), 'domain filter regexInclude');
  const regexExclude = regex(field(o, 'regexExclude'), 'domain filter regexExclude');
  return new DomainFilter({ include, exclude, regexInclude, regexExclude });
}

export interface EndpointsRead {
  endpoints: Endpoint[];
  /** Endpoints of record types Hostwarden does not model, skipped rather than failing the sync. */
  skipped: string[];
}

/** An endpoint list; `null` is empty. Unknown record types are skipped and reported. */
export function endpointsFromWire(value: unknown, where: string): EndpointsRead {
  if (value === null || value === undefined) return { endpoints: [], skipped: [] };
  if (!Array.isArray(value)) throw new InvalidEndpointError(`${where}: expected a JSON array of endpoints`);
  const endpoints: Endpoint[] = [];
  const skipped: string[] = [];
  value.forEach((item, i) => {
    const o = asObject(item, `${where}[${i}]`);
    // Keys as Go reads them, so `DNSName` or `RecordType` from a hand-written server also work.
    const normalised: Record<string, unknown> = {};
    for (const key of ['dnsName', 'targets', 'recordType', 'setIdentifier', 'recordTTL', 'labels', 'providerSpecific']) {
      const v = field(o, key);
      if (v !== undefined && v !== null) normalised[key] = v;
    }
    const type = normalised['recordType'];
    if (typeof type === 'string' && !isRecordType(type.toUpperCase())) {
      skipped.push(`${String(normalised['dnsName'])} ${type}`);
      return;
    }
    endpoints.push(endpointFromJSON(normalised, `${where}[${i}]`));
  });
  return { endpoints, skipped };
}

export function endpointsToWire(endpoints: readonly Endpoint[]): EndpointJSON[] {
  return endpoints.map(endpointToJSON);
}

export interface ChangesJSON {
  create: EndpointJSON[];
  updateOld: EndpointJSON[];
  updateNew: EndpointJSON[];
  delete: EndpointJSON[];
}

export function changesToWire(changes: Changes): ChangesJSON {
  return {
    create: endpointsToWire(changes.create),
    updateOld: endpointsToWire(changes.updateOld),
    updateNew: endpointsToWire(changes.updateNew),
    delete: endpointsToWire(changes.delete),
  };
}

/** Accepts `create`/`Create`/`CREATE`…, missing or null lists; endpoints of unknown types are refused. */
export function changesFromWire(value: unknown): Changes {
  const o = asObject(value, 'changes');
  const list = (key: string): Endpoint[] => {
    const read = endpointsFromWire(field(o, key), key);
    if (read.skipped.length > 0) throw new InvalidEndpointError(`${key}: unsupported record type in ${read.skipped.join(', ')}`);
    return read.endpoints;
  };
  return { create: list('create'), updateOld: list('updateOld'), updateNew: list('updateNew'), delete: list('delete') };
}
