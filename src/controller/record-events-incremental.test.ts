import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DomainFilter } from '../endpoint/domain-filter.ts';
import { LABEL_OWNER, LABEL_RESOURCE, cloneEndpoint, endpointKey, newEndpoint, sameEndpoint } from '../endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../endpoint/endpoint.ts';
import type { SyncReport } from './controller.ts';
import { calculatePlan } from '../plan/plan.ts';
import type { PlanInput, ReasonCode } from '../plan/plan.ts';
import { hasChanges } from '../plan/changes.ts';
import { RecordEventReporter, diffEndpoints } from './record-events.ts';

/**
 * The reporter as it was before it became incremental: every sync walks every desired endpoint.
 * Kept here as the reference the incremental one must agree with.
 */
class FullWalkReporter {
  readonly written: string[] = [];
  private readonly last = new Map<string, { state: string; round: number }>();
  private round = 0;

  onSynced(report: SyncReport): void {
    const errors: ReadonlySet<ReasonCode> = new Set<ReasonCode>(['owned-by-other', 'unowned-blocks', 'conflict-lost', 'policy-forbids', 'cname-conflict']);
    const round = ++this.round;
    const upserts = [...report.changes.create, ...report.changes.updateNew];
    const changed = new Map<string, Endpoint>();
    if (report.applied) for (const ep of upserts) changed.set(endpointKey(ep), ep);
    const pending = new Set(upserts.map(endpointKey));
    const current = new Map<string, Endpoint>();
    for (const ep of report.current) current.set(endpointKey(ep), ep);
    const unresolved: Endpoint[] = [];
    for (const ep of report.desired) {
      const resource = ep.labels[LABEL_RESOURCE] ?? '';
      if (resource === '') continue;
      const key = `${resource}\u0001${endpointKey(ep)}`;
      const seen = this.last.get(key);
      if (seen !== undefined) seen.round = round;
      const done = changed.get(endpointKey(ep));
      const cur = current.get(endpointKey(ep));
      const ours = cur !== undefined && (report.ownerId === '' || cur.labels[LABEL_OWNER] === report.ownerId);
      if (done !== undefined && (done.labels[LABEL_RESOURCE] ?? resource) === resource)
        this.emit(resource, key, round, 'RecordReady', ep.targets.join(','), ep);
      else if (ours && !pending.has(endpointKey(ep)) && (cur.labels[LABEL_RESOURCE] ?? resource) === resource)
        this.emit(resource, key, round, 'RecordReady', cur.targets.join(','), ep);
      else unresolved.push(ep);
    }
    if (unresolved.length > 0) {
      const decisions = report.explain(new Set(unresolved.map((ep) => ep.dnsName)));
      for (const ep of unresolved) {
        const resource = ep.labels[LABEL_RESOURCE] ?? '';
        const d = decisions.find(
          (x) =>
            x.action === 'skip' &&
            errors.has(x.reasonCode) &&
            x.dnsName === ep.dnsName &&
            x.recordType === ep.recordType &&
            x.setIdentifier === ep.setIdentifier &&
            (x.resource === undefined || x.resource === resource),
        );
        if (d !== undefined) this.emit(resource, `${resource}\u0001${endpointKey(ep)}`, round, 'RecordError', d.reason, ep);
      }
    }
    if (report.applied) {
      for (const ep of report.changes.delete) {
        const resource = ep.labels[LABEL_RESOURCE] ?? '';
        if (resource === '') continue;
        const key = `${resource}\u0001${endpointKey(ep)}`;
        if (this.last.get(key)?.round === round) continue;
        this.last.delete(key);
        this.written.push(`${resource} RecordDeleted ${ep.recordType} ${ep.dnsName}`);
      }
    }
    for (const [k, w] of this.last) if (w.round !== round) this.last.delete(k);
  }

  private emit(resource: string, key: string, round: number, reason: string, detail: string, ep: Endpoint): void {
    const state = `${reason}\u0001${detail}`;
    if (this.last.get(key)?.state === state) return;
    this.last.set(key, { state, round });
    this.written.push(`${resource} ${reason} ${ep.recordType} ${ep.dnsName} ${detail}`);
  }
}

/** A small world: a few objects asking for a few names, a foreign owner, and the real planner. */
const NAMES = ['a.example.org', 'b.example.org', 'c.example.org'];
const RESOURCES = ['service/default/s1', 'service/default/s2', 'ingress/default/i1'];
const TARGETS = ['192.0.2.1', '192.0.2.2', 'lb.example.net'];

interface Want {
  name: string;
  cname: boolean;
  target: number;
}
type Step =
  { kind: 'object'; resource: number; eps: Want[] } | { kind: 'foreign'; name: string; present: boolean; unowned: boolean } | { kind: 'shuffle'; seed: number };

const arbEndpoint: fc.Arbitrary<Want> = fc.record({ name: fc.constantFrom(...NAMES), cname: fc.boolean(), target: fc.nat(1) });
const arbStep: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('object' as const),
    resource: fc.nat(RESOURCES.length - 1),
    eps: fc.uniqueArray(arbEndpoint, { maxLength: 2, selector: (e) => `${e.name}/${String(e.cname)}` }),
  }),
  fc.record({ kind: fc.constant('foreign' as const), name: fc.constantFrom(...NAMES), present: fc.boolean(), unowned: fc.boolean() }),
  fc.record({ kind: fc.constant('shuffle' as const), seed: fc.nat() }),
);

function makeEndpoint(resource: string, e: Want): Endpoint {
  const recordType: RecordType = e.cname ? 'CNAME' : 'A';
  const target = e.cname ? (TARGETS[2] as string) : (TARGETS[e.target] as string);
  return newEndpoint({ dnsName: e.name, recordType, targets: [target], labels: { [LABEL_RESOURCE]: resource } });
}

function runWorld(steps: readonly Step[], policy: PlanInput['policy']): { full: string[][]; incremental: string[][]; explained: number[] } {
  const objects = new Map<string, Endpoint[]>();
  let order = [...RESOURCES];
  let current: Endpoint[] = [];
  const full = new FullWalkReporter();
  const got: string[] = [];
  const incremental = new RecordEventReporter({
    recorder: { record: (obj, _type, reason, note) => void got.push(`${obj.kind}/${obj.name} ${reason} ${note}`) },
    enabled: new Set(['RecordReady', 'RecordDeleted', 'RecordError']),
  });
  const out = { full: [] as string[][], incremental: [] as string[][], explained: [] as number[] };
  // Each step changes the world, then two syncs run (the second must usually be silent).
  for (const step of [...steps, { kind: 'shuffle', seed: 0 } satisfies Step]) {
    if (step.kind === 'object') {
      const resource = RESOURCES[step.resource] as string;
      objects.set(
        resource,
        step.eps.map((e) => makeEndpoint(resource, e)),
      );
    } else if (step.kind === 'foreign') {
      current = current.filter((c) => !(c.dnsName === step.name && c.labels[LABEL_OWNER] !== 'me'));
      const taken = current.some((c) => c.dnsName === step.name);
      if (step.present && !taken)
        current.push(newEndpoint({ dnsName: step.name, recordType: 'A', targets: ['198.51.100.1'], labels: step.unowned ? {} : { [LABEL_OWNER]: 'other' } }));
    } else if (step.seed % 3 === 1) {
      order = [...order.slice(1), order[0] as string];
    }
    for (let sync = 0; sync < 2; sync++) {
      const desired = order.flatMap((r) => (objects.get(r) ?? []).map(cloneEndpoint));
      const input: PlanInput = {
        current: current.map(cloneEndpoint),
        desired,
        ownerId: 'me',
        policy,
        managedRecordTypes: ['A', 'AAAA', 'CNAME'],
        excludeRecordTypes: [],
        domainFilter: new DomainFilter(),
      };
      const { changes } = calculatePlan(input);
      const applied = hasChanges(changes);
      let explained = 0;
      const report: SyncReport = {
        desired,
        current: input.current,
        changes,
        applied,
        ownerId: 'me',
        explain: (names) => {
          explained += names.size;
          return calculatePlan({ ...input, explainNames: names }).decisions;
        },
      };
      const before = full.written.length;
      full.onSynced(report);
      out.full.push(full.written.slice(before).sort());
      const from = got.length;
      const calls = explained;
      incremental.onSynced({ ...report, desired: desired.map(cloneEndpoint), current: input.current.map(cloneEndpoint) });
      out.incremental.push(got.slice(from).sort());
      out.explained.push(explained - calls);
      if (applied) {
        const gone = new Set([...changes.delete, ...changes.updateOld].map(endpointKey));
        current = current.filter((c) => !gone.has(endpointKey(c)));
        for (const ep of [...changes.create, ...changes.updateNew]) current.push(newEndpoint({ ...ep, labels: { ...ep.labels, [LABEL_OWNER]: 'me' } }));
      }
    }
  }
  return out;
}

/** The reference's lines and the recorder's lines name the same events; compare reason, object and record. */
const gist = (line: string): string => {
  const m = /^(\S+) (Record\w+) (\S+) (\S+)/.exec(line);
  return m === null ? line : `${m[1] ?? ''} ${m[2] ?? ''} ${m[3] ?? ''} ${m[4] ?? ''}`;
};
const gistRecorded = (line: string): string => {
  const m = /^(\w+)\/(\S+) (Record\w+) (\S+) (\S+)/.exec(line);
  if (m === null) return line;
  const resource = `${m[1] === 'Ingress' ? 'ingress' : 'service'}/default/${m[2] ?? ''}`;
  return `${resource} ${m[3] ?? ''} ${m[4] ?? ''} ${m[5] ?? ''}`;
};

describe('incremental RecordEventReporter', () => {
  test('writes the same events as a full walk over every desired endpoint, sync after sync', () => {
    fc.assert(
      fc.property(fc.array(arbStep, { maxLength: 25 }), fc.constantFrom<PlanInput['policy']>('sync', 'upsert-only', 'create-only'), (steps, policy) => {
        const { full, incremental } = runWorld(steps, policy);
        assert.deepEqual(
          incremental.map((l) => l.map(gistRecorded).sort()),
          full.map((l) => l.map(gist).sort()),
        );
      }),
      { numRuns: 300 },
    );
  });

  test('a steady state asks the planner for no explanation', () => {
    const steps: Step[] = [
      { kind: 'foreign', name: 'a.example.org', present: true, unowned: false },
      { kind: 'object', resource: 0, eps: [{ name: 'a.example.org', cname: false, target: 0 }] },
      { kind: 'object', resource: 1, eps: [{ name: 'b.example.org', cname: false, target: 1 }] },
    ];
    const { explained, full } = runWorld(steps, 'sync');
    // The refusal of a.example.org is explained once, when it appears; later syncs do not re-plan it.
    assert.ok(full.flat().some((l) => l.includes('RecordError')));
    assert.equal(explained.filter((n) => n > 0).length, 1);
  });
});

describe('diffEndpoints', () => {
  const arbEp = fc
    .record({ name: fc.constantFrom('x', 'y', 'z'), t: fc.nat(2), owner: fc.option(fc.constantFrom('me', 'other'), { nil: undefined }) })
    .map((e) =>
      newEndpoint({ dnsName: e.name, recordType: 'A', targets: [`192.0.2.${String(e.t)}`], labels: e.owner === undefined ? {} : { [LABEL_OWNER]: e.owner } }),
    );

  test('is an edit script: the previous sequence minus removed plus added is the new one', () => {
    fc.assert(
      fc.property(fc.array(arbEp, { maxLength: 80 }), fc.array(arbEp, { maxLength: 80 }), (prev, next) => {
        const d = diffEndpoints(prev, next);
        assert.equal(d.kept.length, next.length);
        next.forEach((ep, i) => assert.ok(sameEndpoint(ep, d.kept[i] as Endpoint)));
        const left = [...prev];
        for (const r of d.removed) {
          const at = left.indexOf(r);
          assert.ok(at >= 0);
          left.splice(at, 1);
        }
        // What stays must be exactly the kept copies that were not added, in order.
        const added = new Set(d.added);
        assert.deepEqual(
          left,
          d.kept.filter((k) => !added.has(k)),
        );
      }),
      { numRuns: 300 },
    );
  });

  test('an in-place change, an insertion and a record moved to the end touch only those records', () => {
    const prev = Array.from({ length: 1000 }, (_, i) => newEndpoint({ dnsName: `n${String(i)}.example.org`, recordType: 'A', targets: ['192.0.2.1'] }));
    const next = prev.map(cloneEndpoint);
    next[10] = newEndpoint({ dnsName: 'n10.example.org', recordType: 'A', targets: ['192.0.2.2'] });
    next.splice(500, 0, newEndpoint({ dnsName: 'new.example.org', recordType: 'A', targets: ['192.0.2.3'] }));
    const moved = next.splice(700, 1)[0] as Endpoint;
    next.push(moved);
    const d = diffEndpoints(prev, next);
    assert.deepEqual(d.added.map((e) => e.dnsName).sort(), ['n10.example.org', 'n699.example.org', 'new.example.org']);
    assert.deepEqual(d.removed.map((e) => e.dnsName).sort(), ['n10.example.org', 'n699.example.org']);
  });
});
