import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { KubeObject } from '../../kube/resource.ts';
import { buildTranslateOptions } from '../translate/options.ts';
import { translateGlooProxy } from './gloo-proxy.ts';
import type { GlooLookups } from './gloo-proxy.ts';
import { metadataOnly, slimGlooProxy } from './gloo-proxy-source.ts';

const A = 'external-dns.kubernetes.io/';
const NS = ['gloo-system'];

function proxy(annotations: Record<string, string>, listeners: unknown[]): KubeObject {
  return { apiVersion: 'gloo.solo.io/v1', kind: 'Proxy', metadata: { name: 'gateway-proxy', namespace: 'gloo-system', annotations }, spec: { listeners } };
}

const vsSource = (name: string): Record<string, unknown> => ({ metadata: { sources: [{ kind: '*v1.VirtualService', name, namespace: 'apps' }] } });
const meta = (kind: string, namespace: string, name: string, annotations: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind,
  metadata: { name, namespace, annotations },
});

function lookups(objects: KubeObject[]): GlooLookups {
  const find = (kind: string) => (ns: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.namespace === ns && o.metadata.name === name);
  return { service: find('Service'), ingress: find('Ingress'), virtualService: find('VirtualService'), gateway: find('Gateway') };
}

const SERVICE: KubeObject = {
  ...meta('Service', 'gloo-system', 'gateway-proxy'),
  spec: { type: 'LoadBalancer' },
  status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }, { hostname: 'lb.example.net' }] } },
};

const show = (eps: readonly Endpoint[]): string[] =>
  eps.map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')} ${e.recordTTL} ${e.setIdentifier} ${e.labels['resource'] ?? ''}`).sort();

test("domains at the Proxy Service's load balancer; TTL and set identifier from the VirtualService; resource label proxy/<ns>/<name>", () => {
  const vs = meta('VirtualService', 'apps', 'shop', { [`${A}ttl`]: '60', [`${A}set-identifier`]: 'blue' });
  const p = proxy({}, [{ httpListener: { virtualHosts: [{ domains: ['shop.example.org.', 'www.example.org'], ...vsSource('shop') }] } }]);
  const r = translateGlooProxy(p, {}, NS, lookups([SERVICE, vs]));
  assert.deepEqual(show(r.endpoints), [
    'shop.example.org A 192.0.2.1 60 blue proxy/gloo-system/gateway-proxy',
    'shop.example.org CNAME lb.example.net 60 blue proxy/gloo-system/gateway-proxy',
    'www.example.org A 192.0.2.1 60 blue proxy/gloo-system/gateway-proxy',
    'www.example.org CNAME lb.example.net 60 blue proxy/gloo-system/gateway-proxy',
  ]);
  assert.deepEqual(r.reads.sort(), ['services/gloo-system/gateway-proxy', 'virtualservices/apps/shop']);
});

test("the Gateway's ingress annotation names an Ingress whose addresses (IP, else hostname) are the targets", () => {
  const gw = meta('Gateway', 'gloo-system', 'gw', { [`${A}ingress`]: 'edge' });
  const ing: KubeObject = {
    ...meta('Ingress', 'gloo-system', 'edge'),
    status: { loadBalancer: { ingress: [{ ip: '198.51.100.1', hostname: 'ignored' }, { hostname: 'edge.example.net' }] } },
  };
  const p = proxy({}, [
    {
      httpListener: { virtualHosts: [{ domains: ['a.example.org'] }] },
      metadataStatic: { sources: [{ resourceKind: '*v1.Gateway', resourceRef: { name: 'gw', namespace: 'gloo-system' } }] },
    },
  ]);
  const r = translateGlooProxy(p, {}, NS, lookups([gw, ing]));
  assert.deepEqual(show(r.endpoints), [
    'a.example.org A 198.51.100.1 0  proxy/gloo-system/gateway-proxy',
    'a.example.org CNAME edge.example.net 0  proxy/gloo-system/gateway-proxy',
  ]);
});

test('a missing Service, VirtualService, Gateway or Ingress holds the Proxy (upstream fails the source) and names what is missing', () => {
  const p = proxy({}, [{ httpListener: { virtualHosts: [{ domains: ['a.example.org'], ...vsSource('gone') }] } }]);
  const noService = translateGlooProxy(p, {}, NS, lookups([]));
  assert.equal(noService.heldResource, 'proxy/gloo-system/gateway-proxy');
  assert.match(noService.problems[0]?.message ?? '', /Service gloo-system\/gateway-proxy not found/);
  const noVs = translateGlooProxy(p, {}, NS, lookups([SERVICE]));
  assert.match(noVs.problems[0]?.message ?? '', /VirtualService \(gateway.solo.io\) apps\/gone not found/);
  assert.ok(noVs.reads.includes('virtualservices/apps/gone'), 'a missing object is still a read: its creation re-translates the Proxy');
  const badIngress = proxy({}, [{ metadataStatic: { sources: [{ resourceKind: '*v1.Gateway', resourceRef: { name: 'gw', namespace: 'gloo-system' } }] } }]);
  const r = translateGlooProxy(badIngress, {}, NS, lookups([meta('Gateway', 'gloo-system', 'gw', { [`${A}ingress`]: 'a/b/c' })]));
  assert.match(r.problems[0]?.message ?? '', /failed to parse Ingress annotation on Gateway \(gloo-system\/gw\)/);
});

test('the target annotation wins and no Service is read; aggregate listeners publish the virtual hosts their chains reference', () => {
  const p = proxy({ [`${A}target`]: 'edge.example.net.' }, [
    {
      aggregateListener: {
        httpFilterChains: [{ virtualHostRefs: ['gloo-system.a', 'gloo-system.missing'] }],
        httpResources: { virtualHosts: { 'gloo-system.a': { domains: ['a.example.org'] }, 'gloo-system.b': { domains: ['b.example.org'] } } },
      },
    },
  ]);
  const r = translateGlooProxy(p, {}, NS, lookups([]));
  assert.deepEqual(show(r.endpoints), ['a.example.org CNAME edge.example.net 0  proxy/gloo-system/gateway-proxy']);
  assert.deepEqual(r.reads, []);
});

test('only --gloo-namespace namespaces; filters and the controller annotation apply; a non-LoadBalancer Service is reported', () => {
  const p = proxy({ [`${A}target`]: '192.0.2.9' }, [{ httpListener: { virtualHosts: [{ domains: ['a.example.org'] }] } }]);
  assert.equal(translateGlooProxy(p, {}, ['other'], lookups([])).endpoints.length, 0);
  assert.equal(translateGlooProxy(p, buildTranslateOptions({ annotationFilter: 'team=a' }), NS, lookups([])).endpoints.length, 0);
  assert.equal(translateGlooProxy(proxy({ [`${A}controller`]: 'other' }, []), {}, NS, lookups([])).endpoints.length, 0);
  const clusterIP = { ...SERVICE, spec: { type: 'ClusterIP' } };
  const r = translateGlooProxy(proxy({}, [{ httpListener: { virtualHosts: [{ domains: ['a.example.org'] }] } }]), {}, NS, lookups([clusterIP]));
  assert.deepEqual(r.endpoints, []);
  assert.match(r.problems[0]?.message ?? '', /not of type LoadBalancer/);
});

test('templates as upstream ApplyTemplates: --target-template targets for --fqdn-template names; a failing template holds the Proxy', () => {
  const p = proxy({}, []);
  const options = buildTranslateOptions({ fqdnTemplate: '{{.Name}}.{{.Namespace}}.example.org', targetTemplate: ['lb.example.net'] });
  assert.deepEqual(show(translateGlooProxy(p, options, NS, lookups([SERVICE])).endpoints), [
    'gateway-proxy.gloo-system.example.org CNAME lb.example.net 0  proxy/gloo-system/gateway-proxy',
  ]);
  // Without --target-template the template names have no targets, as upstream.
  assert.deepEqual(translateGlooProxy(p, buildTranslateOptions({ fqdnTemplate: '{{.Name}}.example.org' }), NS, lookups([SERVICE])).endpoints, []);
  const failing = translateGlooProxy(p, buildTranslateOptions({ fqdnTemplate: '{{.Spec.nothing.here}}.example.org' }), NS, lookups([SERVICE]));
  assert.equal(failing.heldResource, 'proxy/gloo-system/gateway-proxy');
});

test('objects of an unexpected shape publish nothing and do not throw', () => {
  for (const listeners of ['x', [null, 3, { httpListener: 'y' }], [{ httpListener: { virtualHosts: [{ domains: 'a.example.org' }] } }]]) {
    const p = { ...proxy({ [`${A}target`]: '192.0.2.9' }, []), spec: { listeners } };
    assert.deepEqual(translateGlooProxy(p, {}, NS, lookups([])).endpoints, []);
  }
});

test('slim views: the Proxy keeps domains and sources only; VirtualServices and Gateways their metadata', () => {
  const raw = {
    apiVersion: 'gloo.solo.io/v1',
    kind: 'Proxy',
    metadata: { name: 'p', namespace: 'gloo-system', uid: 'u', managedFields: [{}] },
    spec: {
      listeners: [
        {
          name: 'listener-::-8080',
          bindPort: 8080,
          httpListener: { virtualHosts: [{ name: 'vh', domains: ['a.example.org'], routes: [{ matchers: [{ prefix: '/' }] }], ...vsSource('shop') }] },
          metadataStatic: { sources: [{ resourceKind: '*v1.Gateway', resourceRef: { name: 'gw', namespace: 'gloo-system' }, observedGeneration: 3 }] },
        },
      ],
    },
  };
  const slim = slimGlooProxy(raw);
  assert.deepEqual(slim['spec'], {
    listeners: [
      {
        httpListener: {
          virtualHosts: [
            {
              domains: ['a.example.org'],
              metadata: { sources: [{ kind: '*v1.VirtualService', name: 'shop', namespace: 'apps' }] },
              metadataStatic: { sources: [] },
            },
          ],
        },
        aggregateListener: { httpFilterChains: [], httpResources: { virtualHosts: {} } },
        metadataStatic: { sources: [{ resourceKind: '*v1.Gateway', resourceRef: { name: 'gw', namespace: 'gloo-system' } }] },
      },
    ],
  });
  assert.deepEqual(metadataOnly({ ...raw, kind: 'VirtualService', metadata: { name: 'v', namespace: 'apps', annotations: { x: 'y' } } }), {
    apiVersion: 'gloo.solo.io/v1',
    kind: 'VirtualService',
    metadata: { name: 'v', namespace: 'apps', annotations: { x: 'y' } },
  });
});
