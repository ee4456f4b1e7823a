/**
 * Replays external-dns's TXT registry tests (registry/txt/registry_test.go), restated as data in
 * this folder, through Hostwarden's TXTRegistry over the strict fake provider of the registry
 * tests (it refuses a create of an existing record and an update or delete of a missing one).
 *
 * Each case seeds the provider, builds the registry from the case's options and runs its steps:
 * `records` (what the registry reads back, owner labels filled in, ownership TXT hidden) or
 * `apply` (the change set given to the registry) with `expectWritten` (the batch the provider
 * receives, TXT records included). Ownership is sacred: after every apply the runner checks that
 * the batch updates or deletes only records and TXT records this owner holds.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newEndpoint } from '../../../../src/endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../../../../src/endpoint/endpoint.ts';
import { silentLogger } from '../../../../src/log.ts';
import type { Changes } from '../../../../src/plan/changes.ts';
import { parseAesKey } from '../../../../src/registry/txt/encryption.ts';
import { decodeOwnershipValue } from '../../../../src/registry/txt/labels.ts';
import { TXTRegistry } from '../../../../src/registry/txt/txt-registry.ts';
import type { TXTRegistryOptions } from '../../../../src/registry/txt/txt-registry.ts';
import { FakeProvider } from '../../../registry/fake-provider.ts';
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
}

interface Step {
  records?: EndpointRef[];
  apply?: ChangeRefs;
  expectWritten?: ChangeRefs;
  /** Only these batch lists are compared (upstream checks a few); the others may hold anything. */
  compare?: (keyof Changes)[];
}

interface Expectation {
  steps?: Step[];
  /** Record types Hostwarden has no model for (NAPTR): left out of the seed and every expectation. */
  withoutRecordTypes?: string[];
}

interface RegistryCase extends BaseCase {
  registry: RegistryOptionsData;
  provider: EndpointData[];
  steps: Step[];
  hostwarden?: Expectation;
  /** A wildcard case that needs helper "wild"'s registry change (issue 18 part 1) to pass. */
  pendingWildcard?: string;
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
    logger: silentLogger(),
  };
}

const ep = resolver();

function keep(types: readonly string[]): (e: Endpoint) => boolean {
  return (e) => !types.includes(e.recordType);
}

/** The batch may update or delete only what this owner holds: its records and its ownership TXT records. */
function checkOwnership(c: RegistryCase, given: Changes, batch: Changes, aesKey: Buffer | undefined): void {
  const ours = (owner: string | undefined): boolean => owner === c.registry.ownerId || (c.registry.oldOwnerId !== undefined && owner === c.registry.oldOwnerId);
  for (const kind of ['updateOld', 'delete'] as const) {
    for (const e of batch[kind]) {
      if (e.recordType === 'TXT' && e.labels['ownedRecord'] !== undefined) {
        const labels = decodeOwnershipValue(e.targets[0] ?? '', aesKey);
        assert.ok(labels !== undefined && ours(labels['owner']), `${kind} of ownership TXT ${e.dnsName} not owned by ${c.registry.ownerId}`);
      } else {
        assert.ok(
          given[kind].some((g) => g.dnsName === e.dnsName && g.recordType === e.recordType && g.setIdentifier === e.setIdentifier && ours(g.labels['owner'])),
          `${kind} of ${e.dnsName} ${e.recordType}: not a record of owner ${c.registry.ownerId} given to the registry`,
        );
      }
    }
  }
}

async function runCase(c: RegistryCase): Promise<void> {
  const mine = c.differs === undefined ? undefined : c.hostwarden;
  const drop = keep(mine?.withoutRecordTypes ?? []);
  const steps = mine?.steps ?? c.steps;
  const provider = new FakeProvider(c.provider.map((d) => ep(d)).filter(drop));
  const opts = options(c.registry);
  const registry = new TXTRegistry(provider, opts);
  for (const step of steps) {
    if (step.records !== undefined) {
      const got = await registry.records();
      const want = step.records.map(ep).filter(drop);
      assert.ok(sameEndpoints(got, want), `records:\n got  ${showEndpoints(got)}\n want ${showEndpoints(want)}`);
    }
    if (step.apply !== undefined) {
      const given = Object.fromEntries(KINDS.map((k) => [k, (step.apply?.[k] ?? []).map(ep)])) as unknown as Changes;
      const before = provider.batches.length;
      let refused: unknown;
      await registry.applyChanges(structuredClone(given)).catch((err: unknown) => {
        refused = err;
      });
      const batch = provider.batches[before];
      assert.ok(batch !== undefined, `the provider received no batch (${String(refused)})`);
      for (const kind of step.compare ?? KINDS) {
        const want = (step.expectWritten?.[kind] ?? []).map(ep);
        assert.ok(sameEndpoints(batch[kind], want), `${kind}:\n got  ${showEndpoints(batch[kind])}\n want ${showEndpoints(want)}`);
      }
      checkOwnership(c, given, batch, opts.aesKey);
    }
  }
}

for (const file of ['registry.json', 'registry-standalone.json']) {
  const data = await readCases<RegistryCase>(new URL(`./${file}`, import.meta.url));
  describe(`external-dns ${data.upstream} (${file})`, () => {
    for (const c of data.cases) {
      const label = `${c.upstreamTest}: ${c.name}${c.differs === undefined ? '' : ' (differs)'}`;
      test(label, { skip: c.pendingWildcard }, () => runCase(c));
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

// Endpoint records of the fake provider are label-free; newEndpoint keeps the import list honest for type-only use.
void newEndpoint;
