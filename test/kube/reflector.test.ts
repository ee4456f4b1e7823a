/**
 * The reflector against the test API server's fault injection: dropped watches, hung watches,
 * expired resourceVersions (410) and failing requests. In every case the cache ends up equal to
 * the server's objects: no change is missed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '../../src/kube/client.ts';
import { Reflector } from '../../src/kube/reflector.ts';
import type { ListWatchClient } from '../../src/kube/reflector.ts';
import { SERVICES } from '../../src/kube/resource.ts';
import type { KubeObject } from '../../src/kube/resource.ts';
import { slimService, stubObject } from '../../src/kube/slim.ts';
import { silentLogger } from '../../src/log.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { KubeObject as StoredObject, TestApiServer } from '../support/kube-apiserver/server.ts';
import { gatewayCrd, waitFor } from './harness.ts';

function svc(name: string, ip = '192.0.2.1'): StoredObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name,
      namespace: 'default',
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"big":"x"}', keep: 'me' },
      managedFields: [{ manager: 'kubectl' }],
    },
    spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
    status: { loadBalancer: { ingress: [{ ip }] } },
  };
}

describe('reflector', () => {
  let api: TestApiServer;
  let client: KubeClient;
  let reflector: Reflector<KubeObject>;
  const changes: string[] = [];

  const serverNames = (): string[] =>
    api
      .list('v1', 'Service', 'default')
      .map((o) => o.metadata.name)
      .sort();
  const cachedNames = (): string[] => [...reflector.items()].map((o) => o.metadata.name).sort();
  const inSync = (): true | undefined => (JSON.stringify(serverNames()) === JSON.stringify(cachedNames()) ? true : undefined);

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 100 });
    client = new KubeClient({ config: api.kubeConfig(), logger: silentLogger() });
    api.create(svc('initial'));
    reflector = new Reflector<KubeObject>({
      client,
      resource: SERVICES,
      namespace: '',
      logger: silentLogger(),
      transform: slimService,
      inactivityTimeoutMs: 600,
      pageSize: 2,
      backoff: { initialMs: 50, maxMs: 200 },
    });
    reflector.onChange((type, key) => changes.push(`${type} ${key}`));
    reflector.start();
    assert.equal(await reflector.waitForSync(5000), true);
  });

  after(async () => {
    await reflector.stop();
    client.close();
    await api.stop();
  });

  test('lists in pages and keeps only the fields sources need', () => {
    const obj = reflector.get('default/initial');
    assert.ok(obj !== undefined);
    assert.equal(obj.metadata.annotations?.['keep'], 'me');
    assert.equal(obj.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'], undefined);
    assert.equal((obj.metadata as unknown as Record<string, unknown>)['managedFields'], undefined);
    assert.deepEqual(obj['status'], { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } });
  });

  test('a dropped watch resumes from its resourceVersion without listing again', async () => {
    const lists = reflector.stats.lists;
    api.dropWatches();
    api.create(svc('after-drop'));
    await waitFor('after-drop cached', () => (reflector.get('default/after-drop') !== undefined ? true : undefined));
    assert.equal(reflector.stats.lists, lists);
    assert.ok(changes.includes('added default/after-drop'));
  });

  test('a hung watch is detected by the watchdog and the missed change is listed', async () => {
    const stalls = reflector.stats.stalls;
    api.hangWatches(true);
    api.create(svc('during-hang'));
    await waitFor('during-hang cached', () => (reflector.get('default/during-hang') !== undefined ? true : undefined));
    assert.ok(reflector.stats.stalls > stalls);
    api.hangWatches(false);
    api.create(svc('after-hang'));
    await waitFor('after-hang cached', () => (reflector.get('default/after-hang') !== undefined ? true : undefined));
    await waitFor('cache equals server', inSync);
  });

  test('an expired resourceVersion (410) lists again and reports what changed meanwhile', async () => {
    const gone = reflector.stats.gone;
    // All synchronous: the reflector cannot re-watch before the history is compacted.
    api.dropWatches();
    api.create(svc('while-gone'));
    api.delete({ apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'initial' });
    const changed = svc('after-drop', '192.0.2.99');
    const stored = api.get({ apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'after-drop' });
    changed.metadata.resourceVersion = stored?.metadata.resourceVersion as string;
    api.update(changed);
    api.compactHistory();
    await waitFor('cache equals server after 410', inSync);
    assert.ok(reflector.stats.gone > gone, 'the reflector saw 410 Gone');
    assert.ok(changes.includes('deleted default/initial'));
    await waitFor('updated status cached', () =>
      (reflector.get('default/after-drop')?.['status'] as { loadBalancer: { ingress: { ip: string }[] } } | undefined)?.loadBalancer.ingress[0]?.ip ===
      '192.0.2.99'
        ? true
        : undefined,
    );
  });

  test('failing requests are retried with backoff', async () => {
    const failures = reflector.stats.failures;
    api.failNextRequests(3, 503, (r) => r.plural === 'services');
    api.dropWatches();
    api.create(svc('after-failures'));
    await waitFor('after-failures cached', () => (reflector.get('default/after-failures') !== undefined ? true : undefined));
    assert.ok(reflector.stats.failures >= failures + 3);
    await waitFor('cache equals server', inSync);
  });
});

describe('reflector keeping stubs (retain)', () => {
  test('handlers see whole objects, the cache keeps stubs, and a re-list still reports changes and deletions', async () => {
    const api = await startTestApiServer({ bookmarkIntervalMs: 100 });
    const client = new KubeClient({ config: api.kubeConfig(), logger: silentLogger() });
    const seen: { type: string; key: string; ip: string | undefined }[] = [];
    const reflector = new Reflector<KubeObject>({
      client,
      resource: SERVICES,
      namespace: '',
      logger: silentLogger(),
      transform: slimService,
      retain: stubObject,
      backoff: { initialMs: 50, maxMs: 200 },
    });
    const ipOf = (obj: KubeObject | undefined): string | undefined =>
      (obj?.['status'] as { loadBalancer?: { ingress?: { ip?: string }[] } } | undefined)?.loadBalancer?.ingress?.[0]?.ip;
    reflector.onChange((type, key, obj) => seen.push({ type, key, ip: ipOf(obj) }));
    try {
      api.create(svc('a'));
      api.create(svc('b'));
      reflector.start();
      assert.equal(await reflector.waitForSync(5000), true);
      assert.deepEqual(seen.map((s) => `${s.type} ${s.key} ${s.ip}`).sort(), ['added default/a 192.0.2.1', 'added default/b 192.0.2.1']);
      const stub = reflector.get('default/a');
      assert.deepEqual(Object.keys(stub ?? {}).sort(), ['apiVersion', 'kind', 'metadata']);
      assert.deepEqual(Object.keys(stub?.metadata ?? {}).sort(), ['name', 'namespace', 'resourceVersion']);

      // Missed while the watch is gone: a change to a and the deletion of b, found by the re-list.
      seen.length = 0;
      api.dropWatches();
      const stored = api.get({ apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'a' });
      const changed = svc('a', '192.0.2.77');
      changed.metadata.resourceVersion = stored?.metadata.resourceVersion as string;
      api.update(changed);
      api.delete({ apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'b' });
      api.compactHistory();
      await waitFor('re-list reported both', () => (seen.length >= 2 ? true : undefined));
      assert.deepEqual(seen.map((s) => `${s.type} ${s.key} ${s.ip}`).sort(), ['deleted default/b undefined', 'modified default/a 192.0.2.77']);
      assert.equal(reflector.size, 1);
    } finally {
      await reflector.stop();
      client.close();
      await api.stop();
    }
  });
});

test('stop() while the first list is in flight: no watch is opened afterwards, and stop() returns', async () => {
  let answerList: (v: unknown) => void = () => {};
  const watches: AbortSignal[] = [];
  let listSignal: AbortSignal | undefined;
  const fake: ListWatchClient = {
    request: ((_m: string, _p: string, spec: { signal?: AbortSignal }) => {
      listSignal = spec.signal;
      return new Promise<unknown>((resolve) => (answerList = resolve));
    }) as ListWatchClient['request'],
    watch: ((_path: string, _q: unknown, _on: unknown, signal: AbortSignal) => {
      watches.push(signal);
      return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    }) as ListWatchClient['watch'],
  };
  const r = new Reflector<KubeObject>({ client: fake, resource: SERVICES, namespace: '', logger: silentLogger() });
  r.start();
  await new Promise((resolve) => setImmediate(resolve));
  const stopped = r.stop();
  assert.equal(listSignal?.aborted, true, 'stop() aborts the list in flight');
  answerList({ metadata: { resourceVersion: '7' }, items: [{ metadata: { name: 'late', namespace: 'default', resourceVersion: '7' } }] });
  const outcome = await Promise.race([stopped.then(() => 'stopped'), new Promise((resolve) => setTimeout(() => resolve('hung'), 2000))]);
  assert.equal(outcome, 'stopped');
  assert.equal(watches.length, 0);
  assert.equal(r.hasSynced(), false, 'a list that ended after stop() changes nothing');
});

test('a resource not served (404 lists): one 404 is retried as it is; two in a row make the reflector synced and empty, and it says so once each way', async () => {
  const api = await startTestApiServer({ bookmarkIntervalMs: 100 });
  const client = new KubeClient({ config: api.kubeConfig(), logger: silentLogger() });
  const gateways = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', plural: 'gateways', namespaced: true };
  const served: boolean[] = [];
  const lone = new Reflector<KubeObject>({ client, resource: SERVICES, namespace: '', logger: silentLogger(), backoff: { initialMs: 20, maxMs: 50 } });
  const absent = new Reflector<KubeObject>({ client, resource: gateways, namespace: '', logger: silentLogger(), backoff: { initialMs: 20, maxMs: 50 } });
  try {
    api.failNextRequests(1, 404, (r) => r.verb === 'list' && r.plural === 'services');
    lone.onServedChange((s) => served.push(s));
    lone.start();
    assert.equal(await lone.waitForSync(5000), true);
    assert.deepEqual(served, [], 'a single 404 (an API server still starting) is only retried');

    const changes: boolean[] = [];
    absent.onServedChange((s) => changes.push(s));
    absent.start();
    assert.equal(await absent.waitForSync(5000), true, 'synced, empty, while not served');
    assert.equal(absent.isServed(), false);
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(changes, [false], 'told once, however often it retries');
    api.create(gatewayCrd('gateways', 'Gateway'));
    api.create({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'g', namespace: 'default' },
      spec: { gatewayClassName: 'c', listeners: [{ name: 'l', port: 80, protocol: 'HTTP' }] },
    });
    await waitFor('the Gateway is listed once served', () => (absent.get('default/g') !== undefined ? true : undefined));
    assert.deepEqual(changes, [false, true]);
  } finally {
    await lone.stop();
    await absent.stop();
    client.close();
    await api.stop();
  }
});
