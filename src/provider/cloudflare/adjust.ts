/**
 * adjustEndpoints of the cloudflare provider, as external-dns's AdjustEndpoints: every desired
 * endpoint gets the properties records() reads back, in the same spelling, so an unchanged record
 * plans as a no-op and a changed property as an update. Proxied records lose their TTL (Cloudflare
 * holds them at 1, automatic), so the plan does not flap between syncs.
 */
import { cloneEndpoint, getProviderSpecific } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { Logger } from '../../log.ts';
import { ALPHA_PREFIX, STABLE_PREFIX } from '../../source/translate/annotations.ts';
import { NOT_PROXIABLE, parseTags } from './convert.ts';
import type { PropertyNames } from './convert.ts';

export const FREE_COMMENT_MAX = 100;
export const PAID_COMMENT_MAX = 500;
/** Types a regional hostname can be set for (external-dns's list). */
export const REGIONAL_TYPES: ReadonlySet<string> = new Set(['A', 'AAAA', 'CNAME']);

export interface AdjustSettings {
  names: PropertyNames;
  proxiedByDefault: boolean;
  customHostnames: boolean;
  regionalServices: boolean;
  regionKey: string;
  recordComment: string;
}

/** The proxied flag a record gets: the property (when it parses), else the flag's default; never for types Cloudflare cannot proxy. */
export function shouldBeProxied(ep: Endpoint, names: PropertyNames, byDefault: boolean, logger?: Logger): boolean {
  let proxied = byDefault;
  const v = getProviderSpecific(ep, names.proxied);
  if (v !== undefined) {
    const b = parseBool(v);
    if (b === undefined) logger?.error({ record: ep.dnsName, value: v }, `cannot parse ${names.proxied}; using the default`);
    else proxied = b;
  }
  return NOT_PROXIABLE.has(ep.recordType) ? false : proxied;
}

/** Go's strconv.ParseBool, which external-dns uses for the annotation. */
function parseBool(v: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

/** A comment Cloudflare would refuse, cut to the zone plan's limit (with a warning), as external-dns does when writing. */
export function trimComment(comment: string, paid: boolean, record: string, logger?: Logger): string {
  if (comment.length <= FREE_COMMENT_MAX) return comment;
  const max = paid ? PAID_COMMENT_MAX : FREE_COMMENT_MAX;
  if (comment.length <= max) return comment;
  logger?.warn({ record, max }, 'record comment too long for the zone plan: trimmed');
  return comment.slice(0, max);
}

/** One desired endpoint in records()'s shape; `paid` tells the comment limit of the endpoint's zone. */
export function adjustEndpoint(input: Endpoint, s: AdjustSettings, paid: boolean, logger?: Logger): Endpoint {
  const ep = cloneEndpoint(input);
  const n = s.names;
  canonicalise(ep, n);
  // Only Cloudflare's properties are read back by records(); any other (aws/weight, alias) would
  // show as a change on every sync.
  const own = new Set(Object.values(n));
  ep.providerSpecific = ep.providerSpecific.filter((p) => own.has(p.name));
  const proxied = shouldBeProxied(ep, n, s.proxiedByDefault, logger);
  if (proxied) ep.recordTTL = 0;
  set(ep, n.proxied, String(proxied));
  const chs = getProviderSpecific(ep, n.customHostname);
  if (!s.customHostnames || chs === undefined) remove(ep, n.customHostname);
  else {
    const sorted = chs
      .split(',')
      .map((c) => c.trim())
      .filter((c) => c !== '')
      .sort();
    if (sorted.length === 0) remove(ep, n.customHostname);
    else set(ep, n.customHostname, sorted.join(','));
  }
  const tags = getProviderSpecific(ep, n.tags);
  if (tags !== undefined) {
    const sorted = parseTags(tags);
    if (sorted.length === 0) remove(ep, n.tags);
    else set(ep, n.tags, sorted.join(','));
  }
  if (!s.regionalServices || !REGIONAL_TYPES.has(ep.recordType)) remove(ep, n.regionKey);
  else if (getProviderSpecific(ep, n.regionKey) === undefined) set(ep, n.regionKey, s.regionKey);
  let comment = getProviderSpecific(ep, n.comment);
  if (comment === undefined && s.recordComment !== '') comment = s.recordComment;
  // records() reads an empty comment as none, and a too long one as Cloudflare keeps it (trimmed).
  if (comment === undefined || comment === '') remove(ep, n.comment);
  else set(ep, n.comment, trimComment(comment, paid, ep.dnsName, logger));
  return ep;
}

/**
 * external-dns names these properties after its default prefix (`external-dns.kubernetes.io/
 * cloudflare-proxied`), Hostwarden's sources after the alpha one: a DNSEndpoint written for
 * external-dns carries the former, and must not lose its setting here. With the default prefix
 * both spellings are read; the alpha one wins when both are set. A custom prefix has one spelling.
 */
function canonicalise(ep: Endpoint, n: PropertyNames): void {
  for (const name of Object.values(n)) {
    if (!name.startsWith(ALPHA_PREFIX)) continue;
    const alt = STABLE_PREFIX + name.slice(ALPHA_PREFIX.length);
    const i = ep.providerSpecific.findIndex((p) => p.name === alt);
    if (i < 0) continue;
    const value = ep.providerSpecific[i]!.value;
    remove(ep, alt);
    if (getProviderSpecific(ep, name) === undefined) set(ep, name, value);
  }
}

function set(ep: Endpoint, name: string, value: string): void {
  const i = ep.providerSpecific.findIndex((p) => p.name === name);
  if (i >= 0) ep.providerSpecific[i] = { name, value };
  else ep.providerSpecific.push({ name, value });
}

function remove(ep: Endpoint, name: string): void {
  ep.providerSpecific = ep.providerSpecific.filter((p) => p.name !== name);
}
