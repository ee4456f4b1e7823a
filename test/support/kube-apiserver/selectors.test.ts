import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFieldSelector, parseLabelSelector } from './selectors.ts';
import { ApiError } from './types.ts';
import type { KubeObject } from './types.ts';

const obj = (labels: Record<string, string>, extra: Partial<KubeObject> = {}): KubeObject => ({ metadata: { name: 'n', namespace: 'ns', labels }, ...extra });

describe('selectors', () => {
  test('label selectors: equality, inequality, sets, existence', () => {
    const o = obj({ app: 'web', tier: 'front' });
    const yes = ['', 'app=web', 'app==web', 'app!=db', 'tier in (front, back)', 'tier notin (back)', 'app', '!missing', 'app=web,tier'];
    const no = ['app=db', 'app!=web', 'tier in (back)', 'tier notin (front,back)', 'missing', '!app', 'app=web,missing'];
    for (const s of yes) assert.ok(parseLabelSelector(s)(o), s);
    for (const s of no) assert.ok(!parseLabelSelector(s)(o), s);
    assert.ok(parseLabelSelector(null)(o));
    assert.throws(
      () => parseLabelSelector('a b c'),
      (e: unknown) => e instanceof ApiError && e.status === 400,
    );
  });

  test('field selectors: metadata and any dotted path, = and != only', () => {
    const o = obj({}, { spec: { type: 'LoadBalancer' }, reason: 'RecordReady' });
    assert.ok(parseFieldSelector('metadata.name=n,metadata.namespace=ns')(o));
    assert.ok(parseFieldSelector('spec.type==LoadBalancer,reason!=Other')(o));
    assert.ok(!parseFieldSelector('metadata.name!=n')(o));
    assert.ok(parseFieldSelector('metadata.namespace=')({ metadata: { name: 'cluster-scoped' } }));
    assert.throws(
      () => parseFieldSelector('metadata.name in (a)'),
      (e: unknown) => e instanceof ApiError && e.status === 400,
    );
  });
});
