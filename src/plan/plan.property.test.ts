import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DomainFilter } from '../endpoint/domain-filter.ts';
import { endpointKey, newEndpoint } from '../endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../endpoint/endpoint.ts';
import { hasChanges } from './changes.ts';
import { InMemoryProvider } from '../provider/inmemory/inmemory.ts';
import { DEFAULT_MANAGED_RECORD_TYPES, calculatePlan } from './plan.ts';
import type { PlanInput } from './plan.ts';
import { POLICIES } from './policy.ts';

const NUM_RUNS = 200;
const ZONES = ['example.org', 'other.org'];
const NAMES = ['a.example.org', 'b.example.org', 'c.example.org', 'x.other.org'];

// A small universe so that names, types and resources collide often.
const TARGETS: Record<'A' | 'AAAA' | 'CNAME' | 'TXT', string[]> = {
  A: ['192.0.2.1', '192.0.2.2', '10.0.0.9', '10.0.0.10'],
  AAAA: ['2001:db8::1', '2001:db8::2', '::ffff:192.0.2.1'],
  CNAME: ['lb1.example.com', 'lb2.example.com'],
  TXT: ['"one"', '"two"'],
};

function endpointArb(withOwner: boolean): fc.Arbitrary<Endpoint> {
  return fc
    .record({
      dnsName: fc.constantFrom(...NAMES),
      recordType: fc.constantFrom<RecordType>('A', 'AAAA', 'CNAME', 'TXT'),
      setIdentifier: fc.constantFrom('', '', 'eu'),
      recordTTL: fc.constantFrom(0, 60, 300),
      resource: fc.constantFrom(undefined, 'service/ns/a', 'service/ns/b', 'ingress/ns/c'),
      owner: withOwner ? fc.constantFrom(undefined, 'me', 'me', 'other', 'old') : fc.constant(undefined),
      providerSpecific: fc.constantFrom([], [{ name: 'weight', value: '1' }], [{ name: 'weight', value: '2' }]),
      pick: fc.array(fc.nat(), { minLength: 1, maxLength: 2 }),
    })
    .map((r) => {
      const pool = TARGETS[r.recordType as keyof typeof TARGETS];
      const targets =
        r.recordType === 'CNAME' ? [pool[(r.pick[0] ?? 0) % pool.length] as string] : [...new Set(r.pick.map((i) => pool[i % pool.length] as string))];
      const labels: Record<string, string> = {};
      if (r.owner !== undefined) labels['owner'] = r.owner;
      if (r.resource !== undefined) labels['resource'] = r.resource;
      return newEndpoint({
        dnsName: r.dnsName,
        recordType: r.recordType,
        targets,
        setIdentifier: r.setIdentifier,
        recordTTL: r.recordTTL,
        labels,
        providerSpecific: r.providerSpecific,
      });
    });
}

const settingsArb = fc.record({
  policy: fc.constantFrom(...POLICIES),
  managedRecordTypes: fc.constantFrom<readonly RecordType[]>(DEFAULT_MANAGED_RECORD_TYPES, ['A', 'AAAA', 'CNAME', 'TXT'], ['A', 'CNAME']),
  excludeRecordTypes: fc.constantFrom<readonly RecordType[]>([], ['AAAA']),
  filter: fc.constantFrom<string[] | undefined>(undefined, ['example.org'], ['b.example.org']),
  migrateFromOwner: fc.constantFrom<string | undefined>(undefined, 'old'),
});

type Settings = Omit<PlanInput, 'current' | 'desired' | 'ownerId' | 'domainFilter' | 'migrateFromOwner'> & {
  filter: string[] | undefined;
  migrateFromOwner: string | undefined;
};

function inputOf(current: Endpoint[], desired: Endpoint[], s: Settings, ownerId = 'me'): PlanInput {
  return {
    current,
    desired,
    ownerId,
    policy: s.policy,
    managedRecordTypes: s.managedRecordTypes,
    excludeRecordTypes: s.excludeRecordTypes,
    domainFilter: new DomainFilter({ include: s.filter ?? [] }),
    ...(s.migrateFromOwner === undefined ? {} : { migrateFromOwner: s.migrateFromOwner }),
  };
}

/** Deterministic Fisher-Yates driven by a seed, so failures replay from fast-check's seed. */
function shuffle<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

const currentArb = fc.array(endpointArb(true), { maxLength: 12 });
const uniqueCurrentArb = fc.uniqueArray(endpointArb(true), { maxLength: 12, selector: (e) => endpointKey(e) });
const desiredArb = fc.array(endpointArb(false), { maxLength: 12 });

describe('calculatePlan properties', () => {
  test('with an owner id, updates and deletes only touch records of that owner (or the migrated one)', () => {
    fc.assert(
      fc.property(currentArb, desiredArb, settingsArb, (current, desired, s) => {
        const { changes } = calculatePlan(inputOf(current, desired, s));
        const allowed = new Set(['me', ...(s.migrateFromOwner === undefined ? [] : [s.migrateFromOwner])]);
        for (const e of [...changes.updateOld, ...changes.delete]) {
          assert.ok(allowed.has(e.labels['owner'] ?? ''), `touched record owned by ${JSON.stringify(e.labels['owner'])}`);
        }
        for (const e of [...changes.create, ...changes.updateNew]) assert.equal(e.labels['owner'], 'me');
      }),
      { numRuns: NUM_RUNS },
    );
  });

  test('applying a plan and planning again yields no changes, and creates never put a CNAME beside another type', async () => {
    await fc.assert(
      fc.asyncProperty(uniqueCurrentArb, desiredArb, settingsArb, fc.constantFrom('me', ''), async (current, desired, s, ownerId) => {
        const provider = new InMemoryProvider({ zones: ZONES, records: current });
        const first = calculatePlan(inputOf(await provider.records(), desired, s, ownerId));
        await provider.applyChanges(first.changes);
        const after = await provider.records();
        const second = calculatePlan(inputOf(after, desired, s, ownerId));
        assert.equal(hasChanges(second.changes), false, `second plan: ${JSON.stringify(second.changes)}`);
        // Only names where the plan created records are checked: the generated start state may be broken.
        const written = new Set(first.changes.create.map((e) => `${e.dnsName}\u0000${e.setIdentifier}`));
        for (const row of written) {
          const types = after.filter((e) => `${e.dnsName}\u0000${e.setIdentifier}` === row && e.recordType !== 'TXT').map((e) => e.recordType);
          assert.ok(!(types.includes('CNAME') && types.length > 1), `CNAME next to ${types.join(',')} at ${row}`);
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  test('the plan and its decisions do not depend on the order of the inputs', () => {
    fc.assert(
      fc.property(currentArb, desiredArb, settingsArb, fc.integer(), fc.integer(), (current, desired, s, seedA, seedB) => {
        const explainNames = new Set(NAMES);
        const a = calculatePlan({ ...inputOf(current, desired, s), explainNames });
        const b = calculatePlan({ ...inputOf(shuffle(current, seedA), shuffle(desired, seedB), s), explainNames });
        assert.deepEqual(b, a);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
