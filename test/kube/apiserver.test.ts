/**
 * The test API server driven through the real @kubernetes/client-node over HTTP: if these pass,
 * code under test sees what it would see from kube-apiserver for the behaviours it relies on.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiException, CoreV1Api, PatchStrategy, Watch, makeInformer, setHeaderOptions } from '@kubernetes/client-node';
import type { KubeConfig, V1Service } from '@kubernetes/client-node';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';

async function waitFor(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 10_000 && Date.now() < deadline; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`timed out waiting for ${what}`);
}

async function statusOf(p: Promise<unknown>): Promise<{ code: number; reason: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiException) {
      const body = JSON.parse(String(err.body)) as { reason: string };
      return { code: err.code, reason: body.reason };
    }
    throw err;
  }
  assert.fail('expected the call to fail');
}

function service(name: string, labels: Record<string, string> = {}): V1Service {
  return { metadata: { name, labels }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } };
}

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

interface Seen {
  type: string;
  name: string;
  rv: string;
}

async function startWatch(
  kc: KubeConfig,
  path: string,
  params: Record<string, string | boolean>,
  seen: Seen[],
  done: { err?: unknown; ended: boolean },
): Promise<AbortController> {
  return new Watch(kc).watch(
    path,
    params,
    (type, obj: { metadata?: { name?: string; resourceVersion?: string } }) =>
      seen.push({ type, name: obj.metadata?.name ?? '', rv: obj.metadata?.resourceVersion ?? '' }),
    (err: unknown) => {
      done.err = err;
      done.ended = true;
    },
  );
}

describe('test API server through @kubernetes/client-node', () => {
  let api: TestApiServer;
  let kc: KubeConfig;
  let core: CoreV1Api;
  const controllers: AbortController[] = [];

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 100 });
    kc = api.kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
  });
  after(async () => {
    for (const c of controllers) c.abort();
    await api.stop();
  });

  test('create, get, replace, delete a Service; 404, 409 AlreadyExists, 409 Conflict, 422 Invalid', async () => {
    const created = await core.createNamespacedService({ namespace: 'default', body: service('crud') });
    assert.ok(created.metadata?.uid);
    assert.equal(created.metadata?.generation, 1);
    assert.match(created.metadata?.resourceVersion ?? '', /^\d+$/);
    assert.deepEqual(await statusOf(core.createNamespacedService({ namespace: 'default', body: service('crud') })), { code: 409, reason: 'AlreadyExists' });
    assert.deepEqual(await statusOf(core.createNamespacedService({ namespace: 'default', body: service('Bad_Name') })), { code: 422, reason: 'Invalid' });
    assert.deepEqual(await statusOf(core.createNamespacedService({ namespace: 'nope', body: service('x') })), { code: 404, reason: 'NotFound' });

    const got = await core.readNamespacedService({ name: 'crud', namespace: 'default' });
    got.spec!.ports = [{ port: 443 }];
    const replaced = await core.replaceNamespacedService({ name: 'crud', namespace: 'default', body: got });
    assert.equal(replaced.metadata?.generation, 2);
    assert.ok(Number(replaced.metadata?.resourceVersion) > Number(got.metadata?.resourceVersion));
    assert.deepEqual(await statusOf(core.replaceNamespacedService({ name: 'crud', namespace: 'default', body: got })), { code: 409, reason: 'Conflict' });

    const labelled = await core.patchNamespacedService({ name: 'crud', namespace: 'default', body: { metadata: { labels: { a: 'b' } } } }, merge);
    assert.equal(labelled.metadata?.generation, 2, 'metadata changes keep the generation');

    await core.deleteNamespacedService({ name: 'crud', namespace: 'default' });
    assert.deepEqual(await statusOf(core.readNamespacedService({ name: 'crud', namespace: 'default' })), { code: 404, reason: 'NotFound' });
  });

  test('list with label and field selectors and limit/continue pagination', async () => {
    await core.createNamespace({ body: { metadata: { name: 'paging' } } });
    for (let i = 0; i < 7; i++) await core.createNamespacedService({ namespace: 'paging', body: service(`s${i}`, { tier: i % 2 === 0 ? 'even' : 'odd' }) });
    const names: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < 10; page++) {
      const list = await core.listNamespacedService({ namespace: 'paging', limit: 3, _continue: token });
      names.push(...list.items.map((s) => s.metadata!.name!));
      token = list.metadata?._continue;
      if (token === undefined) break;
    }
    assert.deepEqual(names, ['s0', 's1', 's2', 's3', 's4', 's5', 's6']);
    const even = await core.listNamespacedService({ namespace: 'paging', labelSelector: 'tier=even' });
    assert.deepEqual(
      even.items.map((s) => s.metadata?.name),
      ['s0', 's2', 's4', 's6'],
    );
    const notIn = await core.listServiceForAllNamespaces({ labelSelector: 'tier notin (even),tier' });
    assert.deepEqual(
      notIn.items.map((s) => s.metadata?.name),
      ['s1', 's3', 's5'],
    );
    const one = await core.listNamespacedService({ namespace: 'paging', fieldSelector: 'metadata.name=s3' });
    assert.deepEqual(
      one.items.map((s) => s.metadata?.name),
      ['s3'],
    );

    const first = await core.listNamespacedService({ namespace: 'paging', limit: 2 });
    const second = await core.listNamespacedService({ namespace: 'paging', limit: 2, _continue: first.metadata?._continue });
    assert.deepEqual(
      second.items.map((s) => s.metadata?.name),
      ['s2', 's3'],
    );
    // Like etcd after compaction: a continue token from before the oldest kept revision is gone.
    await core.createNamespacedService({ namespace: 'paging', body: service('late') });
    api.compactHistory();
    assert.deepEqual(await statusOf(core.listNamespacedService({ namespace: 'paging', limit: 2, _continue: first.metadata?._continue })), {
      code: 410,
      reason: 'Expired',
    });
  });

  test('watch: ADDED/MODIFIED/DELETED, replay from a resourceVersion, bookmarks, 410 after compaction', async () => {
    await core.createNamespace({ body: { metadata: { name: 'watching' } } });
    const start = (await core.listNamespacedService({ namespace: 'watching' })).metadata!.resourceVersion!;
    await core.createNamespacedService({ namespace: 'watching', body: service('w1') });
    const seen: Seen[] = [];
    const done = { ended: false } as { err?: unknown; ended: boolean };
    controllers.push(await startWatch(kc, '/api/v1/namespaces/watching/services', { resourceVersion: start, allowWatchBookmarks: true }, seen, done));
    await waitFor('replayed ADDED', () => seen.some((e) => e.type === 'ADDED' && e.name === 'w1'));
    await core.patchNamespacedService({ name: 'w1', namespace: 'watching', body: { spec: { ports: [{ port: 81 }] } } }, merge);
    await core.deleteNamespacedService({ name: 'w1', namespace: 'watching' });
    await waitFor('DELETED', () => seen.some((e) => e.type === 'DELETED'));
    assert.deepEqual(
      seen.filter((e) => e.type !== 'BOOKMARK').map((e) => e.type),
      ['ADDED', 'MODIFIED', 'DELETED'],
    );
    await waitFor('a bookmark', () => seen.some((e) => e.type === 'BOOKMARK'));
    assert.ok(Number(seen.find((e) => e.type === 'BOOKMARK')!.rv) >= Number(start));

    api.compactHistory();
    const old: Seen[] = [];
    const oldDone = { ended: false } as { err?: unknown; ended: boolean };
    controllers.push(await startWatch(kc, '/api/v1/namespaces/watching/services', { resourceVersion: start }, old, oldDone));
    await waitFor('the stream to end', () => oldDone.ended);
    assert.equal(old.length, 1);
    assert.equal(old[0]!.type, 'ERROR');
  });

  test('watch with a label selector sees objects leave and enter the selection', async () => {
    await core.createNamespacedService({ namespace: 'default', body: service('sel', { app: 'x' }) });
    const seen: Seen[] = [];
    const done = { ended: false } as { err?: unknown; ended: boolean };
    controllers.push(await startWatch(kc, '/api/v1/namespaces/default/services', { labelSelector: 'app=x' }, seen, done));
    await waitFor('initial ADDED', () => seen.length === 1);
    await core.patchNamespacedService({ name: 'sel', namespace: 'default', body: { metadata: { labels: { app: 'y' } } } }, merge);
    await core.patchNamespacedService({ name: 'sel', namespace: 'default', body: { metadata: { labels: { app: 'x' } } } }, merge);
    await waitFor('leave and enter', () => seen.length === 3);
    assert.deepEqual(
      seen.map((e) => e.type),
      ['ADDED', 'DELETED', 'ADDED'],
    );
  });

  test('informer keeps its cache through dropped watches, 410 Gone and hung watches', async () => {
    await core.createNamespace({ body: { metadata: { name: 'inf' } } });
    const path = '/api/v1/namespaces/inf/services';
    const informer = makeInformer(kc, path, () => core.listNamespacedService({ namespace: 'inf' }));
    const errors: unknown[] = [];
    informer.on('error', (err) => errors.push(err));
    await informer.start();
    try {
      const names = (): string[] =>
        informer
          .list()
          .map((s) => s.metadata!.name!)
          .sort();
      await core.createNamespacedService({ namespace: 'inf', body: service('a') });
      await waitFor('a in cache', () => names().includes('a'));

      api.dropWatches();
      await core.createNamespacedService({ namespace: 'inf', body: service('b') });
      await waitFor('b after a dropped watch', () => names().includes('b'));

      // Compact while no watch is open: the informer's re-watch from its old RV gets 410 and re-lists.
      api.compactHistory();
      api.failNextRequests(1, 500, (r) => r.verb === 'watch' && r.namespace === 'inf');
      api.dropWatches();
      await core.deleteNamespacedService({ name: 'a', namespace: 'inf' });
      await core.createNamespacedService({ namespace: 'inf', body: service('c') });
      api.compactHistory();
      await waitFor('informer error', () => errors.length > 0);
      // client-node 1.4 stops after a non-410 error: restart it, as the reflector wrapper will.
      await informer.start();
      await waitFor('re-listed after 410', () => names().join() === 'b,c');

      api.hangWatches(true);
      await core.createNamespacedService({ namespace: 'inf', body: service('d') });
      await new Promise((r) => setTimeout(r, 100));
      assert.ok(!names().includes('d'), 'a hung watch delivers nothing');
      api.hangWatches(false);
      api.dropWatches();
      await waitFor('d after the hung watch is replaced', () => names().includes('d'));
    } finally {
      await informer.stop();
    }
  });

  test('failNextRequests answers matching requests with the given status, then recovers', async () => {
    api.failNextRequests(2, 503, (r) => r.verb === 'get' && r.plural === 'services');
    await core.createNamespacedService({ namespace: 'default', body: service('flaky') });
    assert.equal((await statusOf(core.readNamespacedService({ name: 'flaky', namespace: 'default' }))).code, 503);
    assert.equal((await statusOf(core.readNamespacedService({ name: 'flaky', namespace: 'default' }))).code, 503);
    assert.equal((await core.readNamespacedService({ name: 'flaky', namespace: 'default' })).metadata?.name, 'flaky');
  });
});
