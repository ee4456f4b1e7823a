import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { KubeObject } from '../../kube/resource.ts';
import { buildTranslateOptions } from '../translate/options.ts';
import { httpProxyTemplateView, slimHTTPProxy, translateHTTPProxy } from './contour-httpproxy.ts';

const A = 'external-dns.kubernetes.io/';

function proxy(annotations: Record<string, string>, spec: Record<string, unknown> = { virtualhost: { fqdn: 'app.example.org' } }): KubeObject {
  return {
    apiVersion: 'projectcontour.io/v1',
    kind: 'HTTPProxy',
    metadata: { name: 'web', namespace: 'apps', annotations },
    spec,
    status: {
      currentStatus: 'valid',
      conditions: [{ type: 'Valid', status: 'True' }],
      loadBalancer: { ingress: [{ ip: '192.0.2.1' }, { hostname: 'lb.example.net' }] },
    },
  };
}

const show = (eps: readonly Endpoint[]): string[] => eps.map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')} ${e.recordTTL}`).sort();

test('fqdn and hostname annotation at the load-balancer status; upstream resource label HTTPProxy/<ns>/<name>', () => {
  const r = translateHTTPProxy(proxy({ [`${A}hostname`]: 'alias.example.org', [`${A}ttl`]: '1m' }), {});
  assert.deepEqual(show(r.endpoints), [
    'alias.example.org A 192.0.2.1 60',
    'alias.example.org CNAME lb.example.net 60',
    'app.example.org A 192.0.2.1 60',
    'app.example.org CNAME lb.example.net 60',
  ]);
  assert.ok(r.endpoints.every((e) => e.labels['resource'] === 'HTTPProxy/apps/web'));
  assert.deepEqual(r.problems, []);
});

test('the target annotation replaces the status; --ignore-hostname-annotation drops the annotation names', () => {
  const r = translateHTTPProxy(proxy({ [`${A}hostname`]: 'alias.example.org', [`${A}target`]: 'edge.example.net.' }), { ignoreHostnameAnnotation: true });
  assert.deepEqual(show(r.endpoints), ['app.example.org CNAME edge.example.net 0']);
});

test('a template names proxies without a virtual host (included ones), and is added with --combine-fqdn-annotation', () => {
  const options = buildTranslateOptions({ fqdnTemplate: '{{.Name}}.{{.Namespace}}.example.org' });
  assert.deepEqual(show(translateHTTPProxy(proxy({}, {}), options).endpoints), [
    'web.apps.example.org A 192.0.2.1 0',
    'web.apps.example.org CNAME lb.example.net 0',
  ]);
  assert.deepEqual(show(translateHTTPProxy(proxy({}), options).endpoints), ['app.example.org A 192.0.2.1 0', 'app.example.org CNAME lb.example.net 0']);
  const combined = buildTranslateOptions({ fqdnTemplate: '{{.Name}}.example.org', combineFqdnAnnotation: true, annotationFilter: '' });
  assert.equal(translateHTTPProxy(proxy({}), combined).endpoints.length, 4);
  // isSource answers for this source.
  const scoped = buildTranslateOptions({ fqdnTemplate: '{{if isSource "contour-httpproxy"}}{{.Name}}.contour.example.org{{end}}' });
  assert.deepEqual(show(translateHTTPProxy(proxy({}, {}), scoped).endpoints).slice(0, 1), ['web.contour.example.org A 192.0.2.1 0']);
});

test('a template failing on a proxy holds its records; a bad TTL and a bad name are reported, the rest published', () => {
  const failing = buildTranslateOptions({ fqdnTemplate: '{{.Spec.missing.deeper}}.example.org' });
  const held = translateHTTPProxy(proxy({}, {}), failing);
  assert.deepEqual(held.endpoints, []);
  assert.equal(held.heldResource, 'HTTPProxy/apps/web');
  assert.equal(held.problems.length, 1);
  const r = translateHTTPProxy(proxy({ [`${A}ttl`]: 'soon', [`${A}hostname`]: 'bad..name' }), {});
  assert.deepEqual(show(r.endpoints), ['app.example.org A 192.0.2.1 0', 'app.example.org CNAME lb.example.net 0']);
  assert.equal(r.problems.length, 3);
});

test('objects of an unexpected shape publish nothing and do not throw', () => {
  for (const spec of [{ virtualhost: 'app.example.org' }, { virtualhost: { fqdn: { name: 'x' } } }, { virtualhost: null }]) {
    assert.deepEqual(translateHTTPProxy(proxy({}, spec), {}).endpoints, []);
  }
  assert.deepEqual(translateHTTPProxy({ ...proxy({}), status: { loadBalancer: 'lb' } }, {}).endpoints, []);
  assert.deepEqual(translateHTTPProxy({ metadata: { name: 'x' } }, {}).endpoints, []);
});

test('the slim view keeps the fqdn and load-balancer status only; the template view drops only status conditions', () => {
  const raw = {
    ...proxy({ a: 'b' }),
    spec: { virtualhost: { fqdn: 'app.example.org', tls: { secretName: 's' } }, routes: [{ services: [{ name: 'x', port: 80 }] }] },
  };
  assert.deepEqual(slimHTTPProxy(raw), {
    apiVersion: 'projectcontour.io/v1',
    kind: 'HTTPProxy',
    metadata: { name: 'web', namespace: 'apps', annotations: { a: 'b' } },
    spec: { virtualhost: { fqdn: 'app.example.org' } },
    status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }, { hostname: 'lb.example.net' }] } },
  });
  const view = httpProxyTemplateView(raw);
  assert.deepEqual(view['spec'], raw.spec);
  assert.deepEqual(view['status'], { currentStatus: 'valid', loadBalancer: { ingress: [{ ip: '192.0.2.1' }, { hostname: 'lb.example.net' }] } });
});
