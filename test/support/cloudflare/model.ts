/**
 * The emulator's state, free of HTTP: zones with their plan and features, DNS records as Cloudflare
 * returns them, custom hostnames and regional hostnames. Writes go through rules.ts; a batch runs on
 * a copy of the zone's records and replaces them only when every operation succeeded.
 */
import { randomBytes } from 'node:crypto';
import {
  checkComment,
  checkConflicts,
  checkContent,
  checkProxied,
  checkTtl,
  checkType,
  CloudflareFault,
  normalizeName,
  PROXIABLE_TYPES,
  validation,
} from './rules.ts';
import type { Plan } from './rules.ts';

export type { Plan } from './rules.ts';

/** A DNS record in the shape the API returns it. */
export interface CfRecord {
  id: string;
  name: string;
  type: string;
  content: string;
  ttl: number;
  proxied: boolean;
  proxiable: boolean;
  comment: string | null;
  tags: string[];
  comment_modified_on?: string;
  tags_modified_on?: string;
  priority?: number;
  data?: Record<string, unknown>;
  settings: Record<string, unknown>;
  meta: Record<string, unknown>;
  created_on: string;
  modified_on: string;
}

export interface ZoneOptions {
  id?: string;
  plan?: Plan;
  accountId?: string;
  status?: 'active' | 'pending';
  /** Cloudflare for SaaS enabled on the zone (custom hostnames). */
  customHostnames?: boolean;
  /** Regional Services (regional hostnames), an Enterprise add-on. */
  regionalHostnames?: boolean;
  /**
   * The batch endpoint refuses this zone (to test a per-record fallback). `true` answers 403 with
   * code 10000; Cloudflare documents no specific reply, so an object chooses status/code/message.
   */
  batchUnavailable?: boolean | BatchRefusal;
  /** Changes allowed in one batch request (default by plan: 200 Free, 3,500 paid). */
  batchLimit?: number;
  /**
   * A CNAME may not share its name with any other type (default true). False keeps only the
   * conflicts Cloudflare documents (CNAME against A, AAAA, CNAME).
   */
  cnameAlone?: boolean;
  /**
   * Accept any record type and any content (default false). For replaying another tool's fixtures,
   * whose targets are placeholders ("target", an address as a CNAME); every other rule still holds.
   */
  lenient?: boolean;
}

export interface BatchRefusal {
  status: number;
  code: number;
  message: string;
}

export interface CustomHostname {
  id: string;
  hostname: string;
  status: string;
  custom_origin_server?: string;
  ssl: Record<string, unknown>;
  created_at: string;
}

export interface RegionalHostname {
  hostname: string;
  region_key: string;
  routing: string;
  created_on: string;
}

export interface Zone {
  id: string;
  name: string;
  plan: Plan;
  accountId: string;
  status: string;
  customHostnamesEnabled: boolean;
  regionalHostnamesEnabled: boolean;
  batchUnavailable: BatchRefusal | undefined;
  batchLimit: number | undefined;
  cnameAlone: boolean;
  lenient: boolean;
  records: Map<string, CfRecord>;
  customHostnames: Map<string, CustomHostname>;
  regionalHostnames: Map<string, RegionalHostname>;
  created_on: string;
}

export const hexId = (): string => randomBytes(16).toString('hex');

/** Fields a POST/PUT/PATCH body may carry. */
export interface RecordInput {
  name?: unknown;
  type?: unknown;
  content?: unknown;
  ttl?: unknown;
  proxied?: unknown;
  comment?: unknown;
  tags?: unknown;
  priority?: unknown;
  data?: unknown;
  settings?: unknown;
}

const PLAN_NAMES: Record<Plan, string> = { free: 'Free Website', pro: 'Pro Website', business: 'Business Website', enterprise: 'Enterprise Website' };

export function zoneJson(z: Zone): Record<string, unknown> {
  return {
    id: z.id,
    name: z.name,
    status: z.status,
    paused: false,
    type: 'full',
    account: { id: z.accountId, name: 'Emulated account' },
    plan: {
      id: z.plan,
      name: PLAN_NAMES[z.plan],
      legacy_id: z.plan,
      is_subscribed: z.plan !== 'free',
      can_subscribe: z.plan === 'free',
      price: 0,
      currency: 'USD',
      frequency: '',
    },
    name_servers: ['ada.ns.cloudflare.com', 'lee.ns.cloudflare.com'],
    original_name_servers: null,
    created_on: z.created_on,
    modified_on: z.created_on,
    activated_on: z.created_on,
    meta: { custom_certificate_quota: 0, page_rule_quota: 3, phishing_detected: false },
    owner: { id: null, type: 'user' },
  };
}

function num(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw validation(9101, `${field} must be a number.`);
  return v;
}

/** SRV from `data` (or content "priority weight port target"); content reads back in that order, as the SDK documents. */
function srv(data: Record<string, unknown> | undefined, content: unknown): { content: string; data: Record<string, unknown>; priority: number } {
  let d = data;
  if ((d === undefined || typeof d !== 'object') && typeof content === 'string') {
    const f = content.trim().split(/\s+/);
    if (f.length === 4) d = { priority: Number(f[0]), weight: Number(f[1]), port: Number(f[2]), target: f[3] };
  }
  if (d === undefined || typeof d !== 'object') throw validation(9101, 'SRV records require data with priority, weight, port and target.');
  const priority = num(d['priority'], 'data.priority');
  const weight = num(d['weight'], 'data.weight');
  const port = num(d['port'], 'data.port');
  const target = String(d['target'] ?? '').replace(/\.$/, '');
  const u16 = (n: number): boolean => Number.isInteger(n) && n >= 0 && n <= 65535;
  if (target === '' || !u16(priority) || !u16(weight) || !u16(port)) throw validation(9101, 'SRV record data is invalid.');
  return { content: `${priority} ${weight} ${port} ${target}`, priority, data: { priority, weight, port, target } };
}

/** SRV and CAA records are written with `data`; their `content` is derived the way Cloudflare shows it. */
function structured(type: string, input: RecordInput, prev: CfRecord | undefined): { content: string; data?: Record<string, unknown>; priority?: number } {
  const data = (input.data ?? (input.content === undefined ? prev?.data : undefined)) as Record<string, unknown> | undefined;
  if (type === 'SRV') return srv(data, input.content);
  // CAA
  if (data !== undefined && typeof data === 'object') {
    const flags = num(data['flags'] ?? 0, 'data.flags');
    const tag = String(data['tag'] ?? '');
    const value = String(data['value'] ?? '');
    if (!['issue', 'issuewild', 'iodef'].includes(tag)) throw validation(9101, 'CAA tag must be issue, issuewild or iodef.');
    return { content: `${flags} ${tag} "${value}"`, data: { flags, tag, value } };
  }
  const m = /^(\d+)\s+(issue|issuewild|iodef)\s+"?([^"]*)"?$/.exec(String(input.content ?? prev?.content ?? ''));
  if (m === null) throw validation(9101, 'CAA record content is invalid.');
  return { content: `${m[1]} ${m[2]} "${m[3]}"`, data: { flags: Number(m[1]), tag: m[2], value: m[3] } };
}

/** Cloudflare stamps when a record's comment or tags last changed. */
function stamps(prev: CfRecord | undefined, comment: string | null, tags: string[], now: string): Partial<CfRecord> {
  const out: Partial<CfRecord> = {};
  const c = prev === undefined || prev.comment !== comment ? (comment === null ? undefined : now) : prev.comment_modified_on;
  const t = prev === undefined || prev.tags.join('\u0000') !== tags.join('\u0000') ? (tags.length === 0 ? undefined : now) : prev.tags_modified_on;
  if (c !== undefined) out.comment_modified_on = c;
  if (t !== undefined) out.tags_modified_on = t;
  return out;
}

/** Builds the record a write would store, applying every single-record rule. */
export function buildRecord(zone: Zone, input: RecordInput, prev: CfRecord | undefined, now: string): CfRecord {
  const rawType = input.type ?? prev?.type;
  const type = zone.lenient && typeof rawType === 'string' && rawType !== '' ? rawType : checkType(rawType);
  const name = normalizeName(input.name ?? prev?.name, zone.name);
  const proxied = input.proxied === undefined ? (prev?.proxied ?? false) : input.proxied === true;
  checkProxied(type, proxied);
  let ttl = input.ttl === undefined ? (prev?.ttl ?? 1) : num(input.ttl, 'ttl');
  checkTtl(ttl, zone.plan);
  // Proxied records always have an automatic TTL; Cloudflare stores 1 whatever was sent.
  if (proxied) ttl = 1;
  const rawComment = input.comment === undefined ? (prev?.comment ?? null) : input.comment;
  const comment = rawComment === null || rawComment === '' ? null : String(rawComment);
  checkComment(comment, zone.plan);
  const tags = input.tags === undefined ? (prev?.tags ?? []) : Array.isArray(input.tags) ? input.tags.map(String) : [];
  let content: string;
  let priority: number | undefined;
  let data: Record<string, unknown> | undefined;
  if (type === 'SRV' || type === 'CAA') {
    ({ content, priority, data } = structured(type, input, prev?.type === type ? prev : undefined));
  } else {
    const raw = input.content ?? (prev?.type === type ? prev.content : undefined);
    content = typeof raw === 'string' ? raw.trim() : '';
    if (type === 'CNAME' || type === 'MX' || type === 'NS') content = content.replace(/\.$/, '').toLowerCase();
    if (!zone.lenient) checkContent(type, content);
    if (type === 'MX') {
      const p = input.priority ?? (prev?.type === 'MX' ? prev.priority : undefined);
      if (p === undefined) throw validation(9101, 'MX records require a priority.');
      priority = num(p, 'priority');
      if (priority < 0 || priority > 65535) throw validation(9101, 'priority must be between 0 and 65535.');
    }
  }
  const settings = input.settings !== undefined && typeof input.settings === 'object' ? (input.settings as Record<string, unknown>) : (prev?.settings ?? {});
  return {
    id: prev?.id ?? hexId(),
    name,
    type,
    content,
    ttl,
    proxied,
    proxiable: PROXIABLE_TYPES.has(type),
    comment,
    tags,
    ...(priority === undefined ? {} : { priority }),
    ...(data === undefined ? {} : { data }),
    settings,
    meta: {},
    ...stamps(prev, comment, tags, now),
    created_on: prev?.created_on ?? now,
    modified_on: now,
  };
}

/** Applies one write to `records` (a zone's map or a batch's working copy). */
export function writeRecord(
  zone: Zone,
  records: Map<string, CfRecord>,
  input: RecordInput,
  prevId: string | undefined,
  now: string,
  replace: boolean,
): CfRecord {
  let prev: CfRecord | undefined;
  if (prevId !== undefined) {
    prev = records.get(prevId);
    if (prev === undefined) throw new CloudflareFault(404, 81044, 'Record does not exist.');
    if (replace && (input.name === undefined || input.type === undefined)) throw validation(9000, 'A full update (PUT) needs name and type.');
  }
  const rec = buildRecord(zone, input, replace && prev !== undefined ? { ...prev, comment: null, tags: [], settings: {}, proxied: false, ttl: 1 } : prev, now);
  checkConflicts(rec, records.values(), zone.cnameAlone);
  records.set(rec.id, rec);
  return rec;
}

export function deleteRecord(records: Map<string, CfRecord>, id: unknown): CfRecord {
  const rec = typeof id === 'string' ? records.get(id) : undefined;
  if (rec === undefined) throw new CloudflareFault(404, 81044, 'Record does not exist.');
  records.delete(rec.id);
  return rec;
}

export interface BatchBody {
  deletes?: { id?: unknown }[];
  patches?: (RecordInput & { id?: unknown })[];
  puts?: (RecordInput & { id?: unknown })[];
  posts?: RecordInput[];
}

export interface BatchResult {
  deletes: CfRecord[];
  patches: CfRecord[];
  puts: CfRecord[];
  posts: CfRecord[];
}

/** Runs deletes, patches, puts, posts in that order on a copy; the zone changes only if all succeed. */
export function runBatch(zone: Zone, body: BatchBody, limit: number, now: string): BatchResult {
  const lists = { deletes: body.deletes ?? [], patches: body.patches ?? [], puts: body.puts ?? [], posts: body.posts ?? [] };
  for (const l of Object.values(lists)) if (!Array.isArray(l)) throw new CloudflareFault(400, 9207, 'Request body is invalid.');
  const total = lists.deletes.length + lists.patches.length + lists.puts.length + lists.posts.length;
  if (total > limit) throw new CloudflareFault(400, 81068, `The batch contains ${total} changes; the limit for this zone is ${limit}.`);
  const work = new Map(zone.records);
  const result: BatchResult = { deletes: [], patches: [], puts: [], posts: [] };
  const step = <T>(list: string, i: number, fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof CloudflareFault)) throw err;
      // Say which operation failed, as Cloudflare does, and keep the cause's code.
      throw new CloudflareFault(err.status, err.code, `${list}[${i}]: ${err.chain[0]?.message ?? err.message}`, err.chain);
    }
  };
  lists.deletes.forEach((d, i) => result.deletes.push(step('deletes', i, () => deleteRecord(work, d?.id))));
  lists.patches.forEach((p, i) => result.patches.push(step('patches', i, () => writeRecord(zone, work, p, String(p?.id ?? ''), now, false))));
  lists.puts.forEach((p, i) => result.puts.push(step('puts', i, () => writeRecord(zone, work, p, String(p?.id ?? ''), now, true))));
  lists.posts.forEach((p, i) => result.posts.push(step('posts', i, () => writeRecord(zone, work, p, undefined, now, false))));
  zone.records = work;
  return result;
}
