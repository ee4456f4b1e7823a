import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slimIngressStatus, slimIstioGateway, slimSelectedService, slimVirtualService } from './slim-istio.ts';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const meta = (name: string): Record<string, unknown> => ({
  name,
  namespace: 'default',
  uid: 'u1',
  labels: { label1: 'value1' },
  annotations: { 'user-annotation': 'value', [LAST_APPLIED]: '{"apiVersion":"v1"}' },
  managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
});

// external-dns's TestTransformerInIstioGatewaySource / ...VirtualServiceSource: managed fields,
// the last-applied annotation and status conditions go; labels, annotations and the load-balancer status stay.
test('Services keep their selector, externalIPs and load-balancer status; conditions, ports and managed fields go', () => {
  const svc = slimSelectedService({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta('fake-service'),
    spec: { selector: { selector: 'one' }, externalIPs: ['1.2.3.4'], type: 'LoadBalancer', ports: [{ port: 80 }] },
    status: { loadBalancer: { ingress: [{ ip: '5.6.7.8', ipMode: 'VIP' }] }, conditions: [{ type: 'Available', status: 'True' }] },
  });
  assert.deepEqual(svc, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'fake-service', namespace: 'default', labels: { label1: 'value1' }, annotations: { 'user-annotation': 'value' } },
    spec: { selector: { selector: 'one' }, externalIPs: ['1.2.3.4'] },
    status: { loadBalancer: { ingress: [{ ip: '5.6.7.8' }] } },
  });
});

test('Ingresses keep only metadata and the load-balancer status', () => {
  const ing = slimIngressStatus({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: meta('test-ingress'),
    spec: { rules: [{ host: 'a.example.org' }] },
    status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
  });
  assert.deepEqual(ing.status, { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } });
  assert.equal(ing['spec'], undefined);
  assert.deepEqual(ing.metadata.annotations, { 'user-annotation': 'value' });
});

test('Gateways keep selector and server hosts; VirtualServices hosts, gateways and exportTo; odd shapes are kept harmless', () => {
  const gw = slimIstioGateway({
    apiVersion: 'networking.istio.io/v1',
    kind: 'Gateway',
    metadata: meta('test-gateway'),
    spec: { selector: { istio: 'ingressgateway' }, servers: [{ port: { number: 80 }, hosts: ['a.example.org', 7], tls: { mode: 'SIMPLE' } }, 'x'] },
  });
  assert.deepEqual(gw['spec'], { selector: { istio: 'ingressgateway' }, servers: [{ hosts: ['a.example.org'] }, { hosts: [] }] });
  assert.equal(gw.metadata.uid, 'u1');
  assert.deepEqual(gw.metadata.annotations, { 'user-annotation': 'value' });
  const vs = slimVirtualService({
    apiVersion: 'networking.istio.io/v1',
    kind: 'VirtualService',
    metadata: meta('vs'),
    spec: { hosts: ['a.example.org'], gateways: ['mesh', 'ns/gw'], exportTo: ['.'], http: [{ route: [{ destination: { host: 'svc' } }] }] },
  });
  assert.deepEqual(vs['spec'], { hosts: ['a.example.org'], gateways: ['mesh', 'ns/gw'], exportTo: ['.'] });
  assert.deepEqual(vs.metadata.annotations, { 'user-annotation': 'value' });
  assert.deepEqual(vs.metadata.labels, { label1: 'value1' });
  assert.deepEqual(slimVirtualService({ kind: 'VirtualService', metadata: { name: 'odd' }, spec: { hosts: 'x' } })['spec'], { hosts: [] });
});
