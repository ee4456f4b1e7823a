import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, EndpointInit, RecordType } from '../../endpoint/endpoint.ts';
import { hasStarAsData } from '../../endpoint/name.ts';
import { ConfigError } from '../../errors.ts';
import { silentLogger } from '../../log.ts';
import { emptyChanges } from '../../plan/changes.ts';
import type { Changes } from '../../plan/changes.ts';
import { captureLogger } from '../../../test/registry/capture-logger.ts';
import { FakeProvider } from '../../../test/support/fake-provider.ts';
import { TXTRegistry } from './txt-registry.ts';
import type { TXTRegistryOptions } from './txt-registry.ts';

const ZONE = 'test-zone.example.org';
const MANAGED: RecordType[] = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'SRV'];

function ep(dnsName: string, recordType: RecordType, targets: string[], extra: Partial<EndpointInit> = {}): Endpoint {
  return newEndpoint({ dnsName, recordType, targets, ...extra });
}

function txt(dnsName: string, value: string, setIdentifier = ''): Endpoint {
  return ep(dnsName, 'TXT', [value], { setIdentifier });
}

function owned(owner: string, resource?: string): string {
  return resource === undefined
    ? `"heritage=external-dns,external-dns/owner=${owner}"`
    : `"heritage=external-dns,external-dns/owner=${owner},external-dns/resource=${resource}"`;
}

function registry(provider: FakeProvider, options: Partial<TXTRegistryOptions> = {}): TXTRegistry {
  return new TXTRegistry(provider, { ownerId: 'owner', managedRecordTypes: MANAGED, excludeRecordTypes: [], logger: silentLogger(), ...options });
}

function find(records: Endpoint[], dnsName: string, recordType: RecordType, setIdentifier = ''): Endpoint | undefined {
  return records.find((r) => r.dnsName === dnsName && r.recordType === recordType && r.setIdentifier === setIdentifier);
}

/** A batch as "<list> <name> <type> [<set>] <targets>" lines, sorted, for whole-batch comparisons. */
function summary(changes: Changes): string[] {
  const lines: string[] = [];
  for (const list of ['create', 'updateOld', 'updateNew', 'delete'] as const) {
    for (const e of changes[list]) {
      lines.push(`${list} ${e.dnsName} ${e.recordType}${e.setIdentifier === '' ? '' : ` [${e.setIdentifier}]`} ${e.targets.join(' ')}`);
    }
  }
  return lines.sort();
}

describe('TXTRegistry.records', () => {
  // The zone of external-dns's testTXTRegistryRecordsPrefixed, trimmed to the interesting cases.
  const prefixedZone = (): FakeProvider =>
    new FakeProvider([
      ep(`foo.${ZONE}`, 'CNAME', ['foo.loadbalancer.com']),
      ep(`bar.${ZONE}`, 'CNAME', ['my-domain.com']),
      txt(`txt.bar.${ZONE}`, owned('owner')),
      ep(`txt.bar.${ZONE}`, 'CNAME', [`baz.${ZONE}`]),
      txt(`qux.${ZONE}`, 'random'),
      ep(`tar.${ZONE}`, 'CNAME', ['tar.loadbalancer.com']),
      txt(`TxT.tar.${ZONE}`, owned('owner-2')),
      ep(`foobar.${ZONE}`, 'CNAME', ['foobar.loadbalancer.com']),
      txt(`foobar.${ZONE}`, owned('owner')),
      ep(`multiple.${ZONE}`, 'CNAME', ['lb1.loadbalancer.com'], { setIdentifier: 'test-set-1' }),
      txt(`txt.cname-multiple.${ZONE}`, owned('owner'), 'test-set-1'),
      ep(`multiple.${ZONE}`, 'CNAME', ['lb2.loadbalancer.com'], { setIdentifier: 'test-set-2' }),
      txt(`txt.cname-multiple.${ZONE}`, owned('owner-2'), 'test-set-2'),
      ep(`*.wildcard.${ZONE}`, 'CNAME', ['foo.loadbalancer.com']),
      txt(`txt.wc.wildcard.${ZONE}`, owned('owner')),
      ep(`dualstack.${ZONE}`, 'A', ['1.1.1.1']),
      txt(`txt.dualstack.${ZONE}`, owned('owner')),
      ep(`dualstack.${ZONE}`, 'AAAA', ['2001:db8::1']),
      txt(`txt.aaaa-dualstack.${ZONE}`, owned('owner-2')),
      ep(`mail.${ZONE}`, 'MX', ['10 onemail.example.com']),
      txt(`txt.mx-mail.${ZONE}`, owned('owner')),
    ]);

  test('attaches owners from new- and old-format TXT records and hides them', async () => {
    const records = await registry(prefixedZone(), { prefix: 'txt.', wildcardReplacement: 'wc' }).records();
    const owner = (name: string, type: RecordType, set = ''): string | undefined => find(records, name, type, set)?.labels.owner;
    assert.equal(owner(`foo.${ZONE}`, 'CNAME'), undefined);
    assert.equal(owner(`bar.${ZONE}`, 'CNAME'), 'owner');
    assert.equal(owner(`txt.bar.${ZONE}`, 'CNAME'), undefined);
    assert.equal(owner(`tar.${ZONE}`, 'CNAME'), 'owner-2', 'prefix matching ignores case');
    assert.equal(owner(`foobar.${ZONE}`, 'CNAME'), undefined, 'a TXT without the prefix owns nothing');
    assert.equal(owner(`multiple.${ZONE}`, 'CNAME', 'test-set-1'), 'owner');
    assert.equal(owner(`multiple.${ZONE}`, 'CNAME', 'test-set-2'), 'owner-2');
    assert.equal(owner(`*.wildcard.${ZONE}`, 'CNAME'), 'owner');
    assert.equal(owner(`dualstack.${ZONE}`, 'A'), 'owner');
    assert.equal(owner(`dualstack.${ZONE}`, 'AAAA'), 'owner-2');
    assert.equal(owner(`mail.${ZONE}`, 'MX'), 'owner');
    // Ownership TXT records are hidden; ordinary TXT records are not.
    assert.deepEqual(
      records.filter((r) => r.recordType === 'TXT').map((r) => r.dnsName),
      [`qux.${ZONE}`],
    );
  });

  test('AAAA records never fall back to an old-format TXT', async () => {
    const provider = new FakeProvider([ep(`v6.${ZONE}`, 'AAAA', ['2001:db8::2']), ep(`v6.${ZONE}`, 'A', ['192.0.2.2']), txt(`v6.${ZONE}`, owned('owner'))]);
    const records = await registry(provider).records();
    assert.equal(find(records, `v6.${ZONE}`, 'A')?.labels.owner, 'owner');
    assert.equal(find(records, `v6.${ZONE}`, 'AAAA')?.labels.owner, undefined);
  });

  test('the new format wins over the old one', async () => {
    const provider = new FakeProvider([
      ep(`both.${ZONE}`, 'A', ['192.0.2.3']),
      txt(`both.${ZONE}`, owned('old-owner')),
      txt(`a-both.${ZONE}`, owned('owner', 'service/default/web')),
    ]);
    const record = find(await registry(provider).records(), `both.${ZONE}`, 'A');
    assert.deepEqual(record?.labels, { owner: 'owner', resource: 'service/default/web' });
  });

  test('reports the --migrate-from-txt-owner owner as read, for the planner to take over', async () => {
    const provider = new FakeProvider([ep(`m.${ZONE}`, 'A', ['192.0.2.4']), txt(`a-m.${ZONE}`, owned('previous'))]);
    const records = await registry(provider, { oldOwnerId: 'previous' }).records();
    assert.equal(find(records, `m.${ZONE}`, 'A')?.labels.owner, 'previous');
  });

  test('returns read-only records: callers cannot corrupt what the registry knows', async () => {
    const provider = new FakeProvider([ep(`c.${ZONE}`, 'A', ['192.0.2.5']), txt(`a-c.${ZONE}`, owned('owner'))]);
    const reg = registry(provider, { cacheIntervalMs: 60_000, now: () => 0 });
    for (let read = 0; read < 2; read++) {
      const record = find(await reg.records(), `c.${ZONE}`, 'A') as Endpoint;
      assert.throws(() => (record.labels.owner = 'mallory'), TypeError);
      assert.throws(() => record.targets.push('192.0.2.66'), TypeError);
      assert.equal(record.labels.owner, 'owner');
    }
  });
});

describe('TXTRegistry.applyChanges', () => {
  // The zone and changes of external-dns's testTXTRegistryApplyChangesWithPrefix.
  const zone = (): FakeProvider =>
    new FakeProvider([
      ep(`foo.${ZONE}`, 'CNAME', ['foo.loadbalancer.com']),
      ep(`tar.${ZONE}`, 'CNAME', ['tar.loadbalancer.com']),
      txt(`txt.tar.${ZONE}`, owned('owner')),
      txt(`txt.cname-tar.${ZONE}`, owned('owner')),
      ep(`foobar.${ZONE}`, 'CNAME', ['foobar.loadbalancer.com']),
      txt(`txt.foobar.${ZONE}`, owned('owner')),
      txt(`txt.cname-foobar.${ZONE}`, owned('owner')),
      ep(`multiple.${ZONE}`, 'CNAME', ['lb1.loadbalancer.com'], { setIdentifier: 'test-set-1' }),
      txt(`txt.cname-multiple.${ZONE}`, owned('owner'), 'test-set-1'),
      ep(`multiple.${ZONE}`, 'CNAME', ['lb2.loadbalancer.com'], { setIdentifier: 'test-set-2' }),
      txt(`txt.cname-multiple.${ZONE}`, owned('owner'), 'test-set-2'),
    ]);
  const res = (r: string): Record<string, string> => ({ owner: 'owner', resource: r });
  const changes = (): Changes => ({
    create: [
      ep(`new-record-1.${ZONE}`, 'CNAME', ['new-loadbalancer-1.lb.com'], { labels: res('ingress/default/my-ingress') }),
      ep(`multiple.${ZONE}`, 'CNAME', ['lb3.loadbalancer.com'], { setIdentifier: 'test-set-3', labels: res('ingress/default/my-ingress') }),
      ep('example', 'CNAME', ['new-loadbalancer-1.lb.com'], { labels: res('ingress/default/my-ingress') }),
    ],
    delete: [
      ep(`foobar.${ZONE}`, 'CNAME', ['foobar.loadbalancer.com'], { labels: { owner: 'owner' } }),
      ep(`multiple.${ZONE}`, 'CNAME', ['lb1.loadbalancer.com'], { setIdentifier: 'test-set-1', labels: { owner: 'owner' } }),
    ],
    updateNew: [
      ep(`tar.${ZONE}`, 'CNAME', ['new-tar.loadbalancer.com'], { labels: res('ingress/default/my-ingress-2') }),
      ep(`multiple.${ZONE}`, 'CNAME', ['new.loadbalancer.com'], { setIdentifier: 'test-set-2', labels: res('ingress/default/my-ingress-2') }),
    ],
    updateOld: [
      ep(`tar.${ZONE}`, 'CNAME', ['tar.loadbalancer.com'], { labels: { owner: 'owner' } }),
      ep(`multiple.${ZONE}`, 'CNAME', ['lb2.loadbalancer.com'], { setIdentifier: 'test-set-2', labels: { owner: 'owner' } }),
    ],
  });
  // external-dns's expected batch, byte for byte.
  const expected = [
    `create new-record-1.${ZONE} CNAME new-loadbalancer-1.lb.com`,
    `create txt.cname-new-record-1.${ZONE} TXT ${owned('owner', 'ingress/default/my-ingress')}`,
    `create multiple.${ZONE} CNAME [test-set-3] lb3.loadbalancer.com`,
    `create txt.cname-multiple.${ZONE} TXT [test-set-3] ${owned('owner', 'ingress/default/my-ingress')}`,
    'create example CNAME new-loadbalancer-1.lb.com',
    `create txt.cname-example TXT ${owned('owner', 'ingress/default/my-ingress')}`,
    `delete foobar.${ZONE} CNAME foobar.loadbalancer.com`,
    `delete txt.cname-foobar.${ZONE} TXT ${owned('owner')}`,
    `delete multiple.${ZONE} CNAME [test-set-1] lb1.loadbalancer.com`,
    `delete txt.cname-multiple.${ZONE} TXT [test-set-1] ${owned('owner')}`,
    `updateNew tar.${ZONE} CNAME new-tar.loadbalancer.com`,
    `updateNew txt.cname-tar.${ZONE} TXT ${owned('owner', 'ingress/default/my-ingress-2')}`,
    `updateNew multiple.${ZONE} CNAME [test-set-2] new.loadbalancer.com`,
    `updateNew txt.cname-multiple.${ZONE} TXT [test-set-2] ${owned('owner', 'ingress/default/my-ingress-2')}`,
    `updateOld tar.${ZONE} CNAME tar.loadbalancer.com`,
    `updateOld txt.cname-tar.${ZONE} TXT ${owned('owner')}`,
    `updateOld multiple.${ZONE} CNAME [test-set-2] lb2.loadbalancer.com`,
    `updateOld txt.cname-multiple.${ZONE} TXT [test-set-2] ${owned('owner')}`,
  ].sort();

  test('writes record and TXT together in one batch, as external-dns does', async () => {
    const provider = zone();
    const reg = registry(provider, { prefix: 'txt.' });
    await reg.records();
    await reg.applyChanges(changes());
    assert.equal(provider.batches.length, 1);
    assert.deepEqual(summary(provider.batches[0] as Changes), expected);
    const batch = provider.batches[0] as Changes;
    const createdTXT = batch.create.find((e) => e.dnsName === `txt.cname-new-record-1.${ZONE}`);
    assert.deepEqual(createdTXT?.labels, { ownedRecord: `new-record-1.${ZONE}` });
    assert.equal(batch.create.find((e) => e.dnsName === `new-record-1.${ZONE}`)?.labels.owner, 'owner');
  });

  test('without a prior records() read it generates the TXT records like external-dns', async () => {
    const provider = zone();
    await registry(provider, { prefix: 'txt.' }).applyChanges(changes());
    assert.deepEqual(summary(provider.batches[0] as Changes), expected);
  });

  test('never touches records or TXT records of other owners', async () => {
    const provider = new FakeProvider([
      ep(`theirs.${ZONE}`, 'A', ['192.0.2.10']),
      txt(`a-theirs.${ZONE}`, owned('other')),
      ep(`gone.${ZONE}`, 'A', ['192.0.2.11']),
      txt(`a-gone.${ZONE}`, owned('other')),
    ]);
    const reg = registry(provider);
    const records = await reg.records();
    const theirs = find(records, `theirs.${ZONE}`, 'A') as Endpoint;
    await reg.applyChanges({
      create: [],
      updateOld: [theirs],
      updateNew: [{ ...theirs, targets: ['192.0.2.99'] }],
      delete: [find(records, `gone.${ZONE}`, 'A') as Endpoint],
    });
    assert.deepEqual(summary(provider.batches[0] as Changes), []);
    assert.equal(provider.list().length, 4);
  });

  test("a create next to another owner's leftover TXT leaves that TXT alone and warns", async () => {
    const log = captureLogger();
    const provider = new FakeProvider([txt(`a-left.${ZONE}`, owned('other'))]);
    const reg = registry(provider, { logger: log.logger });
    await reg.records();
    await reg.applyChanges({ ...emptyChanges(), create: [ep(`left.${ZONE}`, 'A', ['192.0.2.12'])] });
    assert.deepEqual(summary(provider.batches[0] as Changes), [`create left.${ZONE} A 192.0.2.12`]);
    assert.equal(provider.get(`a-left.${ZONE}`, 'TXT')?.targets[0], owned('other'));
    assert.ok(log.warnings().some((w) => w.includes('another owner')));
  });

  test('a create over our own leftover TXT rewrites it only when the labels differ', async () => {
    const provider = new FakeProvider([txt(`a-again.${ZONE}`, owned('owner', 'service/default/web'))]);
    const reg = registry(provider);
    await reg.records();
    await reg.applyChanges({ ...emptyChanges(), create: [ep(`again.${ZONE}`, 'A', ['192.0.2.13'], { labels: { resource: 'service/default/web' } })] });
    assert.deepEqual(summary(provider.batches[0] as Changes), [`create again.${ZONE} A 192.0.2.13`]);
  });

  test('ownership TXT records carry the record TTL, set identifier and provider properties', async () => {
    const provider = new FakeProvider();
    const reg = registry(provider);
    await reg.records();
    await reg.applyChanges({
      ...emptyChanges(),
      create: [ep(`ttl.${ZONE}`, 'A', ['192.0.2.14'], { recordTTL: 120, setIdentifier: 'eu', providerSpecific: [{ name: 'weight', value: '10' }] })],
    });
    const t = provider.get(`a-ttl.${ZONE}`, 'TXT', 'eu');
    assert.equal(t?.recordTTL, 120);
    assert.deepEqual(t?.providerSpecific, [{ name: 'weight', value: '10' }]);
    assert.equal(t?.targets[0], owned('owner'));
    assert.equal((provider.batches[0] as Changes).create[0]?.labels.owner, 'owner');
  });

  test('an unchanged TXT is not rewritten when only the targets change', async () => {
    const provider = new FakeProvider([ep(`same.${ZONE}`, 'A', ['192.0.2.15']), txt(`a-same.${ZONE}`, owned('owner', 'service/default/web'))]);
    const reg = registry(provider);
    const current = find(await reg.records(), `same.${ZONE}`, 'A') as Endpoint;
    await reg.applyChanges({ ...emptyChanges(), updateOld: [current], updateNew: [{ ...current, targets: ['192.0.2.16'] }] });
    assert.deepEqual(summary(provider.batches[0] as Changes), [`updateNew same.${ZONE} A 192.0.2.16`, `updateOld same.${ZONE} A 192.0.2.15`]);
  });

  test('wildcards use the replacement in the TXT name and are found again', async () => {
    const provider = new FakeProvider();
    const reg = registry(provider, { wildcardReplacement: 'wc' });
    await reg.records();
    await reg.applyChanges({ ...emptyChanges(), create: [ep(`*.apps.${ZONE}`, 'CNAME', ['lb.example.net'])] });
    assert.ok(provider.get(`cname-wc.apps.${ZONE}`, 'TXT') !== undefined);
    assert.equal(find(await reg.records(), `*.apps.${ZONE}`, 'CNAME')?.labels.owner, 'owner');
  });

  test('a takeover update rewrites the TXT record with the new owner', async () => {
    const provider = new FakeProvider([ep(`m.${ZONE}`, 'A', ['192.0.2.17']), txt(`a-m.${ZONE}`, owned('previous'))]);
    const reg = registry(provider, { oldOwnerId: 'previous' });
    const current = find(await reg.records(), `m.${ZONE}`, 'A') as Endpoint;
    await reg.applyChanges({ ...emptyChanges(), updateOld: [current], updateNew: [{ ...current, labels: { owner: 'owner' } }] });
    assert.equal(provider.get(`a-m.${ZONE}`, 'TXT')?.targets[0], owned('owner'));
    assert.equal(find(await reg.records(), `m.${ZONE}`, 'A')?.labels.owner, 'owner');
  });

  test("without --migrate-from-txt-owner the previous owner's records stay untouched", async () => {
    const provider = new FakeProvider([ep(`m.${ZONE}`, 'A', ['192.0.2.17']), txt(`a-m.${ZONE}`, owned('previous'))]);
    const reg = registry(provider);
    const current = find(await reg.records(), `m.${ZONE}`, 'A') as Endpoint;
    await reg.applyChanges({ ...emptyChanges(), updateOld: [current], updateNew: [{ ...current, labels: { owner: 'owner' } }] });
    assert.deepEqual(summary(provider.batches[0] as Changes), []);
  });

  test('a provider-default TTL on the TXT record does not force a rewrite', async () => {
    const stored = txt(`a-dflt.${ZONE}`, owned('owner'));
    stored.recordTTL = 300;
    const provider = new FakeProvider([ep(`dflt.${ZONE}`, 'A', ['192.0.2.25'], { recordTTL: 300 }), stored]);
    const reg = registry(provider);
    const current = find(await reg.records(), `dflt.${ZONE}`, 'A') as Endpoint;
    await reg.applyChanges({ ...emptyChanges(), updateOld: [current], updateNew: [{ ...current, recordTTL: 0, targets: ['192.0.2.26'] }] });
    assert.deepEqual(summary(provider.batches[0] as Changes), [`updateNew dflt.${ZONE} A 192.0.2.26`, `updateOld dflt.${ZONE} A 192.0.2.25`]);
  });

  test('a wildcard without --txt-wildcard-replacement gets the ownership TXT a-*.<rest>, as external-dns writes it', async () => {
    const provider = new FakeProvider();
    const reg = registry(provider);
    await reg.records();
    await reg.applyChanges({ ...emptyChanges(), create: [ep(`*.apps.${ZONE}`, 'A', ['192.0.2.60'], { labels: { resource: 'service/default/web' } })] });
    assert.deepEqual(summary(provider.batches[0] as Changes), [
      `create *.apps.${ZONE} A 192.0.2.60`,
      `create a-*.apps.${ZONE} TXT ${owned('owner', 'service/default/web')}`,
    ]);
    const records = await reg.records();
    assert.equal(find(records, `*.apps.${ZONE}`, 'A')?.labels.owner, 'owner');
    const current = find(records, `*.apps.${ZONE}`, 'A') as Endpoint;
    await reg.applyChanges({ ...emptyChanges(), updateOld: [current], updateNew: [{ ...current, targets: ['192.0.2.61'] }] });
    assert.deepEqual(summary(provider.batches[1] as Changes), [`updateNew *.apps.${ZONE} A 192.0.2.61`, `updateOld *.apps.${ZONE} A 192.0.2.60`]);
    await reg.applyChanges({ ...emptyChanges(), delete: [find(await reg.records(), `*.apps.${ZONE}`, 'A') as Endpoint] });
    assert.deepEqual(summary(provider.batches[2] as Changes), [
      `delete *.apps.${ZONE} A 192.0.2.61`,
      `delete a-*.apps.${ZONE} TXT ${owned('owner', 'service/default/web')}`,
    ]);
  });

  test('wildcard TXT names with --txt-prefix/--txt-suffix and %{record_type} are the names external-dns writes', () => {
    const cases: [Partial<TXTRegistryOptions>, string][] = [
      [{}, `cname-*.apps.${ZONE}`],
      [{ prefix: 'txt.' }, `txt.cname-*.apps.${ZONE}`],
      [{ prefix: 'txt-' }, `txt-cname-*.apps.${ZONE}`],
      [{ suffix: '-txt' }, `cname-*-txt.apps.${ZONE}`],
      [{ suffix: '.txt' }, `cname-*.txt.apps.${ZONE}`],
      [{ prefix: '%{record_type}.' }, `cname.*.apps.${ZONE}`],
      [{ suffix: '-%{record_type}' }, `*-cname.apps.${ZONE}`],
      [{ wildcardReplacement: 'wc' }, `cname-wc.apps.${ZONE}`],
      [{ prefix: 'txt.', wildcardReplacement: 'wc' }, `txt.cname-wc.apps.${ZONE}`],
      [{ suffix: '-txt', wildcardReplacement: 'wildcard' }, `cname-wildcard-txt.apps.${ZONE}`],
    ];
    for (const [options, name] of cases) {
      const reg = registry(new FakeProvider(), options);
      assert.equal(reg.ownershipTXT(ep(`*.apps.${ZONE}`, 'CNAME', ['lb.example.net'])).dnsName, name, JSON.stringify(options));
    }
  });

  test('every affix form of a wildcard TXT is written, then found again as the owner', async () => {
    for (const options of [
      {},
      { prefix: 'txt.' },
      { suffix: '-txt' },
      { suffix: '.txt' },
      { prefix: '%{record_type}.' },
      { suffix: '-%{record_type}' },
    ] as Partial<TXTRegistryOptions>[]) {
      const provider = new FakeProvider();
      const reg = registry(provider, options);
      await reg.records();
      await reg.applyChanges({ ...emptyChanges(), create: [ep(`*.apps.${ZONE}`, 'CNAME', ['lb.example.net'])] });
      assert.equal(provider.batches[0]?.create.length, 2, JSON.stringify(options));
      assert.equal(find(await reg.records(), `*.apps.${ZONE}`, 'CNAME')?.labels.owner, 'owner', JSON.stringify(options));
    }
  });

  test('a zone external-dns wrote with a wildcard is owned: new-format a-*.<rest> and old-format TXT at the wildcard name', async () => {
    const provider = new FakeProvider([
      ep(`*.apps.${ZONE}`, 'A', ['192.0.2.70']),
      txt(`a-*.apps.${ZONE}`, owned('owner', 'ingress/default/apps')),
      ep(`*.old.${ZONE}`, 'CNAME', ['lb.example.net']),
      txt(`*.old.${ZONE}`, owned('owner')),
      ep(`*.theirs.${ZONE}`, 'A', ['192.0.2.71']),
      txt(`a-*.theirs.${ZONE}`, owned('someone-else')),
    ]);
    const records = await registry(provider).records();
    assert.equal(find(records, `*.apps.${ZONE}`, 'A')?.labels.owner, 'owner');
    assert.equal(find(records, `*.apps.${ZONE}`, 'A')?.labels.resource, 'ingress/default/apps');
    assert.equal(find(records, `*.old.${ZONE}`, 'CNAME')?.labels.owner, 'owner');
    assert.equal(find(records, `*.theirs.${ZONE}`, 'A')?.labels.owner, 'someone-else');
  });

  test('with --txt-wildcard-replacement only the replaced TXT name owns the wildcard (as external-dns reads it)', async () => {
    const provider = new FakeProvider([ep(`*.apps.${ZONE}`, 'A', ['192.0.2.72']), txt(`a-*.apps.${ZONE}`, owned('owner'))]);
    assert.equal(find(await registry(provider, { wildcardReplacement: 'wc' }).records(), `*.apps.${ZONE}`, 'A')?.labels.owner, undefined);
    const replaced = new FakeProvider([ep(`*.apps.${ZONE}`, 'A', ['192.0.2.72']), txt(`a-wc.apps.${ZONE}`, owned('owner'))]);
    assert.equal(find(await registry(replaced, { wildcardReplacement: 'wc' }).records(), `*.apps.${ZONE}`, 'A')?.labels.owner, 'owner');
  });

  test('a provider that refuses a-*. names: new wildcards are skipped with an error, existing such TXT records are never sent', async () => {
    class Refusing extends FakeProvider {
      refusedName(name: string): string | undefined {
        return hasStarAsData(name) ? 'its API takes * only as the first label' : undefined;
      }
    }
    const log = captureLogger();
    const fresh = new Refusing();
    const reg = registry(fresh, { logger: log.logger });
    await reg.records();
    await reg.applyChanges({ ...emptyChanges(), create: [ep(`*.apps.${ZONE}`, 'A', ['192.0.2.60']), ep(`ok.${ZONE}`, 'A', ['192.0.2.61'])] });
    assert.deepEqual(summary(fresh.batches[0] as Changes), [`create a-ok.${ZONE} TXT ${owned('owner')}`, `create ok.${ZONE} A 192.0.2.61`]);
    assert.ok(log.lines().some((l) => l.level === 50 && l.msg.includes('cannot hold its ownership TXT name') && l.msg.includes('--txt-wildcard-replacement')));

    const existing = new Refusing([ep(`*.old.${ZONE}`, 'A', ['192.0.2.62']), txt(`a-*.old.${ZONE}`, owned('owner'))]);
    const reg2 = registry(existing, { logger: log.logger });
    const current = find(await reg2.records(), `*.old.${ZONE}`, 'A') as Endpoint;
    assert.equal(current.labels.owner, 'owner');
    await reg2.applyChanges({ ...emptyChanges(), updateOld: [current], updateNew: [{ ...current, labels: { resource: 'changed' } }] });
    assert.deepEqual(summary(existing.batches[0] as Changes), [`updateNew *.old.${ZONE} A 192.0.2.62`, `updateOld *.old.${ZONE} A 192.0.2.62`]);
    await reg2.applyChanges({ ...emptyChanges(), delete: [find(await reg2.records(), `*.old.${ZONE}`, 'A') as Endpoint] });
    assert.deepEqual(summary(existing.batches[1] as Changes), [`delete *.old.${ZONE} A 192.0.2.62`]);
    assert.ok(log.lines().some((l) => l.level === 40 && l.msg.includes('ownership TXT record left unchanged')));
  });

  test('a 63-character label whose TXT label would be too long is skipped', async () => {
    const provider = new FakeProvider();
    const reg = registry(provider);
    await reg.records();
    const long = `this-is-a-63-characters-long-label-that-we-do-expect-will-work.${ZONE}`;
    await reg.applyChanges({ ...emptyChanges(), create: [ep(long, 'CNAME', ['lb.example.net'])] });
    assert.deepEqual(summary(provider.batches[0] as Changes), []);
  });

  test('a provider failure propagates and forgets what was read', async () => {
    const provider = new FakeProvider();
    const reg = registry(provider, { cacheIntervalMs: 60_000, now: () => 0 });
    await reg.records();
    provider.failNext = true;
    await assert.rejects(reg.applyChanges({ ...emptyChanges(), create: [ep(`f.${ZONE}`, 'A', ['192.0.2.19'])] }), /injected failure/);
    await reg.records();
    assert.equal(provider.recordsCalls, 2);
  });
});

describe('old-format ownership', () => {
  const legacyZone = (): FakeProvider =>
    new FakeProvider([
      ep(`legacy.${ZONE}`, 'A', ['192.0.2.20']),
      ep(`legacy.${ZONE}`, 'MX', [`10 mail.${ZONE}`]),
      txt(`legacy.${ZONE}`, owned('owner')),
      ep(`solo.${ZONE}`, 'CNAME', ['solo.example.net']),
      txt(`solo.${ZONE}`, owned('owner')),
    ]);

  test('an update writes the new format and keeps the old TXT while another record needs it', async () => {
    const provider = legacyZone();
    const reg = registry(provider);
    const a = find(await reg.records(), `legacy.${ZONE}`, 'A') as Endpoint;
    assert.equal(a.labels.owner, 'owner');
    await reg.applyChanges({ ...emptyChanges(), updateOld: [a], updateNew: [{ ...a, targets: ['192.0.2.21'] }] });
    assert.deepEqual(summary(provider.batches[0] as Changes), [
      `create a-legacy.${ZONE} TXT ${owned('owner')}`,
      `updateNew legacy.${ZONE} A 192.0.2.21`,
      `updateOld legacy.${ZONE} A 192.0.2.20`,
    ]);

    const mx = find(await reg.records(), `legacy.${ZONE}`, 'MX') as Endpoint;
    await reg.applyChanges({ ...emptyChanges(), updateOld: [mx], updateNew: [{ ...mx, targets: [`20 mail.${ZONE}`] }] });
    assert.deepEqual(summary(provider.batches[1] as Changes), [
      `create mx-legacy.${ZONE} TXT ${owned('owner')}`,
      `delete legacy.${ZONE} TXT ${owned('owner')}`,
      `updateNew legacy.${ZONE} MX 20 mail.${ZONE}`,
      `updateOld legacy.${ZONE} MX 10 mail.${ZONE}`,
    ]);
    const after = await reg.records();
    assert.equal(find(after, `legacy.${ZONE}`, 'A')?.labels.owner, 'owner');
    assert.equal(find(after, `legacy.${ZONE}`, 'MX')?.labels.owner, 'owner');
  });

  test('upgrading two records in one batch drops the old TXT at once', async () => {
    const provider = legacyZone();
    const reg = registry(provider);
    const records = await reg.records();
    const a = find(records, `legacy.${ZONE}`, 'A') as Endpoint;
    const mx = find(records, `legacy.${ZONE}`, 'MX') as Endpoint;
    await reg.applyChanges({
      ...emptyChanges(),
      updateOld: [a, mx],
      updateNew: [
        { ...a, targets: ['192.0.2.22'] },
        { ...mx, targets: [`30 mail.${ZONE}`] },
      ],
    });
    assert.ok(summary(provider.batches[0] as Changes).includes(`delete legacy.${ZONE} TXT ${owned('owner')}`));
    assert.equal(provider.get(`legacy.${ZONE}`, 'TXT'), undefined);
  });

  test('deleting the last record that needs it deletes the old TXT too', async () => {
    const provider = legacyZone();
    const reg = registry(provider);
    const solo = find(await reg.records(), `solo.${ZONE}`, 'CNAME') as Endpoint;
    await reg.applyChanges({ ...emptyChanges(), delete: [solo] });
    assert.deepEqual(summary(provider.batches[0] as Changes), [`delete solo.${ZONE} CNAME solo.example.net`, `delete solo.${ZONE} TXT ${owned('owner')}`]);
  });

  test('works with a prefix: the old TXT is <prefix><name>', async () => {
    const provider = new FakeProvider([ep(`p.${ZONE}`, 'A', ['192.0.2.23']), txt(`txt.p.${ZONE}`, owned('owner'))]);
    const reg = registry(provider, { prefix: 'txt.' });
    const a = find(await reg.records(), `p.${ZONE}`, 'A') as Endpoint;
    await reg.applyChanges({ ...emptyChanges(), updateOld: [a], updateNew: [{ ...a, targets: ['192.0.2.24'] }] });
    assert.equal(provider.get(`txt.a-p.${ZONE}`, 'TXT')?.targets[0], owned('owner'));
    assert.equal(provider.get(`txt.p.${ZONE}`, 'TXT'), undefined);
  });
});

describe('encrypted ownership', () => {
  const key = Buffer.from(';k&l)nUC/33:{?d{3)54+,AD?]SX%yh^');

  test('writes encrypted values that read back and stay stable', async () => {
    const provider = new FakeProvider();
    const reg = registry(provider, { aesKey: key });
    await reg.records();
    await reg.applyChanges({ ...emptyChanges(), create: [ep(`enc.${ZONE}`, 'A', ['192.0.2.30'], { labels: { resource: 'service/default/web' } })] });
    const written = provider.get(`a-enc.${ZONE}`, 'TXT')?.targets[0] ?? '';
    assert.ok(!written.includes('heritage'), 'value is not plain text');

    const record = find(await reg.records(), `enc.${ZONE}`, 'A') as Endpoint;
    assert.equal(record.labels.owner, 'owner');
    assert.equal(record.labels.resource, 'service/default/web');

    // Same labels: nothing to write. New resource: rewritten under the same nonce.
    await reg.applyChanges({ ...emptyChanges(), updateOld: [record], updateNew: [{ ...record, targets: ['192.0.2.31'] }] });
    assert.equal(provider.get(`a-enc.${ZONE}`, 'TXT')?.targets[0], written);
    const again = find(await reg.records(), `enc.${ZONE}`, 'A') as Endpoint;
    await reg.applyChanges({ ...emptyChanges(), updateOld: [again], updateNew: [{ ...again, labels: { ...again.labels, resource: 'service/default/api' } }] });
    const rewritten = provider.get(`a-enc.${ZONE}`, 'TXT')?.targets[0] ?? '';
    assert.notEqual(rewritten, written);
    assert.equal(rewritten.slice(0, 17), written.slice(0, 17), 'nonce (first 12 bytes) is kept');
  });

  test('the same labels and nonce encrypt to the same value in two registries', async () => {
    const seed = new FakeProvider();
    const writer = registry(seed, { aesKey: key });
    await writer.records();
    await writer.applyChanges({ ...emptyChanges(), create: [ep(`twice.${ZONE}`, 'A', ['192.0.2.32'])] });
    const stored = seed.get(`a-twice.${ZONE}`, 'TXT') as Endpoint;
    const values = [];
    for (let i = 0; i < 2; i += 1) {
      const reg = registry(new FakeProvider(seed.list()), { aesKey: key });
      const rec = find(await reg.records(), `twice.${ZONE}`, 'A') as Endpoint;
      values.push(reg.ownershipTXT({ ...rec, labels: { ...rec.labels, resource: 'x/y/z' } }).targets[0]);
    }
    assert.equal(values[0], values[1]);
    assert.notEqual(values[0], stored.targets[0]);
  });

  test('a wrong key leaves records unowned with a warning instead of failing', async () => {
    const seed = new FakeProvider();
    const writer = registry(seed, { aesKey: key });
    await writer.records();
    await writer.applyChanges({ ...emptyChanges(), create: [ep(`locked.${ZONE}`, 'A', ['192.0.2.33'])] });

    const log = captureLogger();
    const provider = new FakeProvider(seed.list());
    const reader = registry(provider, { aesKey: Buffer.from('passphrasewhichneedstobe32bytes!'), logger: log.logger });
    const records = await reader.records();
    const record = find(records, `locked.${ZONE}`, 'A') as Endpoint;
    assert.equal(record.labels.owner, undefined);
    assert.ok(log.warnings().some((w) => w.includes('cannot be read')));
    await reader.applyChanges({ ...emptyChanges(), delete: [record] });
    assert.deepEqual(summary(provider.batches[0] as Changes), []);
  });

  test('plain values written before encryption was enabled are still read', async () => {
    const provider = new FakeProvider([ep(`plain.${ZONE}`, 'A', ['192.0.2.34']), txt(`a-plain.${ZONE}`, owned('owner'))]);
    const records = await registry(provider, { aesKey: key }).records();
    assert.equal(find(records, `plain.${ZONE}`, 'A')?.labels.owner, 'owner');
  });
});

describe('records cache', () => {
  test('serves reads from memory within the interval and includes applied changes', async () => {
    let now = 1_000;
    const provider = new FakeProvider([ep(`cached.${ZONE}`, 'A', ['192.0.2.40']), txt(`a-cached.${ZONE}`, owned('owner'))]);
    const reg = registry(provider, { cacheIntervalMs: 60_000, now: () => now });
    const first = await reg.records();
    const cached = find(first, `cached.${ZONE}`, 'A') as Endpoint;
    await reg.applyChanges({
      ...emptyChanges(),
      create: [ep(`fresh.${ZONE}`, 'A', ['192.0.2.41'])],
      updateOld: [cached],
      updateNew: [{ ...cached, targets: ['192.0.2.42'] }],
    });
    now += 30_000;
    const second = await reg.records();
    assert.equal(provider.recordsCalls, 1);
    assert.equal(find(second, `fresh.${ZONE}`, 'A')?.labels.owner, 'owner');
    assert.deepEqual(find(second, `cached.${ZONE}`, 'A')?.targets, ['192.0.2.42']);
    assert.equal(second.filter((r) => r.dnsName === `cached.${ZONE}`).length, 1);
    now += 31_000;
    await reg.records();
    assert.equal(provider.recordsCalls, 2);
  });

  test('cached reads keep one order from read to read, with applied records at the end', async () => {
    const provider = new FakeProvider([
      ep(`a.${ZONE}`, 'A', ['192.0.2.1']),
      ep(`b.${ZONE}`, 'A', ['192.0.2.2']),
      ep(`b.${ZONE}`, 'AAAA', ['2001:db8::2']),
      ep(`c.${ZONE}`, 'A', ['192.0.2.3']),
      txt(`a-a.${ZONE}`, owned('owner')),
      txt(`a-b.${ZONE}`, owned('owner')),
      txt(`aaaa-b.${ZONE}`, owned('owner')),
      txt(`a-c.${ZONE}`, owned('owner')),
    ]);
    const reg = registry(provider, { cacheIntervalMs: 60_000, now: () => 1_000 });
    const order = (records: Endpoint[]): string[] => records.map((r) => `${r.dnsName.slice(0, 1)} ${r.recordType} ${r.targets.join(',')}`);
    const first = await reg.records();
    assert.deepEqual(order(first), ['a A 192.0.2.1', 'b A 192.0.2.2', 'b AAAA 2001:db8::2', 'c A 192.0.2.3']);
    assert.deepEqual(order(await reg.records()), order(first));
    const a = find(first, `a.${ZONE}`, 'A') as Endpoint;
    const bAAAA = find(first, `b.${ZONE}`, 'AAAA') as Endpoint;
    await reg.applyChanges({
      ...emptyChanges(),
      create: [ep(`d.${ZONE}`, 'A', ['192.0.2.4'])],
      updateOld: [a, bAAAA],
      updateNew: [
        { ...a, targets: ['192.0.2.9'] },
        { ...bAAAA, targets: ['2001:db8::9'] },
      ],
    });
    const third = await reg.records();
    assert.deepEqual(order(third), ['b A 192.0.2.2', 'b AAAA 2001:db8::9', 'c A 192.0.2.3', 'd A 192.0.2.4', 'a A 192.0.2.9']);
    assert.deepEqual(await reg.records(), third);
    assert.equal(provider.recordsCalls, 1);
  });

  test('a record set the provider lists twice stays twice in the cache, until it is deleted', async () => {
    const inner = new FakeProvider([txt(`a-dup.${ZONE}`, owned('owner'))]);
    const twice = [ep(`dup.${ZONE}`, 'A', ['192.0.2.1']), ep(`other.${ZONE}`, 'A', ['192.0.2.3']), ep(`dup.${ZONE}`, 'A', ['192.0.2.2'])];
    const provider = Object.assign(Object.create(inner) as FakeProvider, {
      records: async (): Promise<Endpoint[]> => [...(await inner.records()), ...twice.map((e) => newEndpoint(e))],
      applyChanges: (): Promise<void> => Promise.resolve(),
    });
    const reg = registry(provider, { cacheIntervalMs: 60_000, now: () => 1_000 });
    const first = await reg.records();
    assert.deepEqual(
      first.map((r) => r.targets[0]),
      ['192.0.2.1', '192.0.2.3', '192.0.2.2'],
    );
    assert.deepEqual(
      (await reg.records()).map((r) => r.targets[0]),
      ['192.0.2.1', '192.0.2.2', '192.0.2.3'],
      'kept beside each other',
    );
    await reg.applyChanges({ ...emptyChanges(), delete: [first[0] as Endpoint] });
    assert.deepEqual(
      (await reg.records()).map((r) => r.targets[0]),
      ['192.0.2.3'],
    );
  });

  test('is off by default', async () => {
    const provider = new FakeProvider();
    const reg = registry(provider);
    await reg.records();
    await reg.records();
    assert.equal(provider.recordsCalls, 2);
  });
});

describe('configuration', () => {
  const provider = new FakeProvider();
  const rejects = (options: Partial<TXTRegistryOptions>, flag: string): void => {
    assert.throws(
      () => registry(provider, options),
      (err: unknown) => err instanceof ConfigError && err.flag === flag,
    );
  };

  test('validates like external-dns, naming the flag', () => {
    rejects({ prefix: 'txt.', suffix: '-txt' }, '--txt-prefix');
    rejects({ ownerId: '' }, '--txt-owner-id');
    rejects({ ownerId: 'a,b' }, '--txt-owner-id');
    rejects({ encrypt: true }, '--txt-encrypt-aes-key');
    rejects({ aesKey: Buffer.alloc(16) }, '--txt-encrypt-aes-key');
    rejects({ cacheIntervalMs: -1 }, '--txt-cache-interval');
  });

  test('fromConfig parses the key and honours --txt-encrypt-enabled', async () => {
    const base = {
      txtOwnerId: 'owner',
      txtPrefix: '',
      txtSuffix: '',
      txtWildcardReplacement: '',
      txtEncryptEnabled: false,
      txtEncryptAesKey: '',
      txtCacheIntervalMs: 0,
      migrateFromTxtOwner: '',
      managedRecordTypes: MANAGED,
      excludeRecordTypes: [],
    };
    const key = Buffer.alloc(32, 7).toString('base64');
    assert.throws(() => TXTRegistry.fromConfig({ ...base, txtEncryptEnabled: true }, { provider, logger: silentLogger() }), ConfigError);
    assert.throws(() => TXTRegistry.fromConfig({ ...base, txtEncryptAesKey: 'nope' }, { provider, logger: silentLogger() }), ConfigError);
    assert.throws(() => TXTRegistry.fromConfig({ ...base, txtPrefix: 'a', txtSuffix: 'b' }, { provider, logger: silentLogger() }), ConfigError);

    const readOnly = TXTRegistry.fromConfig({ ...base, txtEncryptAesKey: key }, { provider, logger: silentLogger() });
    assert.equal(readOnly.ownershipTXT(ep(`x.${ZONE}`, 'A', ['192.0.2.50'], { labels: { owner: 'owner' } })).targets[0], owned('owner'));
    const encrypting = TXTRegistry.fromConfig({ ...base, txtEncryptEnabled: true, txtEncryptAesKey: key }, { provider, logger: silentLogger() });
    assert.ok(!(encrypting.ownershipTXT(ep(`x.${ZONE}`, 'A', ['192.0.2.50'])).targets[0] ?? '').includes('heritage'));
    assert.equal(encrypting.ownerId, 'owner');
    assert.equal(encrypting.domainFilter().match(`x.${ZONE}`), true);
  });
});
