import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, EndpointInit } from '../../endpoint/endpoint.ts';
import { ProviderError } from '../../errors.ts';
import { silentLogger } from '../../log.ts';
import type { GoogleDnsApi, GoogleZone } from './client.ts';
import { endpointToRRSet, planChanges, rrsetToEndpoint, zoneMatchesDomains } from './convert.ts';
import type { GoogleRRSet } from './convert.ts';
import { GoogleProvider } from './google.ts';

const ep = (init: Partial<EndpointInit> & Pick<EndpointInit, 'dnsName'>): Endpoint => newEndpoint({ recordType: 'A', targets: ['192.0.2.1'], ...init });
const none = { create: [], updateOld: [], updateNew: [], delete: [] };

class FakeApi implements GoogleDnsApi {
  zones: GoogleZone[] = [
    { id: 'pub', dnsName: 'example.org', visibility: 'public' },
    { id: 'priv', dnsName: 'corp.example', visibility: 'private' },
  ];
  rrsets = new Map<string, GoogleRRSet[]>();
  changes: { zone: string; additions: GoogleRRSet[]; deletions: GoogleRRSet[] }[] = [];
  failures: Error[] = [];

  listZones(): Promise<GoogleZone[]> {
    return Promise.resolve(this.zones);
  }
  listRRSets(zoneId: string): Promise<GoogleRRSet[]> {
    return Promise.resolve(this.rrsets.get(zoneId) ?? []);
  }
  createChange(zone: string, additions: GoogleRRSet[], deletions: GoogleRRSet[]): Promise<void> {
    const failure = this.failures.shift();
    if (failure !== undefined) return Promise.reject(failure);
    this.changes.push({ zone, additions, deletions });
    return Promise.resolve();
  }
}

describe('google conversions', () => {
  test('rrsets become endpoints: absolute names, quoted TXT joined, unsupported types skipped', () => {
    assert.deepEqual(
      rrsetToEndpoint({ name: 'WWW.example.org.', type: 'CNAME', ttl: 60, rrdatas: ['Target.example.org.'] }),
      ep({ dnsName: 'www.example.org', recordType: 'CNAME', targets: ['target.example.org'], recordTTL: 60 }),
    );
    assert.deepEqual(rrsetToEndpoint({ name: 't.example.org.', type: 'TXT', ttl: 300, rrdatas: ['"a" "b"', '"say \\"hi\\""'] })?.targets, ['ab', 'say "hi"']);
    assert.equal(rrsetToEndpoint({ name: 'example.org.', type: 'SOA', ttl: 300, rrdatas: ['x'] }), undefined);
  });

  test('endpoints become rrsets with the default TTL, trailing dots and quoted TXT split at 255 bytes', () => {
    assert.deepEqual(endpointToRRSet(ep({ dnsName: 'a.example.org', recordType: 'CNAME', targets: ['b.example.org'] }), 300), {
      name: 'a.example.org.',
      type: 'CNAME',
      ttl: 300,
      rrdatas: ['b.example.org.'],
    });
    const txt = endpointToRRSet(ep({ dnsName: 't.example.org', recordType: 'TXT', targets: ['"heritage=external-dns"', 'x'.repeat(300)], recordTTL: 30 }), 300);
    assert.equal(txt.ttl, 30);
    assert.deepEqual(txt.rrdatas, ['"heritage=external-dns"', `"${'x'.repeat(255)}" "${'x'.repeat(45)}"`]);
  });

  test('changes are grouped by name so an update travels in one change, packed up to the batch size', () => {
    const plan = planChanges(
      {
        create: [ep({ dnsName: 'a.example.org' }), ep({ dnsName: 'b.example.org' }), ep({ dnsName: 'c.corp.example' }), ep({ dnsName: 'x.nowhere.test' })],
        updateOld: [ep({ dnsName: 'u.example.org', targets: ['192.0.2.2'], recordTTL: 60 })],
        updateNew: [ep({ dnsName: 'u.example.org', targets: ['192.0.2.3'] })],
        delete: [],
      },
      ['example.org', 'corp.example'],
      { defaultTTL: 300, batchSize: 2, listed: new Map() },
    );
    assert.deepEqual(
      plan.orphans.map((o) => o.dnsName),
      ['x.nowhere.test'],
    );
    const shape = plan.changes.map((c) => `${c.zone}:${c.deletions.map((d) => d.name).join(',')}|${c.additions.map((a) => a.name).join(',')}`);
    assert.deepEqual(shape, ['example.org:u.example.org.|u.example.org.', 'example.org:|a.example.org.,b.example.org.', 'corp.example:|c.corp.example.']);
  });

  test('zones are read when they lie inside a filter domain or hold one', () => {
    assert.ok(zoneMatchesDomains('example.org', []));
    assert.ok(zoneMatchesDomains('example.org', ['app.example.org']));
    assert.ok(zoneMatchesDomains('sub.example.org', ['.example.org']));
    assert.ok(zoneMatchesDomains('example.org', ['Example.ORG.']));
    assert.ok(!zoneMatchesDomains('example.net', ['example.org']));
    assert.ok(!zoneMatchesDomains('myexample.org', ['example.org']));
  });

  test('a deletion repeats the rrset exactly as listed', () => {
    const listed = new Map([['old.example.org A', { name: 'old.example.org.', type: 'A', ttl: 42, rrdatas: ['192.0.2.9'] }]]);
    const plan = planChanges({ ...none, delete: [ep({ dnsName: 'old.example.org', targets: ['192.0.2.9'] })] }, ['example.org'], {
      defaultTTL: 300,
      batchSize: 10,
      listed,
    });
    assert.deepEqual(plan.changes[0]?.deletions, [{ name: 'old.example.org.', type: 'A', ttl: 42, rrdatas: ['192.0.2.9'] }]);
  });
});

describe('GoogleProvider', () => {
  test('visibility filter picks the zones; records come from those zones only', async () => {
    const api = new FakeApi();
    api.rrsets.set('pub', [{ name: 'www.example.org.', type: 'A', ttl: 300, rrdatas: ['192.0.2.1'] }]);
    api.rrsets.set('priv', [{ name: 'db.corp.example.', type: 'A', ttl: 300, rrdatas: ['10.0.0.1'] }]);
    const priv = new GoogleProvider({ api, logger: silentLogger(), zoneVisibility: 'private' });
    assert.deepEqual(
      (await priv.records()).map((r) => r.dnsName),
      ['db.corp.example'],
    );
    assert.ok(priv.domainFilter().match('db.corp.example'));
    assert.ok(!priv.domainFilter().match('www.example.org'));
    const both = new GoogleProvider({ api, logger: silentLogger() });
    assert.equal((await both.records()).length, 2);
    const filtered = new GoogleProvider({ api, logger: silentLogger(), domains: ['www.example.org'] });
    assert.deepEqual(
      (await filtered.records()).map((r) => r.dnsName),
      ['www.example.org'],
    );
  });

  test('pauses between changes; a failed change does not stop the others; the error keeps transience', async () => {
    const api = new FakeApi();
    const sleeps: number[] = [];
    const p = new GoogleProvider({
      api,
      logger: silentLogger(),
      batchChangeSize: 1,
      batchChangeIntervalMs: 250,
      sleep: (ms) => (sleeps.push(ms), Promise.resolve()),
    });
    await p.records();
    api.failures.push(new ProviderError('google', 'HTTP 429 rateLimitExceeded', { transient: true }));
    await assert.rejects(
      p.applyChanges({ ...none, create: [ep({ dnsName: 'a.example.org' }), ep({ dnsName: 'b.example.org' }), ep({ dnsName: 'c.example.org' })] }),
      (err: unknown) => err instanceof ProviderError && err.transient && err.zone === 'example.org' && /a\.example\.org A/.test(err.message),
    );
    assert.deepEqual(sleeps, [250, 250]);
    assert.deepEqual(
      api.changes.map((c) => c.additions[0]?.name),
      ['b.example.org.', 'c.example.org.'],
    );
  });

  test('names outside every zone are a permanent error; no zone at all matches no name', async () => {
    const api = new FakeApi();
    const p = new GoogleProvider({ api, logger: silentLogger() });
    await assert.rejects(
      p.applyChanges({ ...none, create: [ep({ dnsName: 'x.nowhere.test' })] }),
      (err: unknown) => err instanceof ProviderError && !err.transient && err.code === 'PROVIDER_NO_ZONE',
    );
    api.zones = [];
    await p.records();
    assert.ok(!p.domainFilter().match('www.example.org'));
  });
});
