import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry as MetricsRegistry } from 'prom-client';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import { silentLogger } from '../../log.ts';
import { emptyChanges } from '../../plan/changes.ts';
import { InMemoryProvider } from '../inmemory/inmemory.ts';
import type { Provider } from '../provider.ts';
import { CachedProvider } from './cached-provider.ts';
import { ProviderCacheMetrics } from './metrics.ts';

/** Counts what reaches the provider behind the cache. */
function counting(inner: Provider): { provider: Provider; reads: () => number; applies: () => number } {
  let reads = 0;
  let applies = 0;
  const provider: Provider = {
    name: inner.name,
    records: () => (reads++, inner.records()),
    applyChanges: (c) => (applies++, inner.applyChanges(c)),
    adjustEndpoints: (e) => inner.adjustEndpoints(e),
    domainFilter: () => inner.domainFilter(),
  };
  return { provider, reads: () => reads, applies: () => applies };
}

describe('CachedProvider (--provider-cache-time)', () => {
  test('reads the provider once per cache time; applied changes and failures drop the list; empty changes are not sent', async () => {
    let now = 1_000_000;
    const metrics = new MetricsRegistry();
    const inner = counting(new InMemoryProvider({ zones: ['example.org'] }));
    const cached = new CachedProvider({
      provider: inner.provider,
      cacheTimeMs: 60_000,
      logger: silentLogger(),
      metrics: new ProviderCacheMetrics(metrics),
      now: () => now,
    });
    assert.deepEqual(await cached.records(), []);
    now += 59_000;
    await cached.records();
    assert.equal(inner.reads(), 1, 'within the cache time the list is reused');
    now += 2000;
    await cached.records();
    assert.equal(inner.reads(), 2, 'after it the provider is read again');

    await cached.applyChanges(emptyChanges());
    assert.equal(inner.applies(), 0);
    await cached.records();
    assert.equal(inner.reads(), 2, 'an empty change set keeps the list');

    const www = newEndpoint({ dnsName: 'www.example.org', recordType: 'A', targets: ['192.0.2.1'] });
    await cached.applyChanges({ ...emptyChanges(), create: [www] });
    assert.equal(inner.applies(), 1);
    assert.deepEqual(
      (await cached.records()).map((e) => e.dnsName),
      ['www.example.org'],
      'after a change the next read sees it',
    );
    assert.equal(inner.reads(), 3);

    const text = await metrics.metrics();
    assert.match(text, /external_dns_provider_cache_records_calls\{from_cache="true"\} 2/);
    assert.match(text, /external_dns_provider_cache_records_calls\{from_cache="false"\} 3/);
    assert.match(text, /external_dns_provider_cache_apply_changes_calls 1/);
    // run registers the counters whether or not the cache is on: a second set on the same registry shares them.
    assert.doesNotThrow(() => new ProviderCacheMetrics(metrics));
  });

  test('a failed read is not cached', async () => {
    let fail = true;
    const inner = new InMemoryProvider({ zones: ['example.org'] });
    const flaky: Provider = {
      name: 'flaky',
      records: () => (fail ? Promise.reject(new Error('boom')) : inner.records()),
      applyChanges: (c) => inner.applyChanges(c),
      adjustEndpoints: (e) => inner.adjustEndpoints(e),
      domainFilter: () => inner.domainFilter(),
    };
    const cached = new CachedProvider({ provider: flaky, cacheTimeMs: 60_000, logger: silentLogger() });
    await assert.rejects(cached.records(), /boom/);
    fail = false;
    assert.deepEqual(await cached.records(), []);
  });

  test("passes the wrapped provider's refused names on (the registry must not send a-*. TXT names PowerDNS or Azure refuse)", async () => {
    const inner = new InMemoryProvider({ zones: ['example.org'] });
    const refusing: Provider = {
      name: 'refusing',
      records: () => inner.records(),
      applyChanges: (c) => inner.applyChanges(c),
      adjustEndpoints: (e) => inner.adjustEndpoints(e),
      domainFilter: () => inner.domainFilter(),
      refusedName: (name) => (name.includes('*.') && !name.startsWith('*.') ? 'its API takes * only as the first label' : undefined),
    };
    const cached = new CachedProvider({ provider: refusing, cacheTimeMs: 60_000, logger: silentLogger() });
    assert.equal(cached.refusedName('a-*.apps.example.org'), 'its API takes * only as the first label');
    assert.equal(cached.refusedName('*.apps.example.org'), undefined);
    const plain = new CachedProvider({ provider: counting(inner).provider, cacheTimeMs: 60_000, logger: silentLogger() });
    assert.equal(plain.refusedName('a-*.apps.example.org'), undefined, 'a provider without the method refuses nothing');
  });
});
