/** ObjectWatch against the test API server: one named Lease, watched through streams that end and fail. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../log.ts';
import { INFO, WARN, capturingLogger } from '../../test/support/log-capture.ts';
import { startTestApiServer } from '../../test/support/kube-apiserver/server.ts';
import type { TestApiServer } from '../../test/support/kube-apiserver/server.ts';
import { KubeClient } from './client.ts';
import { ObjectWatch } from './object-watch.ts';
import type { ObjectWatchOptions } from './object-watch.ts';
import { LEASES } from './resource.ts';

const lease = (
  name: string,
  holder: string,
): { apiVersion: string; kind: string; metadata: { name: string; namespace: string }; spec: { holderIdentity: string } } => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name, namespace: 'default' },
  spec: { holderIdentity: holder },
});
const ref = (name: string): { apiVersion: string; kind: string; namespace: string; name: string } => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  namespace: 'default',
  name,
});
const holderOf = (o: Record<string, unknown> | undefined): string | undefined =>
  o === undefined ? undefined : ((o['spec'] as { holderIdentity?: string }).holderIdentity ?? '');

async function waitFor(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('ObjectWatch', () => {
  let api: TestApiServer;
  let client: KubeClient;
  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 100 });
    client = new KubeClient({ config: api.kubeConfig(), logger: silentLogger() });
  });
  after(async () => {
    client.close();
    await api.stop();
  });

  function watch(name: string, opts: Partial<ObjectWatchOptions> = {}): { w: ObjectWatch; seen: (string | undefined)[]; broken: { n: number } } {
    const seen: (string | undefined)[] = [];
    const broken = { n: 0 };
    const w = new ObjectWatch({
      client,
      resource: LEASES,
      namespace: 'default',
      name,
      logger: silentLogger(),
      onChange: (o) => void seen.push(holderOf(o)),
      onBroken: () => void broken.n++,
      ...opts,
    });
    return { w, seen, broken };
  }

  test('reports the object at start, each update, undefined on delete, and nothing of other objects', async () => {
    api.create(lease('one', 'a'));
    const { w, seen } = watch('one');
    w.start();
    try {
      await waitFor('the current object', () => seen.length === 1);
      assert.deepEqual(seen, ['a']);
      api.create(lease('another', 'x'));
      api.update(lease('one', 'b'));
      await waitFor('the update', () => seen.length === 2);
      api.delete(ref('one'));
      await waitFor('the delete', () => seen.length === 3);
      api.create(lease('one', 'c'));
      await waitFor('created again', () => seen.length === 4);
      assert.deepEqual(seen, ['a', 'b', undefined, 'c']);
    } finally {
      await w.stop();
    }
  });

  test('opens the stream again when the server ends it, reporting the present state; stop() ends it', async () => {
    api.create(lease('two', 'a'));
    const { w, seen, broken } = watch('two', { timeoutSeconds: 1 });
    w.start();
    await waitFor('the current object', () => seen.length === 1);
    await waitFor('the stream reopened after its timeout', () => seen.length === 2, 5000);
    assert.deepEqual(seen, ['a', 'a']);
    assert.equal(broken.n, 0, 'a stream the server ends is not broken');
    const opened = api.openWatches();
    await w.stop();
    await waitFor('the stream closed', () => api.openWatches() < opened);
    api.update(lease('two', 'b'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(seen, ['a', 'a'], 'nothing after stop()');
  });

  test('onBroken on a failed stream, then the watch opens again', async () => {
    api.create(lease('three', 'a'));
    const { w, seen, broken } = watch('three');
    w.start();
    try {
      await waitFor('the current object', () => seen.length === 1);
      api.failNextRequests(1, 500, (r) => r.verb === 'watch' && r.plural === 'leases');
      api.dropWatches();
      await waitFor('onBroken', () => broken.n === 1);
      await waitFor('open again', () => seen.length === 2);
      api.update(lease('three', 'b'));
      await waitFor('the update after the failure', () => seen.at(-1) === 'b');
    } finally {
      await w.stop();
    }
  });

  test('a refused watch (403) says so once at info (the caller reads the object instead), naming the verb, and keeps asking', async () => {
    api.create(lease('four', 'a'));
    const { logger, lines } = capturingLogger();
    const { w, seen, broken } = watch('four', { logger });
    api.failNextRequests(3, 403, (r) => r.verb === 'watch' && r.plural === 'leases');
    w.start();
    try {
      await waitFor('three refusals and a stream', () => broken.n === 3 && seen.length === 1, 10_000);
      assert.equal(lines.filter((l) => l.level === WARN).length, 0);
      const warned = lines.filter((l) => l.level === INFO && l['verb'] === 'watch');
      assert.equal(warned.length, 1, JSON.stringify(warned));
      assert.equal(warned[0]?.['verb'], 'watch');
      assert.equal(warned[0]?.['resource'], 'leases');
    } finally {
      await w.stop();
    }
  });
});
