import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../kube/resource.ts';
import { SelectorIndex } from './selector-index.ts';

const svc = (name: string, selector?: Record<string, unknown>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'istio-system' },
  spec: selector === undefined ? {} : { selector },
});

const sorted = (keys: Iterable<string> | undefined): string[] | undefined => (keys === undefined ? undefined : [...keys].sort());

test('a selector finds the Services holding its rarest pair; an empty one finds none (every Service)', () => {
  const index = new SelectorIndex();
  index.update('istio-system/a', svc('a', { istio: 'ingressgateway', app: 'a' }));
  index.update('istio-system/b', svc('b', { istio: 'ingressgateway' }));
  index.update('istio-system/c', svc('c', { istio: 'egress', app: 'c' }));
  index.update('istio-system/d', svc('d'));
  assert.deepEqual(sorted(index.candidates({ istio: 'ingressgateway' })), ['istio-system/a', 'istio-system/b']);
  assert.deepEqual(sorted(index.candidates({ istio: 'ingressgateway', app: 'a' })), ['istio-system/a']);
  assert.deepEqual(sorted(index.candidates({ istio: 'none' })), []);
  assert.deepEqual(sorted(index.candidates({ other: 'x' })), []);
  assert.equal(index.candidates({}), undefined);
});

test('an updated or deleted Service leaves its old pairs; values read as selectsService reads them', () => {
  const index = new SelectorIndex();
  index.update('ns/a', svc('a', { istio: 'ingressgateway' }));
  index.update('ns/a', svc('a', { istio: 'egress', port: 80, ports: [80] }));
  assert.deepEqual(sorted(index.candidates({ istio: 'ingressgateway' })), []);
  assert.deepEqual(sorted(index.candidates({ istio: 'egress' })), ['ns/a']);
  assert.deepEqual(sorted(index.candidates({ port: '80' })), ['ns/a']);
  assert.deepEqual(sorted(index.candidates({ ports: '80' })), []);
  index.update('ns/a', undefined);
  assert.deepEqual(sorted(index.candidates({ istio: 'egress' })), []);
  index.update('ns/gone', undefined);
});
