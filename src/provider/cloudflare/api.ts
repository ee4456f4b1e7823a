/**
 * The narrow Cloudflare client the provider uses, in plain shapes of its own, and its adapter over
 * the official `cloudflare` SDK. The SDK reads CLOUDFLARE_* variables itself for any option left
 * undefined, so every auth option is passed explicitly (null when unset); its own retries are off
 * (maxRetries 0) because the provider backs off with src/backoff.ts and honours Retry-After.
 */
import { APIConnectionError, APIError, Cloudflare } from 'cloudflare';
import { ProviderError } from '../../errors.ts';
import type { ErrorCode } from '../../errors.ts';

export const PROVIDER_NAME = 'cloudflare';
export const DEFAULT_BASE_URL = 'https://api.cloudflare.com/client/v4';

export interface CfZone {
  id: string;
  name: string;
  /** The zone's plan is a paid one (record comments may then be 500 characters long instead of 100). */
  paid: boolean;
  /** The plan's legacy id (`free`, `pro`, `business`, `enterprise`) when Cloudflare gives it: it sets the batch limit. */
  plan?: string;
}

/** SRV and CAA carry structured data; the other types carry `content` (and MX a priority). */
export interface CfRecordData {
  priority?: number;
  weight?: number;
  port?: number;
  target?: string;
  flags?: number;
  tag?: string;
  value?: string;
}

/** A DNS record as Cloudflare returns it (the fields the provider reads). */
export interface CfRecord {
  id: string;
  name: string;
  type: string;
  content: string;
  /** Seconds; 1 means automatic. */
  ttl: number;
  proxied: boolean;
  priority?: number;
  comment?: string | null;
  tags?: string[];
  data?: CfRecordData;
}

/** A record to create or replace: a CfRecord without its id. */
export type CfRecordInput = Omit<CfRecord, 'id'>;

export interface CfBatch {
  deletes: string[];
  puts: { id: string; record: CfRecordInput }[];
  posts: CfRecordInput[];
}

export interface CfBatchResult {
  puts: CfRecord[];
  posts: CfRecord[];
}

export interface CfCustomHostname {
  id: string;
  hostname: string;
  customOriginServer: string;
}

export interface CfCustomHostnameInput {
  hostname: string;
  customOriginServer: string;
  ssl: { type: 'dv'; method: 'http'; bundleMethod: 'ubiquitous'; certificateAuthority?: string; minTlsVersion?: string };
}

export interface CfRegionalHostname {
  hostname: string;
  regionKey: string;
}

export interface CloudflareApi {
  listZones(): Promise<CfZone[]>;
  getZone(zoneId: string): Promise<CfZone>;
  /** One page (1-based) of a zone's records, and how many pages there are. */
  listRecordsPage(zoneId: string, page: number, perPage: number): Promise<{ records: CfRecord[]; totalPages: number }>;
  createRecord(zoneId: string, record: CfRecordInput): Promise<CfRecord>;
  updateRecord(zoneId: string, recordId: string, record: CfRecordInput): Promise<CfRecord>;
  deleteRecord(zoneId: string, recordId: string): Promise<void>;
  /** All or nothing: Cloudflare runs deletes, then puts, then posts, in one transaction. */
  batch(zoneId: string, ops: CfBatch): Promise<CfBatchResult>;
  listCustomHostnames(zoneId: string): Promise<CfCustomHostname[]>;
  createCustomHostname(zoneId: string, ch: CfCustomHostnameInput): Promise<CfCustomHostname>;
  deleteCustomHostname(zoneId: string, id: string): Promise<void>;
  listRegionalHostnames(zoneId: string): Promise<CfRegionalHostname[]>;
  createRegionalHostname(zoneId: string, rh: CfRegionalHostname): Promise<void>;
  updateRegionalHostname(zoneId: string, rh: CfRegionalHostname): Promise<void>;
  deleteRegionalHostname(zoneId: string, hostname: string): Promise<void>;
}

export interface SdkOptions {
  baseURL?: string;
  apiToken?: string;
  apiKey?: string;
  apiEmail?: string;
  /** For tests: the fetch the SDK uses (default Node's global fetch). */
  fetch?: typeof fetch;
}

/** A Cloudflare error as a ProviderError: its status and Cloudflare's codes and messages, never the credentials. */
export function cloudflareError(err: unknown, what: string): ProviderError {
  if (err instanceof ProviderError) return err;
  if (err instanceof APIConnectionError) {
    return new ProviderError(PROVIDER_NAME, `${what}: Cloudflare did not answer: ${err.message}`, {
      code: 'PROVIDER_UNREACHABLE',
      transient: true,
      cause: err,
    });
  }
  if (err instanceof APIError) {
    const status = err.status ?? 0;
    const details = (err.errors ?? []).map((e) => `${e.code ?? '?'} ${e.message}`).join('; ');
    const retryAfter = retryAfterMs(err.headers);
    const recordGone = (err.errors ?? []).some((e) => e.code === RECORD_NOT_FOUND);
    const e = new ProviderError(PROVIDER_NAME, `${what}: Cloudflare answered ${status}${details === '' ? '' : `: ${details}`}`, {
      code: recordGone ? 'PROVIDER_RECORD_NOT_FOUND' : codeOf(status),
      transient: status === 429 || status >= 500,
    });
    return retryAfter === undefined ? e : Object.assign(e, { retryAfterMs: retryAfter });
  }
  return new ProviderError(PROVIDER_NAME, `${what}: ${err instanceof Error ? err.message : String(err)}`, { transient: true, cause: err });
}

/** Cloudflare's error code for a record id that does not exist. */
export const RECORD_NOT_FOUND = 81044;

function codeOf(status: number): ErrorCode {
  if (status === 429) return 'PROVIDER_THROTTLED';
  if (status === 401) return 'PROVIDER_UNAUTHORIZED';
  if (status === 403) return 'PROVIDER_ACCESS_DENIED';
  if (status === 404) return 'PROVIDER_ZONE_NOT_FOUND';
  if (status >= 500) return 'PROVIDER_UNAVAILABLE';
  return 'PROVIDER_REJECTED';
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const v = headers?.get('retry-after');
  if (v === undefined || v === null || v === '') return undefined;
  const s = Number(v);
  return Number.isFinite(s) && s >= 0 ? s * 1000 : undefined;
}

/** The wait a throttled error asks for (Retry-After), if any. */
export function retryAfterOf(err: unknown): number | undefined {
  const v = (err as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof v === 'number' ? v : undefined;
}

interface SdkRecord {
  id?: string;
  name?: string;
  type?: string;
  content?: string;
  ttl?: number;
  proxied?: boolean;
  priority?: number;
  comment?: string | null;
  tags?: unknown;
  data?: CfRecordData;
}

function fromSdk(r: SdkRecord): CfRecord {
  const out: CfRecord = { id: r.id ?? '', name: r.name ?? '', type: r.type ?? '', content: r.content ?? '', ttl: r.ttl ?? 1, proxied: r.proxied === true };
  if (r.priority !== undefined) out.priority = r.priority;
  if (r.comment !== undefined && r.comment !== null && r.comment !== '') out.comment = r.comment;
  if (Array.isArray(r.tags)) out.tags = r.tags.filter((t): t is string => typeof t === 'string');
  if (r.data !== undefined && r.data !== null) out.data = r.data;
  return out;
}

/** The JSON body Cloudflare takes for a record. */
export function recordBody(r: CfRecordInput): Record<string, unknown> {
  const body: Record<string, unknown> = { name: r.name, type: r.type, ttl: r.ttl, proxied: r.proxied, comment: r.comment ?? '', tags: r.tags ?? [] };
  if (r.type !== 'SRV') body['content'] = r.content;
  if (r.priority !== undefined) body['priority'] = r.priority;
  if (r.data !== undefined) body['data'] = r.data;
  return body;
}

/**
 * Every item of a page-numbered list, by total_pages. The SDK's own iterator asks for one more,
 * empty page after the last; this stops at the last, and after 10,000 pages whatever the server says.
 */
async function allPages<T>(fetchPage: (page: number) => PromiseLike<{ result: T[]; result_info?: object }>): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1, pages = 1; page <= pages && page <= 10_000; page++) {
    const res = await fetchPage(page);
    out.push(...res.result);
    const total = (res.result_info as { total_pages?: number } | undefined)?.total_pages;
    pages = total ?? (res.result.length > 0 ? page + 1 : page);
  }
  return out;
}

type Call = <T>(what: string, f: () => Promise<T>) => Promise<T>;

/** Runs one SDK call, its error mapped to a ProviderError. */
const call: Call = async (what, f) => {
  try {
    return await f();
  } catch (err) {
    throw cloudflareError(err, what);
  }
};

type HostnameCalls = Pick<
  CloudflareApi,
  | 'listCustomHostnames'
  | 'createCustomHostname'
  | 'deleteCustomHostname'
  | 'listRegionalHostnames'
  | 'createRegionalHostname'
  | 'updateRegionalHostname'
  | 'deleteRegionalHostname'
>;

/** Custom hostnames (Cloudflare for SaaS) and regional hostnames (Data Localization Suite). */
function hostnameCalls(client: Cloudflare, call: Call): HostnameCalls {
  return {
    listCustomHostnames: (zoneId) =>
      call(`could not fetch custom hostnames from zone ${zoneId}`, async () => {
        const out: CfCustomHostname[] = [];
        for await (const c of client.customHostnames.list({ zone_id: zoneId }))
          out.push({ id: c.id, hostname: c.hostname, customOriginServer: c.custom_origin_server ?? '' });
        return out;
      }),
    createCustomHostname: (zoneId, ch) =>
      call(`create custom hostname ${ch.hostname}`, async () => {
        const ssl: Record<string, unknown> = { type: ch.ssl.type, method: ch.ssl.method, bundle_method: ch.ssl.bundleMethod };
        if (ch.ssl.certificateAuthority !== undefined) ssl['certificate_authority'] = ch.ssl.certificateAuthority;
        if (ch.ssl.minTlsVersion !== undefined) ssl['settings'] = { min_tls_version: ch.ssl.minTlsVersion };
        const res = await client.customHostnames.create({ zone_id: zoneId, hostname: ch.hostname, custom_origin_server: ch.customOriginServer, ssl } as never);
        return { id: res.id, hostname: res.hostname, customOriginServer: res.custom_origin_server ?? ch.customOriginServer };
      }),
    deleteCustomHostname: (zoneId, id) => call(`delete custom hostname ${id}`, async () => void (await client.customHostnames.delete(id, { zone_id: zoneId }))),
    listRegionalHostnames: (zoneId) =>
      call(`could not fetch regional hostnames from zone ${zoneId}`, async () => {
        const out: CfRegionalHostname[] = [];
        for await (const r of client.addressing.regionalHostnames.list({ zone_id: zoneId })) out.push({ hostname: r.hostname, regionKey: r.region_key });
        return out;
      }),
    createRegionalHostname: (zoneId, rh) =>
      call(`create regional hostname ${rh.hostname}`, async () => {
        await client.addressing.regionalHostnames.create({ zone_id: zoneId, hostname: rh.hostname, region_key: rh.regionKey });
      }),
    updateRegionalHostname: (zoneId, rh) =>
      call(`update regional hostname ${rh.hostname}`, async () => {
        await client.addressing.regionalHostnames.edit(rh.hostname, { zone_id: zoneId, region_key: rh.regionKey });
      }),
    deleteRegionalHostname: (zoneId, hostname) =>
      call(`delete regional hostname ${hostname}`, async () => {
        await client.addressing.regionalHostnames.delete(hostname, { zone_id: zoneId });
      }),
  };
}

/** The SDK behind the CloudflareApi port. */
export function sdkCloudflareApi(opts: SdkOptions): CloudflareApi {
  const client = new Cloudflare({
    apiToken: opts.apiToken ?? null,
    apiKey: opts.apiKey ?? null,
    apiEmail: opts.apiEmail ?? null,
    userServiceKey: null,
    baseURL: opts.baseURL ?? DEFAULT_BASE_URL,
    maxRetries: 0,
    ...(opts.fetch === undefined ? {} : { fetch: opts.fetch }),
  });
  const toZone = (z: { id: string; name: string; plan?: { is_subscribed?: boolean; legacy_id?: string } }): CfZone => ({
    id: z.id,
    name: z.name,
    paid: z.plan?.is_subscribed === true,
    ...(typeof z.plan?.legacy_id === 'string' && z.plan.legacy_id !== '' ? { plan: z.plan.legacy_id } : {}),
  });
  return {
    listZones: () => call('list zones', async () => (await allPages((page) => client.zones.list({ page, per_page: 50 }))).map(toZone)),
    getZone: (zoneId) => call(`get zone ${zoneId}`, async () => toZone(await client.zones.get({ zone_id: zoneId }))),
    listRecordsPage: (zoneId, page, perPage) =>
      call(`could not fetch records from zone ${zoneId}`, async () => {
        const res = await client.dns.records.list({ zone_id: zoneId, page, per_page: perPage });
        const info = res.result_info as { total_pages?: number } | undefined;
        return { records: res.result.map((r) => fromSdk(r as SdkRecord)), totalPages: info?.total_pages ?? 1 };
      }),
    createRecord: (zoneId, record) =>
      call(`create ${record.type} ${record.name}`, async () =>
        fromSdk((await client.dns.records.create({ zone_id: zoneId, ...recordBody(record) } as never)) as SdkRecord),
      ),
    updateRecord: (zoneId, id, record) =>
      call(`update ${record.type} ${record.name}`, async () =>
        fromSdk((await client.dns.records.update(id, { zone_id: zoneId, ...recordBody(record) } as never)) as SdkRecord),
      ),
    deleteRecord: (zoneId, id) => call(`delete record ${id}`, async () => void (await client.dns.records.delete(id, { zone_id: zoneId }))),
    batch: (zoneId, ops) =>
      call(`batch of zone ${zoneId}`, async () => {
        const params = {
          zone_id: zoneId,
          deletes: ops.deletes.map((id) => ({ id })),
          puts: ops.puts.map((p) => ({ id: p.id, ...recordBody(p.record) })),
          posts: ops.posts.map(recordBody),
        };
        const res = await client.dns.records.batch(params as never);
        return { puts: (res.puts ?? []).map((r) => fromSdk(r as SdkRecord)), posts: (res.posts ?? []).map((r) => fromSdk(r as SdkRecord)) };
      }),
    ...hostnameCalls(client, call),
  };
}
