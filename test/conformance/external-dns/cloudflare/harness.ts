/**
 * The replay harness for external-dns's Cloudflare cases (README.md here): the case shape, the
 * emulator seeded from a case's `api`, the provider built from its `config`, and what the API
 * received (record writes, hostname writes, listings) read back from the emulator's request log.
 */
import { readFile } from 'node:fs/promises';
import { FlagValues } from '../../../../src/config/config.ts';
import { FLAGS } from '../../../../src/config/flags.ts';
import { parseArgs } from '../../../../src/config/parse.ts';
import { newEndpoint } from '../../../../src/endpoint/endpoint.ts';
import type { Endpoint, ProviderSpecificProperty, RecordType } from '../../../../src/endpoint/endpoint.ts';
import { sdkCloudflareApi } from '../../../../src/provider/cloudflare/api.ts';
import { CloudflareProvider } from '../../../../src/provider/cloudflare/cloudflare.ts';
import { CLOUDFLARE_FLAGS } from '../../../../src/provider/cloudflare/flags.ts';
import { ZONE_FILTER_FLAGS } from '../../../../src/provider/zone-filter.ts';
import type { Changes } from '../../../../src/plan/changes.ts';
import { capturingLogger } from '../../../support/log-capture.ts';
import type { LogLine } from '../../../support/log-capture.ts';
import { startCloudflareEmulator } from '../../../support/cloudflare/emulator.ts';
import type { CloudflareEmulator, OpFault, RequestLogEntry } from '../../../support/cloudflare/emulator.ts';

export interface EndpointData {
  dnsName: string;
  recordType: string;
  targets: string[];
  ttl?: number;
  providerSpecific?: ProviderSpecificProperty[];
}

/** A list of endpoints, or one generated entry (`{i}` = 0..count-1 substituted). */
export type EndpointList = (EndpointData | { generate: EndpointData & { count: number; name: string } })[];

export interface ApiState {
  zones?: { id: string; name: string; paid?: boolean }[];
  records?: Record<string, Record<string, unknown>[]>;
  customHostnames?: Record<string, { id?: string; hostname: string; customOriginServer?: string }[]>;
  regionalHostnames?: Record<string, { hostname: string; regionKey: string }[]>;
  faults?: OpFault[];
}

export interface CaseConfig {
  domainFilter?: string[];
  zoneIdFilter?: string[];
  proxiedByDefault?: boolean;
  recordComment?: string;
  regionalServices?: boolean;
  regionKey?: string;
  customHostnames?: { enabled?: boolean; minTlsVersion?: string; certificateAuthority?: string };
  recordsPerPage?: number;
  dryRun?: boolean;
  batchChangeSize?: number;
  batchChangeIntervalMs?: number;
}

export type Expect = Record<string, unknown>;

export interface Step {
  subtest: string;
  endpoints: EndpointList;
  faults?: OpFault[];
  mutateBeforeApply?: Record<string, unknown>;
  expect: Expect;
}

export interface Case {
  name: string;
  upstreamTest: string;
  kind: 'records' | 'zones' | 'adjust' | 'apply' | 'sync' | 'sync-steps' | 'plan' | 'chunk' | 'credentials';
  differs?: string;
  /** Hostwarden's own answer where it deliberately differs (replaces fields of `expect`). */
  hostwarden?: Expect;
  config?: CaseConfig;
  api?: ApiState;
  endpoints?: EndpointList;
  changes?: { create?: EndpointList; updateOld?: EndpointList; updateNew?: EndpointList; delete?: EndpointList };
  managedRecords?: string[];
  planDomainFilter?: string[];
  appendUnmanagedToCreate?: boolean;
  desiredFromCurrent?: boolean;
  steps?: Step[];
  /** `fromConfig`: build the provider from flags and environment, as the CLI does. */
  via?: 'fromConfig';
  input?: { deletes: number; puts: number; posts: number };
  limit?: number;
  env?: Record<string, string>;
  tokenFile?: string;
  /** Absent on sync-steps cases (each step has its own). */
  expect?: Expect;
}

export interface CaseFile {
  about: string;
  cases: Case[];
  skipped: { upstreamTest: string; reason: string }[];
}

export async function readCaseFile(url: URL): Promise<CaseFile> {
  return JSON.parse(await readFile(url, 'utf8')) as CaseFile;
}

const UPSTREAM_PROPERTY = 'external-dns.kubernetes.io/cloudflare-';
const HOSTWARDEN_PROPERTY = 'external-dns.alpha.kubernetes.io/cloudflare-';

/**
 * Hostwarden names Cloudflare properties after the alpha annotation by default (the name the
 * Cloudflare webhooks read; docs/external-dns-compatibility.md), upstream after the stable one:
 * the data's names are translated, nothing else.
 */
export function propertyName(name: string): string {
  return name.startsWith(UPSTREAM_PROPERTY) ? HOSTWARDEN_PROPERTY + name.slice(UPSTREAM_PROPERTY.length) : name;
}

export function properties(list: readonly ProviderSpecificProperty[] | undefined): ProviderSpecificProperty[] {
  return (list ?? []).map((p) => ({ name: propertyName(p.name), value: p.value }));
}

/**
 * Endpoints of a case; an empty record type (upstream's mock accepts one) becomes A, as the data
 * says. Desired endpoints keep upstream's property spelling (adjustEndpoints reads it, as it reads
 * a DNSEndpoint written for external-dns); `translate` renames them for changes that reach
 * applyChanges directly, which in Hostwarden always come through adjustEndpoints.
 */
export function endpoints(list: EndpointList | EndpointList[number] | undefined, translate = false): Endpoint[] {
  const out: Endpoint[] = [];
  for (const item of list === undefined ? [] : Array.isArray(list) ? list : [list]) {
    if ('generate' in item) {
      const g = item.generate;
      for (let i = 0; i < g.count; i++) {
        const sub = (s: string): string => s.replaceAll('{i}', String(i));
        const providerSpecific = g.providerSpecific?.map((ps) => ({ name: ps.name, value: sub(ps.value) }));
        out.push(
          toEndpoint(
            { ...g, dnsName: sub(g.name ?? g.dnsName), targets: g.targets.map(sub), ...(providerSpecific === undefined ? {} : { providerSpecific }) },
            translate,
          ),
        );
      }
    } else out.push(toEndpoint(item, translate));
  }
  return out;
}

function toEndpoint(d: EndpointData, translate: boolean): Endpoint {
  return newEndpoint({
    dnsName: d.dnsName,
    targets: d.targets,
    recordType: (d.recordType === '' ? 'A' : d.recordType) as RecordType,
    recordTTL: d.ttl ?? 0,
    providerSpecific: translate ? properties(d.providerSpecific) : (d.providerSpecific ?? []),
  });
}

export function changesOf(c: Case): Changes {
  const ch = c.changes ?? {};
  return {
    create: endpoints(ch.create, true),
    updateOld: endpoints(ch.updateOld, true),
    updateNew: endpoints(ch.updateNew, true),
    delete: endpoints(ch.delete, true),
  };
}

/** An emulator holding the case's zones (every zone with custom and regional hostnames, as upstream's mock), records, hostnames and faults. */
export async function seededEmulator(api: ApiState = {}): Promise<CloudflareEmulator> {
  // Upstream's mock pages by any size; Cloudflare's floor of 5 would hide the paging cases.
  const emu = await startCloudflareEmulator({ minPerPage: 1 });
  for (const z of api.zones ?? []) {
    // Lenient: upstream's targets are placeholders ("target", an address as CNAME) its mock accepts.
    emu.addZone(z.name, { id: z.id, plan: z.paid === true ? 'pro' : 'free', customHostnames: true, regionalHostnames: true, lenient: true });
  }
  const known = new Set((api.zones ?? []).map((z) => z.id));
  for (const [zoneId, recs] of Object.entries(api.records ?? {})) {
    if (!known.has(zoneId)) continue;
    // Upstream's fixtures are stored as given (the mock checks nothing), with their ids.
    for (const r of recs) emu.addRecord(zoneId, r, { id: String(r['id']), unchecked: true });
  }
  for (const [zoneId, list] of Object.entries(api.customHostnames ?? {})) for (const h of list) if (known.has(zoneId)) emu.addCustomHostname(zoneId, h);
  for (const [zoneId, list] of Object.entries(api.regionalHostnames ?? {})) for (const h of list) if (known.has(zoneId)) emu.addRegionalHostname(zoneId, h);
  await emu.addFaults(api.faults ?? []);
  return emu;
}

export interface Harness {
  emu: CloudflareEmulator;
  /** The records seeded before the case ran, as the API returned them. */
  seeds: Record<string, unknown>[];
  provider: CloudflareProvider;
  lines: LogLine[];
  sleeps: number[];
}

/** The provider over the SDK adapter pointed at the emulator; listings are never reused (upstream lists every sync). */
export function buildProvider(emu: CloudflareEmulator, cfg: CaseConfig = {}, zoneIds: readonly string[] = []): Harness {
  const seeds = zoneIds.flatMap((z) => emu.records(z) as unknown as Record<string, unknown>[]);
  const { logger, lines } = capturingLogger('debug');
  const sleeps: number[] = [];
  const ch = cfg.customHostnames;
  const provider = new CloudflareProvider({
    api: sdkCloudflareApi({ baseURL: emu.baseURL, apiToken: emu.token }),
    logger,
    domains: (cfg.domainFilter ?? []).filter((d) => d !== ''),
    zoneIds: cfg.zoneIdFilter ?? [],
    proxiedByDefault: cfg.proxiedByDefault ?? false,
    recordComment: cfg.recordComment ?? '',
    regionalServices: cfg.regionalServices ?? false,
    regionKey: cfg.regionKey ?? '',
    customHostnames: { enabled: ch?.enabled ?? false, minTlsVersion: ch?.minTlsVersion ?? '', certificateAuthority: ch?.certificateAuthority ?? '' },
    ...(cfg.recordsPerPage === undefined ? {} : { recordsPerPage: cfg.recordsPerPage }),
    batchChangeSize: cfg.batchChangeSize ?? 200,
    batchChangeIntervalMs: cfg.batchChangeIntervalMs ?? 0,
    recordsCacheMs: 0,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  });
  return { emu, seeds, provider, lines, sleeps };
}

/** The flags a case's config stands for (the ones fromConfig cases use). */
function configArgs(cfg: CaseConfig): string[] {
  const args: string[] = ['--cloudflare-records-cache-duration', '0s'];
  for (const d of cfg.domainFilter ?? []) args.push('--domain-filter', d);
  if (cfg.regionalServices === true) args.push('--cloudflare-regional-services');
  if (cfg.regionKey !== undefined) args.push('--cloudflare-region-key', cfg.regionKey);
  if (cfg.proxiedByDefault === true) args.push('--cloudflare-proxied');
  if (cfg.recordComment !== undefined) args.push('--cloudflare-record-comment', cfg.recordComment);
  return args;
}

/** The provider as the CLI builds it: flags, then CF_API_TOKEN and CLOUDFLARE_BASE_URL from the environment. */
export async function providerFromConfig(emu: CloudflareEmulator, cfg: CaseConfig = {}): Promise<Harness> {
  const { logger, lines } = capturingLogger('debug');
  const sleeps: number[] = [];
  const values = parseArgs(configArgs(cfg), {}, [...FLAGS, ...CLOUDFLARE_FLAGS, ...ZONE_FILTER_FLAGS]).values;
  const flags = new FlagValues(values);
  const provider = await CloudflareProvider.fromConfig(
    { flags, domainFilters: cfg.domainFilter ?? [], excludeDomains: [] },
    {
      logger,
      env: { CF_API_TOKEN: emu.token, CLOUDFLARE_BASE_URL: emu.baseURL },
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
    },
  );
  return { emu, seeds: [], provider, lines, sleeps };
}

/** One record write as the API received it: a single call, or one operation of an accepted batch. */
export interface Action {
  op: 'create' | 'update' | 'delete';
  zoneId: string;
  id?: string;
  body: Record<string, unknown>;
}

const isRecords = (r: RequestLogEntry): boolean => r.parts[0] === 'zones' && r.parts[2] === 'dns_records';

/** Every record the emulator held or wrote during the case, by id (seeds and write results). */
function knownRecords(emu: CloudflareEmulator, seeds: readonly Record<string, unknown>[]): Map<string, Record<string, unknown>> {
  const known = new Map(seeds.map((r) => [String(r['id']), r]));
  for (const r of emu.requests) {
    if (!isRecords(r) || r.status !== 200 || r.result === null || typeof r.result !== 'object') continue;
    const res = r.result as Record<string, unknown>;
    const list = r.parts[3] === 'batch' ? [...((res['puts'] ?? []) as unknown[]), ...((res['posts'] ?? []) as unknown[])] : [res];
    for (const x of list as Record<string, unknown>[]) if (typeof x['name'] === 'string') known.set(String(x['id']), x);
  }
  return known;
}

/**
 * Record writes received from `from` on. Like upstream's mock: single calls count whether or not
 * they succeeded; a batch counts only when it was applied (a failed batch is rolled back). A
 * delete carries the name, type and content of the record it removed.
 */
export function actions(emu: CloudflareEmulator, from = 0, seeds: readonly Record<string, unknown>[] = []): Action[] {
  const known = knownRecords(emu, seeds);
  const deleted = (id: string): Record<string, unknown> => {
    const r = known.get(id);
    return r === undefined ? {} : { name: r['name'], type: r['type'], content: r['content'] };
  };
  const out: Action[] = [];
  for (const r of emu.requests.slice(from)) {
    if (!isRecords(r) || r.method === 'GET') continue;
    const zoneId = r.parts[1] ?? '';
    const body = (r.body ?? {}) as Record<string, unknown>;
    const rid = r.parts[3];
    if (rid === 'batch') {
      if (r.status !== 200) continue;
      const list = (k: string): Record<string, unknown>[] => (Array.isArray(body[k]) ? (body[k] as Record<string, unknown>[]) : []);
      for (const d of list('deletes')) out.push({ op: 'delete', zoneId, id: String(d['id']), body: deleted(String(d['id'])) });
      for (const p of [...list('patches'), ...list('puts')]) out.push({ op: 'update', zoneId, id: String(p['id']), body: p });
      for (const p of list('posts')) out.push({ op: 'create', zoneId, body: p });
    } else if (r.method === 'POST') out.push({ op: 'create', zoneId, body });
    else if (r.method === 'DELETE') out.push({ op: 'delete', zoneId, ...(rid === undefined ? {} : { id: rid }), body: deleted(rid ?? '') });
    else out.push({ op: 'update', zoneId, ...(rid === undefined ? {} : { id: rid }), body });
  }
  return out;
}

/** Regional hostname writes from `from` on. */
export function regionalActions(emu: CloudflareEmulator, from = 0): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const r of emu.requests.slice(from)) {
    if (r.parts[2] !== 'addressing' || r.parts[3] !== 'regional_hostnames' || r.method === 'GET') continue;
    const body = (r.body ?? {}) as Record<string, unknown>;
    const zoneId = r.parts[1];
    if (r.method === 'POST') out.push({ op: 'create', zoneId, hostname: body['hostname'], regionKey: body['region_key'] });
    else if (r.method === 'PATCH') out.push({ op: 'update', zoneId, hostname: r.parts[4], regionKey: body['region_key'] });
    else if (r.method === 'DELETE') out.push({ op: 'delete', zoneId, hostname: r.parts[4] });
  }
  return out;
}

/** Custom hostname create requests from `from` on. */
export function customHostnameCreates(emu: CloudflareEmulator, from = 0): { zoneId: string; body: Record<string, unknown> }[] {
  return emu.requests
    .slice(from)
    .filter((r) => r.parts[2] === 'custom_hostnames' && r.method === 'POST')
    .map((r) => ({ zoneId: r.parts[1] ?? '', body: (r.body ?? {}) as Record<string, unknown> }));
}

/** Requests by operation name (as the data's `calls` names them) from `from` on. */
export function callCount(emu: CloudflareEmulator, op: string, from = 0): number {
  const match: Record<string, (r: RequestLogEntry) => boolean> = {
    batch: (r) => isRecords(r) && r.parts[3] === 'batch',
    create: (r) => isRecords(r) && r.method === 'POST' && r.parts[3] === undefined,
    update: (r) => isRecords(r) && (r.method === 'PUT' || r.method === 'PATCH'),
    delete: (r) => isRecords(r) && r.method === 'DELETE',
    'list-zones': (r) => r.method === 'GET' && r.parts.length === 1,
    'get-zone': (r) => r.method === 'GET' && r.parts.length === 2,
  };
  const m = match[op];
  if (m === undefined) throw new Error(`unknown call name ${op}`);
  return emu.requests.slice(from).filter(m).length;
}
