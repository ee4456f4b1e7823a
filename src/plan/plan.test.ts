import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DomainFilter } from '../endpoint/domain-filter.ts';
import { newEndpoint } from '../endpoint/endpoint.ts';
import type { Endpoint, EndpointInit, RecordType } from '../endpoint/endpoint.ts';
import type { Changes } from './changes.ts';
import { POLICY_CHOICES } from '../config/flags.ts';
import { compareTargets } from './conflict.ts';
import { POLICIES } from './policy.ts';
import { DEFAULT_MANAGED_RECORD_TYPES, calculatePlan, parentDomain } from './plan.ts';
import type { PlanInput, PlanResult } from './plan.ts';

type Opts = Partial<Omit<EndpointInit, 'dnsName' | 'recordType' | 'targets'>> & { owner?: string; resource?: string };

function ep(dnsName: string, recordType: RecordType, targets: string[], opts: Opts = {}): Endpoint {
  const labels = { ...(opts.labels ?? {}) };
  if (opts.owner !== undefined) labels['owner'] = opts.owner;
  if (opts.resource !== undefined) labels['resource'] = opts.resource;
  return newEndpoint({ ...opts, dnsName, recordType, targets, labels });
}

function plan(input: Partial<PlanInput>): PlanResult {
  return calculatePlan({
    current: [],
    desired: [],
    ownerId: 'me',
    policy: 'sync',
    managedRecordTypes: DEFAULT_MANAGED_RECORD_TYPES,
    excludeRecordTypes: [],
    domainFilter: new DomainFilter(),
    ...input,
  });
}

function line(e: Endpoint): string {
  const id = e.setIdentifier === '' ? '' : ` [${e.setIdentifier}]`;
  return `${e.dnsName} ${e.recordType}${id} ${e.targets.join(',')}`;
}

function summary(changes: Changes): { create: string[]; update: string[]; delete: string[] } {
  return {
    create: changes.create.map(line),
    update: changes.updateOld.map((o, i) => `${line(o)} -> ${(changes.updateNew[i] as Endpoint).targets.join(',')}`),
    delete: changes.delete.map(line),
  };
}

const NONE = { create: [], update: [], delete: [] };
const explainAll = (...names: string[]): ReadonlySet<string> => new Set(names);

describe('calculatePlan: create, update, delete', () => {
  test('creates a new record carrying owner and resource labels', () => {
    const { changes } = plan({ desired: [ep('a.example.org', 'A', ['192.0.2.1'], { resource: 'service/default/a' })] });
    assert.deepEqual(summary(changes), { create: ['a.example.org A 192.0.2.1'], update: [], delete: [] });
    assert.deepEqual(changes.create[0]?.labels, { owner: 'me', resource: 'service/default/a' });
  });

  test('does nothing when the record is up to date', () => {
    const { changes } = plan({
      current: [ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me' })],
      desired: [ep('a.example.org', 'A', ['192.0.2.1'])],
    });
    assert.deepEqual(summary(changes), NONE);
  });

  test('updates when targets change, keeping current labels and taking the desired resource', () => {
    const { changes } = plan({
      current: [ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me', resource: 'service/default/a', labels: { extra: 'x' } })],
      desired: [ep('a.example.org', 'A', ['192.0.2.2'], { resource: 'service/default/a' })],
    });
    assert.deepEqual(summary(changes), { create: [], update: ['a.example.org A 192.0.2.1 -> 192.0.2.2'], delete: [] });
    assert.deepEqual(changes.updateNew[0]?.labels, { owner: 'me', resource: 'service/default/a', extra: 'x' });
  });

  test('targets compare without regard to order, hostname case, trailing dot or IPv6 spelling', () => {
    const { changes } = plan({
      current: [
        ep('a.example.org', 'A', ['192.0.2.1', '192.0.2.2'], { owner: 'me' }),
        ep('b.example.org', 'CNAME', ['LB.Example.com.'], { owner: 'me' }),
        ep('c.example.org', 'AAAA', ['2001:db8:0:0:0:0:0:1'], { owner: 'me' }),
      ],
      desired: [
        ep('a.example.org', 'A', ['192.0.2.2', '192.0.2.1']),
        ep('b.example.org', 'CNAME', ['lb.example.com']),
        ep('c.example.org', 'AAAA', ['2001:DB8::1']),
      ],
    });
    assert.deepEqual(summary(changes), NONE);
  });

  test('deletes an owned record that no resource desires any more', () => {
    const { changes } = plan({ current: [ep('old.example.org', 'A', ['192.0.2.9'], { owner: 'me' })] });
    assert.deepEqual(summary(changes), { create: [], update: [], delete: ['old.example.org A 192.0.2.9'] });
  });

  test('replaces one owned type by another at the same name', () => {
    const { changes } = plan({
      current: [ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me' })],
      desired: [ep('a.example.org', 'AAAA', ['2001:db8::1'])],
    });
    assert.deepEqual(summary(changes), { create: ['a.example.org AAAA 2001:db8::1'], update: [], delete: ['a.example.org A 192.0.2.1'] });
  });

  test('empty inputs plan nothing', () => {
    assert.deepEqual(summary(plan({}).changes), NONE);
  });
});

describe('calculatePlan: TTL and provider-specific properties', () => {
  const current = ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me', recordTTL: 300 });

  test('updates when a configured TTL differs', () => {
    const { changes } = plan({ current: [current], desired: [ep('a.example.org', 'A', ['192.0.2.1'], { recordTTL: 60 })] });
    assert.equal(changes.updateNew[0]?.recordTTL, 60);
  });

  test('an unset desired TTL (0) never causes an update', () => {
    const { changes } = plan({ current: [current], desired: [ep('a.example.org', 'A', ['192.0.2.1'])] });
    assert.deepEqual(summary(changes), NONE);
  });

  test('updates when a provider-specific value changes', () => {
    const cur = ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me', providerSpecific: [{ name: 'weight', value: '1' }] });
    const { changes } = plan({ current: [cur], desired: [ep('a.example.org', 'A', ['192.0.2.1'], { providerSpecific: [{ name: 'weight', value: '2' }] })] });
    assert.equal(changes.updateNew.length, 1);
  });

  test('updates when a provider-specific property is added or removed', () => {
    const cur = ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me' });
    const added = plan({ current: [cur], desired: [ep('a.example.org', 'A', ['192.0.2.1'], { providerSpecific: [{ name: 'p', value: 'v' }] })] });
    assert.equal(added.changes.updateNew.length, 1);
    const withProp = ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me', providerSpecific: [{ name: 'p', value: 'v' }] });
    const removed = plan({ current: [withProp], desired: [ep('a.example.org', 'A', ['192.0.2.1'])] });
    assert.equal(removed.changes.updateNew.length, 1);
  });

  test('provider-specific properties in another order are equal', () => {
    const props = [
      { name: 'a', value: '1' },
      { name: 'b', value: '2' },
    ];
    const cur = ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me', providerSpecific: props });
    const { changes } = plan({ current: [cur], desired: [ep('a.example.org', 'A', ['192.0.2.1'], { providerSpecific: [...props].reverse() })] });
    assert.deepEqual(summary(changes), NONE);
  });

  test('a resource label change alone does not rewrite the record (as external-dns)', () => {
    const cur = ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me', resource: 'service/default/old' });
    const { changes, decisions } = plan({
      current: [cur],
      desired: [ep('a.example.org', 'A', ['192.0.2.1'], { resource: 'service/default/new' })],
      explainNames: explainAll('a.example.org'),
    });
    assert.deepEqual(summary(changes), NONE);
    assert.equal(decisions[0]?.reasonCode, 'up-to-date');
  });
});

describe('calculatePlan: ownership', () => {
  test('never updates a record owned by another owner', () => {
    const { changes, decisions } = plan({
      current: [ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'cluster-b' })],
      desired: [ep('a.example.org', 'A', ['192.0.2.2'], { resource: 'service/default/a' })],
      explainNames: explainAll('a.example.org'),
    });
    assert.deepEqual(summary(changes), NONE);
    assert.equal(decisions.length, 1);
    assert.equal(decisions[0]?.action, 'skip');
    assert.equal(decisions[0]?.reasonCode, 'owned-by-other');
    assert.equal(decisions[0]?.reason, 'owned by another owner "cluster-b"');
    assert.equal(decisions[0]?.owner, 'cluster-b');
    assert.equal(decisions[0]?.resource, 'service/default/a');
  });

  test('never deletes a record owned by another owner', () => {
    const { changes } = plan({ current: [ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'cluster-b' })] });
    assert.deepEqual(summary(changes), NONE);
  });

  test('never updates or deletes an unowned record', () => {
    const cur = ep('a.example.org', 'A', ['192.0.2.1']);
    assert.deepEqual(summary(plan({ current: [cur] }).changes), NONE);
    const { changes, decisions } = plan({ current: [cur], desired: [ep('a.example.org', 'A', ['192.0.2.2'])], explainNames: explainAll('a.example.org') });
    assert.deepEqual(summary(changes), NONE);
    assert.equal(decisions[0]?.reasonCode, 'unowned-blocks');
  });

  test('a record owned by another owner blocks new types at the name', () => {
    const { changes, decisions } = plan({
      current: [ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'cluster-b' })],
      desired: [ep('a.example.org', 'AAAA', ['2001:db8::1'])],
      explainNames: explainAll('a.example.org'),
    });
    assert.deepEqual(summary(changes), NONE);
    const d = decisions.find((x) => x.recordType === 'AAAA');
    assert.equal(d?.reasonCode, 'owned-by-other');
    assert.match(d?.reason ?? '', /A record owned by another owner "cluster-b"/);
  });

  test('an unowned record blocks new types at the name', () => {
    const { changes, decisions } = plan({
      current: [ep('a.example.org', 'CNAME', ['lb.example.com'])],
      desired: [ep('a.example.org', 'A', ['192.0.2.1'])],
      explainNames: explainAll('a.example.org'),
    });
    assert.deepEqual(summary(changes), NONE);
    assert.equal(decisions.find((x) => x.recordType === 'A')?.reasonCode, 'unowned-blocks');
  });

  test('an owned record at the name allows new types', () => {
    const { changes } = plan({
      current: [ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me' })],
      desired: [ep('a.example.org', 'A', ['192.0.2.1']), ep('a.example.org', 'AAAA', ['2001:db8::1'])],
    });
    assert.deepEqual(summary(changes), { create: ['a.example.org AAAA 2001:db8::1'], update: [], delete: [] });
  });

  test("ownerId '' treats every record as ours and writes no owner label", () => {
    const { changes } = plan({
      ownerId: '',
      current: [ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'cluster-b' }), ep('b.example.org', 'A', ['192.0.2.1'])],
      desired: [ep('a.example.org', 'A', ['192.0.2.2']), ep('c.example.org', 'A', ['192.0.2.3'])],
    });
    assert.deepEqual(summary(changes), {
      create: ['c.example.org A 192.0.2.3'],
      update: ['a.example.org A 192.0.2.1 -> 192.0.2.2'],
      delete: ['b.example.org A 192.0.2.1'],
    });
    assert.deepEqual(changes.create[0]?.labels, {});
    assert.equal(changes.updateNew[0]?.labels['owner'], 'cluster-b', 'the current owner label is inherited');
  });

  test('a foreign record in one set identifier does not block another set identifier', () => {
    const { changes } = plan({
      current: [ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'cluster-b', setIdentifier: 'eu' })],
      desired: [ep('a.example.org', 'A', ['192.0.2.2'], { setIdentifier: 'us' })],
    });
    assert.deepEqual(summary(changes), { create: ['a.example.org A [us] 192.0.2.2'], update: [], delete: [] });
  });
});

describe('calculatePlan: owner migration', () => {
  test('takes over a record of the old owner even when nothing else changed', () => {
    const { changes, decisions } = plan({
      migrateFromOwner: 'old',
      current: [ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'old', resource: 'service/default/a' })],
      desired: [ep('a.example.org', 'A', ['192.0.2.1'], { resource: 'service/default/a' })],
      explainNames: explainAll('a.example.org'),
    });
    assert.equal(changes.updateNew.length, 1);
    assert.equal(changes.updateOld[0]?.labels['owner'], 'old');
    assert.equal(changes.updateNew[0]?.labels['owner'], 'me');
    assert.equal(decisions[0]?.reasonCode, 'owner-migration');
    assert.deepEqual(decisions[0]?.fields, ['owner']);
  });

  test('records of the old owner count as ours: deleted when not desired, not blocking new types', () => {
    const { changes } = plan({
      migrateFromOwner: 'old',
      current: [ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'old' }), ep('b.example.org', 'A', ['192.0.2.1'], { owner: 'old' })],
      desired: [ep('a.example.org', 'A', ['192.0.2.1']), ep('a.example.org', 'AAAA', ['2001:db8::1'])],
    });
    assert.deepEqual(summary(changes), {
      create: ['a.example.org AAAA 2001:db8::1'],
      update: ['a.example.org A 192.0.2.1 -> 192.0.2.1'],
      delete: ['b.example.org A 192.0.2.1'],
    });
  });

  test('other foreign owners stay protected during a migration', () => {
    const { changes } = plan({
      migrateFromOwner: 'old',
      current: [ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'third' })],
      desired: [ep('a.example.org', 'A', ['192.0.2.2'])],
    });
    assert.deepEqual(summary(changes), NONE);
  });
});

describe('calculatePlan: conflict resolution between resources', () => {
  test('on create the candidate with the fewest targets wins', () => {
    const { changes } = plan({
      desired: [
        ep('a.example.org', 'A', ['192.0.2.1', '192.0.2.2'], { resource: 'service/default/x' }),
        ep('a.example.org', 'A', ['192.0.2.9'], { resource: 'service/default/y' }),
      ],
    });
    assert.deepEqual(summary(changes).create, ['a.example.org A 192.0.2.9']);
    assert.equal(changes.create[0]?.labels['resource'], 'service/default/y');
  });

  test('IP targets are compared numerically, not as strings', () => {
    const { changes } = plan({
      desired: [ep('a.example.org', 'A', ['10.0.0.10'], { resource: 'r/1' }), ep('a.example.org', 'A', ['10.0.0.9'], { resource: 'r/2' })],
    });
    assert.deepEqual(summary(changes).create, ['a.example.org A 10.0.0.9']);
  });

  test('equal targets are decided by resource label order, whatever the input order', () => {
    const a = ep('a.example.org', 'A', ['192.0.2.1'], { resource: 'service/default/b' });
    const b = ep('a.example.org', 'A', ['192.0.2.1'], { resource: 'service/default/a' });
    assert.equal(plan({ desired: [a, b] }).changes.create[0]?.labels['resource'], 'service/default/a');
    assert.equal(plan({ desired: [b, a] }).changes.create[0]?.labels['resource'], 'service/default/a');
  });

  test('compareTargets orders IPs before hostnames and IPv4 before IPv6', () => {
    assert.ok(compareTargets('A', ['1.2.3.4'], ['1-2-3-4.example.com']) < 0);
    assert.ok(compareTargets('A', ['1-2-3-4.example.com'], ['1.2.3.4']) > 0);
    assert.ok(compareTargets('A', ['255.255.255.255'], ['::1']) < 0);
    assert.ok(compareTargets('AAAA', ['2001:db8::2'], ['2001:db8::10']) < 0);
    assert.ok(compareTargets('CNAME', ['a.example.com'], ['b.example.com']) < 0);
    assert.equal(compareTargets('A', ['192.0.2.2', '192.0.2.1'], ['192.0.2.1', '192.0.2.2']), 0);
  });

  test('on update the resource that holds the record keeps it', () => {
    const { changes, decisions } = plan({
      current: [ep('a.example.org', 'A', ['192.0.2.5'], { owner: 'me', resource: 'service/default/holder' })],
      desired: [
        ep('a.example.org', 'A', ['192.0.2.1'], { resource: 'service/default/intruder' }),
        ep('a.example.org', 'A', ['192.0.2.6'], { resource: 'service/default/holder' }),
      ],
      explainNames: explainAll('a.example.org'),
    });
    assert.deepEqual(summary(changes).update, ['a.example.org A 192.0.2.5 -> 192.0.2.6']);
    const lost = decisions.find((d) => d.reasonCode === 'conflict-lost');
    assert.equal(lost?.resource, 'service/default/intruder');
    assert.equal(lost?.reason, 'conflict lost to resource service/default/holder');
  });

  test('when the holder is gone the create rule picks the new holder', () => {
    const { changes, decisions } = plan({
      current: [ep('a.example.org', 'A', ['192.0.2.5'], { owner: 'me', resource: 'service/default/gone' })],
      desired: [
        ep('a.example.org', 'A', ['192.0.2.7'], { resource: 'service/default/x' }),
        ep('a.example.org', 'A', ['192.0.2.6'], { resource: 'service/default/y' }),
      ],
      explainNames: explainAll('a.example.org'),
    });
    assert.deepEqual(summary(changes).update, ['a.example.org A 192.0.2.5 -> 192.0.2.6']);
    assert.equal(changes.updateNew[0]?.labels['resource'], 'service/default/y');
    assert.deepEqual(decisions.find((d) => d.action === 'update')?.fields, ['targets', 'resource']);
  });
});

describe('calculatePlan: CNAME exclusivity', () => {
  test('new A and CNAME at one name: A wins', () => {
    const { changes, decisions } = plan({
      desired: [ep('a.example.org', 'CNAME', ['lb.example.com'], { resource: 'ingress/default/a' }), ep('a.example.org', 'A', ['192.0.2.1'])],
      explainNames: explainAll('a.example.org'),
    });
    assert.deepEqual(summary(changes).create, ['a.example.org A 192.0.2.1']);
    const d = decisions.find((x) => x.recordType === 'CNAME');
    assert.equal(d?.reasonCode, 'cname-conflict');
    assert.equal(d?.resource, 'ingress/default/a');
  });

  test('an existing CNAME keeps the name against a new A', () => {
    const { changes, decisions } = plan({
      current: [ep('a.example.org', 'CNAME', ['lb.example.com'], { owner: 'me' })],
      desired: [ep('a.example.org', 'CNAME', ['lb.example.com']), ep('a.example.org', 'A', ['192.0.2.1'])],
      explainNames: explainAll('a.example.org'),
    });
    assert.deepEqual(summary(changes), NONE);
    assert.equal(decisions.find((x) => x.recordType === 'A')?.reasonCode, 'cname-conflict');
  });

  test('an existing A keeps the name against a new CNAME', () => {
    const { changes } = plan({
      current: [ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me' })],
      desired: [ep('a.example.org', 'CNAME', ['lb.example.com']), ep('a.example.org', 'A', ['192.0.2.1'])],
    });
    assert.deepEqual(summary(changes), NONE);
  });

  test('a resource switching from an IP to a hostname replaces A by CNAME', () => {
    const { changes } = plan({
      current: [ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me' })],
      desired: [ep('a.example.org', 'CNAME', ['lb.example.com'])],
    });
    assert.deepEqual(summary(changes), { create: ['a.example.org CNAME lb.example.com'], update: [], delete: ['a.example.org A 192.0.2.1'] });
  });

  test('with upsert-only the CNAME is not created next to an A that cannot be deleted', () => {
    const { changes, decisions } = plan({
      policy: 'upsert-only',
      current: [ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me' })],
      desired: [ep('a.example.org', 'CNAME', ['lb.example.com'])],
      explainNames: explainAll('a.example.org'),
    });
    assert.deepEqual(summary(changes), NONE);
    assert.deepEqual(
      decisions.map((d) => `${d.recordType} ${d.action} ${d.reasonCode}`),
      ['A skip policy-forbids', 'CNAME skip cname-conflict'],
    );
  });

  test('records of unmanaged types at the name also keep a CNAME out', () => {
    const { changes, decisions } = plan({
      excludeRecordTypes: ['AAAA'],
      current: [ep('a.example.org', 'AAAA', ['2001:db8::1'])],
      desired: [ep('a.example.org', 'CNAME', ['lb.example.com'])],
      explainNames: explainAll('a.example.org'),
    });
    assert.deepEqual(summary(changes), NONE);
    assert.deepEqual(
      decisions.map((d) => `${d.recordType} ${d.reasonCode}`),
      ['AAAA type-not-managed', 'CNAME cname-conflict'],
    );
  });

  test('a broken name holding CNAME and A keeps the A and deletes the CNAME', () => {
    const { changes } = plan({
      current: [ep('a.example.org', 'CNAME', ['lb.example.com'], { owner: 'me' }), ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me' })],
      desired: [ep('a.example.org', 'CNAME', ['lb.example.com']), ep('a.example.org', 'A', ['192.0.2.1'])],
    });
    assert.deepEqual(summary(changes), { create: [], update: [], delete: ['a.example.org CNAME lb.example.com'] });
  });
});

describe('calculatePlan: policies', () => {
  const current = [ep('keep.example.org', 'A', ['192.0.2.1'], { owner: 'me' }), ep('gone.example.org', 'A', ['192.0.2.2'], { owner: 'me' })];
  const desired = [ep('keep.example.org', 'A', ['192.0.2.9']), ep('new.example.org', 'A', ['192.0.2.3'])];

  test('sync creates, updates and deletes', () => {
    assert.deepEqual(summary(plan({ current, desired }).changes), {
      create: ['new.example.org A 192.0.2.3'],
      update: ['keep.example.org A 192.0.2.1 -> 192.0.2.9'],
      delete: ['gone.example.org A 192.0.2.2'],
    });
  });

  test('upsert-only never deletes, and says so', () => {
    const { changes, decisions } = plan({ policy: 'upsert-only', current, desired, explainNames: explainAll('gone.example.org') });
    assert.deepEqual(summary(changes), { create: ['new.example.org A 192.0.2.3'], update: ['keep.example.org A 192.0.2.1 -> 192.0.2.9'], delete: [] });
    assert.deepEqual(
      decisions.map((d) => [d.action, d.reasonCode, d.reason]),
      [['skip', 'policy-forbids', 'policy upsert-only forbids deletes']],
    );
  });

  test('create-only only creates', () => {
    const { changes, decisions } = plan({ policy: 'create-only', current, desired, explainNames: explainAll('keep.example.org') });
    assert.deepEqual(summary(changes), { create: ['new.example.org A 192.0.2.3'], update: [], delete: [] });
    assert.equal(decisions[0]?.reason, 'policy create-only forbids updates');
    assert.deepEqual(decisions[0]?.fields, ['targets']);
  });
});

describe('calculatePlan: managed and excluded record types', () => {
  test('TXT is not managed by default on either side', () => {
    const { changes, decisions } = plan({
      current: [ep('t.example.org', 'TXT', ['"hello"'], { owner: 'me' })],
      desired: [ep('u.example.org', 'TXT', ['"x"'])],
      explainNames: explainAll('t.example.org'),
    });
    assert.deepEqual(summary(changes), NONE);
    assert.deepEqual(
      decisions.map((d) => [d.reasonCode, d.reason]),
      [['type-not-managed', 'type TXT not managed']],
    );
  });

  test('managing TXT plans TXT records', () => {
    const { changes } = plan({ managedRecordTypes: ['A', 'TXT'], desired: [ep('u.example.org', 'TXT', ['"x"'])] });
    assert.deepEqual(summary(changes).create, ['u.example.org TXT "x"']);
  });

  test('excluded types are ignored even when listed as managed', () => {
    const { changes } = plan({
      excludeRecordTypes: ['AAAA'],
      current: [ep('a.example.org', 'AAAA', ['2001:db8::1'], { owner: 'me' })],
      desired: [ep('b.example.org', 'AAAA', ['2001:db8::2'])],
    });
    assert.deepEqual(summary(changes), NONE);
  });
});

describe('calculatePlan: domain filter', () => {
  const current = [ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me' }), ep('a.other.org', 'A', ['192.0.2.1'], { owner: 'me' })];

  test('names outside the include list are left alone on both sides', () => {
    const { changes, decisions } = plan({
      domainFilter: new DomainFilter({ include: ['example.org'] }),
      current,
      desired: [ep('b.other.org', 'A', ['192.0.2.2'])],
      explainNames: explainAll('a.other.org'),
    });
    assert.deepEqual(summary(changes), { create: [], update: [], delete: ['a.example.org A 192.0.2.1'] });
    assert.equal(decisions[0]?.reasonCode, 'outside-domain-filter');
    assert.match(decisions[0]?.reason ?? '', /outside the domain filter/);
  });

  test('exclusions win over inclusions', () => {
    const { changes } = plan({
      domainFilter: new DomainFilter({ include: ['example.org'], exclude: ['internal.example.org'] }),
      desired: [ep('x.internal.example.org', 'A', ['192.0.2.1']), ep('x.example.org', 'A', ['192.0.2.1'])],
    });
    assert.deepEqual(summary(changes).create, ['x.example.org A 192.0.2.1']);
  });

  test('a regex filter replaces the lists', () => {
    const { changes } = plan({
      domainFilter: new DomainFilter({ include: ['example.org'], regexInclude: /^app-\d+\./ }),
      desired: [ep('app-1.other.org', 'A', ['192.0.2.1']), ep('web.example.org', 'A', ['192.0.2.1'])],
    });
    assert.deepEqual(summary(changes).create, ['app-1.other.org A 192.0.2.1']);
  });

  test('a leading-dot filter matches names below the domain but not the apex', () => {
    const { changes } = plan({
      domainFilter: new DomainFilter({ include: ['.example.org'] }),
      desired: [ep('example.org', 'A', ['192.0.2.1']), ep('www.example.org', 'A', ['192.0.2.1'])],
    });
    assert.deepEqual(summary(changes).create, ['www.example.org A 192.0.2.1']);
  });

  test('internationalised names (already punycode) match a Unicode filter', () => {
    const { changes } = plan({
      domainFilter: new DomainFilter({ include: ['bücher.example'] }),
      desired: [ep('www.xn--bcher-kva.example', 'A', ['192.0.2.1']), ep('www.buecher.example', 'A', ['192.0.2.1'])],
    });
    assert.deepEqual(summary(changes).create, ['www.xn--bcher-kva.example A 192.0.2.1']);
  });
});

describe('calculatePlan: set identifiers', () => {
  test('each set identifier is its own record set', () => {
    const { changes } = plan({
      current: [
        ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me', setIdentifier: 'eu' }),
        ep('a.example.org', 'A', ['192.0.2.2'], { owner: 'me', setIdentifier: 'us' }),
      ],
      desired: [ep('a.example.org', 'A', ['192.0.2.1'], { setIdentifier: 'eu' }), ep('a.example.org', 'A', ['192.0.2.3'], { setIdentifier: 'ap' })],
    });
    assert.deepEqual(summary(changes), { create: ['a.example.org A [ap] 192.0.2.3'], update: [], delete: ['a.example.org A [us] 192.0.2.2'] });
  });
});

describe('calculatePlan: output and explain', () => {
  test('output is sorted by name, type and set identifier whatever the input order', () => {
    const desired = [
      ep('b.example.org', 'A', ['192.0.2.1']),
      ep('a.example.org', 'AAAA', ['2001:db8::1']),
      ep('a.example.org', 'A', ['192.0.2.1'], { setIdentifier: 'z' }),
      ep('a.example.org', 'A', ['192.0.2.1'], { setIdentifier: 'b' }),
    ];
    const expected = ['a.example.org A [b] 192.0.2.1', 'a.example.org A [z] 192.0.2.1', 'a.example.org AAAA 2001:db8::1', 'b.example.org A 192.0.2.1'];
    assert.deepEqual(summary(plan({ desired }).changes).create, expected);
    assert.deepEqual(summary(plan({ desired: [...desired].reverse() }).changes).create, expected);
  });

  test('updateOld and updateNew stay paired after sorting', () => {
    const current = ['c', 'a', 'b'].map((n, i) => ep(`${n}.example.org`, 'A', [`192.0.2.${i}`], { owner: 'me' }));
    const desired = ['b', 'c', 'a'].map((n) => ep(`${n}.example.org`, 'A', ['198.51.100.1']));
    const { changes } = plan({ current, desired });
    assert.deepEqual(
      changes.updateOld.map((e) => e.dnsName),
      ['a.example.org', 'b.example.org', 'c.example.org'],
    );
    assert.deepEqual(
      changes.updateNew.map((e) => e.dnsName),
      ['a.example.org', 'b.example.org', 'c.example.org'],
    );
  });

  test('decisions are collected only for the names asked about', () => {
    const input = {
      current: [ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me' })],
      desired: [ep('a.example.org', 'A', ['192.0.2.1']), ep('b.example.org', 'A', ['192.0.2.1'])],
    };
    assert.deepEqual(plan(input).decisions, []);
    const { decisions } = plan({ ...input, explainNames: explainAll('b.example.org') });
    assert.deepEqual(
      decisions.map((d) => [d.dnsName, d.action, d.reasonCode, d.reason]),
      [['b.example.org', 'create', 'new', 'new record']],
    );
  });

  test('decisions cover keep, update with fields, and delete', () => {
    const { decisions } = plan({
      current: [
        ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me' }),
        ep('a.example.org', 'AAAA', ['2001:db8::1'], { owner: 'me', recordTTL: 300 }),
        ep('a.example.org', 'CNAME', ['x.example.com'], { owner: 'me', setIdentifier: 's' }),
      ],
      desired: [ep('a.example.org', 'A', ['192.0.2.1']), ep('a.example.org', 'AAAA', ['2001:db8::2'], { recordTTL: 60, resource: 'service/ns/a' })],
      explainNames: explainAll('a.example.org'),
    });
    assert.deepEqual(
      decisions.map((d) => [d.recordType, d.setIdentifier, d.action, d.reasonCode, d.reason, d.fields, d.resource, d.owner]),
      [
        ['A', '', 'keep', 'up-to-date', 'up to date', undefined, undefined, 'me'],
        ['AAAA', '', 'update', 'targets-changed', 'targets, recordTTL, resource changed', ['targets', 'recordTTL', 'resource'], 'service/ns/a', 'me'],
        ['CNAME', 's', 'delete', 'no-longer-desired', 'no longer desired by any resource', undefined, undefined, 'me'],
      ],
    );
  });

  test('the planner does not modify its inputs', () => {
    const current = [ep('a.example.org', 'A', ['192.0.2.1'], { owner: 'me' })];
    const desired = [ep('a.example.org', 'A', ['192.0.2.2'], { resource: 'r' }), ep('b.example.org', 'A', ['192.0.2.2'])];
    const before = JSON.stringify({ current, desired });
    plan({ current, desired });
    assert.equal(JSON.stringify({ current, desired }), before);
  });
});

test('--policy offers exactly the policies the planner knows', () => {
  assert.deepEqual([...POLICY_CHOICES], [...POLICIES]);
});

describe('owner mismatches (external-dns skipped_records_owner_mismatch_per_sync)', () => {
  const desired = (name: string, type: 'A' | 'AAAA' | 'CNAME', target: string) =>
    newEndpoint({ dnsName: name, recordType: type, targets: [target], labels: { resource: 'service/default/web' } });
  test('each record not ours at a name whose create it blocked, once per plan', () => {
    const r = plan({
      current: [
        newEndpoint({ dnsName: 'www.example.org', recordType: 'A', targets: ['192.0.2.9'], labels: { owner: 'other' } }),
        newEndpoint({ dnsName: 'api.example.org', recordType: 'A', targets: ['192.0.2.8'] }),
      ],
      desired: [
        desired('www.example.org', 'AAAA', '2001:db8::1'),
        desired('api.example.org', 'AAAA', '2001:db8::2'),
        desired('new.example.org', 'A', '192.0.2.1'),
      ],
    });
    assert.deepEqual(
      r.ownerMismatches.map((m) => [m.recordType, m.foreignOwner, m.domain]),
      [
        ['A', '', 'example.org'],
        ['A', 'other', 'example.org'],
      ],
    );
    assert.equal(r.changes.create.length, 1);
  });
  test('nothing without an owner id, or when nothing was blocked', () => {
    const foreign = newEndpoint({ dnsName: 'www.example.org', recordType: 'A', targets: ['192.0.2.9'], labels: { owner: 'other' } });
    assert.deepEqual(plan({ current: [foreign], desired: [desired('www.example.org', 'AAAA', '2001:db8::1')], ownerId: '' }).ownerMismatches, []);
    assert.deepEqual(plan({ current: [foreign], desired: [] }).ownerMismatches, []);
  });
  test('parentDomain drops the first label unless one label would be left', () => {
    assert.equal(parentDomain('a.b.example.org'), 'b.example.org');
    assert.equal(parentDomain('example.org'), 'example.org');
    assert.equal(parentDomain('localhost'), 'localhost');
  });
});

describe('held resources (objects their source could not translate)', () => {
  const WEB = 'service/default/web';
  const held = new Set([WEB]);
  const webA = ep('web.example.org', 'A', ['192.0.2.1'], { owner: 'me', resource: WEB });
  const webTxt = ep('web.example.org', 'TXT', ['"v=1"'], { owner: 'me', resource: WEB });

  test("a held resource's records are neither deleted nor updated; other records plan as usual", () => {
    const other = ep('old.example.org', 'A', ['192.0.2.7'], { owner: 'me', resource: 'service/default/old' });
    const r = plan({ current: [webA, other], desired: [], heldResources: held });
    assert.deepEqual(summary(r.changes), { create: [], update: [], delete: ['old.example.org A 192.0.2.7'] });
    // Without the hold, the same input deletes both.
    assert.deepEqual(summary(plan({ current: [webA, other], desired: [] }).changes).delete, ['old.example.org A 192.0.2.7', 'web.example.org A 192.0.2.1']);
    const managed = plan({ current: [webTxt], desired: [], heldResources: held, managedRecordTypes: ['A', 'TXT'] });
    assert.deepEqual(summary(managed.changes), NONE);
  });

  test('another object asking for the held name takes nothing over: no update, no type that would replace it', () => {
    const api = 'service/default/api';
    const r = plan({
      current: [webA],
      desired: [
        ep('web.example.org', 'A', ['192.0.2.9'], { resource: api }),
        ep('web.example.org', 'CNAME', ['lb.example.com'], { resource: api }),
        ep('web.example.org', 'AAAA', ['2001:db8::9'], { resource: api }),
      ],
      heldResources: held,
    });
    // The AAAA sits beside the held A as it would beside any A that stays.
    assert.deepEqual(summary(r.changes), { create: ['web.example.org AAAA 2001:db8::9'], update: [], delete: [] });
    const cname = plan({ current: [webA], desired: [ep('web.example.org', 'CNAME', ['lb.example.com'], { resource: api })], heldResources: held });
    assert.deepEqual(summary(cname.changes), NONE);
  });

  test('explain names the hold with the reason code resource-held, for the record and for each candidate', () => {
    const { decisions } = plan({
      current: [webA],
      desired: [ep('web.example.org', 'A', ['192.0.2.9'], { resource: 'service/default/api' })],
      heldResources: held,
      explainNames: explainAll('web.example.org'),
    });
    assert.deepEqual(
      decisions.map((d) => [d.action, d.reasonCode, d.resource, d.owner]),
      [
        ['skip', 'resource-held', undefined, 'me'],
        ['skip', 'resource-held', 'service/default/api', 'me'],
      ],
    );
    assert.match(decisions[0]?.reason ?? '', /^resource service\/default\/web is held: its source could not translate it .*neither updated nor deleted$/);
  });

  test('a kind entry (`httproute/*`, a CRD not served yet) holds every record of that kind and explains why', () => {
    const route = ep('app.example.org', 'A', ['192.0.2.3'], { owner: 'me', resource: 'httproute/default/app' });
    const other = ep('old.example.org', 'A', ['192.0.2.7'], { owner: 'me', resource: 'service/default/old' });
    const r = plan({ current: [route, other], desired: [], heldResources: new Set(['httproute/*']), explainNames: explainAll('app.example.org') });
    assert.deepEqual(summary(r.changes), { create: [], update: [], delete: ['old.example.org A 192.0.2.7'] });
    assert.match(r.decisions[0]?.reason ?? '', /^resource httproute\/default\/app is held: its source cannot read its kind yet .*CRD not installed/);
  });

  test('records of another owner, without a resource label or of resources not held are unaffected', () => {
    const foreign = ep('web.example.org', 'A', ['192.0.2.1'], { owner: 'other', resource: WEB });
    const unlabelled = ep('x.example.org', 'A', ['192.0.2.2'], { owner: 'me' });
    const r = plan({ current: [foreign, unlabelled], desired: [], heldResources: held });
    assert.deepEqual(summary(r.changes), { create: [], update: [], delete: ['x.example.org A 192.0.2.2'] });
    assert.deepEqual(summary(plan({ current: [webA], desired: [], heldResources: new Set() }).changes).delete, ['web.example.org A 192.0.2.1']);
  });
});
