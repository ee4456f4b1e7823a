/**
 * The API v4 routes the provider uses, mapped onto the model. Each handler returns the `result` (and
 * `result_info` for lists) or throws CloudflareFault; http.ts wraps both in Cloudflare's envelope.
 */
import { defaultBatchLimit, CloudflareFault } from './rules.ts';
import { deleteRecord, hexId, runBatch, writeRecord, zoneJson } from './model.ts';
import type { BatchBody, CfRecord, CustomHostname, RecordInput, Zone } from './model.ts';

export interface RouteRequest {
  method: string;
  /** Path segments after /client/v4. */
  parts: string[];
  query: URLSearchParams;
  body: unknown;
}

export interface RouteResult {
  status?: number;
  result: unknown;
  result_info?: { page: number; per_page: number; count: number; total_count: number; total_pages: number };
}

export interface RouteContext {
  zones: Map<string, Zone>;
  now(): string;
  /** Region keys regional hostnames accept. */
  regionKeys: ReadonlySet<string>;
  /** Largest page of DNS records the API returns. */
  maxRecordsPerPage: number;
  /** Smallest page of any listing (Cloudflare: 5). */
  minPerPage: number;
  /** Accepted batches, in order. */
  batches: BatchLogEntry[];
}

/** One accepted batch request: the record ids each list touched (which changes shared a request). */
export interface BatchLogEntry {
  zoneId: string;
  deletes: string[];
  patches: string[];
  puts: string[];
  posts: string[];
}

/** `GET /zones/:id/dns_records` style pattern of a request, for call counting and faults. */
export function routePattern(method: string, parts: string[]): string {
  const p = parts.map((s, i) => {
    const prev = parts[i - 1];
    if (prev === 'zones' || prev === 'dns_records' || prev === 'custom_hostnames' || prev === 'regional_hostnames') return s === 'batch' ? s : ':id';
    return s;
  });
  return `${method} /${p.join('/')}`;
}

export function notFound(): CloudflareFault {
  return new CloudflareFault(404, 7003, 'Could not route to the requested path, perhaps your object identifier is invalid?');
}

function paginate<T>(items: T[], query: URLSearchParams, defaultPer: number, maxPer: number, minPer: number): RouteResult {
  const page = Math.max(1, Math.floor(Number(query.get('page') ?? '1')) || 1);
  const asked = Math.floor(Number(query.get('per_page') ?? String(defaultPer))) || defaultPer;
  // Cloudflare answers with at most its maximum page size whatever was asked for.
  const per = Math.min(Math.max(asked, minPer), maxPer);
  const slice = items.slice((page - 1) * per, page * per);
  return {
    result: slice,
    result_info: { page, per_page: per, count: slice.length, total_count: items.length, total_pages: Math.ceil(items.length / per) },
  };
}

function listZones(ctx: RouteContext, q: URLSearchParams): RouteResult {
  const name = q.get('name')?.toLowerCase();
  const account = q.get('account.id');
  const status = q.get('status');
  const zones = [...ctx.zones.values()]
    .filter((z) => (name === undefined || z.name === name) && (account === null || z.accountId === account) && (status === null || z.status === status))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(zoneJson);
  return paginate(zones, q, 20, 50, ctx.minPerPage);
}

/** A string filter given as `field=value` or `field.exact|contains|startswith|endswith=value`. */
function stringFilter(q: URLSearchParams, field: string): ((v: string) => boolean) | undefined {
  const tests: ((v: string) => boolean)[] = [];
  const exact = q.get(field) ?? q.get(`${field}.exact`);
  if (exact !== null) tests.push((v) => v === exact.toLowerCase());
  const contains = q.get(`${field}.contains`);
  if (contains !== null) tests.push((v) => v.includes(contains.toLowerCase()));
  const starts = q.get(`${field}.startswith`);
  if (starts !== null) tests.push((v) => v.startsWith(starts.toLowerCase()));
  const ends = q.get(`${field}.endswith`);
  if (ends !== null) tests.push((v) => v.endsWith(ends.toLowerCase()));
  return tests.length === 0 ? undefined : (v) => tests.every((t) => t(v.toLowerCase()));
}

function recordFilters(q: URLSearchParams): ((r: CfRecord) => boolean)[] {
  const filters: ((r: CfRecord) => boolean)[] = [];
  const name = stringFilter(q, 'name');
  if (name !== undefined) filters.push((r) => name(r.name));
  const type = q.get('type');
  if (type !== null) filters.push((r) => r.type === type);
  const content = stringFilter(q, 'content');
  if (content !== undefined) filters.push((r) => content(r.content));
  const proxied = q.get('proxied');
  if (proxied !== null) filters.push((r) => r.proxied === (proxied === 'true'));
  const comment = stringFilter(q, 'comment');
  if (comment !== undefined) filters.push((r) => comment(r.comment ?? ''));
  if (q.has('comment.present')) filters.push((r) => r.comment !== null);
  if (q.has('comment.absent')) filters.push((r) => r.comment === null);
  const tags = [...q.getAll('tag'), ...q.getAll('tag.exact')];
  if (tags.length > 0) {
    const has = (r: CfRecord, t: string): boolean => r.tags.includes(t) || (!t.includes(':') && r.tags.some((x) => x.split(':')[0] === t));
    const any = q.get('tag_match') === 'any';
    filters.push((r) => (any ? tags.some((t) => has(r, t)) : tags.every((t) => has(r, t))));
  }
  return filters;
}

function listRecords(ctx: RouteContext, zone: Zone, q: URLSearchParams): RouteResult {
  const filters = recordFilters(q);
  const any = q.get('match') === 'any';
  const pick = (r: CfRecord): boolean => filters.length === 0 || (any ? filters.some((f) => f(r)) : filters.every((f) => f(r)));
  const order = q.get('order') ?? 'type';
  const key = (r: CfRecord): string => (order === 'name' ? r.name : order === 'content' ? r.content : r.type) + '\u0000' + r.name + '\u0000' + r.id;
  const items = [...zone.records.values()].filter(pick).sort((a, b) => key(a).localeCompare(key(b)));
  if (q.get('direction') === 'desc') items.reverse();
  return paginate(items, q, 100, ctx.maxRecordsPerPage, ctx.minPerPage);
}

function records(ctx: RouteContext, zone: Zone, req: RouteRequest): RouteResult {
  const [, , , rid] = req.parts;
  const body = (req.body ?? {}) as RecordInput;
  if (rid === undefined) {
    if (req.method === 'GET') return listRecords(ctx, zone, req.query);
    if (req.method === 'POST') return { result: writeRecord(zone, zone.records, body, undefined, ctx.now(), false) };
    throw notFound();
  }
  if (rid === 'batch' && req.method === 'POST') {
    const no = zone.batchUnavailable;
    if (no !== undefined) throw new CloudflareFault(no.status, no.code, no.message);
    const result = runBatch(zone, (req.body ?? {}) as BatchBody, zone.batchLimit ?? defaultBatchLimit(zone.plan), ctx.now());
    ctx.batches.push({
      zoneId: zone.id,
      deletes: result.deletes.map((r) => r.id),
      patches: result.patches.map((r) => r.id),
      puts: result.puts.map((r) => r.id),
      posts: result.posts.map((r) => r.id),
    });
    return { result };
  }
  switch (req.method) {
    case 'GET': {
      const rec = zone.records.get(rid);
      if (rec === undefined) throw new CloudflareFault(404, 81044, 'Record does not exist.');
      return { result: rec };
    }
    case 'PUT':
      return { result: writeRecord(zone, zone.records, body, rid, ctx.now(), true) };
    case 'PATCH':
      return { result: writeRecord(zone, zone.records, body, rid, ctx.now(), false) };
    case 'DELETE':
      return { result: { id: deleteRecord(zone.records, rid).id } };
    default:
      throw notFound();
  }
}

const MIN_TLS = new Set(['1.0', '1.1', '1.2', '1.3']);
const CAS = new Set(['digicert', 'google', 'lets_encrypt', 'ssl_com']);

function newCustomHostname(ctx: RouteContext, zone: Zone, body: Record<string, unknown>): CustomHostname {
  const hostname = typeof body['hostname'] === 'string' ? body['hostname'].toLowerCase().replace(/\.$/, '') : '';
  if (hostname === '' || hostname.length > 255 || !/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(hostname)) {
    throw new CloudflareFault(400, 1407, 'Invalid custom hostname.');
  }
  if ([...zone.customHostnames.values()].some((h) => h.hostname === hostname)) throw new CloudflareFault(409, 1406, 'Duplicate custom hostname found.');
  const ssl = (body['ssl'] ?? {}) as Record<string, unknown>;
  const settings = (ssl['settings'] ?? {}) as Record<string, unknown>;
  const minTls = settings['min_tls_version'];
  if (minTls !== undefined && !MIN_TLS.has(String(minTls))) throw new CloudflareFault(400, 1414, 'Invalid minimum TLS version.');
  const ca = ssl['certificate_authority'];
  if (ca !== undefined && !CAS.has(String(ca))) throw new CloudflareFault(400, 1434, 'Invalid certificate authority.');
  return {
    id: hexId().slice(0, 32),
    hostname,
    status: 'pending',
    ...(typeof body['custom_origin_server'] === 'string' ? { custom_origin_server: body['custom_origin_server'] } : {}),
    ssl: {
      id: hexId(),
      status: 'initializing',
      method: ssl['method'] ?? 'http',
      type: ssl['type'] ?? 'dv',
      settings: { min_tls_version: minTls ?? '1.0', ...settings },
      ...(ca === undefined ? {} : { certificate_authority: ca }),
    },
    created_at: ctx.now(),
  };
}

/** `hostname` / `hostname.exact`, `hostname.contain`, `hostname.startsWith` and `id`, as the SDK sends them. */
function hostnameFilter(q: URLSearchParams): (h: CustomHostname) => boolean {
  const exact = (q.get('hostname') ?? q.get('hostname.exact'))?.toLowerCase();
  const contain = q.get('hostname.contain')?.toLowerCase();
  const starts = q.get('hostname.startsWith')?.toLowerCase();
  const id = q.get('id');
  return (h) =>
    (exact === undefined || h.hostname === exact) &&
    (contain === undefined || h.hostname.includes(contain)) &&
    (starts === undefined || h.hostname.startsWith(starts)) &&
    (id === null || h.id === id);
}

function customHostnames(ctx: RouteContext, zone: Zone, req: RouteRequest): RouteResult {
  if (!zone.customHostnamesEnabled) throw new CloudflareFault(403, 1413, 'Cloudflare for SaaS is not enabled on this zone.');
  const id = req.parts[3];
  if (id === undefined && req.method === 'GET') {
    const all = [...zone.customHostnames.values()].filter(hostnameFilter(req.query)).sort((a, b) => a.hostname.localeCompare(b.hostname));
    return paginate(all, req.query, 20, 50, ctx.minPerPage);
  }
  if (id === undefined && req.method === 'POST') {
    const ch = newCustomHostname(ctx, zone, (req.body ?? {}) as Record<string, unknown>);
    zone.customHostnames.set(ch.id, ch);
    return { status: 201, result: ch };
  }
  const ch = id === undefined ? undefined : zone.customHostnames.get(id);
  if (ch === undefined) throw new CloudflareFault(404, 1436, 'The custom hostname was not found.');
  if (req.method === 'GET') return { result: ch };
  if (req.method === 'DELETE') {
    zone.customHostnames.delete(ch.id);
    return { result: { id: ch.id } };
  }
  throw notFound();
}

function regionalHostnames(ctx: RouteContext, zone: Zone, req: RouteRequest): RouteResult {
  if (!zone.regionalHostnamesEnabled) throw new CloudflareFault(403, 1002, 'Regional Services is not enabled for this zone.');
  const host = req.parts[4]?.toLowerCase();
  const body = (req.body ?? {}) as Record<string, unknown>;
  const regionKey = (): string => {
    const key = body['region_key'];
    if (typeof key !== 'string' || !ctx.regionKeys.has(key)) throw new CloudflareFault(400, 1003, `Invalid region_key: ${String(key)}`);
    return key;
  };
  if (host === undefined && req.method === 'GET') {
    const all = [...zone.regionalHostnames.values()].sort((a, b) => a.hostname.localeCompare(b.hostname));
    return { result: all };
  }
  if (host === undefined && req.method === 'POST') {
    const hostname = typeof body['hostname'] === 'string' ? body['hostname'].toLowerCase().replace(/\.$/, '') : '';
    const inZone = hostname === zone.name || hostname.endsWith(`.${zone.name}`);
    if (!inZone) throw new CloudflareFault(400, 1003, `Hostname ${hostname} is not in zone ${zone.name}.`);
    if (zone.regionalHostnames.has(hostname)) throw new CloudflareFault(400, 1004, 'A regional hostname with that name already exists.');
    const rh = { hostname, region_key: regionKey(), routing: typeof body['routing'] === 'string' ? body['routing'] : 'dns', created_on: ctx.now() };
    zone.regionalHostnames.set(hostname, rh);
    return { result: rh };
  }
  const rh = host === undefined ? undefined : zone.regionalHostnames.get(host);
  if (rh === undefined) throw new CloudflareFault(404, 1005, 'Regional hostname not found.');
  switch (req.method) {
    case 'GET':
      return { result: rh };
    case 'PATCH':
      rh.region_key = regionKey();
      return { result: rh };
    case 'DELETE':
      zone.regionalHostnames.delete(rh.hostname);
      return { result: null };
    default:
      throw notFound();
  }
}

/** Dispatches a request already authenticated and admitted by the rate limiter. */
export function route(ctx: RouteContext, req: RouteRequest): RouteResult {
  const [root, zoneId, sub] = req.parts;
  if (root !== 'zones') throw notFound();
  if (zoneId === undefined) {
    if (req.method === 'GET') return listZones(ctx, req.query);
    throw notFound();
  }
  const zone = ctx.zones.get(zoneId);
  if (zone === undefined)
    throw new CloudflareFault(/^[0-9a-f]{32}$/.test(zoneId) ? 404 : 400, 7003, 'Could not route to the zone, perhaps your object identifier is invalid?');
  if (sub === undefined && req.method === 'GET') return { result: zoneJson(zone) };
  if (sub === 'dns_records') return records(ctx, zone, req);
  if (sub === 'custom_hostnames') return customHostnames(ctx, zone, req);
  if (sub === 'addressing' && req.parts[3] === 'regional_hostnames') return regionalHostnames(ctx, zone, req);
  throw notFound();
}
