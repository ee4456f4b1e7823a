/**
 * The Cloudflare emulator driven by the official SDK, unchanged apart from `baseURL`: what the
 * provider's tests rely on (auth, pagination, filters, record rules, batch, hostnames, 429).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { APIError, Cloudflare } from 'cloudflare';
import { startCloudflareEmulator } from './emulator.ts';
import type { CloudflareEmulator, CloudflareEmulatorOptions } from './emulator.ts';

function client(emu: CloudflareEmulator, auth: { apiToken?: string; apiKey?: string; apiEmail?: string } = { apiToken: emu.token }): Cloudflare {
  // Every auth option explicitly, so the SDK never falls back to process.env.
  return new Cloudflare({
    apiToken: auth.apiToken ?? null,
    apiKey: auth.apiKey ?? null,
    apiEmail: auth.apiEmail ?? null,
    userServiceKey: null,
    baseURL: emu.baseURL,
    maxRetries: 0,
  });
}

/** The Cloudflare error code of a rejected SDK call. */
async function rejectsWith(p: Promise<unknown>, status: number, code: number): Promise<APIError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof APIError, String(err));
    assert.equal(err.status, status, err.message);
    const codes = (err.errors as { code: number; error_chain?: { code: number }[] }[]).flatMap((e) => [e.code, ...(e.error_chain ?? []).map((c) => c.code)]);
    assert.ok(codes.includes(code), `codes ${codes.join(',')} lack ${code}`);
    return err;
  }
  assert.fail('expected the call to fail');
}

async function withEmulator(opts: CloudflareEmulatorOptions, fn: (emu: CloudflareEmulator) => Promise<void>): Promise<void> {
  const emu = await startCloudflareEmulator(opts);
  try {
    await fn(emu);
  } finally {
    await emu.close();
  }
}

describe('Cloudflare emulator with the official SDK', () => {
  let emu: CloudflareEmulator;
  let cf: Cloudflare;
  let zone: string;

  before(async () => {
    emu = await startCloudflareEmulator({ readOnlyTokens: ['read-only-token'] });
    cf = client(emu);
    zone = emu.addZone('example.com');
  });
  after(() => emu.close());

  it('refuses a wrong token, a wrong key and no credentials with Cloudflare codes; accepts key+email', async () => {
    await rejectsWith(client(emu, { apiToken: 'nope' }).zones.list(), 401, 9109);
    await rejectsWith(client(emu, { apiKey: 'a'.repeat(37), apiEmail: emu.apiEmail }).zones.list(), 403, 9103);
    await rejectsWith(client(emu, { apiKey: 'short', apiEmail: emu.apiEmail }).zones.list(), 400, 6003);
    const zones = await client(emu, { apiKey: emu.apiKey, apiEmail: emu.apiEmail }).zones.list();
    assert.deepEqual(
      zones.result.map((z) => z.name),
      ['example.com'],
    );
    const ro = client(emu, { apiToken: 'read-only-token' });
    await ro.dns.records.list({ zone_id: zone });
    await rejectsWith(ro.dns.records.create({ zone_id: zone, name: 'ro', type: 'A', content: '192.0.2.1', ttl: 1 }), 403, 10000);
  });

  it('lists zones by name and counts calls per route; seeding does not count', async () => {
    emu.calls.reset();
    emu.addZone('other.org', { plan: 'pro' });
    const page = await cf.zones.list({ name: 'other.org' });
    assert.equal(page.result.length, 1);
    assert.equal(page.result[0]?.plan?.id, 'pro');
    const got = await cf.zones.get({ zone_id: zone });
    assert.equal(got.name, 'example.com');
    assert.match(got.id, /^[0-9a-f]{32}$/);
    assert.deepEqual(emu.calls.byRoute(), { 'GET /zones': 1, 'GET /zones/:id': 1 });
    assert.equal(emu.calls.total, 2);
  });

  it('paginates 250 records with per_page 100 and 5000, and filters by name, type, content, proxied, tag, comment', async () => {
    const z = emu.addZone('paged.test');
    for (let i = 0; i < 250; i++)
      emu.addRecord(z, { name: `h${i}.paged.test`, type: 'A', content: `192.0.2.${i % 250}`, ttl: 300, tags: i % 2 === 0 ? ['team:a'] : [] });
    emu.addRecord(z, { name: 'www.paged.test', type: 'CNAME', content: 'h1.paged.test', proxied: true, comment: 'managed' });
    emu.calls.reset();
    const first = await cf.dns.records.list({ zone_id: z, per_page: 100 });
    assert.equal(first.result.length, 100);
    assert.deepEqual(first.result_info, { page: 1, per_page: 100, count: 100, total_count: 251, total_pages: 3 });
    let n = 0;
    for await (const _r of cf.dns.records.list({ zone_id: z, per_page: 100 })) n++;
    assert.equal(n, 251);
    const big = await cf.dns.records.list({ zone_id: z, per_page: 5000 });
    assert.equal(big.result.length, 251);
    // The SDK's auto-pagination stops only at an empty page (it ignores total_pages): 4 calls for 3 pages.
    assert.equal(emu.calls.get('GET /zones/:id/dns_records'), 1 + 4 + 1);
    const byName = await cf.dns.records.list({ zone_id: z, name: { exact: 'www.paged.test' } });
    assert.deepEqual(
      byName.result.map((r) => [r.type, r.ttl, r.proxied]),
      [['CNAME', 1, true]],
    );
    assert.equal((await cf.dns.records.list({ zone_id: z, type: 'CNAME' })).result.length, 1);
    assert.equal((await cf.dns.records.list({ zone_id: z, content: { exact: '192.0.2.7' } })).result.length, 1);
    assert.equal((await cf.dns.records.list({ zone_id: z, proxied: true })).result.length, 1);
    assert.equal((await cf.dns.records.list({ zone_id: z, tag: { exact: 'team:a' }, per_page: 5000 })).result.length, 125);
    assert.equal((await cf.dns.records.list({ zone_id: z, comment: { exact: 'managed' } })).result.length, 1);
    const either = await cf.dns.records.list({ zone_id: z, match: 'any', type: 'CNAME', content: { exact: '192.0.2.7' } });
    assert.equal(either.result.length, 2);
  });

  it('creates, patches, replaces and deletes records; proxied reads back with ttl 1', async () => {
    const rec = await cf.dns.records.create({ zone_id: zone, name: 'app.example.com', type: 'A', content: '192.0.2.10', ttl: 300, proxied: true });
    assert.equal(rec.ttl, 1);
    assert.equal(rec.proxiable, true);
    const patched = await cf.dns.records.edit(rec.id, { zone_id: zone, type: 'A', name: 'app.example.com', proxied: false, ttl: 120 });
    assert.deepEqual([patched.content, patched.ttl, patched.proxied], ['192.0.2.10', 120, false]);
    const put = await cf.dns.records.update(rec.id, { zone_id: zone, name: 'app.example.com', type: 'A', content: '192.0.2.11', ttl: 60 });
    assert.deepEqual([put.content, put.ttl, put.comment], ['192.0.2.11', 60, null]);
    await cf.dns.records.delete(rec.id, { zone_id: zone });
    assert.equal(
      emu.records(zone).some((r) => r.id === rec.id),
      false,
    );
    await rejectsWith(cf.dns.records.delete(rec.id, { zone_id: zone }), 404, 81044);
  });

  it('keeps SRV and CAA in data, MX priority, and wildcards', async () => {
    const srv = await cf.dns.records.create({
      zone_id: zone,
      name: '_sip._tcp.example.com',
      type: 'SRV',
      ttl: 1,
      data: { priority: 10, weight: 5, port: 5060, target: 'sip.example.com' },
    });
    assert.equal(srv.content, '10 5 5060 sip.example.com');
    assert.deepEqual((srv as { data?: unknown }).data, { priority: 10, weight: 5, port: 5060, target: 'sip.example.com' });
    const caa = await cf.dns.records.create({
      zone_id: zone,
      name: 'example.com',
      type: 'CAA',
      ttl: 1,
      data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' },
    });
    assert.equal(caa.content, '0 issue "letsencrypt.org"');
    const mx = await cf.dns.records.create({ zone_id: zone, name: 'example.com', type: 'MX', ttl: 1, content: 'mail.example.com', priority: 10 });
    assert.equal((mx as { priority?: number }).priority, 10);
    const wild = await cf.dns.records.create({ zone_id: zone, name: '*.example.com', type: 'A', ttl: 1, content: '192.0.2.99' });
    assert.equal(wild.name, '*.example.com');
    // A `*` that is not the leading label is a literal character (the TXT registry's a-*.… names).
    const literal = await cf.dns.records.create({ zone_id: zone, name: 'a-*.apps.example.com', type: 'TXT', ttl: 1, content: '"heritage=external-dns"' });
    assert.equal(literal.name, 'a-*.apps.example.com');
  });

  it('enforces CNAME exclusivity, identical records, proxiable types, TTL range, content, comment length by plan', async () => {
    emu.addRecord(zone, { name: 'c.example.com', type: 'CNAME', content: 'target.example.net' });
    emu.addRecord(zone, { name: 'a.example.com', type: 'A', content: '192.0.2.1' });
    await rejectsWith(cf.dns.records.create({ zone_id: zone, name: 'c.example.com', type: 'A', content: '192.0.2.2', ttl: 1 }), 400, 81054);
    await rejectsWith(cf.dns.records.create({ zone_id: zone, name: 'c.example.com', type: 'CNAME', content: 'x.example.net', ttl: 1 }), 400, 81053);
    await rejectsWith(cf.dns.records.create({ zone_id: zone, name: 'a.example.com', type: 'CNAME', content: 'x.example.net', ttl: 1 }), 400, 81053);
    await rejectsWith(cf.dns.records.create({ zone_id: zone, name: 'a.example.com', type: 'A', content: '192.0.2.1', ttl: 1 }), 400, 81058);
    await rejectsWith(cf.dns.records.create({ zone_id: zone, name: 'c.example.com', type: 'TXT', content: 'x', ttl: 1 }), 400, 81054);
    emu.configureZone(zone, { cnameAlone: false });
    await cf.dns.records.create({ zone_id: zone, name: 'c.example.com', type: 'TXT', content: 'beside', ttl: 1 });
    emu.configureZone(zone, { cnameAlone: true });
    await rejectsWith(cf.dns.records.create({ zone_id: zone, name: 't.example.com', type: 'TXT', content: 'x', ttl: 1, proxied: true }), 400, 9004);
    await rejectsWith(cf.dns.records.create({ zone_id: zone, name: 't.example.com', type: 'TXT', content: 'x', ttl: 10 }), 400, 9021);
    await rejectsWith(cf.dns.records.create({ zone_id: zone, name: 'b.example.com', type: 'A', content: '300.1.1.1', ttl: 1 }), 400, 9005);
    await rejectsWith(cf.dns.records.create({ zone_id: zone, name: 'b.example.com', type: 'AAAA', content: '192.0.2.1', ttl: 1 }), 400, 9006);
    await rejectsWith(cf.dns.records.create({ zone_id: zone, name: 'bad..example.com', type: 'A', content: '192.0.2.1', ttl: 1 }), 400, 9000);
    const long = 'x'.repeat(101);
    await rejectsWith(cf.dns.records.create({ zone_id: zone, name: 'k.example.com', type: 'TXT', content: 'v', ttl: 1, comment: long }), 400, 9313);
    const pro = emu.addZone('paid.example', { plan: 'pro' });
    const ok = await cf.dns.records.create({ zone_id: pro, name: 'k.paid.example', type: 'TXT', content: 'v', ttl: 1, comment: long });
    assert.equal(ok.comment, long);
    await rejectsWith(cf.dns.records.create({ zone_id: pro, name: 'k2.paid.example', type: 'TXT', content: 'v', ttl: 1, comment: 'y'.repeat(501) }), 400, 9313);
    await rejectsWith(cf.dns.records.create({ zone_id: zone, name: 'www.example.net', type: 'A', content: '192.0.2.1', ttl: 1 }), 400, 9000);
    // A single label is relative to the zone, as Cloudflare takes it.
    const rel = await cf.dns.records.create({ zone_id: zone, name: 'www', type: 'TXT', content: 'rel', ttl: 1 });
    assert.equal(rel.name, 'www.example.com');
  });

  it('answers a request without credentials with 400 code 9106 and bad JSON with 400 code 6007', async () => {
    const bare = await fetch(`${emu.baseURL}/zones`);
    assert.equal(bare.status, 400);
    assert.equal(((await bare.json()) as { errors: { code: number }[] }).errors[0]?.code, 9106);
    const res = await fetch(`${emu.baseURL}/zones/${zone}/dns_records`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' },
      body: '{oops',
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { success: boolean; errors: { code: number }[]; result: unknown };
    assert.deepEqual([body.success, body.errors[0]?.code, body.result], [false, 6007, null]);
  });
});

describe('batch endpoint', () => {
  it('runs deletes, patches, puts, posts in order and all or nothing', async () => {
    await withEmulator({}, async (emu) => {
      const cf = client(emu);
      const z = emu.addZone('batch.test');
      const old = emu.addRecord(z, { name: 'app.batch.test', type: 'CNAME', content: 'old.example.net' });
      const keep = emu.addRecord(z, { name: 'keep.batch.test', type: 'A', content: '192.0.2.1', ttl: 300 });
      const txt = emu.addRecord(z, { name: 'txt.batch.test', type: 'TXT', content: 'v1', ttl: 300, comment: 'old' });
      // The delete frees the name before the post of an A record at it: only valid in Cloudflare's order.
      const res = await cf.dns.records.batch({
        zone_id: z,
        deletes: [{ id: old.id }],
        patches: [{ id: keep.id, ttl: 600 } as never],
        puts: [{ id: txt.id, name: 'txt.batch.test', type: 'TXT', content: 'v2', ttl: 1 }],
        posts: [{ name: 'app.batch.test', type: 'A', content: '192.0.2.5', ttl: 1 }],
      });
      assert.deepEqual([res.deletes?.length, res.patches?.[0]?.ttl, res.posts?.[0]?.type], [1, 600, 'A']);
      // A put replaces the whole record: the comment it did not carry is gone.
      assert.deepEqual([res.puts?.[0]?.content, res.puts?.[0]?.ttl, res.puts?.[0]?.comment], ['v2', 1, null]);
      assert.deepEqual(emu.batches, [{ zoneId: z, deletes: [old.id], patches: [keep.id], puts: [txt.id], posts: [res.posts?.[0]?.id] }]);
      const before = emu.records(z);
      // The second post collides with the first: nothing of the batch may remain.
      await rejectsWith(
        cf.dns.records.batch({
          zone_id: z,
          deletes: [{ id: keep.id }],
          posts: [
            { name: 'n.batch.test', type: 'CNAME', content: 'x.example.net', ttl: 1 },
            { name: 'n.batch.test', type: 'A', content: '192.0.2.6', ttl: 1 },
          ],
        }),
        400,
        81054,
      );
      assert.deepEqual(emu.records(z), before);
    });
  });

  it('limits changes per batch by plan (configurable) and can be made unavailable', async () => {
    await withEmulator({}, async (emu) => {
      const cf = client(emu);
      const z = emu.addZone('limit.test', { batchLimit: 3 });
      const posts = [1, 2, 3, 4].map((i) => ({ name: `h${i}.limit.test`, type: 'A' as const, content: `192.0.2.${i}`, ttl: 1 as const }));
      await rejectsWith(cf.dns.records.batch({ zone_id: z, posts }), 400, 81068);
      await cf.dns.records.batch({ zone_id: z, posts: posts.slice(0, 3) });
      emu.configureZone(z, { batchUnavailable: true });
      await rejectsWith(cf.dns.records.batch({ zone_id: z, posts: posts.slice(3) }), 403, 10000);
      emu.configureZone(z, { batchUnavailable: { status: 405, code: 10405, message: 'Method not allowed' } });
      await rejectsWith(cf.dns.records.batch({ zone_id: z, posts: posts.slice(3) }), 405, 10405);
      await cf.dns.records.create({ zone_id: z, ...posts[3]! });
      assert.equal(emu.records(z).length, 4);
      assert.equal(emu.calls.get('POST /zones/:id/dns_records/batch'), 4);
    });
  });
});

describe('custom and regional hostnames', () => {
  it('manages custom hostnames only on SaaS zones, with ssl settings and a hostname filter', async () => {
    await withEmulator({}, async (emu) => {
      const cf = client(emu);
      const plain = emu.addZone('plain.test');
      await rejectsWith(cf.customHostnames.list({ zone_id: plain }), 403, 1413);
      const z = emu.addZone('saas.test', { plan: 'business', customHostnames: true });
      const ch = await cf.customHostnames.create({
        zone_id: z,
        hostname: 'shop.customer.net',
        ssl: { method: 'http', type: 'dv', settings: { min_tls_version: '1.2' }, certificate_authority: 'google' },
      });
      assert.equal(ch.ssl?.certificate_authority, 'google');
      assert.equal(ch.ssl?.settings?.min_tls_version, '1.2');
      await cf.customHostnames.create({ zone_id: z, hostname: 'blog.customer.net', ssl: { method: 'http', type: 'dv' } });
      const found = await cf.customHostnames.list({ zone_id: z, hostname: { exact: 'shop.customer.net' } });
      assert.equal((await cf.customHostnames.list({ zone_id: z, hostname: { contain: 'customer' } })).result.length, 2);
      assert.deepEqual(
        found.result.map((h) => h.id),
        [ch.id],
      );
      await rejectsWith(cf.customHostnames.create({ zone_id: z, hostname: 'shop.customer.net', ssl: {} }), 409, 1406);
      await cf.customHostnames.delete(ch.id, { zone_id: z });
      assert.deepEqual(
        emu.customHostnames(z).map((h) => h.hostname),
        ['blog.customer.net'],
      );
    });
  });

  it('manages regional hostnames only where Regional Services is on', async () => {
    await withEmulator({}, async (emu) => {
      const cf = client(emu);
      const plain = emu.addZone('plain.test');
      await rejectsWith(cf.addressing.regionalHostnames.create({ zone_id: plain, hostname: 'a.plain.test', region_key: 'eu' }), 403, 1002);
      const z = emu.addZone('regional.test', { plan: 'enterprise', regionalHostnames: true });
      const rh = await cf.addressing.regionalHostnames.create({ zone_id: z, hostname: 'a.regional.test', region_key: 'eu' });
      assert.equal(rh.region_key, 'eu');
      await rejectsWith(cf.addressing.regionalHostnames.create({ zone_id: z, hostname: 'b.regional.test', region_key: 'mars' }), 400, 1003);
      const edited = await cf.addressing.regionalHostnames.edit('a.regional.test', { zone_id: z, region_key: 'us' });
      assert.equal(edited.region_key, 'us');
      const list = await cf.addressing.regionalHostnames.list({ zone_id: z });
      assert.deepEqual(
        list.result.map((h) => [h.hostname, h.region_key]),
        [['a.regional.test', 'us']],
      );
      await cf.addressing.regionalHostnames.delete('a.regional.test', { zone_id: z });
      assert.equal(emu.regionalHostnames(z).length, 0);
    });
  });
});

describe('rate limit and faults', () => {
  it('answers 429 code 971 with Retry-After past the limit, and recovers after the window', async () => {
    let now = 1_000_000;
    await withEmulator({ rateLimit: 3, rateWindowMs: 10_000, now: () => now }, async (emu) => {
      const cf = client(emu);
      for (let i = 0; i < 3; i++) await cf.zones.list();
      const err = await rejectsWith(cf.zones.list(), 429, 971);
      assert.equal(err.headers?.get('retry-after'), '10');
      now += 4_000;
      const again = await rejectsWith(cf.zones.list(), 429, 971);
      assert.equal(again.headers?.get('retry-after'), '6');
      assert.equal(emu.calls.throttled, 2);
      now += 6_000;
      await cf.zones.list();
    });
  });

  it('fails the next matching call once with the injected error', async () => {
    await withEmulator({}, async (emu) => {
      const cf = client(emu);
      const z = emu.addZone('fault.test');
      emu.failNext('GET /zones/:id/dns_records', 503, 10001, 'service unavailable');
      await cf.zones.list();
      await rejectsWith(cf.dns.records.list({ zone_id: z }), 503, 10001);
      await cf.dns.records.list({ zone_id: z });
      emu.failNext(undefined, 429, 971, 'Please wait and consider throttling your request speed', { retryAfterSeconds: 7 });
      const err = await rejectsWith(cf.zones.list(), 429, 971);
      assert.equal(err.headers?.get('retry-after'), '7');
      await cf.zones.list();
    });
  });
});
