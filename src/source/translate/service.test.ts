import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { endpointToJSON } from '../../endpoint/endpoint.ts';
import type { JsonRecord } from './object.ts';
import { buildTranslateOptions } from './options.ts';
import { translateObject } from './translate.ts';

const A = 'external-dns.alpha.kubernetes.io/';
const S = 'external-dns.kubernetes.io/';

function service(annotations: Record<string, string>, spec: JsonRecord = {}, ingress: JsonRecord[] = [{ ip: '192.0.2.10' }], name = 'web'): JsonRecord {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'shop', annotations, labels: { app: name } },
    spec: { type: 'LoadBalancer', clusterIP: '10.0.0.5', ...spec },
    status: { loadBalancer: { ingress } },
  };
}

function json(obj: JsonRecord, options = {}): unknown[] {
  return translateObject(obj, options).endpoints.map(endpointToJSON);
}

describe('Service translation', () => {
  test('hostname annotation with a load-balancer IP gives an A record labelled with the resource', () => {
    const result = translateObject(service({ [`${A}hostname`]: 'www.example.org', [`${A}ttl`]: '60' }));
    assert.equal(result.outcome, 'translated');
    assert.deepEqual(result.problems, []);
    assert.deepEqual(result.endpoints.map(endpointToJSON), [
      { dnsName: 'www.example.org', targets: ['192.0.2.10'], recordType: 'A', recordTTL: 60, labels: { resource: 'service/shop/web' } },
    ]);
    assert.deepEqual(result.ref, { kind: 'Service', namespace: 'shop', name: 'web' });
  });

  test('the stable prefix and several hostnames', () => {
    const eps = json(service({ [`${S}hostname`]: 'a.example.org,b.example.org.' }));
    assert.deepEqual(
      eps.map((e) => (e as { dnsName: string }).dnsName),
      ['a.example.org', 'b.example.org'],
    );
  });

  test('with loadBalancerAddresses, load-balancer hostnames become their addresses; externalIPs, the target annotation, internal-hostname and ingress hostnames are untouched', () => {
    const asked: string[] = [];
    const options = {
      loadBalancerAddresses: (h: string) => {
        asked.push(h);
        return h === 'lb.example.net'
          ? { addresses: ['192.0.2.7', '2001:db8::7'] }
          : { addresses: [], problem: `load-balancer hostname ${h} has no A or AAAA records; it adds no targets` };
      },
    };
    const svc = service({ [`${A}hostname`]: 'www.example.org', [`${A}internal-hostname`]: 'in.example.org' }, {}, [
      { ip: '192.0.2.1' },
      { hostname: 'lb.example.net.' },
      { hostname: 'gone.invalid' },
    ]);
    const result = translateObject(svc, options);
    assert.deepEqual(result.endpoints.map(endpointToJSON), [
      { dnsName: 'www.example.org', targets: ['192.0.2.1', '192.0.2.7'], recordType: 'A', labels: { resource: 'service/shop/web' } },
      { dnsName: 'www.example.org', targets: ['2001:db8::7'], recordType: 'AAAA', labels: { resource: 'service/shop/web' } },
      { dnsName: 'in.example.org', targets: ['10.0.0.5'], recordType: 'A', labels: { resource: 'service/shop/web' } },
    ]);
    assert.deepEqual(asked, ['lb.example.net', 'gone.invalid']);
    assert.deepEqual(
      result.problems.map((p) => p.message),
      ['Service/shop/web: load-balancer hostname gone.invalid has no A or AAAA records; it adds no targets'],
    );
    asked.length = 0;
    assert.deepEqual(
      json(service({ [`${A}hostname`]: 'www.example.org' }, { externalIPs: ['198.51.100.1'] }, [{ hostname: 'lb.example.net' }]), options).length,
      1,
    );
    assert.deepEqual(json(service({ [`${A}hostname`]: 'www.example.org', [`${A}target`]: 'lb.example.net' }, {}, [{ hostname: 'lb.example.net' }]), options), [
      { dnsName: 'www.example.org', targets: ['lb.example.net'], recordType: 'CNAME', labels: { resource: 'service/shop/web' } },
    ]);
    assert.deepEqual(asked, [], 'externalIPs and the target annotation win without a look-up');
  });

  test('IPv6 gives AAAA, hostnames give one CNAME each', () => {
    const eps = json(
      service({ [`${A}hostname`]: 'www.example.org' }, {}, [
        { ip: '2001:DB8::1' },
        { hostname: 'lb1.example.net' },
        { hostname: 'lb2.example.net' },
        { ip: '192.0.2.1' },
      ]),
    );
    assert.deepEqual(eps, [
      { dnsName: 'www.example.org', targets: ['192.0.2.1'], recordType: 'A', labels: { resource: 'service/shop/web' } },
      { dnsName: 'www.example.org', targets: ['2001:db8::1'], recordType: 'AAAA', labels: { resource: 'service/shop/web' } },
      { dnsName: 'www.example.org', targets: ['lb1.example.net'], recordType: 'CNAME', labels: { resource: 'service/shop/web' } },
      { dnsName: 'www.example.org', targets: ['lb2.example.net'], recordType: 'CNAME', labels: { resource: 'service/shop/web' } },
    ]);
  });

  test('externalIPs win over the load-balancer status', () => {
    const eps = json(service({ [`${A}hostname`]: 'www.example.org' }, { externalIPs: ['198.51.100.7'] }));
    assert.deepEqual((eps[0] as { targets: string[] }).targets, ['198.51.100.7']);
    assert.equal(eps.length, 1);
  });

  test('the target annotation overrides the status; IPs and names are typed', () => {
    const eps = json(service({ [`${A}hostname`]: 'www.example.org', [`${A}target`]: '203.0.113.9,edge.example.net.' }));
    assert.deepEqual(
      eps.map((e) => [(e as { recordType: string }).recordType, (e as { targets: string[] }).targets]),
      [
        ['A', ['203.0.113.9']],
        ['CNAME', ['edge.example.net']],
      ],
    );
  });

  test('ttl forms and an invalid ttl reported with the default kept', () => {
    assert.equal((json(service({ [`${A}hostname`]: 'www.example.org', [`${A}ttl`]: '10m' }))[0] as { recordTTL: number }).recordTTL, 600);
    const bad = translateObject(service({ [`${A}hostname`]: 'www.example.org', [`${A}ttl`]: 'forever' }), { defaultTTL: 300 });
    assert.equal(bad.endpoints[0]?.recordTTL, 300);
    assert.equal(bad.problems.length, 1);
    assert.match(bad.problems[0]?.message ?? '', /Service\/shop\/web.*forever/);
  });

  test('a controller annotation for another controller skips the object', () => {
    const result = translateObject(service({ [`${A}hostname`]: 'www.example.org', [`${A}controller`]: 'someone-else' }));
    assert.equal(result.outcome, 'controller-mismatch');
    assert.deepEqual(result.endpoints, []);
    assert.equal(json(service({ [`${A}hostname`]: 'www.example.org', [`${A}controller`]: 'dns-controller' })).length, 1);
  });

  test('set identifier and provider-specific annotations are carried', () => {
    const [ep] = translateObject(service({ [`${A}hostname`]: 'www.example.org', [`${A}set-identifier`]: 'eu', [`${A}aws-weight`]: '10' })).endpoints;
    assert.equal(ep?.setIdentifier, 'eu');
    assert.deepEqual(ep?.providerSpecific, [{ name: 'aws/weight', value: '10' }]);
  });

  test('an invalid hostname is skipped with a problem naming the object; the others survive', () => {
    const result = translateObject(service({ [`${A}hostname`]: 'bad_host!.example.org,good.example.org' }), {}, { file: 'svc.yaml', line: 3 });
    assert.deepEqual(
      result.endpoints.map((e) => e.dnsName),
      ['good.example.org'],
    );
    assert.equal(result.problems.length, 1);
    const [problem] = result.problems;
    assert.match(problem?.message ?? '', /Service\/shop\/web \(svc\.yaml:3\)/);
    assert.match(problem?.message ?? '', /bad_host!/);
    assert.equal(problem?.file, 'svc.yaml');
    assert.equal(problem?.line, 3);
  });

  test('internal-hostname uses the cluster IP; ClusterIP services need publishInternalServices', () => {
    const internal = json(service({ [`${A}internal-hostname`]: 'web.internal.example.org' }));
    assert.deepEqual((internal[0] as { targets: string[] }).targets, ['10.0.0.5']);
    const clusterIP = service({ [`${A}hostname`]: 'web.example.org' }, { type: 'ClusterIP' });
    assert.deepEqual(json(clusterIP), []);
    assert.deepEqual((json(clusterIP, { publishInternalServices: true })[0] as { targets: string[] }).targets, ['10.0.0.5']);
    const headless = service({ [`${A}hostname`]: 'web.example.org' }, { type: 'ClusterIP', clusterIP: 'None' });
    assert.deepEqual(json(headless, { publishInternalServices: true }), []);
  });

  test('ExternalName services point a CNAME at the external name', () => {
    const eps = json(service({ [`${A}hostname`]: 'db.example.org' }, { type: 'ExternalName', externalName: 'db.provider.example.net' }));
    assert.deepEqual(eps, [{ dnsName: 'db.example.org', targets: ['db.provider.example.net'], recordType: 'CNAME', labels: { resource: 'service/shop/web' } }]);
  });

  test('ignoreHostnameAnnotation and the service type filter', () => {
    assert.deepEqual(json(service({ [`${A}hostname`]: 'www.example.org' }), { ignoreHostnameAnnotation: true }), []);
    const filtered = translateObject(service({ [`${A}hostname`]: 'www.example.org' }), { serviceTypeFilter: ['ClusterIP'] });
    assert.equal(filtered.outcome, 'filtered');
  });

  test('fqdn template is a fallback unless combined', () => {
    const options = buildTranslateOptions({ fqdnTemplate: '{{.Name}}.{{.Namespace}}.example.org' });
    assert.deepEqual(
      translateObject(service({}), options).endpoints.map((e) => e.dnsName),
      ['web.shop.example.org'],
    );
    assert.deepEqual(
      translateObject(service({ [`${A}hostname`]: 'www.example.org' }), options).endpoints.map((e) => e.dnsName),
      ['www.example.org'],
    );
    const combined = buildTranslateOptions({ fqdnTemplate: '{{.Name}}.{{.Namespace}}.example.org', combineFqdnAnnotation: true });
    assert.deepEqual(
      translateObject(service({ [`${A}hostname`]: 'www.example.org' }), combined).endpoints.map((e) => e.dnsName),
      ['www.example.org', 'web.shop.example.org'],
    );
  });

  test('annotation and label filters', () => {
    const obj = service({ [`${A}hostname`]: 'www.example.org', 'kubernetes.io/ingress.class': 'public' });
    assert.equal(translateObject(obj, buildTranslateOptions({ annotationFilter: 'kubernetes.io/ingress.class=public' })).endpoints.length, 1);
    assert.equal(translateObject(obj, buildTranslateOptions({ annotationFilter: 'kubernetes.io/ingress.class=internal' })).outcome, 'filtered');
    assert.equal(translateObject(obj, buildTranslateOptions({ labelFilter: 'app in (web,api)' })).endpoints.length, 1);
    assert.equal(translateObject(obj, buildTranslateOptions({ labelFilter: 'app=db' })).outcome, 'filtered');
  });

  test('mate compatibility reads zalando.org/dnsname', () => {
    const obj = service({ 'zalando.org/dnsname': 'mate.example.org' });
    assert.deepEqual(json(obj), []);
    assert.deepEqual(
      translateObject(obj, { compatibility: 'mate' }).endpoints.map((e) => e.dnsName),
      ['mate.example.org'],
    );
  });

  test('a missing namespace means default; a nameless object is malformed', () => {
    const obj = {
      kind: 'Service',
      metadata: { name: 'x', annotations: { [`${A}hostname`]: 'x.example.org' } },
      spec: { type: 'LoadBalancer' },
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } },
    };
    assert.equal(translateObject(obj).endpoints[0]?.labels['resource'], 'service/default/x');
    const nameless = translateObject({ kind: 'Service', metadata: {} });
    assert.equal(nameless.outcome, 'malformed');
    assert.equal(nameless.problems.length, 1);
  });

  test('unknown kinds and non-objects are ignored quietly', () => {
    for (const input of [
      { kind: 'ConfigMap', metadata: { name: 'x' } },
      null,
      'text',
      [],
      { apiVersion: 'other.io/v1', kind: 'DNSEndpoint', metadata: { name: 'x' } },
      { apiVersion: 'serving.knative.dev/v1', kind: 'Service', metadata: { name: 'x' } },
    ]) {
      const result = translateObject(input);
      assert.equal(result.outcome, 'unsupported-kind');
      assert.deepEqual(result.problems, []);
    }
  });
});
