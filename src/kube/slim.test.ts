import { test } from 'node:test';
import assert from 'node:assert/strict';
import { podTemplateView, slimPodSource, slimService, templateView } from './slim.ts';

const raw = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: {
    name: 'web',
    namespace: 'shop',
    uid: 'u-1',
    creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { app: 'web' },
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{…}', team: 'blue' },
    managedFields: [{ manager: 'kubectl' }],
  },
  spec: { type: 'ClusterIP', clusterIP: '10.0.0.1', selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] },
};

test('templateView keeps every field a template may name, without managedFields and the last-applied annotation', () => {
  assert.deepEqual(templateView(raw), {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'shop', uid: 'u-1', creationTimestamp: '2026-01-01T00:00:00Z', labels: { app: 'web' }, annotations: { team: 'blue' } },
    spec: raw.spec,
  });
  // What the slim cache drops, and why templates need the whole object.
  assert.equal((slimService(raw)['spec'] as Record<string, unknown>)['selector'], undefined);
});

test('slimPodSource keeps what the pod source reads; podTemplateView drops status conditions only', () => {
  const raw = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns', uid: 'u', annotations: { a: 'b' }, managedFields: [{}] },
    spec: { hostNetwork: true, nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] },
    status: { phase: 'Running', podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }], hostIP: '1.1.1.1', conditions: [{ type: 'Ready' }] },
  };
  assert.deepEqual(slimPodSource(raw), {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns', annotations: { a: 'b' } },
    spec: { hostNetwork: true, nodeName: 'n1' },
    status: { podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }] },
  });
  const view = podTemplateView(raw);
  assert.deepEqual(view['status'], { phase: 'Running', podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }], hostIP: '1.1.1.1' });
  assert.deepEqual(view['spec'], raw.spec);
  assert.equal('managedFields' in view.metadata ? 'present' : undefined, undefined);
});
