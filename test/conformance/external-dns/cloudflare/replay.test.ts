/**
 * Replays external-dns's Cloudflare provider tests (restated as data in this folder, README.md)
 * through Hostwarden's CloudflareProvider over the SDK adapter, against the Cloudflare emulator
 * (test/support/cloudflare), with Hostwarden's planner for `sync` and `plan`. A case marked
 * `differs` asserts Hostwarden's own answer (`hostwarden`, replacing those `expect` fields) or, when
 * it gives none, only what both agree on; docs/providers/cloudflare.md lists every such case.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { FlagValues } from '../../../../src/config/config.ts';
import { FLAGS } from '../../../../src/config/flags.ts';
import { parseArgs } from '../../../../src/config/parse.ts';
import { DomainFilter } from '../../../../src/endpoint/domain-filter.ts';
import { cloneEndpoint } from '../../../../src/endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../../../../src/endpoint/endpoint.ts';
import { silentLogger } from '../../../../src/log.ts';
import { calculatePlan } from '../../../../src/plan/plan.ts';
import { chunkChanges } from '../../../../src/provider/cloudflare/batch.ts';
import type { RecordChange } from '../../../../src/provider/cloudflare/changes.ts';
import { CloudflareProvider } from '../../../../src/provider/cloudflare/cloudflare.ts';
import { CLOUDFLARE_FLAGS } from '../../../../src/provider/cloudflare/flags.ts';
import { ZONE_FILTER_FLAGS } from '../../../../src/provider/zone-filter.ts';
import { startCloudflareEmulator } from '../../../support/cloudflare/emulator.ts';
import type { CloudflareEmulator, OpFault } from '../../../support/cloudflare/emulator.ts';
import { faultReply } from '../../../support/cloudflare/faults.ts';
import {
  checkActions,
  checkCalls,
  checkCustomHostnames,
  checkEndpoints,
  checkError,
  checkLog,
  checkProperties,
  checkRecordsAfter,
  checkRegionalActions,
} from './expect.ts';
import { buildProvider, changesOf, endpoints, propertyName, providerFromConfig, readCaseFile, seededEmulator } from './harness.ts';
import type { Case, EndpointData, Expect, Harness, Step } from './harness.ts';

const FILES = [
  'records.json',
  'zones.json',
  'errors.json',
  'apply-changes.json',
  'proxied.json',
  'provider-specific.json',
  'comments.json',
  'regional.json',
  'custom-hostnames.json',
  'batch.json',
  'pagination.json',
  'credentials.json',
];

/**
 * What the case expects of Hostwarden: upstream's answer, or where it differs, Hostwarden's own
 * (`hostwarden` replaces fields; null drops a field; no `hostwarden` leaves only what both share).
 */
function expectationOf(c: Case): Expect {
  if (c.differs === undefined) return c.expect ?? {};
  const merged: Expect = { ...(c.expect ?? {}), ...(c.hostwarden ?? {}) };
  for (const [k, v] of Object.entries(merged)) if (v === null) delete merged[k];
  return merged;
}

async function attempt<T>(fn: () => Promise<T>): Promise<{ value?: T; err?: unknown }> {
  try {
    return { value: await fn() };
  } catch (err) {
    return { err };
  }
}

/** The API text an error should keep: the first fault's message (or its stock text for a status). */
function apiMessage(faults: OpFault[] | undefined): string | undefined {
  const e = faults?.[0]?.error;
  if (e === undefined || e.disconnect !== undefined || e.refused === true) return undefined;
  return faultReply(e).message;
}

/** The common after-write checks. */
function checkWrites(h: Harness, e: Expect, from: number): void {
  if (e['actions'] !== undefined) checkActions(h.emu, e['actions'] as Record<string, unknown>[], e['actionsOrdered'] === true, from, h.seeds);
  if (e['regionalActions'] !== undefined) checkRegionalActions(h.emu, e['regionalActions'] as Record<string, unknown>[], from);
  checkRecordsAfter(h.emu, e);
  checkCustomHostnames(h.emu, e, from);
  checkCalls(h.emu, e, h.sleeps, from);
  checkLog(h.lines, e['log'] as { contains: string } | undefined);
}

async function runRecords(c: Case, h: Harness, e: Expect): Promise<void> {
  const { value, err } = await attempt(() => h.provider.records());
  checkError(e, err, apiMessage(c.api?.faults));
  if (e['endpoints'] !== undefined) checkEndpoints(value ?? [], e['endpoints'] as EndpointData[]);
  if (e['endpointCount'] !== undefined) assert.equal(value?.length, e['endpointCount']);
  checkCalls(h.emu, e, h.sleeps);
  checkLog(h.lines, e['log'] as { contains: string } | undefined);
}

/** The zone set, seen through records(): the zones whose records were listed. */
async function runZones(c: Case, h: Harness, e: Expect): Promise<void> {
  const { err } = await attempt(() => h.provider.records());
  checkError(e, err, apiMessage(c.api?.faults));
  if (e['zones'] !== undefined) {
    const listed = new Set(h.emu.requests.filter((r) => r.method === 'GET' && r.parts[2] === 'dns_records').map((r) => r.parts[1]));
    const names = new Map((c.api?.zones ?? []).map((z) => [z.id, z.name]));
    const want = (e['zones'] as { id: string; name: string }[]).map((z) => `${z.id} ${z.name}`).sort();
    assert.deepEqual([...listed].map((id) => `${id ?? ''} ${names.get(id ?? '') ?? '?'}`).sort(), want);
  }
  checkCalls(h.emu, e, h.sleeps);
  checkLog(h.lines, e['log'] as { contains: string } | undefined);
}

async function runAdjust(c: Case, h: Harness, e: Expect): Promise<void> {
  const got = await h.provider.adjustEndpoints(endpoints(c.endpoints));
  if (e['properties'] !== undefined) checkProperties(got, e['properties'] as Record<string, string | null>[]);
  if (e['endpoints'] !== undefined) checkEndpoints(got, e['endpoints'] as EndpointData[]);
}

async function runApply(c: Case, h: Harness, e: Expect): Promise<void> {
  // Hostwarden's dry run lives in the controller: the provider is never asked to apply.
  const { err } = c.config?.dryRun === true ? {} : await attempt(() => h.provider.applyChanges(changesOf(c)));
  checkError(e, err, apiMessage(c.api?.faults));
  checkWrites(h, e, 0);
}

const withoutProperties = (ep: Endpoint): Endpoint => ({ ...cloneEndpoint(ep), providerSpecific: [] });

/** records() → adjustEndpoints(desired) → Hostwarden's planner; the plan and what records() returned. */
async function plan(
  c: Case,
  h: Harness,
  list: Step['endpoints'] | undefined,
): Promise<{ changes: ReturnType<typeof calculatePlan>['changes']; current: Endpoint[] }> {
  const current = await h.provider.records();
  const raw = c.desiredFromCurrent === true ? current.map(withoutProperties) : endpoints(list);
  const desired = await h.provider.adjustEndpoints(raw);
  const managed = (c.managedRecords ?? ['A', 'AAAA', 'CNAME']) as RecordType[];
  const { changes } = calculatePlan({
    current,
    desired,
    ownerId: '',
    policy: 'sync',
    managedRecordTypes: managed,
    excludeRecordTypes: [],
    domainFilter: new DomainFilter({ include: c.planDomainFilter ?? [] }),
  });
  // Upstream's harness hands desired endpoints of unmanaged types to the provider as creates.
  if (c.appendUnmanagedToCreate === true) changes.create.push(...desired.filter((d) => !managed.includes(d.recordType)));
  return { changes, current };
}

async function runPlan(c: Case, h: Harness, e: Expect): Promise<void> {
  const { changes, current } = await plan(c, h, c.endpoints);
  if (e['currentCount'] !== undefined) assert.equal(current.length, e['currentCount'], 'records() endpoints');
  const counts = e['plan'] as Record<string, number> | undefined;
  for (const [k, n] of Object.entries(counts ?? {})) assert.equal(changes[k as keyof typeof changes].length, n, `plan ${k}`);
  const prop = e['updateNewProperty'] as { name: string; value: string | null } | undefined;
  if (prop !== undefined) {
    assert.equal(changes.updateNew.length, 1);
    assert.equal(changes.updateNew[0]?.providerSpecific.find((p) => p.name === propertyName(prop.name))?.value ?? null, prop.value);
  }
}

/** One sync: plan, then (unless dry run) applyChanges; errors from either count. */
async function sync(c: Case, h: Harness, list: Step['endpoints'] | undefined, e: Expect, mutate?: Step['mutateBeforeApply']): Promise<void> {
  const from = h.emu.requests.length;
  const { err } = await attempt(async () => {
    const { changes } = await plan(c, h, list);
    const counts = e['plan'] as Record<string, number> | undefined;
    for (const [k, n] of Object.entries(counts ?? {})) assert.equal(changes[k as keyof typeof changes].length, n, `plan ${k}`);
    mutateApi(h.emu, mutate);
    if (c.config?.dryRun !== true) await h.provider.applyChanges(changes);
  });
  if (err instanceof assert.AssertionError) throw err;
  checkError(e, err, apiMessage(c.api?.faults));
  checkWrites(h, e, from);
}

/** API edits made between planning and applying (someone else changing the zone meanwhile). */
function mutateApi(emu: CloudflareEmulator, mutate: Step['mutateBeforeApply']): void {
  for (const m of (mutate ?? []) as Record<string, string>[]) {
    const zoneId = m['zoneId'] ?? '';
    if (m['op'] === 'add-custom-hostname') {
      emu.addCustomHostname(zoneId, { id: m['id'], hostname: m['hostname'] ?? '', customOriginServer: m['customOriginServer'] });
    } else if (m['op'] === 'rename-custom-hostname') {
      const h = emu.customHostnames(zoneId).find((x) => x.hostname === m['from']?.toLowerCase());
      assert.ok(h !== undefined, `no custom hostname ${m['from']}`);
      emu.removeCustomHostname(zoneId, h.id);
      emu.addCustomHostname(zoneId, { id: h.id, hostname: m['to'] ?? '', customOriginServer: h.custom_origin_server });
    } else assert.fail(`unknown mutation ${m['op']}`);
  }
}

async function runSteps(c: Case, h: Harness): Promise<void> {
  for (const step of c.steps ?? []) {
    await h.emu.addFaults(step.faults ?? []);
    try {
      await sync({ ...c, api: { ...c.api, faults: step.faults ?? [] } }, h, step.endpoints, step.expect, step.mutateBeforeApply);
    } catch (err) {
      assert.fail(`step "${step.subtest}": ${(err as Error).message}`);
    } finally {
      await h.emu.clearFaults();
      await h.emu.addFaults(c.api?.faults ?? []);
    }
  }
}

function runChunk(c: Case, e: Expect): void {
  const n = c.input ?? { deletes: 0, puts: 0, posts: 0 };
  const change = { action: 'create' } as unknown as RecordChange;
  const op = (i: number): { id: string; change: RecordChange } => ({ id: String(i), change });
  const chunks = chunkChanges(
    Array.from({ length: n.deletes }, (_, i) => op(i)),
    Array.from({ length: n.puts }, (_, i) => op(i)),
    Array.from({ length: n.posts }, () => change),
    c.limit ?? 200,
  );
  assert.deepEqual(
    chunks.map((k) => ({ deletes: k.deletes.length, puts: k.puts.length, posts: k.posts.length })),
    e['chunks'],
  );
}

/** Credentials from env through fromConfig; the emulator reports which scheme and token arrived. */
async function runCredentials(c: Case, e: Expect): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'hw-cf-cred-'));
  const emu = await startCloudflareEmulator();
  try {
    const file = join(dir, 'token');
    if (c.tokenFile !== undefined) await writeFile(file, c.tokenFile);
    const sub = (v: string): string => v.replaceAll('$TOKEN_FILE', file);
    const env = { ...Object.fromEntries(Object.entries(c.env ?? {}).map(([k, v]) => [k, sub(v)])), CLOUDFLARE_BASE_URL: emu.baseURL };
    const flags = new FlagValues(parseArgs([], {}, [...FLAGS, ...CLOUDFLARE_FLAGS, ...ZONE_FILTER_FLAGS]).values);
    const { err } = await attempt(() => CloudflareProvider.fromConfig({ flags, domainFilters: [], excludeDomains: [] }, { logger: silentLogger(), env }));
    const message = err instanceof Error ? err.message : '';
    const credentialError = err !== undefined && emu.authSeen.length === 0;
    assert.equal(!credentialError, e['ok'], `construction: ${message}`);
    if (e['errorText'] !== undefined) assert.equal(message, e['errorText']);
    if (e['errorContains'] !== undefined) assert.ok(message.includes(e['errorContains'] as string), message);
    const seen = emu.authSeen[0];
    if (e['auth'] !== undefined) assert.equal(seen?.scheme, e['auth']);
    if (e['token'] !== undefined) assert.equal(seen?.token, sub(e['token'] as string));
  } finally {
    await emu.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every `expect` field the runner checks; an unknown one fails the case instead of passing unchecked. */
const CHECKED = new Set(
  (
    'actions actionsOrdered auth batchBodies calls chunks currentCount customHostnameCount customHostnameCreates customHostnameRequests ' +
    'customHostnamesAfter endpointCount endpoints error errorContains errorKeepsApiMessage errorText listRecordsPagesAtLeast ' +
    'listRecordsQuery log ok plan properties recordsAfter recordsAfterExclude recordsAfterInclude regionalActions sleeps token ' +
    'transient updateNewProperty zones'
  ).split(' '),
);

async function runCase(c: Case): Promise<void> {
  const e = expectationOf(c);
  for (const x of [e, ...(c.steps ?? []).map((s) => s.expect)]) for (const k of Object.keys(x)) assert.ok(CHECKED.has(k), `unchecked expect field ${k}`);
  if (c.kind === 'chunk') return runChunk(c, e);
  if (c.kind === 'credentials') return runCredentials(c, e);
  const emu = await seededEmulator(c.api);
  const zoneIds = (c.api?.zones ?? []).map((z) => z.id);
  const h =
    c.via === 'fromConfig'
      ? { ...(await providerFromConfig(emu, c.config)), seeds: buildProvider(emu, {}, zoneIds).seeds }
      : buildProvider(emu, c.config, zoneIds);
  try {
    if (c.kind === 'records') await runRecords(c, h, e);
    else if (c.kind === 'zones') await runZones(c, h, e);
    else if (c.kind === 'adjust') await runAdjust(c, h, e);
    else if (c.kind === 'apply') await runApply(c, h, e);
    else if (c.kind === 'plan') await runPlan(c, h, e);
    else if (c.kind === 'sync') await sync(c, h, c.endpoints, e);
    else await runSteps(c, h);
  } finally {
    await h.emu.close();
  }
}

for (const file of FILES) {
  const data = await readCaseFile(new URL(file, import.meta.url));
  describe(`external-dns cloudflare ${file}`, () => {
    for (const c of data.cases) test(`${c.name}${c.differs === undefined ? '' : ' (differs)'}`, () => runCase(c));
  });
}
