/**
 * Persistent faults narrowed by operation: a fault names an operation (`create`, `list-records`, …)
 * and optionally the record name, hostname, zone id or page it hits, and stays until cleared, so a
 * test can fail "every update of www.example.com" for the length of a sync. A fault on a record
 * create/update/delete also fails any batch carrying that operation (the batch is one transaction,
 * so nothing of it applies), the way one bad change rolls back a real batch.
 */
import type { Zone } from './model.ts';
import type { RouteRequest } from './routes.ts';

export type FaultOp =
  | 'list-zones'
  | 'get-zone'
  | 'list-records'
  | 'create'
  | 'update'
  | 'delete'
  | 'batch'
  | 'list-custom-hostnames'
  | 'create-custom-hostname'
  | 'delete-custom-hostname'
  | 'list-regional-hostnames'
  | 'create-regional-hostname'
  | 'update-regional-hostname'
  | 'delete-regional-hostname';

/**
 * How the faulted request fails. `status`: that HTTP status with a Cloudflare error body (`message`
 * or a stock text; `code` or a stock code). `message` alone: 400 with that text. `disconnect`: the
 * connection is closed before any response, or after half of a 200 response. `refused`: the
 * emulator stops accepting connections while the fault is set (the operation is unknown before a
 * connection exists, so a refused fault refuses every request).
 */
export interface FaultError {
  status?: number;
  code?: number;
  message?: string;
  disconnect?: 'before-response' | 'mid-response';
  refused?: boolean;
}

export interface OpFault {
  op: FaultOp;
  /** Record name (create/update/delete), fully qualified. */
  name?: string;
  /** Custom or regional hostname. */
  hostname?: string;
  zoneId?: string;
  /** 1-based page of a listing. */
  page?: number;
  error: FaultError;
}

/** One operation a request performs, with what a fault can narrow it by. */
interface Operation {
  op: FaultOp;
  zoneId?: string;
  name?: string;
  hostname?: string;
  page?: number;
}

const bare = (s: unknown): string | undefined => (typeof s === 'string' ? s.toLowerCase().replace(/\.$/, '') : undefined);

function fqdn(raw: unknown, zone: Zone | undefined): string | undefined {
  const n = bare(raw);
  if (n === undefined || zone === undefined) return n;
  if (n === '@') return zone.name;
  return n === zone.name || n.endsWith(`.${zone.name}`) || n.includes('.') ? n : `${n}.${zone.name}`;
}

type Body = Record<string, unknown>;
const recName = (zone: Zone | undefined, id: unknown): string | undefined => (typeof id === 'string' ? zone?.records.get(id)?.name : undefined);

function batchOperations(zone: Zone | undefined, zoneId: string, body: Body): Operation[] {
  const list = (k: string): Body[] => (Array.isArray(body[k]) ? (body[k] as Body[]) : []);
  const ops: Operation[] = [{ op: 'batch', zoneId }];
  for (const d of list('deletes')) ops.push({ op: 'delete', zoneId, name: recName(zone, d['id']) });
  for (const p of [...list('patches'), ...list('puts')]) ops.push({ op: 'update', zoneId, name: fqdn(p['name'], zone) ?? recName(zone, p['id']) });
  for (const p of list('posts')) ops.push({ op: 'create', zoneId, name: fqdn(p['name'], zone) });
  return ops;
}

function recordOperations(zone: Zone | undefined, zoneId: string, req: RouteRequest, body: Body): Operation[] {
  const rid = req.parts[3];
  if (rid === undefined) {
    if (req.method === 'GET') return [{ op: 'list-records', zoneId, page: Number(req.query.get('page') ?? '1') }];
    return req.method === 'POST' ? [{ op: 'create', zoneId, name: fqdn(body['name'], zone) }] : [];
  }
  if (rid === 'batch') return req.method === 'POST' ? batchOperations(zone, zoneId, body) : [];
  if (req.method === 'PUT' || req.method === 'PATCH') return [{ op: 'update', zoneId, name: fqdn(body['name'], zone) ?? recName(zone, rid) }];
  return req.method === 'DELETE' ? [{ op: 'delete', zoneId, name: recName(zone, rid) }] : [];
}

function customOperations(zone: Zone | undefined, zoneId: string, req: RouteRequest, body: Body): Operation[] {
  const id = req.parts[3];
  if (id === undefined) {
    if (req.method === 'GET') return [{ op: 'list-custom-hostnames', zoneId, page: Number(req.query.get('page') ?? '1') }];
    return req.method === 'POST' ? [{ op: 'create-custom-hostname', zoneId, hostname: bare(body['hostname']) }] : [];
  }
  return req.method === 'DELETE' ? [{ op: 'delete-custom-hostname', zoneId, hostname: zone?.customHostnames.get(id)?.hostname }] : [];
}

function regionalOperations(zoneId: string, req: RouteRequest, body: Body): Operation[] {
  const host = bare(req.parts[4]);
  if (host === undefined) {
    if (req.method === 'GET') return [{ op: 'list-regional-hostnames', zoneId }];
    return req.method === 'POST' ? [{ op: 'create-regional-hostname', zoneId, hostname: bare(body['hostname']) }] : [];
  }
  if (req.method === 'PATCH') return [{ op: 'update-regional-hostname', zoneId, hostname: host }];
  return req.method === 'DELETE' ? [{ op: 'delete-regional-hostname', zoneId, hostname: host }] : [];
}

/** The operations a request performs (a batch: itself plus each record write it carries). */
export function operationsOf(zones: ReadonlyMap<string, Zone>, req: RouteRequest): Operation[] {
  const [root, zoneId, sub] = req.parts;
  if (root !== 'zones') return [];
  if (zoneId === undefined) return req.method === 'GET' ? [{ op: 'list-zones' }] : [];
  const zone = zones.get(zoneId);
  const body = (req.body !== null && typeof req.body === 'object' ? req.body : {}) as Body;
  if (sub === undefined) return req.method === 'GET' ? [{ op: 'get-zone', zoneId }] : [];
  if (sub === 'dns_records') return recordOperations(zone, zoneId, req, body);
  if (sub === 'custom_hostnames') return customOperations(zone, zoneId, req, body);
  if (sub === 'addressing' && req.parts[3] === 'regional_hostnames') return regionalOperations(zoneId, req, body);
  return [];
}

function hits(f: OpFault, o: Operation): boolean {
  return (
    f.op === o.op &&
    (f.zoneId === undefined || f.zoneId === o.zoneId) &&
    (f.name === undefined || bare(f.name) === o.name) &&
    (f.hostname === undefined || bare(f.hostname) === o.hostname) &&
    (f.page === undefined || f.page === o.page)
  );
}

/** The first fault that hits any operation of the request. */
export function matchFault(faults: readonly OpFault[], ops: readonly Operation[]): OpFault | undefined {
  return faults.find((f) => !f.error.refused && ops.some((o) => hits(f, o)));
}

const STOCK: Record<number, [number, string]> = {
  400: [1000, 'Bad request'],
  401: [10000, 'Authentication error'],
  403: [10000, 'Authentication error'],
  404: [7003, 'Could not route to the requested path, perhaps your object identifier is invalid?'],
  429: [971, 'Please wait and consider throttling your request speed'],
};

/** The HTTP status, Cloudflare code and message a status/message fault answers with. */
export function faultReply(e: FaultError): { status: number; code: number; message: string } {
  const status = e.status ?? 400;
  const [code, text] = STOCK[status] ?? (status >= 500 ? [10000, `Internal server error (${status})`] : [1000, `Request failed (${status})`]);
  return { status, code: e.code ?? code, message: e.message ?? text };
}
