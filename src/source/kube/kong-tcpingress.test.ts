import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { KubeObject } from '../../kube/resource.ts';
import { slimTcpIngress } from '../../kube/slim-ingress-crds.ts';
import { buildTranslateOptions } from '../translate/options.ts';
import { translateTcpIngress } from './kong-tcpingress.ts';

const A = 'external-dns.kubernetes.io/';

function tcpIngress(
  annotations: Record<string, string>,
  spec: unknown,
  status: unknown = { loadBalancer: { ingress: [{ ip: '192.0.2.1' }, { hostname: 'lb.example.net' }] } },
): KubeObject {
  return { apiVersion: 'configuration.konghq.com/v1beta1', kind: 'TCPIngress', metadata: { name: 't', namespace: 'kong', annotations }, spec, status };
}

const show = (eps: readonly Endpoint[]): string[] =>
  eps.map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')} ${e.recordTTL} ${e.labels['resource'] ?? ''}`).sort();
const RULES = { rules: [{ host: 'db.example.org', port: 5432, backend: { serviceName: 'db', servicePort: 5432 } }, { port: 9000 }] };

test('hostname annotation and rule hosts at the status load balancer; ttl; resource label tcpingress/<ns>/<name>', () => {
  const r = translateTcpIngress(tcpIngress({ [`${A}hostname`]: 'a.example.org', [`${A}ttl`]: '60' }, RULES), {});
  assert.deepEqual(show(r.endpoints), [
    'a.example.org A 192.0.2.1 60 tcpingress/kong/t',
    'a.example.org CNAME lb.example.net 60 tcpingress/kong/t',
    'db.example.org A 192.0.2.1 60 tcpingress/kong/t',
    'db.example.org CNAME lb.example.net 60 tcpingress/kong/t',
  ]);
});

test('--ignore-hostname-annotation keeps the rule hosts; the target annotation replaces the status', () => {
  const r = translateTcpIngress(tcpIngress({ [`${A}hostname`]: 'a.example.org', [`${A}target`]: '198.51.100.2' }, RULES), { ignoreHostnameAnnotation: true });
  assert.deepEqual(show(r.endpoints), ['db.example.org A 198.51.100.2 0 tcpingress/kong/t']);
});

test('filters and the controller annotation', () => {
  const obj = tcpIngress({ tier: 'web' }, RULES);
  assert.equal(translateTcpIngress(obj, buildTranslateOptions({ annotationFilter: 'tier=db' })).endpoints.length, 0);
  assert.equal(translateTcpIngress(obj, buildTranslateOptions({ annotationFilter: 'tier=web' })).endpoints.length, 2);
  assert.equal(translateTcpIngress(obj, buildTranslateOptions({ labelFilter: 'app=x' })).endpoints.length, 0);
  assert.equal(translateTcpIngress(tcpIngress({ [`${A}controller`]: 'other' }, RULES), {}).endpoints.length, 0);
});

test('a bad annotation is a problem and the rest is published; odd shapes publish nothing and do not throw', () => {
  const r = translateTcpIngress(tcpIngress({ [`${A}ttl`]: 'forever' }, RULES), {});
  assert.deepEqual(show(r.endpoints), ['db.example.org A 192.0.2.1 0 tcpingress/kong/t', 'db.example.org CNAME lb.example.net 0 tcpingress/kong/t']);
  assert.match(r.problems[0]?.message ?? '', /^TCPIngress\/kong\/t: .*forever/);
  for (const spec of [null, 'x', { rules: 'x' }, { rules: [{ host: 7 }, null] }]) {
    assert.deepEqual(translateTcpIngress(tcpIngress({}, spec, 'x'), {}).endpoints, []);
  }
});

test('slimTcpIngress keeps rule hosts and the load-balancer status only', () => {
  const slim = slimTcpIngress({
    apiVersion: 'configuration.konghq.com/v1beta1',
    kind: 'TCPIngress',
    metadata: { name: 't', namespace: 'kong', managedFields: [{}] },
    spec: { rules: [{ host: 'a.example.org', port: 1, backend: { serviceName: 's', servicePort: 1 } }, { port: 2 }], tls: [{ hosts: ['a'] }] },
    status: { loadBalancer: { ingress: [{ ip: '192.0.2.1', ports: [{ port: 1, protocol: 'TCP', error: 'x' }] }] } },
  });
  assert.deepEqual(slim['spec'], { rules: [{ host: 'a.example.org' }, {}] });
  assert.deepEqual(slim['status'], { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } });
});
