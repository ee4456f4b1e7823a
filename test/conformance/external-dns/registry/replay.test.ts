/**
 * Replays external-dns's TXT registry tests (registry/txt/registry_test.go), restated as data in
 * this folder, through Hostwarden's TXTRegistry over the strict fake provider (test/support/fake-provider.ts:
 * it refuses a create of an existing record and an update or delete of a missing one).
 *
 * Each case seeds the provider, builds the registry from the case's options and runs its steps:
 * `records` (what the registry reads back, owner labels filled in, ownership TXT hidden) or
 * `apply` (the change set given to the registry) with `expectWritten` (the batch the provider
 * receives, TXT records included). Ownership is sacred: after every apply the runner checks that
 * the batch updates or deletes only records and TXT records this owner holds.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DomainFilter } from '../../../../src/endpoint/domain-filter.ts';
import type { Endpoint, RecordType } from '../../../../src/endpoint/endpoint.ts';
import { silentLogger } from '../../../../src/log.ts';
import { hasChanges } from '../../../../src/plan/changes.ts';
import type { Changes } from '../../../../src/plan/changes.ts';
import { calculatePlan } from '../../../../src/plan/plan.ts';
import type { Policy } from '../../../../src/plan/policy.ts';
import { parseAesKey } from '../../../../src/registry/txt/encryption.ts';
import { decodeOwnershipValue } from '../../../../src/registry/txt/labels.ts';
import { TXTRegistry } from '../../../../src/registry/txt/txt-registry.ts';
import type { TXTRegistryOptions } from '../../../../src/registry/txt/txt-registry.ts';
import { FakeProvider } from '../../../support/fake-provider.ts';
import { readCases, resolver, sameEndpoints, showEndpoints } from '../plan/endpoints.ts';
import type { BaseCase, EndpointData, EndpointRef } from '../plan/endpoints.ts';

type ChangeRefs = Partial<Record<keyof Changes, EndpointRef[]>>;

interface RegistryOptionsData {
  ownerId: string;
  prefix?: string;
  suffix?: string;
  wildcardReplacement?: string;
  managedRecords?: RecordType[];
  excludeRecords?: RecordType[];
  encrypt?: boolean;
  aesKey?: string;
  oldOwnerId?: string;
  cacheIntervalMs?: number;
}

interface Reconcile {
  desired: EndpointRef[];
  managedRecords: RecordType[];
  policy?: Policy;
  loops: number;
  /** The creates of the first batch; later loops must send no batch with changes. */
  expectFirstCreate?: EndpointRef[];
  /** When given, the number of batches sent over all loops must match (an empty list: none). */
  expectBatches?: unknown[];
  /** What the provider holds after every loop (labels aside). */
  expectProviderRecords?: EndpointRef[];
}

interface Step {
  records?: EndpointRef[];
  apply?: ChangeRefs;
  expectWritten?: ChangeRefs;
  /** Only these batch lists are compared (upstream checks a few); the others may hold anything. */
  compare?: (keyof Changes)[];
  /** The records must come from the cache: the provider is not read again. */
  fromCache?: boolean;
  /** Every record read back has a label map. */
  labelsPresent?: boolean;
  recordsFail?: boolean;
  ownerIdIs?: string;
  domainFilterIsProviders?: boolean;
  adjust?: EndpointRef[];
  expectAdjusted?: EndpointRef[];
  /** Delete every record the previous records step read (upstream: Delete: records). */
  applyDeleteAllRead?: boolean;
  ownershipTXTFor?: EndpointRef;
  expectTXT?: EndpointRef[];
  reconcile?: Reconcile;
  providerRecords?: EndpointRef[];
  deleteFromProvider?: EndpointRef[];
  newRegistry?: RegistryOptionsData;
  /** Read records, then the TXT value the registry would write for this record. */
  recordsOwnershipTXT?: string;
  recordType?: RecordType;
  expectTXTValue?: string;
  batchHas?: Partial<Record<keyof Changes, [string, string][]>>;
  batchLacks?: Partial<Record<keyof Changes, [string, string][]>>;
}

interface Expectation {
  steps?: Step[];
}

interface RegistryCase extends BaseCase {
  registry: RegistryOptionsData;
  provider: EndpointData[];
  steps: Step[];
  hostwarden?: Expectation;
  /** Construction only: whether these options are accepted. */
  expectValid?: boolean;
}

const KINDS: (keyof Changes)[] = ['create', 'updateOld', 'updateNew', 'delete'];

function options(r: RegistryOptionsData): TXTRegistryOptions {
  return {
    ownerId: r.ownerId,
    prefix: r.prefix ?? '',
    suffix: r.suffix ?? '',
    wildcardReplacement: r.wildcardReplacement ?? '',
    managedRecordTypes: r.managedRecords ?? ['A', 'AAAA', 'CNAME'],
    excludeRecordTypes: r.excludeRecords ?? [],
    ...(r.aesKey === undefined || r.aesKey === '' ? {} : { aesKey: parseAesKey(r.aesKey) }),
    ...(r.encrypt === undefined ? {} : { encrypt: r.encrypt }),
    ...(r.oldOwnerId === undefined ? {} : { oldOwnerId: r.oldOwnerId }),
    ...(r.cacheIntervalMs === undefined ? {} : { cacheIntervalMs: r.cacheIntervalMs }),
    logger: silentLogger(),
  };
}

const ep = resolver();

/** The batch may update or delete only what this owner holds: its records and its ownership TXT records. */
function checkOwnership(c: RegistryCase, given: Changes, batch: Changes, aesKey: Buffer | undefined): void {
  const ours = (owner: string | undefined): boolean => owner === c.registry.ownerId || (c.registry.oldOwnerId !== undefined && owner === c.registry.oldOwnerId);
  for (const kind of ['updateOld', 'delete'] as const) {
    for (const e of batch[kind]) {
      const ownership = e.recordType === 'TXT' ? decodeOwnershipValue(e.targets[0] ?? '', aesKey) : undefined;
      if (ownership !== undefined) {
        assert.ok(ours(ownership['owner']), `${kind} of ownership TXT ${e.dnsName} not owned by ${c.registry.ownerId}`);
      } else {
        assert.ok(
          given[kind].some((g) => g.dnsName === e.dnsName && g.recordType === e.recordType && g.setIdentifier === e.setIdentifier && ours(g.labels['owner'])),
          `${kind} of ${e.dnsName} ${e.recordType}: not a record of owner ${c.registry.ownerId} given to the registry`,
        );
      }
    }
  }
}

interface Run {
  c: RegistryCase;
  provider: FakeProvider;
  registry: TXTRegistry;
  opts: TXTRegistryOptions;
  lastRead: Endpoint[];
}

function changesOf(refs: ChangeRefs | undefined): Changes {
  return Object.fromEntries(KINDS.map((k) => [k, (refs?.[k] ?? []).map(ep)])) as unknown as Changes;
}

/** What the provider holds, compared without labels (a zone keeps none). */
function checkProviderRecords(run: Run, refs: EndpointRef[], when: string): void {
  const strip = (e: Endpoint): Endpoint => ({ ...e, labels: {} });
  const got = run.provider.list().map(strip);
  const want = refs.map(ep).map(strip);
  assert.ok(sameEndpoints(got, want), `provider records ${when}:\n got  ${showEndpoints(got)}\n want ${showEndpoints(want)}`);
}

async function apply(run: Run, given: Changes): Promise<Changes | undefined> {
  const before = run.provider.batches.length;
  await run.registry.applyChanges(structuredClone(given));
  const batch = run.provider.batches[before];
  if (batch !== undefined) checkOwnership(run.c, given, batch, run.opts.aesKey);
  return batch;
}

async function reconcile(run: Run, r: Reconcile): Promise<void> {
  let batches = 0;
  for (let loop = 0; loop < r.loops; loop++) {
    const current = await run.registry.records();
    const { changes } = calculatePlan({
      current,
      desired: r.desired.map(ep),
      ownerId: run.registry.ownerId,
      policy: r.policy ?? 'sync',
      managedRecordTypes: r.managedRecords,
      excludeRecordTypes: [],
      domainFilter: new DomainFilter(),
    });
    if (hasChanges(changes)) {
      const batch = await apply(run, changes);
      assert.ok(batch !== undefined);
      batches++;
      if (r.expectFirstCreate !== undefined) {
        const want = batches === 1 ? r.expectFirstCreate.map(ep) : [];
        assert.ok(sameEndpoints(batch.create, want), `loop ${loop} create:\n got  ${showEndpoints(batch.create)}\n want ${showEndpoints(want)}`);
        for (const kind of ['updateOld', 'updateNew', 'delete'] as const) assert.deepEqual(batch[kind], [], `loop ${loop} ${kind}`);
      }
    } else if (r.expectFirstCreate !== undefined && loop === 0) {
      assert.deepEqual(r.expectFirstCreate, [], 'loop 0 planned nothing');
    }
    if (r.expectProviderRecords !== undefined) checkProviderRecords(run, r.expectProviderRecords, `after loop ${loop}`);
  }
  if (r.expectBatches !== undefined) assert.equal(batches, r.expectBatches.length, 'batches sent');
}

function checkBatchNames(batch: Changes, has: Step['batchHas'], lacks: Step['batchLacks']): void {
  for (const kind of KINDS) {
    for (const [name, type] of has?.[kind] ?? [])
      assert.ok(
        batch[kind].some((e) => e.dnsName === name && e.recordType === type),
        `${kind} has ${name} ${type}`,
      );
    for (const [name, type] of lacks?.[kind] ?? [])
      assert.ok(!batch[kind].some((e) => e.dnsName === name && e.recordType === type), `${kind} lacks ${name} ${type}`);
  }
}

async function runStep(run: Run, step: Step): Promise<void> {
  const { provider } = run;
  if (step.newRegistry !== undefined) {
    run.opts = options(step.newRegistry);
    run.registry = new TXTRegistry(provider, run.opts);
  }
  if (step.recordsFail === true) {
    provider.records = () => Promise.reject(new Error('injected provider failure'));
    await assert.rejects(run.registry.records(), /injected provider failure/);
  }
  if (step.ownerIdIs !== undefined) assert.equal(run.registry.ownerId, step.ownerIdIs);
  if (step.domainFilterIsProviders === true) assert.deepEqual(run.registry.domainFilter(), provider.domainFilter());
  if (step.adjust !== undefined) {
    const got = await run.registry.adjustEndpoints(step.adjust.map(ep));
    assert.ok(sameEndpoints(got, (step.expectAdjusted ?? []).map(ep)));
  }
  if (step.records !== undefined) {
    const calls = provider.recordsCalls;
    const got = await run.registry.records();
    run.lastRead = got;
    const want = step.records.map(ep);
    assert.ok(sameEndpoints(got, want), `records:\n got  ${showEndpoints(got)}\n want ${showEndpoints(want)}`);
    if (step.fromCache === true) assert.equal(provider.recordsCalls, calls, 'served from the cache');
    if (step.labelsPresent === true) for (const e of got) assert.equal(typeof e.labels, 'object');
  }
  if (step.apply !== undefined || step.applyDeleteAllRead === true) {
    const given = step.applyDeleteAllRead === true ? { ...changesOf(undefined), delete: run.lastRead } : changesOf(step.apply);
    const batch = await apply(run, given);
    assert.ok(batch !== undefined, 'the provider received a batch');
    if (step.expectWritten !== undefined) {
      for (const kind of step.compare ?? KINDS) {
        const want = (step.expectWritten[kind] ?? []).map(ep);
        assert.ok(sameEndpoints(batch[kind], want), `${kind}:\n got  ${showEndpoints(batch[kind])}\n want ${showEndpoints(want)}`);
      }
    }
    checkBatchNames(batch, step.batchHas, step.batchLacks);
  }
  if (step.ownershipTXTFor !== undefined) {
    const record = ep(step.ownershipTXTFor);
    const batch = await apply(run, { ...changesOf(undefined), create: [record] });
    const txts = batch?.create.filter((e) => e.recordType === 'TXT') ?? [];
    const want = (step.expectTXT ?? []).map(ep);
    assert.ok(sameEndpoints(txts, want), `TXT:\n got  ${showEndpoints(txts)}\n want ${showEndpoints(want)}`);
  }
  if (step.reconcile !== undefined) await reconcile(run, step.reconcile);
  if (step.providerRecords !== undefined) checkProviderRecords(run, step.providerRecords, 'after the step');
  if (step.deleteFromProvider !== undefined) await provider.applyChanges({ ...changesOf(undefined), delete: step.deleteFromProvider.map(ep) });
  if (step.recordsOwnershipTXT !== undefined) {
    const read = await run.registry.records();
    const record = read.find((e) => e.dnsName === step.recordsOwnershipTXT && e.recordType === step.recordType);
    assert.ok(record !== undefined, `${step.recordsOwnershipTXT} read back`);
    // The TXT value an update of this record writes: the owner the registry writes with.
    const written = run.registry.ownershipTXT({ ...record, labels: { ...record.labels, owner: run.registry.ownerId } });
    assert.equal(written.targets[0], step.expectTXTValue);
    assert.ok(record.labels['owner'] === 'foo' || record.labels['owner'] === run.registry.ownerId, "the old owner's record is ours to take over");
  }
}

async function runCase(c: RegistryCase): Promise<void> {
  const opts = options(c.registry);
  if (c.expectValid !== undefined) {
    const make = (): TXTRegistry => new TXTRegistry(new FakeProvider(), opts);
    if (c.expectValid) make();
    else assert.throws(make);
    return;
  }
  const mine = c.differs === undefined ? undefined : c.hostwarden;
  const provider = new FakeProvider(c.provider.map((d) => ep(d)));
  const run: Run = { c, provider, registry: new TXTRegistry(provider, opts), opts, lastRead: [] };
  for (const step of mine?.steps ?? c.steps) await runStep(run, step);
}

for (const file of ['registry.json', 'registry-standalone.json']) {
  const data = await readCases<RegistryCase>(new URL(`./${file}`, import.meta.url));
  describe(`external-dns ${data.upstream} (${file})`, () => {
    for (const c of data.cases) {
      const label = `${c.upstreamTest}: ${c.name}${c.differs === undefined ? '' : ' (differs)'}`;
      test(label, () => runCase(c));
    }
  });
}

test('every registry differs case says why in one sentence and gives Hostwarden answer', async () => {
  for (const file of ['registry.json', 'registry-standalone.json']) {
    const data = await readCases<RegistryCase>(new URL(`./${file}`, import.meta.url));
    for (const c of data.cases) {
      if (c.differs === undefined) continue;
      assert.ok(c.hostwarden !== undefined, `${c.upstreamTest} differs without a hostwarden answer`);
      assert.match(c.differs, /^[A-Z].*\.$/, `${c.upstreamTest}: one sentence`);
    }
  }
});
