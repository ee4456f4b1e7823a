import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import { ProviderError } from '../../errors.ts';
import { silentLogger } from '../../log.ts';
import type { PdnsZoneInfo } from './client.ts';
import type { PdnsRRSet } from './convert.ts';
import { PdnsProvider } from './pdns.ts';
import type { PdnsApi } from './pdns.ts';

const ZONES: PdnsZoneInfo[] = [
  { id: 'a.test.', name: 'a.test.' },
  { id: 'b.test.', name: 'b.test.' },
  { id: 'c.test.', name: 'c.test.' },
];

/** A fake API whose PATCHes fail per zone as told; records every PATCH. */
function fakeApi(failures: Record<string, ProviderError> = {}): PdnsApi & { patches: { zone: string; rrsets: PdnsRRSet[] }[] } {
  const patches: { zone: string; rrsets: PdnsRRSet[] }[] = [];
  return {
    patches,
    listZones: () => Promise.resolve(ZONES),
    zoneRRSets: () => Promise.resolve([]),
    patchZone: (zone, rrsets) => {
      const failure = failures[zone.name];
      if (failure !== undefined) return Promise.reject(failure);
      patches.push({ zone: zone.name, rrsets });
      return Promise.resolve();
    },
  };
}

const a = (dnsName: string): ReturnType<typeof newEndpoint> => newEndpoint({ dnsName, recordType: 'A', targets: ['192.0.2.1'] });
const create = (...names: string[]): { create: ReturnType<typeof newEndpoint>[]; updateOld: []; updateNew: []; delete: [] } => ({
  create: names.map(a),
  updateOld: [],
  updateNew: [],
  delete: [],
});

describe('PdnsProvider.applyChanges', () => {
  test('one PATCH per zone', async () => {
    const api = fakeApi();
    await new PdnsProvider({ api, logger: silentLogger() }).applyChanges(create('x.a.test', 'y.a.test', 'x.b.test'));
    assert.deepEqual(
      api.patches.map((p) => [p.zone, p.rrsets.length]),
      [
        ['a.test.', 2],
        ['b.test.', 1],
      ],
    );
  });

  test('a failing zone does not stop the others; one error lists every failure and is transient if any part is', async () => {
    const api = fakeApi({
      'a.test.': new ProviderError('pdns', 'HTTP 422: bad content', { zone: 'a.test.', code: 'PROVIDER_REJECTED' }),
      'b.test.': new ProviderError('pdns', 'HTTP 503', { zone: 'b.test.', transient: true }),
    });
    await assert.rejects(
      new PdnsProvider({ api, logger: silentLogger() }).applyChanges(create('x.a.test', 'x.b.test', 'x.c.test', 'x.elsewhere')),
      (err: unknown) => {
        assert.ok(err instanceof ProviderError);
        assert.equal(err.transient, true);
        assert.match(err.message, /^3 zones failed/);
        assert.match(err.message, /no PowerDNS zone contains x\.elsewhere A/);
        assert.match(err.message, /zone a\.test \(x\.a\.test A\): HTTP 422: bad content/);
        assert.match(err.message, /zone b\.test \(x\.b\.test A\): HTTP 503/);
        return true;
      },
    );
    assert.deepEqual(
      api.patches.map((p) => p.zone),
      ['c.test.'],
    );
  });

  test('a single failure is rethrown with its zone and permanence', async () => {
    const api = fakeApi({ 'a.test.': new ProviderError('pdns', 'HTTP 422: bad', { zone: 'a.test.', code: 'PROVIDER_REJECTED' }) });
    await assert.rejects(
      new PdnsProvider({ api, logger: silentLogger() }).applyChanges(create('x.a.test')),
      (err: unknown) => err instanceof ProviderError && !err.transient && err.zone === 'a.test' && err.code === 'PROVIDER_REJECTED',
    );
  });
});

describe('PdnsProvider start-up', () => {
  test('transient listing failures are retried a bounded number of times; a permanent one is not', async () => {
    let calls = 0;
    const flaky: PdnsApi = {
      ...fakeApi(),
      listZones: () => (++calls < 3 ? Promise.reject(new ProviderError('pdns', 'down', { transient: true })) : Promise.resolve(ZONES)),
    };
    const p = new PdnsProvider({ api: flaky, logger: silentLogger() });
    await p.start(() => Promise.resolve());
    assert.equal(calls, 3);
    assert.ok(p.domainFilter().match('www.b.test'));

    calls = 0;
    const denied: PdnsApi = {
      ...fakeApi(),
      listZones: () => (++calls, Promise.reject(new ProviderError('pdns', 'HTTP 401', { code: 'PROVIDER_UNAUTHORIZED' }))),
    };
    await assert.rejects(
      new PdnsProvider({ api: denied, logger: silentLogger() }).start(() => Promise.resolve()),
      /HTTP 401/,
    );
    assert.equal(calls, 1);
  });

  test('before any zone is known the domain filter matches nothing', () => {
    assert.equal(new PdnsProvider({ api: fakeApi(), logger: silentLogger() }).domainFilter().match('www.a.test'), false);
  });
});
