import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Registry as MetricsRegistry } from 'prom-client';
import { testController } from '../../test/support/controller.ts';
import { FakeRegistry, FakeSource } from '../../test/support/fakes.ts';
import { newEndpoint } from '../endpoint/endpoint.ts';
import { ProviderError } from '../errors.ts';
import { silentLogger } from '../log.ts';
import { ABORTED, untilAborted } from './controller.ts';
import type { Controller, ControllerOptions } from './controller.ts';
import { ControllerMetrics } from './metrics.ts';

const www = newEndpoint({ dnsName: 'www.example.org', recordType: 'A', targets: ['192.0.2.1'], labels: { resource: 'service/default/web' } });

function controller(source: FakeSource, registry: FakeRegistry, extra: Partial<ControllerOptions> = {}): { c: Controller; metrics: MetricsRegistry } {
  const metrics = new MetricsRegistry();
  const c = testController(source, registry, {
    metrics: new ControllerMetrics(metrics),
    backoff: { initialMs: 5, maxMs: 20 },
    ...extra,
  });
  return { c, metrics };
}

async function waitFor(cond: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function metricValue(metrics: MetricsRegistry, name: string): Promise<number> {
  const m = (await metrics.getMetricsAsJSON()).find((x) => x.name === name);
  return (m?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}

describe('Controller.runOnce', () => {
  test("the source's held resources reach the planner: their records are neither updated nor deleted", async () => {
    const owned = (name: string, resource: string) =>
      newEndpoint({ dnsName: name, recordType: 'A', targets: ['192.0.2.1'], labels: { owner: 'me', resource } });
    const registry = new FakeRegistry('me', [owned('www.example.org', 'service/default/web'), owned('old.example.org', 'service/default/old')]);
    const source = new FakeSource([]);
    source.held = new Set(['service/default/web']);
    const { c } = controller(source, registry);
    const result = await c.runOnce();
    assert.deepEqual(
      result.changes.delete.map((e) => e.dnsName),
      ['old.example.org'],
    );
    assert.deepEqual(
      (await registry.records()).map((e) => e.dnsName),
      ['www.example.org'],
    );
  });

  test('creates desired records with the owner label and reports them in metrics', async () => {
    const registry = new FakeRegistry('me');
    const { c, metrics } = controller(new FakeSource([www]), registry);
    const result = await c.runOnce();
    assert.equal(result.applied, true);
    assert.equal(result.changes.create.length, 1);
    const stored = await registry.records();
    assert.equal(stored[0]?.labels['owner'], 'me');
    assert.equal(await metricValue(metrics, 'external_dns_source_endpoints_total'), 1);
    assert.ok((await metricValue(metrics, 'external_dns_controller_last_sync_timestamp_seconds')) > 0);
    const again = await c.runOnce();
    assert.equal(again.applied, false, 'second sync has nothing to do');
  });

  test('--dry-run plans but applies nothing', async () => {
    const registry = new FakeRegistry('me');
    const { c } = controller(new FakeSource([www]), registry, { dryRun: true });
    const result = await c.runOnce();
    assert.equal(result.changes.create.length, 1);
    assert.equal(result.applied, false);
    assert.equal(registry.applied.length, 0);
  });

  test('verified records count desired record sets the provider already holds as wanted, by type', async () => {
    const owned = { owner: 'me', resource: 'service/default/web' };
    const api = newEndpoint({ dnsName: 'api.example.org', recordType: 'A', targets: ['192.0.2.2'], labels: { resource: 'service/default/api' } });
    const apiV6 = newEndpoint({ dnsName: 'api.example.org', recordType: 'AAAA', targets: ['2001:db8::1'], labels: { resource: 'service/default/api' } });
    const eu = newEndpoint({
      dnsName: 'api.example.org',
      recordType: 'A',
      setIdentifier: 'eu',
      targets: ['192.0.2.3'],
      labels: { resource: 'service/default/api' },
    });
    const txt = newEndpoint({ dnsName: 'txt.example.org', recordType: 'TXT', targets: ['"x"'], labels: { resource: 'service/default/api' } });
    const registry = new FakeRegistry('me', [
      newEndpoint({ ...www, labels: owned }),
      newEndpoint({ ...api, targets: ['192.0.2.99'], labels: { ...api.labels, owner: 'me' } }),
      newEndpoint({ ...apiV6, labels: { ...apiV6.labels, owner: 'me' } }),
      newEndpoint({ ...txt, labels: { ...txt.labels, owner: 'me' } }),
    ]);
    const { c, metrics } = controller(new FakeSource([www, api, apiV6, eu, txt]), registry);
    await c.runOnce();
    const byType = async (): Promise<Record<string, number>> =>
      Object.fromEntries(
        ((await metrics.getMetricsAsJSON()).find((m) => m.name === 'external_dns_controller_verified_records')?.values ?? []).map((v) => [
          String(v.labels['record_type']),
          v.value,
        ]),
      );
    // www and the AAAA are held as wanted; api's A is updated and the eu set created; TXT is not managed.
    // Label values in lower case, as external-dns writes them.
    assert.deepEqual(await byType(), { a: 1, aaaa: 1 });
    await c.runOnce();
    assert.deepEqual(await byType(), { a: 3, aaaa: 1 });
  });

  test('source failures count as source errors and propagate', async () => {
    const source = new FakeSource([www]);
    source.failures.push(new Error('boom'));
    const { c, metrics } = controller(source, new FakeRegistry('me'));
    await assert.rejects(c.runOnce(), /boom/);
    assert.equal(await metricValue(metrics, 'external_dns_source_errors_total'), 1);
  });
});

describe('Controller.run', () => {
  test('retries transient errors with backoff and never exits on them', async () => {
    const registry = new FakeRegistry('me');
    for (let i = 0; i < 3; i++) registry.applyFailures.push(new ProviderError('fake', 'throttled', { transient: true }));
    const { c, metrics } = controller(new FakeSource([www]), registry);
    const stop = new AbortController();
    const running = c.run(stop.signal);
    await waitFor(() => registry.applied.length === 1, 'a successful apply after 3 transient failures');
    stop.abort();
    await running;
    assert.equal(await metricValue(metrics, 'hostwarden_sync_retries_total'), 3);
    assert.equal(await metricValue(metrics, 'external_dns_registry_errors_total'), 3);
  });

  test('a permanent error waits for the next event instead of retrying', async () => {
    const source = new FakeSource([www]);
    const registry = new FakeRegistry('me');
    registry.applyFailures.push(new ProviderError('fake', 'bad record', { transient: false }));
    const { c, metrics } = controller(source, registry);
    const stop = new AbortController();
    const running = c.run(stop.signal);
    await waitFor(() => source.calls === 1, 'first sync');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(source.calls, 1, 'no retry without an event');
    source.emit();
    await waitFor(() => registry.applied.length === 1, 'apply after the event');
    stop.abort();
    await running;
    assert.equal(await metricValue(metrics, 'hostwarden_sync_retries_total'), 0);
  });

  test('events are debounced by the minimum event sync interval', async () => {
    const source = new FakeSource([www]);
    const { c } = controller(source, new FakeRegistry('me'), { minEventSyncIntervalMs: 150 });
    const stop = new AbortController();
    const running = c.run(stop.signal);
    await waitFor(() => source.calls === 1, 'first sync');
    for (let i = 0; i < 20; i++) source.emit();
    await waitFor(() => source.calls === 2, 'one event-triggered sync');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(source.calls, 2, 'twenty events cause one sync');
    stop.abort();
    await running;
  });

  test('a stop does not wait for a sync that hangs; its late failure is only logged', async () => {
    const source = new FakeSource([www]);
    let fail!: (err: Error) => void;
    source.endpoints = () => {
      source.calls++;
      return new Promise((_resolve, reject) => (fail = reject));
    };
    const { c } = controller(source, new FakeRegistry('me'));
    const stop = new AbortController();
    const running = c.run(stop.signal);
    await waitFor(() => source.calls === 1, 'the sync to start');
    stop.abort();
    const stopped = await Promise.race([running.then(() => true), new Promise((r) => setTimeout(() => r(false), 1000))]);
    assert.equal(stopped, true, 'run() returned without the sync');
    // Rejecting after the stop must not surface as an unhandled rejection.
    fail(new Error('the source finally gave up'));
    await new Promise((r) => setImmediate(r));
  });

  test('untilAborted: the outcome of the work, or ABORTED at once', async () => {
    const log = silentLogger();
    assert.equal(await untilAborted(Promise.resolve(7), new AbortController().signal, log), 7);
    const stop = new AbortController();
    stop.abort();
    assert.equal(await untilAborted(new Promise(() => undefined), stop.signal, log), ABORTED);
    await assert.rejects(untilAborted(Promise.reject(new Error('boom')), new AbortController().signal, log), /boom/);
  });

  test('syncs again every interval', async () => {
    const source = new FakeSource([www]);
    const { c } = controller(source, new FakeRegistry('me'), { intervalMs: 20 });
    const stop = new AbortController();
    const running = c.run(stop.signal);
    await waitFor(() => source.calls >= 3, 'three interval syncs');
    stop.abort();
    await running;
  });
});
