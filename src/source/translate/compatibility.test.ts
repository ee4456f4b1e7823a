import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonRecord } from './object.ts';
import { translateObject } from './translate.ts';

function service(meta: { annotations?: Record<string, string>; labels?: Record<string, string> }, type = 'LoadBalancer', spec: JsonRecord = {}): JsonRecord {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'legacy', namespace: 'default', annotations: meta.annotations ?? {}, labels: meta.labels ?? {} },
    spec: { type, ...spec },
    status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }, { hostname: 'lb.example.net' }] } },
  };
}

const brief = (obj: JsonRecord, compatibility: string): string[] =>
  translateObject(obj, { compatibility }).endpoints.map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')}`);

describe('--compatibility: legacy annotations on Services', () => {
  test('molecule: domainName on a Service labelled dns=route53, at the load balancer', () => {
    const obj = service({ annotations: { domainName: 'a.example.org, b.example.org' }, labels: { dns: 'route53' } });
    assert.deepEqual(brief(obj, 'molecule'), [
      'a.example.org A 192.0.2.10',
      'a.example.org CNAME lb.example.net',
      'b.example.org A 192.0.2.10',
      'b.example.org CNAME lb.example.net',
    ]);
    assert.deepEqual(brief(service({ annotations: { domainName: 'a.example.org' } }), 'molecule'), [], 'without the dns=route53 label');
    assert.deepEqual(brief(obj, ''), [], 'only in molecule mode');
    assert.deepEqual(brief(obj, 'mate'), []);
  });

  test('kops-dns-controller: external and internal names on a LoadBalancer Service, both at the load balancer', () => {
    const obj = service({ annotations: { 'dns.alpha.kubernetes.io/external': 'pub.example.org', 'dns.alpha.kubernetes.io/internal': 'priv.example.org' } });
    assert.deepEqual(brief(obj, 'kops-dns-controller'), [
      'pub.example.org A 192.0.2.10',
      'pub.example.org CNAME lb.example.net',
      'priv.example.org A 192.0.2.10',
      'priv.example.org CNAME lb.example.net',
    ]);
    assert.deepEqual(brief(obj, ''), []);
    // ClusterIP Services are not published in kops mode; NodePort ones need the Nodes (Kubernetes source).
    assert.deepEqual(brief(service({ annotations: { 'dns.alpha.kubernetes.io/external': 'pub.example.org' } }, 'ClusterIP'), 'kops-dns-controller'), []);
  });

  test('legacy names apply only when the Service has no names of its own; targets are the load-balancer status, not externalIPs', () => {
    const own = service({ annotations: { 'external-dns.kubernetes.io/hostname': 'own.example.org', 'zalando.org/dnsname': 'mate.example.org' } });
    assert.deepEqual(brief(own, 'mate'), ['own.example.org A 192.0.2.10', 'own.example.org CNAME lb.example.net']);
    const mate = service({ annotations: { 'zalando.org/dnsname': 'mate.example.org' } }, 'LoadBalancer', { externalIPs: ['198.51.100.1'] });
    assert.deepEqual(brief(mate, 'mate'), ['mate.example.org A 192.0.2.10', 'mate.example.org CNAME lb.example.net']);
  });
});
