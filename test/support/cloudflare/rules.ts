/**
 * Cloudflare's documented DNS record rules, as pure checks that throw CloudflareFault. Codes are the
 * ones Cloudflare answers with (README.md in this folder names the source of each).
 */
import { isIPv4, isIPv6 } from 'node:net';

export type Plan = 'free' | 'pro' | 'business' | 'enterprise';

/** One Cloudflare API error: HTTP status plus the `{code, message}` of the error envelope. */
export class CloudflareFault extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    /** Cloudflare nests the precise cause of a validation error in `error_chain`. */
    readonly chain: { code: number; message: string }[] = [],
  ) {
    super(message);
  }
}

/** Cloudflare wraps most record validation failures as 1004 "DNS Validation Error" with the cause chained. */
export function validation(code: number, message: string): CloudflareFault {
  return new CloudflareFault(400, 1004, 'DNS Validation Error', [{ code, message }]);
}

export const PROXIABLE_TYPES: ReadonlySet<string> = new Set(['A', 'AAAA', 'CNAME']);

export const RECORD_TYPES: ReadonlySet<string> = new Set([
  'A',
  'AAAA',
  'CAA',
  'CERT',
  'CNAME',
  'DNSKEY',
  'DS',
  'HTTPS',
  'LOC',
  'MX',
  'NAPTR',
  'NS',
  'OPENPGPKEY',
  'PTR',
  'SMIMEA',
  'SRV',
  'SSHFP',
  'SVCB',
  'TLSA',
  'TXT',
  'URI',
]);

/** Record comment length: 100 on Free zones, 500 on paid plans. */
export function maxCommentLength(plan: Plan): number {
  return plan === 'free' ? 100 : 500;
}

/** Changes per batch request: 200 on Free, 3,500 on paid plans. */
export function defaultBatchLimit(plan: Plan): number {
  return plan === 'free' ? 200 : 3500;
}

/** TTL 1 means automatic; otherwise 60–86400, with 30 allowed on Enterprise zones. */
export function checkTtl(ttl: number, plan: Plan): void {
  if (ttl === 1) return;
  const min = plan === 'enterprise' ? 30 : 60;
  if (!Number.isInteger(ttl) || ttl < min || ttl > 86400) {
    throw validation(9021, `TTL must be between ${min} and 86400 seconds, or 1 for Automatic.`);
  }
}

export function checkType(type: unknown): string {
  if (typeof type !== 'string' || !RECORD_TYPES.has(type)) throw validation(9020, 'Invalid DNS record type');
  return type;
}

const LABEL = /^[a-z0-9_*](?:[a-z0-9_*-]{0,61}[a-z0-9_*])?$/;

/**
 * Names are fully qualified, lower-cased, inside the zone; a leading `*` label is a wildcard, and a
 * `*` anywhere else (`a-*.apps.example.com`, the TXT registry's name for a wildcard's ownership
 * record) is kept as a literal character: Cloudflare accepts it and only warns that it is no
 * wildcard. A
 * single-label name is completed with the zone, as the API does ("www" → "www.example.com"), and
 * `@` is the apex. A dotted name outside the zone is refused (the provider must never send one).
 */
export function normalizeName(raw: unknown, zone: string): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw validation(9000, 'DNS name is invalid.');
  let name = raw.trim().toLowerCase().replace(/\.$/, '');
  if (name === '@') name = zone;
  if (name !== zone && !name.endsWith(`.${zone}`)) {
    if (name.includes('.')) throw validation(9000, `DNS name ${name} is not in zone ${zone}.`);
    name = `${name}.${zone}`;
  }
  const labels = name.split('.');
  if (name.length > 253 || labels.some((l) => !LABEL.test(l))) throw validation(9000, 'DNS name is invalid.');
  return name;
}

/** Content checks for the types whose syntax the API validates strictly. */
export function checkContent(type: string, content: string): void {
  switch (type) {
    case 'A':
      if (!isIPv4(content)) throw validation(9005, 'Content for A record must be a valid IPv4 address.');
      return;
    case 'AAAA':
      if (!isIPv6(content)) throw validation(9006, 'Content for AAAA record must be a valid IPv6 address.');
      return;
    case 'CNAME':
    case 'NS':
    case 'PTR':
    case 'MX':
      if (content === '' || isIPv4(content) || !/^[a-z0-9_.*-]+$/i.test(content)) throw validation(9007, `Content for ${type} record is invalid.`);
      return;
    case 'TXT':
      if (content.length > 2048) throw validation(9100, 'Content for TXT record is too long.');
      return;
    default:
      if (content === '') throw validation(9009, `Content for ${type} record is required.`);
  }
}

export function checkComment(comment: string | null, plan: Plan): void {
  const max = maxCommentLength(plan);
  if (comment !== null && comment.length > max) {
    throw new CloudflareFault(400, 9313, `DNS record comment exceeds the maximum length of ${max} characters.`);
  }
}

export function checkProxied(type: string, proxied: boolean): void {
  if (proxied && !PROXIABLE_TYPES.has(type)) throw validation(9004, 'This record type cannot be proxied.');
}

/** The subset of a record the cross-record rules look at. */
export interface RecordKey {
  id: string;
  name: string;
  type: string;
  content: string;
  priority?: number;
}

/**
 * CNAME exclusivity and duplicates, checked for `next` against the other records of the zone
 * (the record being replaced is skipped by id). Cloudflare documents the A/AAAA/CNAME conflicts;
 * with `cnameAlone` (the default) a CNAME also may not share its name with any other type (RFC 1034).
 */
export function checkConflicts(next: RecordKey, others: Iterable<RecordKey>, cnameAlone = true): void {
  const address = (t: string): boolean => t === 'A' || t === 'AAAA' || t === 'CNAME';
  for (const o of others) {
    if (o.id === next.id || o.name !== next.name) continue;
    const clash = cnameAlone || (address(o.type) && address(next.type));
    if (next.type === 'CNAME' && clash) {
      throw new CloudflareFault(400, 81053, 'An A, AAAA, or CNAME record with that host already exists.');
    }
    if (o.type === 'CNAME' && clash) throw new CloudflareFault(400, 81054, 'A CNAME record with that host already exists.');
    if (o.type === next.type && o.content === next.content && (o.priority ?? null) === (next.priority ?? null)) {
      throw new CloudflareFault(400, 81058, 'An identical record already exists.');
    }
  }
}
