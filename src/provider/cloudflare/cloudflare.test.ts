import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, EndpointInit } from '../../endpoint/endpoint.ts';
import { ProviderError } from '../../errors.ts';
import { silentLogger } from '../../log.ts';
import { emptyChanges } from '../../plan/changes.ts';
import type { Changes } from '../../plan/changes.ts';
import { FlagValues } from '../../config/config.ts';
import { FLAGS } from '../../config/flags.ts';
import { parseArgs } from '../../config/parse.ts';
import { ZONE_FILTER_FLAGS } from '../zone-filter.ts';
import { cloudflareError } from './api.ts';
import { CLOUDFLARE_FLAGS } from './flags.ts';
import { CloudflareProvider } from './cloudflare.ts';
import type { CloudflareProviderOptions } from './cloudflare.ts';
import { propertyNames } from './convert.ts';
import { FakeCloudflareApi } from '../../../test/support/cloudflare/fake-api.ts';
import { pacedApi } from './paced.ts';

const N = propertyNames();

function setup(opts: Partial<CloudflareProviderOptions> = {}): { api: FakeCloudflareApi; zone: string; p: CloudflareProvider; slept: number[] } {
  const api = new FakeCloudflareApi();
  const zone = api.addZone('example.org');
  api.addZone('other.net');
  const slept: number[] = [];
  const p = new CloudflareProvider({
    api,
    logger: silentLogger(),
    domains: ['example.org'],
    batchChangeIntervalMs: 0,
    sleep: (ms) => {
      slept.push(ms);
      return Promise.resolve();
    },
    ...opts,
  });
  return { api, zone, p, slept };
}

const ep = (init: Partial<EndpointInit> & { dnsName: string }): Endpoint => newEndpoint({ recordType: 'A', targets: ['192.0.2.1'], ...init });
const changes = (c: Partial<Changes>): Changes => ({ ...emptyChanges(), ...c });

/** What the planner would do: desired adjusted, compared with records(); returns the update pairs. */
async function plan(p: CloudflareProvider, desired: Endpoint[]): Promise<Changes> {
  const adjusted = await p.adjustEndpoints(desired);
  const current = await p.records();
  const out = emptyChanges();
  for (const d of adjusted) {
    const c = current.find((x) => x.dnsName === d.dnsName && x.recordType === d.recordType);
    if (c === undefined) out.create.push(d);
    else {
      const props = (e: Endpoint) => JSON.stringify([...e.providerSpecific].sort((a, b) => a.name.localeCompare(b.name)));
      const same = [...c.targets].sort().join() === [...d.targets].sort().join() && props(c) === props(d) && (d.recordTTL === 0 || d.recordTTL === c.recordTTL);
      if (!same) {
        out.updateOld.push(c);
        out.updateNew.push(d);
      }
    }
  }
  return out;
}

describe('CloudflareProvider', () => {
  test('zones filtered by the domain filter; --zone-id-filter reads each zone by id', async () => {
    const { p, api } = setup();
    await p.records();
    assert.equal(p.domainFilter().match('a.example.org'), true);
    assert.equal(p.domainFilter().match('a.other.net'), false);
    const byId = new CloudflareProvider({ api, logger: silentLogger(), zoneIds: ['zone2'] });
    await byId.records();
    assert.equal(byId.domainFilter().match('a.other.net'), true);
    assert.equal(api.count('getZone'), 1);
  });

  test('create, then an unchanged plan, then a proxied toggle is an update and lands with TTL 1', async () => {
    const { p, api, zone } = setup();
    const desired = [ep({ dnsName: 'www.example.org', targets: ['192.0.2.1', '192.0.2.2'], recordTTL: 300 })];
    await p.applyChanges(await plan(p, desired));
    assert.equal(api.records.get(zone)?.length, 2);
    assert.equal(api.records.get(zone)?.[0]?.ttl, 300);
    const again = await plan(p, desired);
    assert.equal(again.create.length + again.updateNew.length, 0);
    const proxied = [
      ep({ dnsName: 'www.example.org', targets: ['192.0.2.1', '192.0.2.2'], recordTTL: 300, providerSpecific: [{ name: N.proxied, value: 'true' }] }),
    ];
    const upd = await plan(p, proxied);
    assert.equal(upd.updateNew.length, 1);
    await p.applyChanges(upd);
    assert.deepEqual(
      api.records.get(zone)?.map((r) => [r.proxied, r.ttl]),
      [
        [true, 1],
        [true, 1],
      ],
    );
    const steady = await plan(p, proxied);
    assert.equal(steady.updateNew.length, 0, 'a proxied record does not flap on its TTL');
  });

  test('a comment or tags change is an update; unchanged ones are not', async () => {
    const { p, api, zone } = setup({ recordComment: 'by hostwarden' });
    await p.applyChanges(await plan(p, [ep({ dnsName: 'a.example.org' })]));
    assert.equal(api.records.get(zone)?.[0]?.comment, 'by hostwarden');
    assert.equal((await plan(p, [ep({ dnsName: 'a.example.org' })])).updateNew.length, 0);
    const tagged = [ep({ dnsName: 'a.example.org', providerSpecific: [{ name: N.tags, value: 'team:b,env:a' }] })];
    const upd = await plan(p, tagged);
    assert.equal(upd.updateNew.length, 1);
    await p.applyChanges(upd);
    assert.deepEqual(api.records.get(zone)?.[0]?.tags, ['env:a', 'team:b']);
    assert.equal((await plan(p, tagged)).updateNew.length, 0);
  });

  test('records cache: 0 calls after our own change; an update or delete names the exact record id', async () => {
    const { p, api, zone } = setup();
    const foreign = api.addRecord(zone, { name: 'a.example.org', type: 'A', content: '192.0.2.9', ttl: 1, proxied: false });
    await p.records();
    const before = api.calls.length;
    await p.applyChanges(changes({ create: [ep({ dnsName: 'b.example.org' })] }));
    assert.deepEqual(api.calls.slice(before), ['batch']);
    const after = api.calls.length;
    const recs = await p.records();
    assert.equal(api.calls.length, after, 'records() after our own change calls nothing');
    assert.equal(recs.length, 2);
    await p.applyChanges(changes({ delete: [ep({ dnsName: 'b.example.org' })] }));
    assert.deepEqual(
      api.records.get(zone)?.map((r) => r.id),
      [foreign.id],
    );
  });

  test('a replaced value is rewritten in place (one put, same record id); only leftovers are deleted or posted', async () => {
    const { p, api, zone } = setup();
    await p.applyChanges(changes({ create: [ep({ dnsName: 'r.example.org', targets: ['192.0.2.1', '192.0.2.2'] })] }));
    const ids = new Map(api.records.get(zone)?.map((r) => [r.content, r.id]));
    const old = ep({ dnsName: 'r.example.org', targets: ['192.0.2.1', '192.0.2.2'] });
    await p.applyChanges(changes({ updateOld: [old], updateNew: [ep({ dnsName: 'r.example.org', targets: ['192.0.2.1', '192.0.2.3', '192.0.2.4'] })] }));
    const after = new Map(api.records.get(zone)?.map((r) => [r.content, r.id]));
    assert.deepEqual([...after.keys()].sort(), ['192.0.2.1', '192.0.2.3', '192.0.2.4']);
    assert.equal(after.get('192.0.2.1'), ids.get('192.0.2.1'));
    assert.equal(after.get('192.0.2.3'), ids.get('192.0.2.2'), '192.0.2.2 became 192.0.2.3 in place');
    const shrink = ep({ dnsName: 'r.example.org', targets: ['192.0.2.5'] });
    await p.applyChanges(changes({ updateOld: [ep({ dnsName: 'r.example.org', targets: [...after.keys()] })], updateNew: [shrink] }));
    assert.deepEqual(
      api.records.get(zone)?.map((r) => r.content),
      ['192.0.2.5'],
    );
  });

  test('a replaced value whose record is already gone is posted, not skipped', async () => {
    const { p, api, zone } = setup();
    await p.applyChanges(changes({ create: [ep({ dnsName: 'r.example.org', targets: ['192.0.2.1'] })] }));
    const old = ep({ dnsName: 'r.example.org', targets: ['192.0.2.1', '192.0.2.2'] });
    await p.applyChanges(changes({ updateOld: [old], updateNew: [ep({ dnsName: 'r.example.org', targets: ['192.0.2.1', '192.0.2.3'] })] }));
    assert.deepEqual(
      api.records
        .get(zone)
        ?.map((r) => r.content)
        .sort(),
      ['192.0.2.1', '192.0.2.3'],
    );
  });

  test('more changes than --batch-change-size (at least 200) go in chunks, paced by --batch-change-interval', async () => {
    const { p, api, slept } = setup({ batchChangeSize: 250, batchChangeIntervalMs: 1000 });
    const create = Array.from({ length: 600 }, (_, i) => ep({ dnsName: `h${i}.example.org` }));
    await p.applyChanges(changes({ create }));
    assert.equal(api.count('batch'), 3);
    assert.deepEqual(slept, [1000, 1000]);
  });

  test('a refused batch falls back to one call per record: the bad record fails alone, the rest lands', async () => {
    const { p, api, zone } = setup();
    api.refuse.add('bad.example.org');
    const create = ['a', 'bad', 'c'].map((n) => ep({ dnsName: `${n}.example.org` }));
    await assert.rejects(
      p.applyChanges(changes({ create })),
      (err: unknown) => err instanceof ProviderError && /bad\.example\.org/.test(err.message) && !err.transient,
    );
    assert.deepEqual(
      api.records
        .get(zone)
        ?.map((r) => r.name)
        .sort(),
      ['a.example.org', 'c.example.org'],
    );
    assert.equal(api.count('batch'), 1);
    assert.equal(api.count('createRecord'), 3);
  });

  test('a record deleted outside Hostwarden since the list: the delete succeeds, the rest of the batch lands', async () => {
    const { p, api, zone } = setup();
    const gone = api.addRecord(zone, { name: 'gone.example.org', type: 'A', content: '192.0.2.1', ttl: 1, proxied: false });
    await p.records();
    api.records.set(
      zone,
      (api.records.get(zone) ?? []).filter((r) => r.id !== gone.id),
    );
    await p.applyChanges(changes({ delete: [ep({ dnsName: 'gone.example.org' })], create: [ep({ dnsName: 'new.example.org' })] }));
    assert.deepEqual(
      api.records.get(zone)?.map((r) => r.name),
      ['new.example.org'],
    );
    assert.equal(api.count('deleteRecord'), 1);
  });

  test('a record in no managed zone is skipped; the other zone is not touched', async () => {
    const { p, api } = setup();
    await p.applyChanges(changes({ create: [ep({ dnsName: 'x.other.net' })] }));
    assert.equal(api.count('batch'), 0);
  });

  test('custom hostnames follow the annotation when enabled', async () => {
    const { p, api, zone } = setup({ customHostnames: { enabled: true, minTlsVersion: '1.2', certificateAuthority: 'none' } });
    const withCh = [ep({ dnsName: 'app.example.org', providerSpecific: [{ name: N.customHostname, value: 'shop.customer.com' }] })];
    await p.applyChanges(await plan(p, withCh));
    assert.deepEqual(
      api.customHostnames.get(zone)?.map((c) => [c.hostname, c.customOriginServer]),
      [['shop.customer.com', 'app.example.org']],
    );
    assert.equal((await plan(p, withCh)).updateNew.length, 0);
    const moved = [ep({ dnsName: 'app.example.org', providerSpecific: [{ name: N.customHostname, value: 'new.customer.com' }] })];
    await p.applyChanges(await plan(p, moved));
    assert.deepEqual(
      api.customHostnames.get(zone)?.map((c) => c.hostname),
      ['new.customer.com'],
    );
  });

  test('regional hostnames: created with the default key, read back, removed with the record', async () => {
    const { p, api, zone } = setup({ regionKey: 'eu' });
    const d = [ep({ dnsName: 'r.example.org' })];
    await p.applyChanges(await plan(p, d));
    assert.deepEqual(api.regional.get(zone), [{ hostname: 'r.example.org', regionKey: 'eu' }]);
    const calls = api.calls.length;
    assert.equal((await plan(p, d)).updateNew.length, 0);
    assert.equal(api.calls.length, calls);
    const us = [ep({ dnsName: 'r.example.org', providerSpecific: [{ name: N.regionKey, value: 'us' }] })];
    const upd = await plan(p, us);
    assert.equal(upd.updateNew.length, 1, 'a region key change is an update');
    await p.applyChanges(upd);
    assert.deepEqual(api.regional.get(zone), [{ hostname: 'r.example.org', regionKey: 'us' }]);
    await p.applyChanges(changes({ delete: await p.records() }));
    assert.deepEqual(api.regional.get(zone), []);
  });
});

describe('paced Cloudflare calls', () => {
  test('429s in the middle of a sync: the provider waits and every change still lands', async () => {
    const api = new FakeCloudflareApi();
    const zone = api.addZone('example.org');
    const slept: number[] = [];
    const pause = (ms: number): Promise<void> => {
      slept.push(ms);
      return Promise.resolve();
    };
    const p = new CloudflareProvider({
      api: pacedApi(api, { logger: silentLogger(), sleep: pause, requestsPerSecond: 0, random: () => 0 }),
      logger: silentLogger(),
      batchChangeIntervalMs: 0,
      sleep: pause,
    });
    const throttled = (): ProviderError => new ProviderError('cloudflare', 'throttled', { code: 'PROVIDER_THROTTLED', transient: true });
    api.failNext('listRecordsPage', throttled());
    api.failNext('batch', throttled());
    api.failNext('batch', Object.assign(throttled(), { retryAfterMs: 30_000 }));
    await p.applyChanges(changes({ create: Array.from({ length: 300 }, (_, i) => ep({ dnsName: `h${i}.example.org` })) }));
    assert.equal(api.records.get(zone)?.length, 300);
    assert.deepEqual(slept, [500, 500, 30_000]);
  });

  test('a 429 waits for Retry-After and retries; a write refused otherwise is not retried', async () => {
    const api = new FakeCloudflareApi();
    const zone = api.addZone('example.org');
    const throttled = Object.assign(new ProviderError('cloudflare', 'throttled', { code: 'PROVIDER_THROTTLED', transient: true }), { retryAfterMs: 7000 });
    api.failNext('batch', throttled);
    api.failNext('createRecord', new ProviderError('cloudflare', 'bad', { code: 'PROVIDER_REJECTED' }));
    const slept: number[] = [];
    const paced = pacedApi(api, {
      logger: silentLogger(),
      requestsPerSecond: 0,
      sleep: (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
    });
    await paced.batch(zone, { deletes: [], puts: [], posts: [] });
    assert.deepEqual(slept, [7000]);
    assert.equal(api.count('batch'), 2);
    await assert.rejects(paced.createRecord(zone, { name: 'a.example.org', type: 'A', content: '192.0.2.1', ttl: 1, proxied: false }));
    assert.equal(api.count('createRecord'), 1);
  });

  test('SDK errors keep the status and Cloudflare codes, transient for 429 and 5xx', async () => {
    const { APIError } = await import('cloudflare');
    const e429 = cloudflareError(new APIError(429, { errors: [{ code: 971, message: 'Please wait' }] }, 'x', new Headers({ 'retry-after': '3' })), 'batch');
    assert.equal(e429.code, 'PROVIDER_THROTTLED');
    assert.equal(e429.transient, true);
    assert.match(e429.message, /429.*971 Please wait/);
    assert.equal((e429 as unknown as { retryAfterMs: number }).retryAfterMs, 3000);
    const e400 = cloudflareError(
      new APIError(400, { errors: [{ code: 81058, message: 'An identical record already exists.' }] }, 'x', new Headers()),
      'create',
    );
    assert.equal(e400.transient, false);
    assert.match(e400.message, /81058/);
  });
});

describe('CloudflareProvider.fromConfig', () => {
  const flagValues = (argv: string[]) => new FlagValues(parseArgs(argv, {}, [...FLAGS, ...CLOUDFLARE_FLAGS, ...ZONE_FILTER_FLAGS]).values);

  test('no credentials stop start-up with upstream text; with an api the zones are listed once', async () => {
    const cfg = { flags: flagValues(['--domain-filter', 'example.org']), domainFilters: ['example.org'], excludeDomains: [] };
    await assert.rejects(
      CloudflareProvider.fromConfig(cfg, { logger: silentLogger(), env: {} }),
      /set either CF_API_TOKEN or both CF_API_KEY and CF_API_EMAIL/,
    );
    const api = new FakeCloudflareApi();
    api.addZone('example.org');
    const p = await CloudflareProvider.fromConfig(cfg, { logger: silentLogger(), env: {}, api });
    assert.equal(api.count('listZones'), 1);
    assert.equal(p.domainFilter().match('x.example.org'), true);
    await p.records();
    assert.equal(api.count('listZones'), 1, 'zones are cached with the records');
  });
});
