/**
 * The emulator's persistent op faults, driven through the official SDK: each error form, the
 * narrowing by name / hostname / zone / page, batch rollback when a carried write is faulted, and
 * clearing.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { APIConnectionError, APIError, Cloudflare } from 'cloudflare';
import { startCloudflareEmulator } from './emulator.ts';
import type { CloudflareEmulator } from './emulator.ts';

function client(emu: CloudflareEmulator): Cloudflare {
  return new Cloudflare({ apiToken: emu.token, apiKey: null, apiEmail: null, userServiceKey: null, baseURL: emu.baseURL, maxRetries: 0 });
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  return assert.fail('expected the call to fail');
}

describe('op faults', () => {
  let emu: CloudflareEmulator;
  let cf: Cloudflare;
  let zone: string;
  let other: string;

  before(async () => {
    emu = await startCloudflareEmulator();
    cf = client(emu);
    zone = emu.addZone('example.com', { id: '001', customHostnames: true, regionalHostnames: true });
    other = emu.addZone('example.org', { id: '002' });
  });
  beforeEach(() => emu.clearFaults());
  after(() => emu.close());

  it('answers a status with a Cloudflare error body, every time until cleared', async () => {
    await emu.addFaults([{ op: 'list-zones', error: { status: 503 } }]);
    for (let i = 0; i < 2; i++) {
      const err = await failure(cf.zones.list());
      assert.ok(err instanceof APIError && err.status === 503, String(err));
    }
    await emu.addFaults([{ op: 'get-zone', error: { status: 429, message: 'slow down' } }]);
    const err = await failure(cf.zones.get({ zone_id: zone }));
    assert.ok(err instanceof APIError && err.status === 429 && err.message.includes('slow down'), String(err));
    await emu.clearFaults();
    assert.equal((await cf.zones.list()).result.length, 2);
  });

  it('answers a message alone with 400 and that text', async () => {
    await emu.addFaults([{ op: 'list-records', zoneId: zone, error: { message: 'listing broke' } }]);
    const err = await failure(cf.dns.records.list({ zone_id: zone }));
    assert.ok(err instanceof APIError && err.status === 400 && err.message.includes('listing broke'), String(err));
    assert.equal((await cf.dns.records.list({ zone_id: other })).result.length, 0, 'another zone is not hit');
  });

  it('fails only the given page of a listing', async () => {
    for (let i = 0; i < 12; i++) emu.addRecord(other, { name: `h${i}.example.org`, type: 'A', content: '192.0.2.1', ttl: 1 });
    await emu.addFaults([{ op: 'list-records', zoneId: other, page: 2, error: { status: 500 } }]);
    assert.equal((await cf.dns.records.list({ zone_id: other, per_page: 5, page: 1 })).result.length, 5);
    await failure(cf.dns.records.list({ zone_id: other, per_page: 5, page: 2 }));
    assert.equal((await cf.dns.records.list({ zone_id: other, per_page: 5, page: 3 })).result.length, 2);
  });

  it('drops the connection before a response or in the middle of one', async () => {
    await emu.addFaults([{ op: 'list-zones', error: { disconnect: 'before-response' } }]);
    assert.ok((await failure(cf.zones.list())) instanceof APIConnectionError);
    await emu.clearFaults();
    await emu.addFaults([{ op: 'list-zones', error: { disconnect: 'mid-response' } }]);
    const err = await failure(cf.zones.list());
    assert.ok(err instanceof Error && !(err instanceof APIError), String(err));
  });

  it('refuses connections while a refused fault is set, and listens on the same port afterwards', async () => {
    const url = emu.baseURL;
    await emu.addFaults([{ op: 'list-zones', error: { refused: true } }]);
    const err = await failure(cf.zones.list());
    assert.ok(err instanceof APIConnectionError, String(err));
    await emu.clearFaults();
    assert.equal(emu.baseURL, url);
    assert.equal((await cf.zones.list()).result.length, 2);
  });

  it('fails create, update and delete of the named record only', async () => {
    const kept = emu.addRecord(zone, { name: 'keep.example.com', type: 'A', content: '192.0.2.7', ttl: 1 });
    await emu.addFaults([
      { op: 'create', name: 'bad.example.com', error: { message: 'create refused' } },
      { op: 'update', name: 'keep.example.com', error: { status: 500 } },
      { op: 'delete', name: 'keep.example.com', error: { message: 'delete refused' } },
    ]);
    await failure(cf.dns.records.create({ zone_id: zone, name: 'bad.example.com', type: 'A', content: '192.0.2.1', ttl: 1 }));
    await cf.dns.records.create({ zone_id: zone, name: 'good.example.com', type: 'A', content: '192.0.2.1', ttl: 1 });
    await failure(cf.dns.records.update(kept.id, { zone_id: zone, name: 'keep.example.com', type: 'A', content: '192.0.2.8', ttl: 1 }));
    await failure(cf.dns.records.delete(kept.id, { zone_id: zone }));
    assert.deepEqual(
      emu.records(zone).map((r) => `${r.name} ${r.content}`),
      ['good.example.com 192.0.2.1', 'keep.example.com 192.0.2.7'],
    );
  });

  it('fails a whole batch that carries a faulted write, and the batch op itself', async () => {
    const before = emu.records(zone).length;
    await emu.addFaults([{ op: 'create', name: 'bad.example.com', error: { message: 'create refused' } }]);
    const posts = [
      { name: 'ok1.example.com', type: 'A' as const, content: '192.0.2.1', ttl: 1 },
      { name: 'bad.example.com', type: 'A' as const, content: '192.0.2.2', ttl: 1 },
    ];
    const err = await failure(cf.dns.records.batch({ zone_id: zone, posts }));
    assert.ok(err instanceof APIError && err.message.includes('create refused'), String(err));
    assert.equal(emu.records(zone).length, before, 'nothing of the batch applied');
    await cf.dns.records.batch({ zone_id: zone, posts: [posts[0]!] });
    await emu.addFaults([{ op: 'batch', zoneId: zone, error: { status: 502 } }]);
    await failure(cf.dns.records.batch({ zone_id: zone, posts: [{ name: 'ok2.example.com', type: 'A', content: '192.0.2.1', ttl: 1 }] }));
  });

  it('fails custom and regional hostname operations by hostname', async () => {
    await emu.addFaults([
      { op: 'create-custom-hostname', hostname: 'bad.shop.example', error: { message: 'no' } },
      { op: 'list-custom-hostnames', zoneId: other, error: { message: 'no' } },
      { op: 'create-regional-hostname', hostname: 'eu.example.com', error: { message: 'no' } },
      { op: 'update-regional-hostname', hostname: 'us.example.com', error: { message: 'no' } },
      { op: 'delete-regional-hostname', hostname: 'us.example.com', error: { message: 'no' } },
    ]);
    await failure(cf.customHostnames.create({ zone_id: zone, hostname: 'bad.shop.example', ssl: { method: 'http', type: 'dv' } }));
    await cf.customHostnames.create({ zone_id: zone, hostname: 'good.shop.example', ssl: { method: 'http', type: 'dv' } });
    await failure(cf.customHostnames.list({ zone_id: other }));
    await failure(cf.addressing.regionalHostnames.create({ zone_id: zone, hostname: 'eu.example.com', region_key: 'eu' }));
    await cf.addressing.regionalHostnames.create({ zone_id: zone, hostname: 'us.example.com', region_key: 'us' });
    await failure(cf.addressing.regionalHostnames.edit('us.example.com', { zone_id: zone, region_key: 'eu' }));
    await failure(cf.addressing.regionalHostnames.delete('us.example.com', { zone_id: zone }));
    assert.deepEqual(
      emu.regionalHostnames(zone).map((h) => h.hostname),
      ['us.example.com'],
    );
  });
});

describe('seeding and the request log', () => {
  it('seeds records with a fixed id (unchecked: as given), custom and regional hostnames; logs requests with status', async () => {
    const emu = await startCloudflareEmulator();
    try {
      const cf = client(emu);
      const zone = emu.addZone('example.com', { id: 'zone-1', customHostnames: true, regionalHostnames: true });
      emu.addRecord(zone, { name: 'www.example.com', type: 'A', content: '192.0.2.1', ttl: 1 }, { id: 'rec-1' });
      emu.addRecord(zone, { name: 'odd.example.net', type: 'A', content: 'target', ttl: 1 }, { id: 'rec-2', unchecked: true });
      assert.deepEqual(
        emu.records(zone).map((r) => `${r.id} ${r.name} ${r.content}`),
        ['rec-2 odd.example.net target', 'rec-1 www.example.com 192.0.2.1'],
      );
      emu.addCustomHostname(zone, { id: 'ch-1', hostname: 'shop.example.org', customOriginServer: 'www.example.com' });
      emu.addRegionalHostname(zone, { hostname: 'www.example.com', regionKey: 'eu' });
      assert.equal((await cf.customHostnames.list({ zone_id: zone })).result[0]?.custom_origin_server, 'www.example.com');
      assert.equal((await cf.addressing.regionalHostnames.list({ zone_id: zone })).result[0]?.region_key, 'eu');
      await emu.addFaults([{ op: 'delete', name: 'www.example.com', error: { status: 500 } }]);
      await failure(cf.dns.records.delete('rec-1', { zone_id: zone }));
      await emu.clearFaults();
      await cf.dns.records.delete('rec-1', { zone_id: zone });
      await failure(cf.dns.records.delete('rec-1', { zone_id: zone }));
      assert.deepEqual(
        emu.requests.map((r) => `${r.pattern} ${r.status}`),
        [
          'GET /zones/:id/custom_hostnames 200',
          'GET /zones/:id/addressing/regional_hostnames 200',
          'DELETE /zones/:id/dns_records/:id 500',
          'DELETE /zones/:id/dns_records/:id 200',
          'DELETE /zones/:id/dns_records/:id 404',
        ],
      );
      assert.deepEqual(emu.requests[2]?.parts, ['zones', 'zone-1', 'dns_records', 'rec-1']);
    } finally {
      await emu.close();
    }
  });
});
