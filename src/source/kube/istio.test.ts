import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../kube/resource.ts';
import { buildTranslateOptions } from '../translate/options.ts';
import { bindsToGateway, gatewayKeysOf, ingressKeyOf, parseNamespacedName, selectsService, translateIstioGateway, translateVirtualService } from './istio.ts';
import type { IstioLookups } from './istio.ts';

const gw = (
  name: string,
  ns: string,
  hosts: string[],
  extra: { annotations?: Record<string, string>; selector?: Record<string, string> } = {},
): KubeObject => ({
  apiVersion: 'networking.istio.io/v1',
  kind: 'Gateway',
  metadata: { name, namespace: ns, ...(extra.annotations === undefined ? {} : { annotations: extra.annotations }) },
  spec: { ...(extra.selector === undefined ? {} : { selector: extra.selector }), servers: [{ hosts }] },
});

const vs = (hosts: string[], gateways: string[], exportTo?: string[]): KubeObject => ({
  apiVersion: 'networking.istio.io/v1',
  kind: 'VirtualService',
  metadata: { name: 'vs', namespace: 'apps' },
  spec: { hosts, gateways, ...(exportTo === undefined ? {} : { exportTo }) },
});

function lookups(objects: KubeObject[]): IstioLookups {
  const find = (kind: string, ns: string, name: string): KubeObject | undefined =>
    objects.find((o) => o.kind === kind && o.metadata.namespace === ns && o.metadata.name === name);
  return {
    gateway: (ns, name) => find('Gateway', ns, name),
    ingress: (ns, name) => find('Ingress', ns, name),
    services: () => objects.filter((o) => o.kind === 'Service'),
  };
}

const svc = (name: string, selector: Record<string, string>, status: Record<string, string>[], externalIPs?: string[]): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'istio-system' },
  spec: { selector, ...(externalIPs === undefined ? {} : { externalIPs }) },
  status: { loadBalancer: { ingress: status } },
});

const names = (eps: { dnsName: string; recordType: string; targets: readonly string[] }[]): string[] =>
  eps.map((e) => `${e.dnsName} ${e.recordType} ${[...e.targets].join(',')}`).sort();

test('parseNamespacedName: name, namespace/name, and more slashes refused', () => {
  assert.deepEqual(parseNamespacedName('gw'), { namespace: '', name: 'gw' });
  assert.deepEqual(parseNamespacedName('ns/gw'), { namespace: 'ns', name: 'gw' });
  assert.throws(() => parseNamespacedName('1/2/3/'), /invalid ingress name/);
});

test('a Gateway takes the Services whose selector includes its own: externalIPs first, else the load-balancer addresses', () => {
  const options = buildTranslateOptions({});
  const objects = [
    svc('a', { istio: 'ingressgateway', app: 'a' }, [{ ip: '192.0.2.1' }, { hostname: 'lb.example.net' }]),
    svc('b', { istio: 'ingressgateway' }, [{ ip: '192.0.2.9' }], ['198.51.100.1']),
    svc('other', { istio: 'egress' }, [{ ip: '192.0.2.99' }]),
  ];
  const r = translateIstioGateway(gw('g', 'istio-system', ['ns/a.example.org', '*', ''], { selector: { istio: 'ingressgateway' } }), options, lookups(objects));
  assert.deepEqual(names(r.endpoints), ['a.example.org A 192.0.2.1,198.51.100.1', 'a.example.org CNAME lb.example.net']);
  assert.equal(r.endpoints[0]?.labels['resource'], 'gateway/istio-system/g');
});

test('a broken ingress reference is a problem and holds the Gateway; --ignore-hostname-annotation and the filters apply', () => {
  const options = buildTranslateOptions({});
  const r = translateIstioGateway(
    gw('g', 'ns', ['a.example.org'], { annotations: { 'external-dns.alpha.kubernetes.io/ingress': 'missing' } }),
    options,
    lookups([]),
  );
  assert.deepEqual(r.endpoints, []);
  assert.equal(r.heldResource, 'gateway/ns/g');
  assert.match(r.problems[0]?.message ?? '', /Ingress ns\/missing .* does not exist/);
  const annotated = gw('g', 'ns', [], {
    annotations: { 'external-dns.alpha.kubernetes.io/hostname': 'h.example.org', 'external-dns.alpha.kubernetes.io/target': '192.0.2.5' },
  });
  assert.deepEqual(names(translateIstioGateway(annotated, options, lookups([])).endpoints), ['h.example.org A 192.0.2.5']);
  assert.deepEqual(translateIstioGateway(annotated, buildTranslateOptions({ ignoreHostnameAnnotation: true }), lookups([])).endpoints, []);
  assert.deepEqual(translateIstioGateway(annotated, buildTranslateOptions({ labelFilter: 'team=a' }), lookups([])).endpoints, []);
});

test('bindsToGateway follows Istio server hosts: *, *.suffix, namespace parts and exportTo', () => {
  const g = (hosts: string[]): KubeObject => gw('g', 'istio-system', hosts);
  assert.equal(bindsToGateway(vs([], []), 'apps', g(['*']), 'a.example.org'), true);
  assert.equal(bindsToGateway(vs([], []), 'apps', g(['*.example.org']), 'a.b.example.org'), true);
  assert.equal(bindsToGateway(vs([], []), 'apps', g(['*.example.org']), 'example.org'), false);
  assert.equal(bindsToGateway(vs([], []), 'apps', g(['apps/*']), 'a.example.org'), true);
  assert.equal(bindsToGateway(vs([], []), 'apps', g(['other/*']), 'a.example.org'), false);
  assert.equal(bindsToGateway(vs([], []), 'apps', g(['./*']), 'a.example.org'), false);
  assert.equal(bindsToGateway(vs([], [], ['.']), 'apps', g(['*']), 'a.example.org'), false);
  assert.equal(bindsToGateway(vs([], [], ['istio-system']), 'apps', g(['*']), 'a.example.org'), true);
});

test('a VirtualService takes the targets of the Gateways it binds to per host; mesh and missing Gateways add nothing', () => {
  const options = buildTranslateOptions({});
  const objects = [
    gw('one', 'istio-system', ['*.apps.example.org'], { annotations: { 'external-dns.alpha.kubernetes.io/target': '192.0.2.1' } }),
    gw('two', 'apps', ['b.apps.example.org'], { annotations: { 'external-dns.alpha.kubernetes.io/target': '192.0.2.2' } }),
  ];
  const r = translateVirtualService(
    vs(['a.apps.example.org', 'apps/b.apps.example.org', '*'], ['mesh', 'istio-system/one', 'two', 'gone']),
    options,
    lookups(objects),
  );
  assert.deepEqual(names(r.endpoints), ['a.apps.example.org A 192.0.2.1', 'b.apps.example.org A 192.0.2.1,192.0.2.2']);
  assert.equal(r.endpoints[0]?.labels['resource'], 'virtualservice/apps/vs');
  // Template names go through the Gateways as well; with --combine-fqdn-annotation they are added.
  const templated = translateVirtualService(
    vs(['a.apps.example.org'], ['istio-system/one']),
    buildTranslateOptions({ fqdnTemplate: '{{.Name}}.apps.example.org', combineFqdnAnnotation: true }),
    lookups(objects),
  );
  assert.deepEqual(names(templated.endpoints), ['a.apps.example.org A 192.0.2.1', 'vs.apps.example.org A 192.0.2.1']);
  const broken = translateVirtualService(vs(['a.apps.example.org'], ['a/b/c']), options, lookups(objects));
  assert.equal(broken.heldResource, 'virtualservice/apps/vs');
});

test('what a change re-translates: Services a Gateway selects, the Ingress it names, the Gateways a VirtualService names', () => {
  const options = buildTranslateOptions({});
  const g = gw('g', 'istio-system', ['*'], { selector: { istio: 'ingressgateway' }, annotations: { 'external-dns.alpha.kubernetes.io/ingress': 'edge' } });
  assert.equal(selectsService(g, svc('a', { istio: 'ingressgateway', app: 'a' }, [])), true);
  assert.equal(selectsService(g, svc('b', { app: 'a' }, [])), false);
  assert.equal(ingressKeyOf(g, options), 'istio-system/edge');
  assert.equal(ingressKeyOf(gw('h', 'ns', []), options), undefined);
  assert.deepEqual(gatewayKeysOf(vs([], ['mesh', 'gw', 'istio-system/shared', 'a/b/c', ''])), ['apps/gw', 'istio-system/shared']);
});
