/**
 * Replays external-dns's planner tests (plan_test.go, conflict_test.go, policy_test.go) and its
 * SRV target cases (endpoint_test.go), restated as data in this folder, through Hostwarden's pure
 * planner. A case marked `differs` asserts Hostwarden's own answer (`hostwarden`) and is listed,
 * with its reason, on the compatibility page.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DomainFilter } from '../../../../src/endpoint/domain-filter.ts';
import { sameProviderSpecific } from '../../../../src/endpoint/endpoint.ts';
import type { Endpoint, ProviderSpecificProperty, RecordType } from '../../../../src/endpoint/endpoint.ts';
import { validateEndpoint } from '../../../../src/endpoint/validate.ts';
import { hasChanges } from '../../../../src/plan/changes.ts';
import type { Changes } from '../../../../src/plan/changes.ts';
import { cnameConflictLoser, resolveCreate, resolveUpdate } from '../../../../src/plan/conflict.ts';
import { calculatePlan } from '../../../../src/plan/plan.ts';
import { POLICIES } from '../../../../src/plan/policy.ts';
import type { Policy } from '../../../../src/plan/policy.ts';
import { changesFromWire, changesToWire } from '../../../../src/provider/webhook/protocol.ts';
import { readCases, resolver, sameEndpoint, sameEndpoints, showEndpoints } from './endpoints.ts';
import type { BaseCase, EndpointRef } from './endpoints.ts';

type ChangeRefs = Partial<Record<keyof Changes, EndpointRef[]>>;

interface PlanExpectation {
  expect?: ChangeRefs;
}

interface PlanCase extends BaseCase, PlanExpectation {
  kind?: 'calculate' | 'changesJSON' | 'changesDecode' | 'hasChanges' | 'providerSpecificChanged' | 'policyNames';
  current?: EndpointRef[];
  desired?: EndpointRef[];
  managedRecords?: RecordType[];
  excludeRecords?: RecordType[];
  ownerId?: string;
  oldOwnerId?: string;
  policy?: Policy;
  domainFilter?: { include?: string[]; exclude?: string[] };
  hostwarden?: PlanExpectation;
  expectHasChanges?: boolean;
  expectDecision?: { dnsName: string; recordType: string; action: string; reasonCode: string; reasonContains: string };
  changes?: ChangeRefs;
  expectKeys?: string[];
  json?: string;
  expectCounts?: Record<keyof Changes, number>;
  currentProviderSpecific?: ProviderSpecificProperty[];
  desiredProviderSpecific?: ProviderSpecificProperty[];
  expectChanged?: boolean;
  expectNames?: string[];
}

interface ConflictCase extends BaseCase {
  kind: 'resolveCreate' | 'resolveUpdate' | 'recordTypes';
  candidates?: EndpointRef[];
  current?: EndpointRef;
  expect?: EndpointRef;
  candidateTypes?: RecordType[];
  currentTypes?: RecordType[];
  expectLoser?: 'cname' | 'other' | null;
  expectDecision?: string;
  hostwarden?: { expectLoser?: 'cname' | 'other' | null };
}

interface SrvCase extends BaseCase {
  target: string;
  expectValid: boolean;
  hostwarden?: { expectValid: boolean; expectTarget?: string };
}

const KINDS: (keyof Changes)[] = ['create', 'updateOld', 'updateNew', 'delete'];

function runPlan(c: PlanCase, ep: (r: EndpointRef) => Endpoint): ReturnType<typeof calculatePlan> {
  const desired = (c.desired ?? []).map(ep);
  return calculatePlan({
    current: (c.current ?? []).map(ep),
    desired,
    ownerId: c.ownerId ?? '',
    policy: c.policy ?? 'sync',
    managedRecordTypes: c.managedRecords ?? [],
    excludeRecordTypes: c.excludeRecords ?? [],
    domainFilter: new DomainFilter({ include: c.domainFilter?.include ?? [], exclude: c.domainFilter?.exclude ?? [] }),
    ...(c.oldOwnerId === undefined ? {} : { migrateFromOwner: c.oldOwnerId }),
    ...(c.expectDecision === undefined ? {} : { explainNames: new Set([c.expectDecision.dnsName]) }),
  });
}

/** external-dns's registry stamps the owner on creates when it applies them; Hostwarden's planner already has. */
function withoutStampedOwner(list: readonly Endpoint[], ownerId: string): Endpoint[] {
  return list.map((e) => {
    if (ownerId === '' || e.labels['owner'] !== ownerId) return e;
    const { owner: _owner, ...labels } = e.labels;
    return { ...e, labels };
  });
}

function checkCalculate(c: PlanCase, ep: (r: EndpointRef) => Endpoint): void {
  const expectation = c.differs === undefined ? c : (c.hostwarden ?? {});
  const { changes, decisions } = runPlan(c, ep);
  for (const kind of KINDS) {
    const got = kind === 'create' ? withoutStampedOwner(changes[kind], c.ownerId ?? '') : changes[kind];
    const want = (expectation.expect?.[kind] ?? []).map(ep);
    assert.ok(sameEndpoints(got, want), `${kind}: got ${showEndpoints(got)}, want ${showEndpoints(want)}`);
  }
  if (c.expectHasChanges !== undefined) assert.equal(hasChanges(changes), c.expectHasChanges);
  if (c.expectDecision !== undefined) {
    const want = c.expectDecision;
    const d = decisions.find((x) => x.dnsName === want.dnsName && x.recordType === want.recordType && x.action === want.action);
    assert.ok(d !== undefined, `a ${want.action} decision for ${want.dnsName} ${want.recordType}: ${JSON.stringify(decisions)}`);
    assert.equal(d.reasonCode, want.reasonCode);
    assert.ok(d.reason.includes(want.reasonContains), d.reason);
  }
}

function checkPlanCase(c: PlanCase, ep: (r: EndpointRef) => Endpoint): void {
  switch (c.kind ?? 'calculate') {
    case 'calculate':
      return checkCalculate(c, ep);
    case 'changesJSON': {
      const changes = Object.fromEntries(KINDS.map((k) => [k, (c.changes?.[k] ?? []).map(ep)])) as unknown as Changes;
      const wire = JSON.parse(JSON.stringify(changesToWire(changes))) as Record<string, { dnsName: string }[]>;
      assert.deepEqual(Object.keys(wire), c.expectKeys);
      for (const k of KINDS)
        assert.deepEqual(
          wire[k]?.map((e) => e.dnsName),
          changes[k].map((e) => e.dnsName),
        );
      return;
    }
    case 'changesDecode': {
      const changes = changesFromWire(JSON.parse(c.json ?? '{}'));
      for (const k of KINDS) assert.equal(changes[k].length, c.expectCounts?.[k], k);
      return;
    }
    case 'hasChanges': {
      const changes = Object.fromEntries(KINDS.map((k) => [k, (c.changes?.[k] ?? []).map(ep)])) as unknown as Changes;
      assert.equal(hasChanges(changes), c.expectHasChanges);
      return;
    }
    case 'providerSpecificChanged':
      // external-dns's providerSpecificChanged is "not the same set of name=value properties".
      assert.equal(!sameProviderSpecific(c.desiredProviderSpecific ?? [], c.currentProviderSpecific ?? []), c.expectChanged);
      return;
    case 'policyNames':
      assert.deepEqual([...POLICIES].sort(), [...(c.expectNames ?? [])].sort());
      return;
  }
}

function checkConflictCase(c: ConflictCase, ep: (r: EndpointRef) => Endpoint): void {
  if (c.kind === 'recordTypes') {
    const cand = new Set(c.candidateTypes);
    const cur = new Set(c.currentTypes);
    const loser = cnameConflictLoser(
      cand.has('CNAME'),
      [...cand].some((t) => t !== 'CNAME'),
      cur.has('CNAME'),
      [...cur].some((t) => t !== 'CNAME'),
    );
    const want = c.differs === undefined ? c.expectLoser : c.hostwarden?.expectLoser;
    assert.equal(loser ?? null, want ?? null);
    if (c.expectDecision !== undefined) {
      // Upstream logs a warning; Hostwarden says it in the decision for each discarded candidate.
      const desired = (c.candidateTypes ?? []).map((t) => ({
        dnsName: 'foo',
        recordType: t,
        targets: [t === 'CNAME' ? 'v1' : t === 'A' ? '5.5.5.5' : '2001:db8::1'],
      }));
      const { decisions } = calculatePlan({
        current: [],
        desired: desired.map((d) => ep(d)),
        ownerId: '',
        policy: 'sync',
        managedRecordTypes: ['A', 'AAAA', 'CNAME'],
        excludeRecordTypes: [],
        domainFilter: new DomainFilter(),
        explainNames: new Set(['foo']),
      });
      assert.ok(decisions.some((d) => d.recordType === 'CNAME' && d.reasonCode === c.expectDecision));
    }
    return;
  }
  const candidates = (c.candidates ?? []).map(ep);
  const got = c.kind === 'resolveCreate' ? resolveCreate(candidates) : resolveUpdate(ep(c.current ?? ''), candidates);
  const want = ep(c.expect ?? '');
  assert.ok(sameEndpoint(got, want), `got ${showEndpoints([got])}, want ${showEndpoints([want])}`);
}

function checkSrvCase(c: SrvCase): void {
  const want = c.differs === undefined ? { expectValid: c.expectValid } : (c.hostwarden ?? { expectValid: c.expectValid });
  let valid = true;
  let target: string | undefined;
  try {
    target = validateEndpoint({
      dnsName: '_sip._tcp.example.org',
      targets: [c.target],
      recordType: 'SRV',
      setIdentifier: '',
      recordTTL: 0,
      labels: {},
      providerSpecific: [],
    }).targets[0];
  } catch {
    valid = false;
  }
  assert.equal(valid, want.expectValid);
  if ('expectTarget' in want && want.expectTarget !== undefined) assert.equal(target, want.expectTarget);
}

const plan = await readCases<PlanCase>(new URL('./plan.json', import.meta.url));
const policy = await readCases<PlanCase>(new URL('./policy.json', import.meta.url));
const conflict = await readCases<ConflictCase>(new URL('./conflict.json', import.meta.url));
const srv = await readCases<SrvCase>(new URL('./srv-target.json', import.meta.url));

for (const file of [plan, policy]) {
  const ep = resolver(file.fixtures);
  describe(`external-dns ${file.upstream}`, () => {
    for (const c of file.cases) test(`${c.upstreamTest}: ${c.name}${c.differs === undefined ? '' : ' (differs)'}`, () => checkPlanCase(c, ep));
  });
}

describe(`external-dns ${conflict.upstream}`, () => {
  const ep = resolver(conflict.fixtures);
  for (const c of conflict.cases) test(`${c.upstreamTest}: ${c.name}${c.differs === undefined ? '' : ' (differs)'}`, () => checkConflictCase(c, ep));
});

describe(`external-dns ${srv.upstream} (SRV targets)`, () => {
  for (const c of srv.cases) test(`${c.upstreamTest}: ${c.name}${c.differs === undefined ? '' : ' (differs)'}`, () => checkSrvCase(c));
});

test('every differs case says why in one sentence and gives Hostwarden answer', () => {
  for (const file of [plan, policy, conflict, srv] as { cases: (BaseCase & { hostwarden?: unknown })[] }[]) {
    for (const c of file.cases) {
      if (c.differs === undefined) continue;
      assert.ok(c.hostwarden !== undefined, `${c.upstreamTest} differs without a hostwarden answer`);
      assert.match(c.differs, /^[A-Z].*\.$/, `${c.upstreamTest}: one sentence`);
    }
  }
});
