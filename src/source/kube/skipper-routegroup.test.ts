import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { KubeObject } from '../../kube/resource.ts';
import { routeGroupStatusList, slimRouteGroup } from '../../kube/slim-ingress-crds.ts';
import { buildTranslateOptions } from '../translate/options.ts';
import { routeGroupResource, translateRouteGroup } from './skipper-routegroup.ts';

const A = 'external-dns.kubernetes.io/';

function routeGroup(annotations: Record<string, string>, spec: unknown, status: unknown = { loadBalancer: { routegroup: [{ ip: '192.0.2.1' }] } }): KubeObject {
  return { apiVersion: 'zalando.org/v1', kind: 'RouteGroup', metadata: { name: 'rg', namespace: 'web', annotations }, spec, status };
}

const show = (eps: readonly Endpoint[]): string[] =>
  eps.map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')} ${e.recordTTL} ${e.labels['resource'] ?? ''}`).sort();
const SPEC = { hosts: ['a.example.org'], backends: [{ name: 's', type: 'shunt' }] };

test('spec.hosts and the hostname annotation at the status load balancers; resource label routegroup/<ns>/<name>', () => {
  const r = translateRouteGroup(routeGroup({ [`${A}hostname`]: 'b.example.org', [`${A}ttl`]: '60' }, SPEC), {});
  assert.deepEqual(show(r.endpoints), ['a.example.org A 192.0.2.1 60 routegroup/web/rg', 'b.example.org A 192.0.2.1 60 routegroup/web/rg']);
  assert.deepEqual(show(translateRouteGroup(routeGroup({ [`${A}hostname`]: 'b.example.org' }, SPEC), { ignoreHostnameAnnotation: true }).endpoints), [
    'a.example.org A 192.0.2.1 0 routegroup/web/rg',
  ]);
});

test('the status list is read under routegroup (Skipper CRD) or routeGroup (external-dns type); the target annotation wins', () => {
  assert.deepEqual(routeGroupStatusList({ routeGroup: [1], routegroup: [2] }), [1]);
  assert.deepEqual(routeGroupStatusList({ routegroup: [2] }), [2]);
  assert.deepEqual(routeGroupStatusList({ RouteGroup: [3] }), [3]);
  assert.deepEqual(routeGroupStatusList('x'), []);
  const camel = translateRouteGroup(routeGroup({}, SPEC, { loadBalancer: { routeGroup: [{ hostname: 'lb.example.net' }] } }), {});
  assert.deepEqual(show(camel.endpoints), ['a.example.org CNAME lb.example.net 0 routegroup/web/rg']);
  const targeted = translateRouteGroup(routeGroup({ [`${A}target`]: '198.51.100.1' }, SPEC), {});
  assert.deepEqual(show(targeted.endpoints), ['a.example.org A 198.51.100.1 0 routegroup/web/rg']);
});

test('--fqdn-template: used without own names, added with --combine-fqdn-annotation; .Metadata.Name works as upstream', () => {
  const tpl = '{{.Metadata.Name}}.{{.Namespace}}.example.org';
  const bare = routeGroup({}, { backends: [] });
  assert.deepEqual(show(translateRouteGroup(bare, buildTranslateOptions({ fqdnTemplate: tpl })).endpoints), [
    'rg.web.example.org A 192.0.2.1 0 routegroup/web/rg',
  ]);
  assert.deepEqual(show(translateRouteGroup(routeGroup({}, SPEC), buildTranslateOptions({ fqdnTemplate: tpl })).endpoints), [
    'a.example.org A 192.0.2.1 0 routegroup/web/rg',
  ]);
  assert.deepEqual(show(translateRouteGroup(routeGroup({}, SPEC), buildTranslateOptions({ fqdnTemplate: tpl, combineFqdnAnnotation: true })).endpoints), [
    'a.example.org A 192.0.2.1 0 routegroup/web/rg',
    'rg.web.example.org A 192.0.2.1 0 routegroup/web/rg',
  ]);
  // A failing template holds the RouteGroup's records instead of failing the sync (it runs only without own names, as upstream).
  const failed = translateRouteGroup(bare, buildTranslateOptions({ fqdnTemplate: '{{index . 0}}' }));
  assert.equal(failed.heldResource, 'routegroup/web/rg');
  assert.equal(failed.endpoints.length, 0);
  assert.match(failed.problems[0]?.message ?? '', /^RouteGroup\/web\/rg: /);
});

test('filters, the controller annotation, odd shapes', () => {
  const obj = routeGroup({ tier: 'web' }, SPEC);
  assert.equal(translateRouteGroup(obj, buildTranslateOptions({ annotationFilter: 'tier=db' })).endpoints.length, 0);
  assert.equal(translateRouteGroup(obj, buildTranslateOptions({ labelFilter: 'app=x' })).endpoints.length, 0);
  assert.equal(translateRouteGroup(routeGroup({ [`${A}controller`]: 'other' }, SPEC), {}).endpoints.length, 0);
  for (const spec of [null, 'x', { hosts: 'a' }, { hosts: [7, null, ''] }]) assert.deepEqual(translateRouteGroup(routeGroup({}, spec, 'x'), {}).endpoints, []);
});

test('--skipper-routegroup-groupversion: group/version of the same plural; a bad value names the flag', () => {
  assert.deepEqual(routeGroupResource(''), { apiVersion: 'zalando.org/v1', kind: 'RouteGroup', plural: 'routegroups', namespaced: true });
  assert.equal(routeGroupResource('zalando.org/v1alpha1').apiVersion, 'zalando.org/v1alpha1');
  assert.throws(() => routeGroupResource('v1'), /--skipper-routegroup-groupversion must look like group\/version/);
});

test('slimRouteGroup keeps hosts and the load balancers (as routeGroup)', () => {
  const slim = slimRouteGroup({
    apiVersion: 'zalando.org/v1',
    kind: 'RouteGroup',
    metadata: { name: 'rg', namespace: 'web' },
    spec: { hosts: ['a.example.org'], backends: [{ name: 's', type: 'shunt' }], routes: [{ path: '/' }] },
    status: { loadBalancer: { routegroup: [{ ip: '192.0.2.1', extra: 1 }] } },
  });
  assert.deepEqual(slim['spec'], { hosts: ['a.example.org'] });
  assert.deepEqual(slim['status'], { loadBalancer: { routeGroup: [{ ip: '192.0.2.1' }] } });
});
