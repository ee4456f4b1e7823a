import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { KubeObject } from '../../kube/resource.ts';
import { slimAmbassadorHost } from '../../kube/slim-ingress-crds.ts';
import { AMBASSADOR_SERVICE_ANNOTATION, parseAmbassadorService, translateAmbassadorHost } from './ambassador-host.ts';
import { ReaderIndex } from './reader-index.ts';

const A = 'external-dns.kubernetes.io/';

function host(annotations: Record<string, string>, spec: unknown = { hostname: 'www.example.org' }): KubeObject {
  return { apiVersion: 'getambassador.io/v3alpha1', kind: 'Host', metadata: { name: 'h', namespace: 'apps', annotations }, spec };
}

const SVC: KubeObject = {
  kind: 'Service',
  metadata: { name: 'amb', namespace: 'edge' },
  spec: {},
  status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }, { hostname: 'lb.example.net' }] } },
};
const services = (key: string): KubeObject | undefined => (key === 'edge/amb' ? SVC : undefined);
const show = (eps: readonly Endpoint[]): string[] =>
  eps.map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')} ${e.recordTTL} ${e.labels['resource'] ?? ''}`).sort();

// external-dns's TestParseAmbLoadBalancerService vectors.
test('parseAmbassadorService: namespace/name, name.namespace (first dot), bare name in default; more slashes are an error', () => {
  const ok: [string, string, string][] = [
    ['svc', 'default', 'svc'],
    ['ns/svc', 'ns', 'svc'],
    ['svc.ns', 'ns', 'svc'],
    ['svc.ns.foo.bar', 'ns.foo.bar', 'svc'],
  ];
  for (const [input, namespace, name] of ok) assert.deepEqual(parseAmbassadorService(input), { namespace, name }, input);
  for (const input of ['ns/svc/foo/bar', 'ns/svc/foo.bar', 'ns.foo/svc/bar'])
    assert.throws(() => parseAmbassadorService(input), { message: `invalid external-dns service: ${input}` });
});

test('the annotated Service gives the targets (A and CNAME); resource label host/<ns>/<name>; the Service read is recorded', () => {
  const r = translateAmbassadorHost(host({ [AMBASSADOR_SERVICE_ANNOTATION]: 'amb.edge', [`${A}ttl`]: '60' }), {}, services);
  assert.deepEqual(show(r.endpoints), ['www.example.org A 192.0.2.1 60 host/apps/h', 'www.example.org CNAME lb.example.net 60 host/apps/h']);
  assert.equal(r.readService, 'edge/amb');
  assert.deepEqual(r.problems, []);
});

test('the target annotation wins and no Service is read; without the service annotation the Host is ignored', () => {
  const r = translateAmbassadorHost(host({ [AMBASSADOR_SERVICE_ANNOTATION]: 'missing', [`${A}target`]: '198.51.100.7.' }), {}, services);
  assert.deepEqual(show(r.endpoints), ['www.example.org A 198.51.100.7 0 host/apps/h']);
  assert.equal(r.readService, undefined);
  assert.deepEqual(translateAmbassadorHost(host({ [`${A}target`]: '198.51.100.7' }), {}, services), { endpoints: [], problems: [] });
});

test('a missing Service or a bad annotation is a problem naming the Host, and the Host publishes nothing', () => {
  const missing = translateAmbassadorHost(host({ [AMBASSADOR_SERVICE_ANNOTATION]: 'edge/other' }), {}, services);
  assert.deepEqual(missing.endpoints, []);
  assert.equal(missing.readService, 'edge/other');
  assert.match(missing.problems[0]?.message ?? '', /^Host\/apps\/h: Service edge\/other .*not found/);
  const bad = translateAmbassadorHost(host({ [AMBASSADOR_SERVICE_ANNOTATION]: 'a/b/c' }), {}, services);
  assert.match(bad.problems[0]?.message ?? '', /invalid external-dns service: a\/b\/c/);
});

test('objects of an unexpected shape publish nothing and do not throw', () => {
  for (const spec of [null, 'x', { hostname: true }, { hostname: '' }, []]) {
    const r = translateAmbassadorHost(host({ [AMBASSADOR_SERVICE_ANNOTATION]: 'edge/amb' }, spec), {}, services);
    assert.deepEqual(r.endpoints, []);
  }
});

test('slimAmbassadorHost keeps metadata and spec.hostname only', () => {
  const slim = slimAmbassadorHost({
    apiVersion: 'getambassador.io/v3alpha1',
    kind: 'Host',
    metadata: { name: 'h', namespace: 'apps', annotations: { a: 'b' }, managedFields: [{}] },
    spec: { hostname: 'x.example.org', acmeProvider: { authority: 'none' }, tlsSecret: { name: 's' } },
    status: { state: 'Ready' },
  });
  assert.deepEqual(slim['spec'], { hostname: 'x.example.org' });
  assert.equal(slim['status'], undefined);
  assert.deepEqual(slim.metadata.annotations, { a: 'b' });
});

test('ReaderIndex: readers of a key, moved and forgotten readers', () => {
  const idx = new ReaderIndex();
  idx.set('apps/a', 'edge/amb');
  idx.set('apps/b', 'edge/amb');
  idx.set('apps/b', 'edge/other');
  idx.set('apps/c', undefined);
  assert.deepEqual(
    idx.readersOf('edge/amb', () => true),
    ['apps/a'],
  );
  assert.deepEqual(
    idx.readersOf('edge/other', (k) => k !== 'apps/b'),
    [],
  );
  assert.deepEqual(
    idx.readersOf('edge/other', () => true),
    [],
  );
});
