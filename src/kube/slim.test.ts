import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nodeTemplateView, podTemplateView, slimNode, slimPodSource, slimService, templateView } from './slim.ts';

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

test('Nodes: the slim view keeps addresses, cordon, labels and annotations; the template view all but managedFields, last-applied and conditions', () => {
  const raw = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: 'n1',
      uid: 'u1',
      labels: { 'topology.kubernetes.io/region': 'eu-west-1' },
      annotations: { 'user-annotation': 'value', 'kubectl.kubernetes.io/last-applied-configuration': '{"apiVersion":"v1"}' },
      managedFields: [{ manager: 'kubectl' }],
    },
    spec: { unschedulable: true, podCIDR: '10.244.0.0/24' },
    status: {
      addresses: [{ type: 'ExternalIP', address: '1.2.3.4' }],
      conditions: [{ type: 'Ready', status: 'True' }],
      nodeInfo: { architecture: 'arm64' },
    },
  };
  const slim = slimNode(raw);
  assert.deepEqual(slim['status'], { addresses: [{ type: 'ExternalIP', address: '1.2.3.4' }] });
  assert.deepEqual(slim['spec'], { unschedulable: true });
  assert.deepEqual(slim.metadata.labels, { 'topology.kubernetes.io/region': 'eu-west-1' });
  assert.equal(slim.metadata.annotations?.['user-annotation'], 'value');
  const view = nodeTemplateView(raw);
  assert.deepEqual(view['status'], { addresses: [{ type: 'ExternalIP', address: '1.2.3.4' }], nodeInfo: { architecture: 'arm64' } });
  assert.deepEqual(view['spec'], { unschedulable: true, podCIDR: '10.244.0.0/24' });
  assert.equal('managedFields' in view.metadata, false);
  assert.deepEqual(view.metadata.annotations, { 'user-annotation': 'value' });
  assert.deepEqual(raw.status.conditions, [{ type: 'Ready', status: 'True' }], 'the input is not changed');
});
