import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceRegistry } from './resources.ts';
import { ObjectStore } from './store.ts';
import { ApiError } from './types.ts';

function setup(historyLimit = 100): { store: ObjectStore; cm: NonNullable<ReturnType<ResourceRegistry['lookup']>> } {
  const resources = new ResourceRegistry();
  const store = new ObjectStore(resources, { historyLimit, now: () => new Date('2026-01-02T03:04:05.678Z') });
  store.create(resources.lookup('', 'v1', 'namespaces')!, '', { metadata: { name: 'default' } });
  return { store, cm: resources.lookup('', 'v1', 'configmaps')! };
}

describe('ObjectStore', () => {
  test('server-set metadata; generation moves only with non-metadata, non-status changes', () => {
    const { store, cm } = setup();
    const a = store.create(cm, 'default', { metadata: { name: 'a' }, data: { k: 'v' } });
    assert.equal(a.metadata.creationTimestamp, '2026-01-02T03:04:05Z');
    assert.equal(a.metadata.generation, 1);
    const labelled = store.update(cm, 'default', 'a', { ...a, metadata: { ...a.metadata, labels: { x: 'y' } } });
    assert.equal(labelled.metadata.generation, 1);
    const changed = store.update(cm, 'default', 'a', { ...labelled, data: { k: 'w' } });
    assert.equal(changed.metadata.generation, 2);
    const same = store.update(cm, 'default', 'a', changed);
    assert.equal(same.metadata.resourceVersion, changed.metadata.resourceVersion, 'a no-op update keeps the resourceVersion');
  });

  test('the history is bounded: older resourceVersions are gone, snapshots too', () => {
    const { store, cm } = setup(3);
    const start = store.currentRv();
    for (let i = 0; i < 5; i++) store.create(cm, 'default', { metadata: { name: `c${i}` } });
    assert.equal(store.eventsSince(start), undefined);
    assert.equal(store.eventsSince(store.currentRv() - 3)?.length, 3);
    assert.equal(store.list(cm, 'default', start), undefined);
    assert.deepEqual(
      store.list(cm, 'default', store.currentRv() - 2)?.map((o) => o.metadata.name),
      ['c0', 'c1', 'c2'],
    );
  });

  test('returned objects are copies: changing them changes nothing stored', () => {
    const { store, cm } = setup();
    const a = store.create(cm, 'default', { metadata: { name: 'a' }, data: { k: 'v' } });
    (a.data as Record<string, string>).k = 'mutated';
    store.list(cm, 'default')![0]!.metadata.name = 'mutated';
    assert.deepEqual(store.get(cm, 'default', 'a').data, { k: 'v' });
    assert.deepEqual(store.eventsSince(0)!.at(-1)!.object.data, { k: 'v' });
  });

  test('generateName, missing namespace, bad names', () => {
    const { store, cm } = setup();
    assert.match(store.create(cm, 'default', { metadata: { name: '', generateName: 'gen-' } }).metadata.name, /^gen-[0-9a-f]{5}$/);
    assert.throws(
      () => store.create(cm, 'missing', { metadata: { name: 'x' } }),
      (e: unknown) => e instanceof ApiError && e.status === 404,
    );
    assert.throws(
      () => store.create(cm, 'default', { metadata: { name: 'UPPER' } }),
      (e: unknown) => e instanceof ApiError && e.status === 422,
    );
  });
});
