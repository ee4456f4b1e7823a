import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Registry as MetricsRegistry } from 'prom-client';
import { testController } from '../../test/support/controller.ts';
import { FakeRegistry, FakeSource } from '../../test/support/fakes.ts';
import { newEndpoint } from '../endpoint/endpoint.ts';
import { ProviderError } from '../errors.ts';
import { ControllerMetrics } from './metrics.ts';

const www = newEndpoint({ dnsName: 'www.example.org', recordType: 'A', targets: ['192.0.2.1'], labels: { resource: 'service/default/web' } });

async function values(metrics: MetricsRegistry, name: string): Promise<{ labels: Record<string, string | number>; value: number }[]> {
  const m = (await metrics.getMetricsAsJSON()).find((x) => x.name === name);
  return (m?.values ?? []).map((v) => ({ labels: { ...v.labels } as Record<string, string | number>, value: v.value }));
}

async function total(metrics: MetricsRegistry, name: string): Promise<number> {
  return (await values(metrics, name)).reduce((n, v) => n + v.value, 0);
}

function setup(source: FakeSource, registry: FakeRegistry): { c: ReturnType<typeof testController>; metrics: MetricsRegistry } {
  const metrics = new MetricsRegistry();
  return { c: testController(source, registry, { metrics: new ControllerMetrics(metrics), backoff: { initialMs: 5, maxMs: 10 } }), metrics };
}

describe('external-dns controller metrics', () => {
  test('a sync with nothing to change counts as a no-op run; one that applies does not', async () => {
    const { c, metrics } = setup(new FakeSource([www]), new FakeRegistry('me'));
    await c.runOnce();
    assert.equal(await total(metrics, 'external_dns_controller_no_op_runs_total'), 0);
    await c.runOnce();
    await c.runOnce();
    assert.equal(await total(metrics, 'external_dns_controller_no_op_runs_total'), 2);
  });

  test('records by type, from the source and from the registry', async () => {
    const v6 = newEndpoint({ dnsName: 'www.example.org', recordType: 'AAAA', targets: ['2001:db8::1'], labels: { resource: 'service/default/web' } });
    const old = newEndpoint({ dnsName: 'old.example.org', recordType: 'CNAME', targets: ['x.example.net'], labels: { owner: 'me' } });
    const { c, metrics } = setup(new FakeSource([www, v6]), new FakeRegistry('me', [old]));
    await c.runOnce();
    const byType = async (name: string): Promise<Record<string, number>> =>
      Object.fromEntries((await values(metrics, name)).map((v) => [String(v.labels['record_type']), v.value]));
    assert.deepEqual(await byType('external_dns_source_records'), { a: 1, aaaa: 1 });
    assert.deepEqual(await byType('external_dns_registry_records'), { cname: 1 });
    await c.runOnce();
    assert.deepEqual(await byType('external_dns_registry_records'), { a: 1, aaaa: 1 }, 'the CNAME is gone from the gauge once deleted');
  });

  test('a record of another owner blocking a create is counted with both owners and the parent domain, per sync', async () => {
    const foreign = newEndpoint({ dnsName: 'www.example.org', recordType: 'AAAA', targets: ['2001:db8::2'], labels: { owner: 'Other' } });
    const source = new FakeSource([www]);
    const { c, metrics } = setup(source, new FakeRegistry('me', [foreign]));
    await c.runOnce();
    assert.deepEqual(await values(metrics, 'external_dns_registry_skipped_records_owner_mismatch_per_sync'), [
      // Label values in lower case, as external-dns writes them.
      { labels: { record_type: 'aaaa', owner: 'me', foreign_owner: 'other', domain: 'example.org' }, value: 1 },
    ]);
    source.desired = [];
    await c.runOnce();
    assert.deepEqual(await values(metrics, 'external_dns_registry_skipped_records_owner_mismatch_per_sync'), [], 'reset by the next sync');
  });

  test('consecutive soft errors count transient failures in a row and drop to 0 after a success', async () => {
    const registry = new FakeRegistry('me');
    const { c, metrics } = setup(new FakeSource([www]), registry);
    for (let i = 0; i < 3; i++) registry.applyFailures.push(new ProviderError('fake', 'throttled', { transient: true }));
    const seen: number[] = [];
    const stop = new AbortController();
    const running = c.run(stop.signal);
    const deadline = Date.now() + 3000;
    while (registry.applied.length === 0 && Date.now() < deadline) {
      const v = await total(metrics, 'external_dns_controller_consecutive_soft_errors');
      if (seen.at(-1) !== v) seen.push(v);
      await new Promise((r) => setTimeout(r, 1));
    }
    stop.abort();
    await running;
    assert.equal(registry.applied.length, 1);
    assert.ok(seen.includes(3) || seen.includes(2), `rose with the failures: ${seen.join(',')}`);
    assert.equal(await total(metrics, 'external_dns_controller_consecutive_soft_errors'), 0);
  });
});
