import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { FakeHostnameResolver } from '../../../test/support/fake-resolver.ts';
import { DnsHostnameResolver, LoadBalancerAddresses, LoadBalancerLookups } from './lb-hostnames.ts';

function clock(): { now: () => number; advance: (ms: number) => void } {
  let t = 1_000_000;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('LoadBalancerAddresses', () => {
  test('A and AAAA answers together; a name not looked up yet has no addresses and no problem', async () => {
    const r = new FakeHostnameResolver({ 'lb.example.test': { A: ['192.0.2.2', '192.0.2.1'], AAAA: ['2001:db8::1'] } });
    const cache = new LoadBalancerAddresses(r);
    assert.deepEqual(cache.lookup('lb.example.test'), { addresses: [] });
    assert.deepEqual([...(await cache.refresh(['LB.example.test.']))], ['lb.example.test']);
    assert.deepEqual(cache.lookup('lb.example.test.'), { addresses: ['192.0.2.1', '192.0.2.2', '2001:db8::1'] });
    assert.deepEqual(r.calls.sort(), ['lb.example.test/4', 'lb.example.test/6']);
  });

  test('one family is enough: no AAAA records is no problem', async () => {
    const cache = new LoadBalancerAddresses(new FakeHostnameResolver({ 'v4.example.test': { A: ['192.0.2.1'] } }));
    await cache.refresh(['v4.example.test']);
    assert.deepEqual(cache.lookup('v4.example.test'), { addresses: ['192.0.2.1'] });
  });

  test('a name that does not exist adds nothing, says why, and is asked again on the next refresh', async () => {
    const r = new FakeHostnameResolver();
    const cache = new LoadBalancerAddresses(r);
    await cache.refresh(['gone.invalid']);
    const got = cache.lookup('gone.invalid');
    assert.deepEqual(got.addresses, []);
    assert.match(got.problem ?? '', /gone\.invalid has no A or AAAA records; it adds no targets/);
    assert.equal((await cache.refresh(['gone.invalid'])).size, 0, 'same answer: nothing changed');
    assert.equal(r.calls.length, 4);
  });

  test('answers are reused for their TTL (at most maxCacheMs), then looked up again and changes reported', async () => {
    const c = clock();
    const r = new FakeHostnameResolver({ 'lb.example.test': { A: ['192.0.2.1'], ttl: 30 } });
    const cache = new LoadBalancerAddresses(r, { now: c.now, maxCacheMs: 60_000 });
    await cache.refresh(['lb.example.test']);
    c.advance(29_000);
    assert.equal((await cache.refresh(['lb.example.test'])).size, 0);
    assert.equal(r.calls.length, 2, 'within the TTL: no look-up');
    r.set('lb.example.test', { A: ['192.0.2.9'], ttl: 600 });
    c.advance(1_000);
    assert.deepEqual([...(await cache.refresh(['lb.example.test']))], ['lb.example.test']);
    assert.deepEqual(cache.lookup('lb.example.test').addresses, ['192.0.2.9']);
    c.advance(60_000);
    await cache.refresh(['lb.example.test']);
    assert.equal(r.calls.length, 6, 'a long TTL is capped at maxCacheMs');
  });

  test('a look-up without an answer keeps the family last seen for keepOnFailureMs, then drops it', async () => {
    const c = clock();
    const r = new FakeHostnameResolver({ 'lb.example.test': { A: ['192.0.2.1'], AAAA: ['2001:db8::1'], ttl: 0 } });
    const cache = new LoadBalancerAddresses(r, { now: c.now, keepOnFailureMs: 120_000 });
    await cache.refresh(['lb.example.test']);
    r.set('lb.example.test', { error: 'ETIMEOUT' });
    c.advance(60_000);
    await cache.refresh(['lb.example.test']);
    const kept = cache.lookup('lb.example.test');
    assert.deepEqual(kept.addresses, ['192.0.2.1', '2001:db8::1']);
    assert.match(kept.problem ?? '', /look-up failed \(A: ETIMEOUT, AAAA: ETIMEOUT\); keeping the A and AAAA addresses last seen/);
    c.advance(61_000);
    await cache.refresh(['lb.example.test']);
    const dropped = cache.lookup('lb.example.test');
    assert.deepEqual(dropped.addresses, []);
    assert.match(dropped.problem ?? '', /it adds no targets/);
  });

  test('one family answered, the other failing with nothing seen before: the answered addresses, and the failure reported', async () => {
    const r = new FakeHostnameResolver({ 'lb.example.test': { A: ['192.0.2.1'] } });
    const answerOnly4 = {
      resolve: (h: string, family: 4 | 6) => (family === 4 ? r.resolve(h, 4) : Promise.reject(Object.assign(new Error('x'), { code: 'ETIMEOUT' }))),
    };
    const cache = new LoadBalancerAddresses(answerOnly4);
    await cache.refresh(['lb.example.test']);
    const got = cache.lookup('lb.example.test');
    assert.deepEqual(got.addresses, ['192.0.2.1']);
    assert.match(got.problem ?? '', /look-up failed \(AAAA: ETIMEOUT\); publishing only the addresses that were answered/);
  });

  test('a failure with nothing seen before adds no targets (external-dns skips the name)', async () => {
    const cache = new LoadBalancerAddresses(new FakeHostnameResolver({ 'lb.example.test': { error: 'ESERVFAIL' } }));
    await cache.refresh(['lb.example.test']);
    assert.deepEqual(cache.lookup('lb.example.test').addresses, []);
  });

  test('names no longer asked for are forgotten; look-ups run at most `concurrency` at once', async () => {
    const answers = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`lb${i}.example.test`, { A: [`192.0.2.${i}`] }]));
    const r = new FakeHostnameResolver(answers);
    r.delayMs = 2;
    const cache = new LoadBalancerAddresses(r, { concurrency: 3 });
    assert.equal((await cache.refresh(Object.keys(answers))).size, 20);
    assert.ok(r.maxInFlight <= 6, `at most 3 names (two families each) at once, saw ${r.maxInFlight}`);
    await cache.refresh(['lb0.example.test']);
    assert.deepEqual(cache.lookup('lb1.example.test'), { addresses: [] });
    assert.deepEqual(cache.lookup('lb0.example.test').addresses, ['192.0.2.0']);
  });
});

describe('LoadBalancerLookups', () => {
  test('refresh looks up the names translations read and names the Services whose answers changed', async () => {
    const r = new FakeHostnameResolver({ 'a.example.test': { A: ['192.0.2.1'] }, 'b.example.test': { A: ['192.0.2.2'] } });
    const lookups = new LoadBalancerLookups(new LoadBalancerAddresses(r, { maxCacheMs: 0 }));
    const present = new Set(['ns/one', 'ns/two', 'ns/three']);
    lookups.optionsFor('ns/one', {}).loadBalancerAddresses?.('A.example.test.');
    lookups.optionsFor('ns/two', {}).loadBalancerAddresses?.('b.example.test');
    lookups.optionsFor('ns/three', {});
    assert.deepEqual((await lookups.refresh((k) => present.has(k))).sort(), ['ns/one', 'ns/two']);
    assert.deepEqual(await lookups.refresh((k) => present.has(k)), [], 'same answers');
    r.set('b.example.test', { A: ['192.0.2.3'] });
    present.delete('ns/one');
    assert.deepEqual(await lookups.refresh((k) => present.has(k)), ['ns/two']);
    assert.ok(!r.calls.slice(8).some((c) => c.startsWith('a.')), 'a deleted Service’s name is not looked up');
  });
});

describe('DnsHostnameResolver', () => {
  test('a server that never answers costs at most timeoutMs, as ETIMEOUT', async () => {
    const silent = createSocket('udp4');
    await new Promise<void>((r) => silent.bind(0, '127.0.0.1', () => r()));
    try {
      const resolver = new DnsHostnameResolver({ servers: [`127.0.0.1:${silent.address().port}`], timeoutMs: 300 });
      const started = Date.now();
      await assert.rejects(resolver.resolve('lb.example.test', 4), (err: { code?: string }) => err.code === 'ETIMEOUT');
      assert.ok(Date.now() - started < 3000);
    } finally {
      silent.close();
    }
  });
});
