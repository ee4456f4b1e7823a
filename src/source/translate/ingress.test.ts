import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { endpointToJSON } from '../../endpoint/endpoint.ts';
import type { JsonRecord } from './object.ts';
import { buildTranslateOptions } from './options.ts';
import type { TranslateOptions } from './options.ts';
import { translateObject } from './translate.ts';

const A = 'external-dns.alpha.kubernetes.io/';

function ingress(annotations: Record<string, string> = {}, lb: JsonRecord[] = [{ hostname: 'lb.example.net' }]): JsonRecord {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'app', namespace: 'shop', annotations },
    spec: {
      rules: [{ host: 'app.example.org' }, { host: 'api.example.org' }, {}],
      tls: [{ hosts: ['app.example.org', 'secure.example.org'] }],
    },
    status: { loadBalancer: { ingress: lb } },
  };
}

function names(obj: JsonRecord, options: TranslateOptions = {}): string[] {
  return translateObject(obj, options).endpoints.map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')}`);
}

describe('Ingress translation', () => {
  test('rule hosts and TLS hosts, deduplicated, CNAME to the load-balancer hostname', () => {
    const result = translateObject(ingress());
    assert.deepEqual(result.problems, []);
    assert.deepEqual(result.endpoints.map(endpointToJSON), [
      { dnsName: 'app.example.org', targets: ['lb.example.net'], recordType: 'CNAME', labels: { resource: 'ingress/shop/app' } },
      { dnsName: 'api.example.org', targets: ['lb.example.net'], recordType: 'CNAME', labels: { resource: 'ingress/shop/app' } },
      { dnsName: 'secure.example.org', targets: ['lb.example.net'], recordType: 'CNAME', labels: { resource: 'ingress/shop/app' } },
    ]);
  });

  test('hostname annotation adds names; options drop rules or TLS', () => {
    const obj = ingress({ [`${A}hostname`]: 'extra.example.org' });
    assert.deepEqual(names(obj), [
      'app.example.org CNAME lb.example.net',
      'api.example.org CNAME lb.example.net',
      'secure.example.org CNAME lb.example.net',
      'extra.example.org CNAME lb.example.net',
    ]);
    assert.deepEqual(names(obj, { ignoreIngressTLSSpec: true }), [
      'app.example.org CNAME lb.example.net',
      'api.example.org CNAME lb.example.net',
      'extra.example.org CNAME lb.example.net',
    ]);
    assert.deepEqual(names(obj, { ignoreIngressRulesSpec: true }), [
      'app.example.org CNAME lb.example.net',
      'secure.example.org CNAME lb.example.net',
      'extra.example.org CNAME lb.example.net',
    ]);
    assert.deepEqual(names(obj, { ignoreIngressRulesSpec: true, ignoreIngressTLSSpec: true, ignoreHostnameAnnotation: true }), []);
  });

  test('ingress-hostname-source narrows the names', () => {
    assert.deepEqual(names(ingress({ [`${A}hostname`]: 'extra.example.org', [`${A}ingress-hostname-source`]: 'annotation-only' })), [
      'extra.example.org CNAME lb.example.net',
    ]);
    assert.equal(names(ingress({ [`${A}hostname`]: 'extra.example.org', [`${A}ingress-hostname-source`]: 'defined-hosts-only' })).length, 3);
    const bad = translateObject(ingress({ [`${A}ingress-hostname-source`]: 'both' }));
    assert.deepEqual(bad.endpoints, []);
    assert.equal(bad.problems.length, 1);
  });

  test('IP status gives A/AAAA; the target annotation overrides status', () => {
    assert.deepEqual(names(ingress({}, [{ ip: '192.0.2.20' }, { ip: '2001:db8::20' }])).slice(0, 2), [
      'app.example.org A 192.0.2.20',
      'app.example.org AAAA 2001:db8::20',
    ]);
    assert.deepEqual(names(ingress({ [`${A}target`]: '198.51.100.1' }))[0], 'app.example.org A 198.51.100.1');
  });

  test('no status and no target means no endpoints and no problems', () => {
    const result = translateObject(ingress({}, []));
    assert.deepEqual(result.endpoints, []);
    assert.deepEqual(result.problems, []);
  });

  test('controller mismatch skips; ttl and set identifier apply to every name', () => {
    assert.equal(translateObject(ingress({ [`${A}controller`]: 'other' })).outcome, 'controller-mismatch');
    const eps = translateObject(ingress({ [`${A}ttl`]: '5m', [`${A}set-identifier`]: 'blue' })).endpoints;
    assert.ok(eps.every((e) => e.recordTTL === 300 && e.setIdentifier === 'blue'));
  });

  test('an invalid rule host is one problem; the other hosts survive', () => {
    const obj = ingress();
    (obj['spec'] as { rules: JsonRecord[] }).rules.push({ host: '-bad-.example.org' });
    const result = translateObject(obj);
    assert.equal(result.endpoints.length, 3);
    assert.equal(result.problems.length, 1);
    assert.match(result.problems[0]?.message ?? '', /^Ingress\/shop\/app: .*-bad-\.example\.org/);
  });

  test('wildcard hosts are allowed', () => {
    const obj = ingress();
    (obj['spec'] as { rules: JsonRecord[] }).rules = [{ host: '*.apps.example.org' }];
    (obj['spec'] as { tls: JsonRecord[] }).tls = [];
    assert.deepEqual(names(obj), ['*.apps.example.org CNAME lb.example.net']);
  });

  test('fqdn template only when the ingress has no hosts', () => {
    const options = buildTranslateOptions({ fqdnTemplate: '{{.Name}}.{{.Namespace}}.example.org' });
    assert.equal(names(ingress(), options).length, 3);
    const bare = ingress();
    bare['spec'] = {};
    assert.deepEqual(names(bare, options), ['app.shop.example.org CNAME lb.example.net']);
  });
});
