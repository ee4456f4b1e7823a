/**
 * Several planners sharing one zone through the inmemory provider (ownership labels stored with
 * the records, as a registry would restore them): they converge, never touch each other's records,
 * hand a released name over, and an owner migration takes records over without churn.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DomainFilter } from '../../src/endpoint/domain-filter.ts';
import { newEndpoint } from '../../src/endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../../src/endpoint/endpoint.ts';
import { hasChanges } from '../../src/plan/changes.ts';
import { InMemoryProvider } from '../../src/provider/inmemory/inmemory.ts';
import { DEFAULT_MANAGED_RECORD_TYPES, calculatePlan } from '../../src/plan/plan.ts';
import type { Policy } from '../../src/plan/plan.ts';

const MAX_ROUNDS = 5;

interface Cluster {
  ownerId: string;
  desired: Endpoint[];
  policy?: Policy;
  migrateFromOwner?: string;
}

function ep(dnsName: string, recordType: RecordType, target: string, resource: string): Endpoint {
  return newEndpoint({ dnsName, recordType, targets: [target], labels: { resource } });
}

/** One sync of one cluster; returns whether it changed anything. */
async function reconcile(provider: InMemoryProvider, cluster: Cluster): Promise<boolean> {
  const { changes } = calculatePlan({
    current: await provider.records(),
    desired: cluster.desired,
    ownerId: cluster.ownerId,
    policy: cluster.policy ?? 'sync',
    managedRecordTypes: DEFAULT_MANAGED_RECORD_TYPES,
    excludeRecordTypes: [],
    domainFilter: new DomainFilter({ include: ['example.org'] }),
    ...(cluster.migrateFromOwner === undefined ? {} : { migrateFromOwner: cluster.migrateFromOwner }),
  });
  if (!hasChanges(changes)) return false;
  await provider.applyChanges(changes);
  return true;
}

/** Runs every cluster in turn until a whole round changes nothing; fails if that takes too long. */
async function converge(provider: InMemoryProvider, clusters: Cluster[]): Promise<number> {
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    let changed = false;
    for (const c of clusters) changed = (await reconcile(provider, c)) || changed;
    if (!changed) return round;
  }
  assert.fail(`no convergence within ${MAX_ROUNDS} rounds`);
}

async function state(provider: InMemoryProvider): Promise<string[]> {
  return (await provider.records())
    .map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')} owner=${e.labels['owner'] ?? '-'} resource=${e.labels['resource'] ?? '-'}`)
    .sort();
}

describe('planners sharing a zone', () => {
  test('two owners converge and never overwrite each other', async () => {
    const provider = new InMemoryProvider({ zones: ['example.org'] });
    const a: Cluster = {
      ownerId: 'cluster-a',
      desired: [ep('a1.example.org', 'A', '192.0.2.1', 'service/ns/a1'), ep('shared.example.org', 'A', '192.0.2.10', 'service/ns/a')],
    };
    const b: Cluster = {
      ownerId: 'cluster-b',
      desired: [
        ep('b1.example.org', 'CNAME', 'lb.example.com', 'ingress/ns/b1'),
        ep('shared.example.org', 'A', '192.0.2.20', 'service/ns/b'),
        ep('shared.example.org', 'AAAA', '2001:db8::20', 'service/ns/b'),
      ],
    };
    assert.equal(await converge(provider, [a, b]), 2);
    assert.deepEqual(await state(provider), [
      'a1.example.org A 192.0.2.1 owner=cluster-a resource=service/ns/a1',
      'b1.example.org CNAME lb.example.com owner=cluster-b resource=ingress/ns/b1',
      'shared.example.org A 192.0.2.10 owner=cluster-a resource=service/ns/a',
    ]);

    // cluster-a releases the shared name: it deletes its record, then cluster-b takes the name.
    a.desired = a.desired.filter((e) => e.dnsName !== 'shared.example.org');
    await converge(provider, [a, b]);
    assert.deepEqual(await state(provider), [
      'a1.example.org A 192.0.2.1 owner=cluster-a resource=service/ns/a1',
      'b1.example.org CNAME lb.example.com owner=cluster-b resource=ingress/ns/b1',
      'shared.example.org A 192.0.2.20 owner=cluster-b resource=service/ns/b',
      'shared.example.org AAAA 2001:db8::20 owner=cluster-b resource=service/ns/b',
    ]);
  });

  test('a record without an owner is never adopted, and an upsert-only cluster never deletes', async () => {
    const manual = newEndpoint({ dnsName: 'manual.example.org', recordType: 'A', targets: ['203.0.113.1'] });
    const provider = new InMemoryProvider({ zones: ['example.org'], records: [manual] });
    const a: Cluster = {
      ownerId: 'cluster-a',
      policy: 'upsert-only',
      desired: [ep('manual.example.org', 'A', '192.0.2.1', 'service/ns/m'), ep('gone.example.org', 'A', '192.0.2.2', 'service/ns/g')],
    };
    await converge(provider, [a]);
    a.desired = [];
    await converge(provider, [a]);
    assert.deepEqual(await state(provider), [
      'gone.example.org A 192.0.2.2 owner=cluster-a resource=service/ns/g',
      'manual.example.org A 203.0.113.1 owner=- resource=-',
    ]);
  });

  test('migrating from an old owner id takes its records over in one round, then stays quiet', async () => {
    const provider = new InMemoryProvider({ zones: ['example.org'] });
    const old: Cluster = {
      ownerId: 'old-id',
      desired: [ep('a1.example.org', 'A', '192.0.2.1', 'service/ns/a1'), ep('a2.example.org', 'A', '192.0.2.2', 'service/ns/a2')],
    };
    await converge(provider, [old]);
    const renamed: Cluster = { ownerId: 'new-id', migrateFromOwner: 'old-id', desired: old.desired };
    assert.equal(await reconcile(provider, renamed), true);
    assert.equal(await reconcile(provider, renamed), false);
    assert.deepEqual(await state(provider), [
      'a1.example.org A 192.0.2.1 owner=new-id resource=service/ns/a1',
      'a2.example.org A 192.0.2.2 owner=new-id resource=service/ns/a2',
    ]);
  });
});
