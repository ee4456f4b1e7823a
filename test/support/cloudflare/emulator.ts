/**
 * A Cloudflare API v4 emulator on 127.0.0.1 for the official `cloudflare` SDK (pass `baseURL`).
 * It keeps Cloudflare's documented DNS rules (rules.ts), the batch endpoint's order and
 * all-or-nothing behaviour, custom and regional hostnames where a zone has them, both
 * authentication schemes and the per-user rate limit. README.md lists the rules and their sources.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authenticate, CallCounter, faultEnvelope, RateLimiter, readJsonBody, sendJson } from './http.ts';
import type { Credentials } from './http.ts';
import { faultReply, matchFault, operationsOf } from './faults.ts';
import type { FaultError, OpFault } from './faults.ts';
import { buildRecord, hexId } from './model.ts';
import type { BatchRefusal, CfRecord, CustomHostname, RecordInput, RegionalHostname, Zone, ZoneOptions } from './model.ts';
import { notFound, route, routePattern } from './routes.ts';
import type { BatchLogEntry, RouteContext } from './routes.ts';
import { checkConflicts, CloudflareFault, PROXIABLE_TYPES } from './rules.ts';

export type { BatchRefusal, CfRecord, CustomHostname, Plan, RecordInput, RegionalHostname, ZoneOptions } from './model.ts';
export { CallCounter } from './http.ts';
export type { FaultError, FaultOp, OpFault } from './faults.ts';
export type { BatchLogEntry } from './routes.ts';
export { CloudflareFault } from './rules.ts';

export interface CloudflareEmulatorOptions {
  /** The API token accepted with edit rights (default: a random one, see `token`). */
  token?: string;
  /** Tokens that may read but not change anything (403, code 10000, on writes). */
  readOnlyTokens?: string[];
  /** Global API key + email for the X-Auth-Key / X-Auth-Email scheme (defaults: random key). */
  apiKey?: string;
  apiEmail?: string;
  /** Requests per window per user (Cloudflare: 1,200). */
  rateLimit?: number;
  /** Rate-limit window in ms (Cloudflare: 5 minutes). */
  rateWindowMs?: number;
  /** Clock for the rate limiter and timestamps (ms since epoch). */
  now?: () => number;
  /** Largest DNS record page (Cloudflare: 5,000). */
  maxRecordsPerPage?: number;
  /** Smallest page any listing serves (Cloudflare: 5); 1 honours every `per_page`, as mocks do. */
  minPerPage?: number;
  /** Region keys regional hostnames accept. */
  regionKeys?: string[];
}

/** Which scheme a request authenticated with, and with what. */
export interface AuthSeen {
  scheme: 'token' | 'key' | 'none';
  token?: string;
  key?: string;
  email?: string;
}

function authOf(req: IncomingMessage): AuthSeen {
  const auth = req.headers.authorization;
  if (auth !== undefined) return { scheme: 'token', token: auth.replace(/^Bearer /, '') };
  const key = req.headers['x-auth-key'];
  const email = req.headers['x-auth-email'];
  if (key === undefined && email === undefined) return { scheme: 'none' };
  return { scheme: 'key', key: String(key), email: String(email) };
}

/** One request as the routes saw it; `status` 0 until answered, -1 for a dropped connection. */
export interface RequestLogEntry {
  method: string;
  /** `POST /zones/:id/dns_records` style. */
  pattern: string;
  /** Path segments after /client/v4. */
  parts: string[];
  query: Record<string, string>;
  body: unknown;
  status: number;
  /** The `result` of a successful answer. */
  result?: unknown;
}

interface Fault {
  route: string | undefined;
  status: number;
  code: number;
  message: string;
  retryAfterSeconds: number | undefined;
}

function refusal(v: ZoneOptions['batchUnavailable']): BatchRefusal | undefined {
  if (v === undefined || v === false) return undefined;
  return v === true ? { status: 403, code: 10000, message: 'Batch DNS record changes are not available for this zone.' } : { ...v };
}

const DEFAULT_REGIONS = ['ca', 'eu', 'in', 'jp', 'sg', 'us', 'au', 'earth'];

export class CloudflareEmulator {
  readonly calls = new CallCounter();
  /** Every request that reached the routes (authenticated, admitted), in order, with its answer's status. */
  readonly requests: RequestLogEntry[] = [];
  /** The credentials each request carried, in order, whether accepted or not (never logged). */
  readonly authSeen: AuthSeen[] = [];
  /** Accepted batch requests in order, with the record ids of each list. */
  readonly batches: BatchLogEntry[] = [];
  /** The API token with edit rights. */
  readonly token: string;
  readonly apiKey: string;
  readonly apiEmail: string;
  readonly rateLimiter: RateLimiter;
  private readonly zones = new Map<string, Zone>();
  private readonly creds: Credentials;
  private readonly faults: Fault[] = [];
  private opFaults: OpFault[] = [];
  private refusing = false;
  private readonly clock: () => number;
  private readonly ctx: RouteContext;
  private server: Server | undefined;
  private port = 0;

  constructor(opts: CloudflareEmulatorOptions = {}) {
    this.token = opts.token ?? `cfemu-${randomBytes(17).toString('hex')}`;
    this.apiKey = opts.apiKey ?? randomBytes(19).toString('hex').slice(0, 37);
    this.apiEmail = opts.apiEmail ?? 'emulator@example.org';
    const tokens = new Map<string, 'edit' | 'read'>([[this.token, 'edit']]);
    for (const t of opts.readOnlyTokens ?? []) tokens.set(t, 'read');
    this.creds = { tokens, apiKey: this.apiKey, apiEmail: this.apiEmail };
    this.clock = opts.now ?? Date.now;
    this.rateLimiter = new RateLimiter(opts.rateLimit ?? 1200, opts.rateWindowMs ?? 5 * 60_000, this.clock);
    this.ctx = {
      zones: this.zones,
      now: () => new Date(this.clock()).toISOString(),
      regionKeys: new Set(opts.regionKeys ?? DEFAULT_REGIONS),
      maxRecordsPerPage: opts.maxRecordsPerPage ?? 5000,
      minPerPage: opts.minPerPage ?? 5,
      batches: this.batches,
    };
  }

  /** For the SDK's `baseURL` and CLOUDFLARE_BASE_URL. */
  get baseURL(): string {
    return `http://127.0.0.1:${this.port}/client/v4`;
  }

  /** Listens on `port` (0: a free one; the same port again after a refused fault is cleared). */
  async listen(port = 0): Promise<void> {
    const server = createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.refusing = false;
    this.port = (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.refusing = false;
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Closes the listening socket but keeps the port number, so connections are refused. */
  private async stopListening(): Promise<void> {
    await this.close();
    this.refusing = true;
  }

  /** Adds a zone (not counted as a call) and returns its 32-hex id. */
  addZone(name: string, opts: ZoneOptions = {}): string {
    const id = opts.id ?? hexId();
    this.zones.set(id, {
      id,
      name: name.toLowerCase().replace(/\.$/, ''),
      plan: opts.plan ?? 'free',
      accountId: opts.accountId ?? '0123456789abcdef0123456789abcdef',
      status: opts.status ?? 'active',
      customHostnamesEnabled: opts.customHostnames === true,
      regionalHostnamesEnabled: opts.regionalHostnames === true,
      batchUnavailable: refusal(opts.batchUnavailable),
      batchLimit: opts.batchLimit,
      cnameAlone: opts.cnameAlone ?? true,
      lenient: opts.lenient ?? false,
      records: new Map(),
      customHostnames: new Map(),
      regionalHostnames: new Map(),
      created_on: this.ctx.now(),
    });
    return id;
  }

  /** Changes a zone's settings after creation (plan, features, batch availability and limit). */
  configureZone(zoneId: string, opts: Omit<ZoneOptions, 'id' | 'accountId'>): void {
    const z = this.zone(zoneId);
    if (opts.plan !== undefined) z.plan = opts.plan;
    if (opts.status !== undefined) z.status = opts.status;
    if (opts.customHostnames !== undefined) z.customHostnamesEnabled = opts.customHostnames;
    if (opts.regionalHostnames !== undefined) z.regionalHostnamesEnabled = opts.regionalHostnames;
    if (opts.batchUnavailable !== undefined) z.batchUnavailable = refusal(opts.batchUnavailable);
    if (opts.batchLimit !== undefined) z.batchLimit = opts.batchLimit;
    if (opts.cnameAlone !== undefined) z.cnameAlone = opts.cnameAlone;
    if (opts.lenient !== undefined) z.lenient = opts.lenient;
  }

  /**
   * Seeds a record with the same rules as the API (throws CloudflareFault), without counting a call.
   * `id` fixes the record id; `unchecked` stores the fields as given, for states the API could hold
   * but no longer accepts (e.g. replaying another tool's fixtures).
   */
  addRecord(zoneId: string, rec: RecordInput, opts: { id?: string; unchecked?: boolean } = {}): CfRecord {
    const z = this.zone(zoneId);
    const now = this.ctx.now();
    const built = opts.unchecked === true ? uncheckedRecord(rec, now) : buildRecord(z, rec, undefined, now);
    if (opts.id !== undefined) built.id = opts.id;
    if (opts.unchecked !== true) checkConflicts(built, z.records.values(), z.cnameAlone);
    z.records.set(built.id, built);
    return structuredClone(built);
  }

  /** Seeds a custom hostname (the zone needs Cloudflare for SaaS), not counted. */
  addCustomHostname(zoneId: string, ch: { id?: string; hostname: string; customOriginServer?: string }): CustomHostname {
    const z = this.zone(zoneId);
    const rec: CustomHostname = {
      id: ch.id ?? hexId(),
      hostname: ch.hostname.toLowerCase(),
      status: 'active',
      ...(ch.customOriginServer === undefined ? {} : { custom_origin_server: ch.customOriginServer }),
      ssl: { id: hexId(), status: 'active', method: 'http', type: 'dv', settings: { min_tls_version: '1.0' } },
      created_at: this.ctx.now(),
    };
    z.customHostnames.set(rec.id, rec);
    return structuredClone(rec);
  }

  /** Removes a custom hostname as if someone deleted it outside the tool under test; not counted. */
  removeCustomHostname(zoneId: string, id: string): boolean {
    return this.zone(zoneId).customHostnames.delete(id);
  }

  /** Seeds a regional hostname, not counted. */
  addRegionalHostname(zoneId: string, rh: { hostname: string; regionKey: string }): void {
    const hostname = rh.hostname.toLowerCase();
    this.zone(zoneId).regionalHostnames.set(hostname, { hostname, region_key: rh.regionKey, routing: 'dns', created_on: this.ctx.now() });
  }

  /** The zone's records as the API returns them (copies), sorted by name then type. */
  records(zoneId: string): CfRecord[] {
    return [...this.zone(zoneId).records.values()].map((r) => structuredClone(r)).sort((a, b) => a.name.localeCompare(b.name) || a.type.localeCompare(b.type));
  }

  customHostnames(zoneId: string): CustomHostname[] {
    return [...this.zone(zoneId).customHostnames.values()].map((h) => structuredClone(h));
  }

  regionalHostnames(zoneId: string): RegionalHostname[] {
    return [...this.zone(zoneId).regionalHostnames.values()].map((h) => structuredClone(h));
  }

  /**
   * Answers the next request to `route` (a pattern like `POST /zones/:id/dns_records/batch`, or any
   * route when omitted) with this error instead of handling it (with `Retry-After` when given).
   * Faults queue in order.
   */
  failNext(route: string | undefined, status: number, code: number, message: string, opts: { retryAfterSeconds?: number } = {}): void {
    this.faults.push({ route, status, code, message, retryAfterSeconds: opts.retryAfterSeconds });
  }

  /**
   * Adds persistent faults (until `clearFaults`), each failing every request that performs its
   * operation (narrowed by name, hostname, zone id, page). A `refused` fault closes the listening
   * socket, so every connection is refused until the faults are cleared.
   */
  async addFaults(faults: readonly OpFault[]): Promise<void> {
    this.opFaults.push(...faults.map((f) => structuredClone(f)));
    if (!this.refusing && this.opFaults.some((f) => f.error.refused === true)) await this.stopListening();
  }

  /** Removes every fault added with `addFaults` and accepts connections again. */
  async clearFaults(): Promise<void> {
    this.opFaults = [];
    if (this.refusing) await this.listen(this.port);
  }

  /** Changes the rate limit (and window) and starts every user's window afresh. */
  setRateLimit(limit: number, windowMs = this.rateLimiter.windowMs): void {
    this.rateLimiter.limit = limit;
    this.rateLimiter.windowMs = windowMs;
    this.rateLimiter.reset();
  }

  private zone(id: string): Zone {
    const z = this.zones.get(id);
    if (z === undefined) throw new Error(`no zone ${id}`);
    return z;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let entry: RequestLogEntry | undefined;
    try {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (!url.pathname.startsWith('/client/v4/')) throw notFound();
      const parts = url.pathname
        .slice('/client/v4/'.length)
        .split('/')
        .filter((p) => p !== '')
        .map(decodeURIComponent);
      const method = req.method ?? 'GET';
      const pattern = routePattern(method, parts);
      this.calls.add(pattern);
      this.authSeen.push(authOf(req));
      const who = authenticate(req, this.creds);
      const retryAfter = this.rateLimiter.admit(who.user);
      if (retryAfter !== null) {
        this.calls.throttled++;
        const f = new CloudflareFault(429, 971, 'Please wait and consider throttling your request speed');
        sendJson(res, 429, faultEnvelope(f), { 'retry-after': String(retryAfter) });
        return;
      }
      const fi = this.faults.findIndex((f) => f.route === undefined || f.route === pattern);
      if (fi >= 0) {
        const [f] = this.faults.splice(fi, 1);
        if (f !== undefined) {
          const headers: Record<string, string> = f.retryAfterSeconds === undefined ? {} : { 'retry-after': String(f.retryAfterSeconds) };
          sendJson(res, f.status, faultEnvelope(new CloudflareFault(f.status, f.code, f.message)), headers);
          return;
        }
      }
      if (method !== 'GET' && !who.canEdit) throw new CloudflareFault(403, 10000, 'Authentication error');
      const body = await readJsonBody(req);
      const request = { method, parts, query: url.searchParams, body };
      entry = { method, pattern, parts, query: Object.fromEntries(url.searchParams), body: structuredClone(body), status: 0 };
      this.requests.push(entry);
      const hit = this.opFaults.length === 0 ? undefined : matchFault(this.opFaults, operationsOf(this.zones, request));
      if (hit !== undefined) {
        entry.status = hit.error.disconnect !== undefined ? -1 : faultReply(hit.error).status;
        failRequest(res, hit.error);
        return;
      }
      const out = route(this.ctx, request);
      entry.status = out.status ?? 200;
      entry.result = out.result;
      const envelope = {
        success: true,
        errors: [],
        messages: [],
        result: out.result,
        ...(out.result_info === undefined ? {} : { result_info: out.result_info }),
      };
      sendJson(res, out.status ?? 200, envelope);
    } catch (err) {
      const f = err instanceof CloudflareFault ? err : new CloudflareFault(500, 10001, `emulator error: ${(err as Error).message}`);
      if (entry !== undefined && entry.status === 0) entry.status = f.status;
      if (!res.headersSent) sendJson(res, f.status, faultEnvelope(f));
    }
  }
}

/** A record exactly as given (defaults for what is missing), bypassing the API's rules. */
function uncheckedRecord(rec: RecordInput, now: string): CfRecord {
  const str = (v: unknown, d: string): string => (typeof v === 'string' ? v : d);
  return {
    id: hexId(),
    name: str(rec.name, ''),
    type: str(rec.type, 'A'),
    content: str(rec.content, ''),
    ttl: typeof rec.ttl === 'number' ? rec.ttl : 1,
    proxied: rec.proxied === true,
    proxiable: PROXIABLE_TYPES.has(str(rec.type, 'A')),
    comment: typeof rec.comment === 'string' && rec.comment !== '' ? rec.comment : null,
    tags: Array.isArray(rec.tags) ? rec.tags.map(String) : [],
    ...(typeof rec.priority === 'number' ? { priority: rec.priority } : {}),
    ...(rec.data !== undefined && typeof rec.data === 'object' ? { data: rec.data as Record<string, unknown> } : {}),
    settings: {},
    meta: {},
    created_on: now,
    modified_on: now,
  };
}

/** Answers a request the way an op fault says: an error reply or a dropped connection. */
function failRequest(res: ServerResponse, e: FaultError): void {
  if (e.disconnect === 'before-response') {
    res.socket?.destroy();
    return;
  }
  if (e.disconnect === 'mid-response') {
    const text = JSON.stringify({ success: true, errors: [], messages: [], result: [], result_info: { page: 1, per_page: 20, count: 0 } });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.write(text.slice(0, text.length >> 1), () => res.socket?.destroy());
    return;
  }
  const r = faultReply(e);
  sendJson(res, r.status, faultEnvelope(new CloudflareFault(r.status, r.code, r.message)));
}

export async function startCloudflareEmulator(opts?: CloudflareEmulatorOptions): Promise<CloudflareEmulator> {
  const emu = new CloudflareEmulator(opts);
  await emu.listen();
  return emu;
}
