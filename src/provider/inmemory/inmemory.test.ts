import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FlagValues } from '../../config/config.ts';
import { DomainFilter } from '../../endpoint/domain-filter.ts';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../../endpoint/endpoint.ts';
import { ProviderError } from '../../errors.ts';
import type { Changes } from '../../plan/changes.ts';
import { InMemoryProvider } from './inmemory.ts';

function ep(dnsName: string, recordType: RecordType, targets: string[], setIdentifier = ''): Endpoint {
  return newEndpoint({ dnsName, recordType, targets, setIdentifier, labels: { owner: 'me' } });
}

function changes(partial: Partial<Changes>): Changes {
  return { create: [], updateOld: [], updateNew: [], delete: [], ...partial };
}

async function names(p: InMemoryProvider): Promise<string[]> {
  return (await p.records()).map((e) => `${e.dnsName} ${e.recordType}${e.setIdentifier === '' ? '' : `/${e.setIdentifier}`} ${e.targets.join(',')}`).sort();
}

async function rejectsWith(promise: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof ProviderError);
    assert.equal(err.code, code);
    assert.equal(err.transient, false);
    assert.equal(err.provider, 'inmemory');
    assert.match(err.message, message);
    return true;
  });
}

describe('InMemoryProvider', () => {
  test('creates, updates and deletes records', async () => {
    const p = new InMemoryProvider({ zones: ['example.org'] });
    await p.applyChanges(changes({ create: [ep('a.example.org', 'A', ['192.0.2.1']), ep('b.example.org', 'A', ['192.0.2.2'])] }));
    await p.applyChanges(
      changes({
        updateOld: [ep('a.example.org', 'A', ['192.0.2.1'])],
        updateNew: [ep('a.example.org', 'A', ['192.0.2.9'])],
        delete: [ep('b.example.org', 'A', ['192.0.2.2'])],
      }),
    );
    assert.deepEqual(await names(p), ['a.example.org A 192.0.2.9']);
  });

  test('keeps labels, TTL and provider-specific properties', async () => {
    const p = new InMemoryProvider({ zones: ['example.org'] });
    const rec = newEndpoint({
      dnsName: 'a.example.org',
      recordType: 'A',
      targets: ['192.0.2.1'],
      recordTTL: 60,
      labels: { owner: 'me', resource: 'r' },
      providerSpecific: [{ name: 'x', value: 'y' }],
    });
    await p.applyChanges(changes({ create: [rec] }));
    assert.deepEqual(await p.records(), [rec]);
  });

  test('records() hands out read-only records: callers cannot change the store', async () => {
    const p = new InMemoryProvider({ zones: ['example.org'], records: [ep('a.example.org', 'A', ['192.0.2.1'])] });
    const [first] = await p.records();
    assert.ok(first !== undefined);
    assert.throws(() => first.targets.push('192.0.2.99'), TypeError);
    assert.throws(() => (first.labels['owner'] = 'someone-else'), TypeError);
    assert.deepEqual(await p.records(), [ep('a.example.org', 'A', ['192.0.2.1'])]);
  });

  test('applied changes are copied, so callers may reuse their objects', async () => {
    const p = new InMemoryProvider({ zones: ['example.org'] });
    const rec = ep('a.example.org', 'A', ['192.0.2.1']);
    await p.applyChanges(changes({ create: [rec] }));
    rec.targets[0] = '203.0.113.1';
    assert.deepEqual(await names(p), ['a.example.org A 192.0.2.1']);
  });

  test('creating an existing record fails', async () => {
    const p = new InMemoryProvider({ zones: ['example.org'], records: [ep('a.example.org', 'A', ['192.0.2.1'])] });
    await rejectsWith(
      p.applyChanges(changes({ create: [ep('a.example.org', 'A', ['192.0.2.2'])] })),
      'PROVIDER_RECORD_EXISTS',
      /a\.example\.org A: record already exists/,
    );
  });

  test('updating or deleting a missing record fails', async () => {
    const p = new InMemoryProvider({ zones: ['example.org'] });
    const missing = ep('a.example.org', 'A', ['192.0.2.1']);
    await rejectsWith(p.applyChanges(changes({ updateOld: [missing], updateNew: [missing] })), 'PROVIDER_RECORD_NOT_FOUND', /cannot update/);
    await rejectsWith(p.applyChanges(changes({ delete: [missing] })), 'PROVIDER_RECORD_NOT_FOUND', /cannot delete/);
  });

  test('a record outside every zone fails and the error names it', async () => {
    const p = new InMemoryProvider({ zones: ['example.org'] });
    await rejectsWith(
      p.applyChanges(changes({ create: [ep('a.other.org', 'A', ['192.0.2.1'])] })),
      'PROVIDER_ZONE_NOT_FOUND',
      /a\.other\.org A is not in any zone \(example\.org\)/,
    );
  });

  test('a failing batch changes nothing (all or nothing)', async () => {
    const p = new InMemoryProvider({ zones: ['example.org'], records: [ep('a.example.org', 'A', ['192.0.2.1'])] });
    const batch = changes({
      create: [ep('new.example.org', 'A', ['192.0.2.5'])],
      delete: [ep('a.example.org', 'A', ['192.0.2.1']), ep('missing.example.org', 'A', ['192.0.2.1'])],
    });
    await rejectsWith(p.applyChanges(batch), 'PROVIDER_RECORD_NOT_FOUND', /missing\.example\.org/);
    assert.deepEqual(await names(p), ['a.example.org A 192.0.2.1']);
  });

  test('the same record set twice in one batch fails', async () => {
    const p = new InMemoryProvider({ zones: ['example.org'] });
    const batch = changes({ create: [ep('a.example.org', 'A', ['192.0.2.1']), ep('a.example.org', 'A', ['192.0.2.2'])] });
    await rejectsWith(p.applyChanges(batch), 'PROVIDER_DUPLICATE_RECORD', /more than once/);
  });

  test('an update must keep the record set identity and pair old with new', async () => {
    const p = new InMemoryProvider({ zones: ['example.org'], records: [ep('a.example.org', 'A', ['192.0.2.1'])] });
    await rejectsWith(
      p.applyChanges(changes({ updateOld: [ep('a.example.org', 'A', ['192.0.2.1'])], updateNew: [ep('b.example.org', 'A', ['192.0.2.1'])] })),
      'PROVIDER_INVALID_CHANGE',
      /different record set/,
    );
    await rejectsWith(p.applyChanges(changes({ updateOld: [ep('a.example.org', 'A', ['192.0.2.1'])] })), 'PROVIDER_INVALID_CHANGE', /differ in length/);
  });

  test('one batch may delete one type and create another at the same name', async () => {
    const p = new InMemoryProvider({ zones: ['example.org'], records: [ep('a.example.org', 'A', ['192.0.2.1'])] });
    await p.applyChanges(changes({ delete: [ep('a.example.org', 'A', ['192.0.2.1'])], create: [ep('a.example.org', 'CNAME', ['lb.example.com'])] }));
    assert.deepEqual(await names(p), ['a.example.org CNAME lb.example.com']);
  });

  test('set identifiers distinguish record sets', async () => {
    const p = new InMemoryProvider({ zones: ['example.org'] });
    await p.applyChanges(changes({ create: [ep('a.example.org', 'A', ['192.0.2.1'], 'eu'), ep('a.example.org', 'A', ['192.0.2.2'], 'us')] }));
    assert.deepEqual(await names(p), ['a.example.org A/eu 192.0.2.1', 'a.example.org A/us 192.0.2.2']);
  });

  test('records land in the most specific zone; zones are normalised', () => {
    const p = InMemoryProvider.fromConfig({
      flags: new FlagValues(new Map()),
      domainFilters: [],
      excludeDomains: [],
      embeddedZones: ['Example.ORG.', 'sub.example.org'],
    });
    assert.equal(p.zoneFor('a.sub.example.org'), 'sub.example.org');
    assert.equal(p.zoneFor('a.example.org'), 'example.org');
    assert.equal(p.zoneFor('example.org'), 'example.org');
    assert.equal(p.zoneFor('notexample.org'), undefined);
  });

  test('--inmemory-zone (repeatable, as external-dns) wins over --embedded-zone and the domain filters', async () => {
    const p = InMemoryProvider.fromConfig({
      flags: new FlagValues(new Map([['inmemory-zone', ['one.test', 'two.test']]])),
      domainFilters: ['example.org'],
      excludeDomains: [],
      embeddedZones: ['example.org'],
    });
    assert.deepEqual([...p.zones].sort(), ['one.test', 'two.test']);
    assert.equal(p.domainFilter().match('a.example.org'), false, 'a name outside the zones is never planned');
    await assert.rejects(p.applyChanges(changes({ create: [ep('a.example.org', 'A', ['192.0.2.1'])] })));
    await p.applyChanges(changes({ create: [ep('a.two.test', 'A', ['192.0.2.1'])] }));
    assert.deepEqual(await names(p), ['a.two.test A 192.0.2.1']);
  });

  test('domainFilter() defaults to the zones and can be overridden', () => {
    const p = new InMemoryProvider({ zones: ['example.org'] });
    assert.equal(p.domainFilter().match('a.example.org'), true);
    assert.equal(p.domainFilter().match('a.other.org'), false);
    const narrowed = new InMemoryProvider({ zones: ['example.org'], domainFilter: new DomainFilter({ include: ['apps.example.org'] }) });
    assert.equal(narrowed.domainFilter().match('a.example.org'), false);
  });

  test('adjustEndpoints passes endpoints through', async () => {
    const p = new InMemoryProvider({ zones: ['example.org'] });
    const eps = [ep('a.example.org', 'A', ['192.0.2.1'])];
    assert.deepEqual(await p.adjustEndpoints(eps), eps);
    assert.equal(p.name, 'inmemory');
  });
});
