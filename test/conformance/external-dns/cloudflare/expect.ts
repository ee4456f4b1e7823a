/**
 * Comparisons for the Cloudflare replay: each `expect` field of the data (README.md here) against
 * what the provider returned and what the emulator received.
 */
import assert from 'node:assert/strict';
import type { Endpoint } from '../../../../src/endpoint/endpoint.ts';
import type { LogLine } from '../../../support/log-capture.ts';
import type { CloudflareEmulator } from '../../../support/cloudflare/emulator.ts';
import type { Action } from './harness.ts';
import { actions, callCount, customHostnameCreates, properties, propertyName, regionalActions } from './harness.ts';
import type { EndpointData, Expect } from './harness.ts';

/** error: true / false / {contains}; transient: the typed error's flag. */
export function checkError(e: Expect, err: unknown, apiMessage?: string): void {
  const want = e['error'];
  if (want === undefined && e['transient'] === undefined) {
    if (err !== undefined) throw err;
    return;
  }
  if (want === false) {
    if (err !== undefined) throw err;
    return;
  }
  if (want !== undefined) assert.ok(err !== undefined, 'expected an error');
  const message = err instanceof Error ? err.message : String(err);
  if (typeof want === 'object' && want !== null) {
    const contains = (want as { contains: string }).contains;
    assert.ok(message.includes(contains), `error "${message}" lacks "${contains}"`);
  }
  if (e['transient'] !== undefined) {
    assert.ok(err !== undefined, 'expected an error');
    assert.equal((err as { transient?: boolean }).transient === true, e['transient'], `transient of "${message}"`);
  }
  if (e['errorKeepsApiMessage'] === true && apiMessage !== undefined) assert.ok(message.includes(apiMessage), `error "${message}" lacks "${apiMessage}"`);
}

const propMap = (ep: Endpoint | EndpointData): string =>
  JSON.stringify(
    properties(ep.providerSpecific)
      .map((p) => `${p.name}=${p.value}`)
      .sort(),
  );

function endpointKey(ep: Endpoint | EndpointData, withProps: boolean): string {
  const ttl = 'recordTTL' in ep ? ep.recordTTL : (ep.ttl ?? 0);
  return `${ep.dnsName} ${ep.recordType} [${[...ep.targets].sort().join(',')}] ttl=${ttl}${withProps ? ` ${propMap(ep)}` : ''}`;
}

/** Order-insensitive; provider-specific properties compared as a set where the data gives them. */
export function checkEndpoints(got: Endpoint[], want: EndpointData[]): void {
  const withProps = want.some((w) => w.providerSpecific !== undefined);
  assert.deepEqual(got.map((g) => endpointKey(g, withProps)).sort(), want.map((w) => endpointKey(w, withProps)).sort());
}

/** expect.properties[i]: name → value on the i-th endpoint; null = absent. */
export function checkProperties(got: Endpoint[], want: Record<string, string | null>[]): void {
  assert.equal(got.length, want.length, 'endpoint count');
  want.forEach((props, i) => {
    for (const [name, value] of Object.entries(props)) {
      const p = got[i]?.providerSpecific.find((x) => x.name === propertyName(name));
      assert.equal(p?.value ?? null, value, `endpoint ${i} property ${name}`);
    }
  });
}

function actionField(a: Action, k: string): unknown {
  switch (k) {
    case 'op':
    case 'zoneId':
      return a[k];
    case 'id':
      return a.id;
    case 'commentLength':
      return typeof a.body['comment'] === 'string' ? a.body['comment'].length : 0;
    case 'noContent':
      return !('content' in a.body);
    case 'comment':
      return a.body['comment'] ?? '';
    case 'tags':
      return a.body['tags'] ?? [];
    default:
      return a.body[k];
  }
}

function actionMatches(a: Action, w: Record<string, unknown>): boolean {
  return Object.entries(w).every(([k, v]) => {
    // Upstream's mock makes up ids for created records; Cloudflare assigns them.
    if (k === 'id' && a.op === 'create') return true;
    // A delete carries no body: its record's fields stand in, where known.
    if (a.op === 'delete' && !['op', 'zoneId', 'id'].includes(k) && !(k in a.body)) return true;
    // An endpoint without a type is sent as A (harness.ts endpoints()).
    if (k === 'type' && v === '') return a.body['type'] === 'A';
    return JSON.stringify(actionField(a, k)) === JSON.stringify(v);
  });
}

const show = (a: Action): string => JSON.stringify({ op: a.op, zoneId: a.zoneId, id: a.id, ...a.body });

/** Expected writes against received ones: same count, each matched once on its given fields. */
export function checkActions(
  emu: CloudflareEmulator,
  want: Record<string, unknown>[],
  ordered: boolean,
  from = 0,
  seeds: Record<string, unknown>[] = [],
): void {
  const got = actions(emu, from, seeds);
  const msg = `received:\n${got.map(show).join('\n')}\nexpected:\n${want.map((w) => JSON.stringify(w)).join('\n')}`;
  assert.equal(got.length, want.length, `action count\n${msg}`);
  if (ordered) {
    want.forEach((w, i) => assert.ok(actionMatches(got[i] as Action, w), `action ${i}\n${msg}`));
    return;
  }
  const left = [...got];
  for (const w of want) {
    const i = left.findIndex((a) => actionMatches(a, w));
    assert.ok(i >= 0, `no received action matches ${JSON.stringify(w)}\n${msg}`);
    left.splice(i, 1);
  }
}

export function checkRegionalActions(emu: CloudflareEmulator, want: Record<string, unknown>[], from = 0): void {
  const key = (a: Record<string, unknown>): string => JSON.stringify([a['op'], a['zoneId'], a['hostname'], a['op'] === 'delete' ? null : a['regionKey']]);
  assert.deepEqual(regionalActions(emu, from).map(key).sort(), want.map(key).sort());
}

type RecordFields = Record<string, unknown>;

function recordMatches(r: RecordFields, w: RecordFields): boolean {
  return Object.entries(w).every(([k, v]) => JSON.stringify(r[k]) === JSON.stringify(v));
}

/** recordsAfter (exact per zone), recordsAfterInclude, recordsAfterExclude. */
export function checkRecordsAfter(emu: CloudflareEmulator, e: Expect): void {
  const all = e['recordsAfter'] as Record<string, RecordFields[]> | undefined;
  for (const [zoneId, want] of Object.entries(all ?? {})) {
    const got = emu.records(zoneId) as unknown as RecordFields[];
    assert.equal(got.length, want.length, `records of ${zoneId}: ${JSON.stringify(got.map((r) => `${String(r['name'])} ${String(r['type'])}`))}`);
    for (const w of want)
      assert.ok(
        got.some((r) => recordMatches(r, w)),
        `no record ${JSON.stringify(w)} in ${zoneId}`,
      );
  }
  for (const [zoneId, want] of Object.entries((e['recordsAfterInclude'] ?? {}) as Record<string, RecordFields[]>)) {
    const got = emu.records(zoneId) as unknown as RecordFields[];
    for (const w of want)
      assert.ok(
        got.some((r) => recordMatches(r, w)),
        `no record ${JSON.stringify(w)} in ${zoneId}`,
      );
  }
  for (const [zoneId, want] of Object.entries((e['recordsAfterExclude'] ?? {}) as Record<string, RecordFields[]>)) {
    const got = emu.records(zoneId) as unknown as RecordFields[];
    for (const w of want) assert.ok(!got.some((r) => recordMatches(r, w)), `record ${JSON.stringify(w)} still in ${zoneId}`);
  }
}

/** customHostnamesAfter (exact set per zone), customHostnameCreates, customHostnameRequests, customHostnameCount. */
export function checkCustomHostnames(emu: CloudflareEmulator, e: Expect, from = 0): void {
  for (const [zoneId, want] of Object.entries((e['customHostnamesAfter'] ?? {}) as Record<string, RecordFields[]>)) {
    const got = emu.customHostnames(zoneId).map((h) => ({ id: h.id, hostname: h.hostname, customOriginServer: h.custom_origin_server }));
    // Cloudflare keeps hostnames lower-cased; upstream's mock keeps the case it was given.
    const key = (h: RecordFields): string => `${String(h['hostname']).toLowerCase()} <- ${String(h['customOriginServer'])}`;
    assert.deepEqual(got.map(key).sort(), want.map(key).sort(), `custom hostnames of ${zoneId}`);
    for (const w of want) {
      if (w['id'] !== undefined)
        assert.ok(
          got.some((g) => g.id === w['id'] && g.hostname === String(w['hostname']).toLowerCase()),
          `custom hostname id ${String(w['id'])}`,
        );
    }
  }
  const creates = customHostnameCreates(emu, from);
  if (e['customHostnameCreates'] !== undefined) assert.equal(creates.length, e['customHostnameCreates'], 'custom hostname creates');
  const reqs = e['customHostnameRequests'] as { zoneId: string; hostname: string; ssl: RecordFields; sslAbsent: string[] }[] | undefined;
  if (reqs !== undefined) {
    assert.equal(creates.length, reqs.length, 'custom hostname create requests');
    reqs.forEach((w, i) => {
      const got = creates[i];
      assert.equal(got?.zoneId, w.zoneId);
      assert.equal(got?.body['hostname'], w.hostname);
      const ssl = (got?.body['ssl'] ?? {}) as RecordFields;
      for (const [k, v] of Object.entries(w.ssl)) assert.deepEqual(ssl[k], v, `ssl.${k}`);
      for (const k of w.sslAbsent) assert.equal(ssl[k], undefined, `ssl.${k} must be absent`);
    });
  }
  for (const [zoneId, n] of Object.entries((e['customHostnameCount'] ?? {}) as Record<string, number>)) assert.equal(emu.customHostnames(zoneId).length, n);
}

/** calls, batchBodies, sleeps, listRecordsQuery, listRecordsPagesAtLeast. */
export function checkCalls(emu: CloudflareEmulator, e: Expect, sleeps: number[], from = 0): void {
  for (const [op, n] of Object.entries((e['calls'] ?? {}) as Record<string, number>)) assert.equal(callCount(emu, op, from), n, `${op} calls`);
  const reqs = emu.requests.slice(from);
  if (e['batchBodies'] !== undefined) {
    const bodies = reqs
      .filter((r) => r.parts[3] === 'batch')
      .map((r) => {
        const b = (r.body ?? {}) as Record<string, unknown[] | undefined>;
        return { deletes: b['deletes']?.length ?? 0, puts: (b['puts']?.length ?? 0) + (b['patches']?.length ?? 0), posts: b['posts']?.length ?? 0 };
      });
    assert.deepEqual(bodies, e['batchBodies']);
  }
  if (e['sleeps'] !== undefined) assert.deepEqual(sleeps, e['sleeps']);
  const lists = reqs.filter((r) => r.method === 'GET' && r.parts[2] === 'dns_records' && r.parts[3] === undefined);
  for (const [k, v] of Object.entries((e['listRecordsQuery'] ?? {}) as Record<string, string | null>)) {
    assert.ok(lists.length > 0, 'no record listing');
    for (const l of lists) assert.equal(l.query[k] ?? null, v, `list query ${k}`);
  }
  if (e['listRecordsPagesAtLeast'] !== undefined) assert.ok(lists.length >= (e['listRecordsPagesAtLeast'] as number), `${lists.length} record pages`);
}

const LEVELS: Record<string, number> = { debug: 20, info: 30, warn: 40, error: 50 };

/**
 * expect.log: upstream's wording is informative (README); Hostwarden words its own logs, so what is
 * checked is `count` (default 1) lines at the level or above (any level when none is given).
 */
export function checkLog(lines: LogLine[], log: { level?: string; contains: string; count?: number } | undefined): void {
  if (log === undefined) return;
  const min = LEVELS[log.level ?? 'debug'] ?? 20;
  const hits = lines.filter((l) => l.level >= min);
  const shown = lines.map((l) => `${l.level} ${l.msg}`).join('\n');
  assert.ok(hits.length >= (log.count ?? 1), `${hits.length} log line(s) at ${log.level ?? 'any level'} (upstream: "${log.contains}"):\n${shown}`);
}
