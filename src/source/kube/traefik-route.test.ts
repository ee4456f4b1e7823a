import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../kube/resource.ts';
import { buildTranslateOptions } from '../translate/options.ts';
import { hostsOfMatch, slimTraefikRoute, translateTraefikRoute } from './traefik-route.ts';
import type { TraefikRouteKind } from './traefik-route.ts';

const TARGET = 'external-dns.alpha.kubernetes.io/target';
const HOSTNAME = 'external-dns.alpha.kubernetes.io/hostname';

function route(kind: TraefikRouteKind, annotations: Record<string, string>, matches: unknown[] = []): KubeObject {
  return {
    apiVersion: 'traefik.io/v1alpha1',
    kind,
    metadata: { name: 'r', namespace: 'apps', annotations },
    spec: { routes: matches.map((match) => ({ match })) },
  };
}

const names = (r: { endpoints: { dnsName: string; recordType: string; targets: readonly string[] }[] }): string[] =>
  r.endpoints.map((e) => `${e.dnsName} ${e.recordType} ${[...e.targets].join(',')}`).sort();

describe('hostsOfMatch (upstream regular expressions)', () => {
  test('Host, HostHeader and HostSNI, several values, spacing, and what is left out', () => {
    assert.deepEqual(hostsOfMatch('Host(`a.example.org`)'), ['a.example.org']);
    assert.deepEqual(hostsOfMatch('HostHeader(`b.example.org`) && PathPrefix(`/x`)'), ['b.example.org']);
    assert.deepEqual(hostsOfMatch('HostSNI(`c.example.org`)'), ['c.example.org']);
    assert.deepEqual(hostsOfMatch('Host(`d.example.org`) || Host(`e.example.org`)'), ['d.example.org', 'e.example.org']);
    assert.deepEqual(hostsOfMatch('Host(`f.example.org`, `g.example.org`)'), ['f.example.org', 'g.example.org']);
    assert.deepEqual(hostsOfMatch('Host ( `h.example.org` )'), ['h.example.org']);
    // Wildcards (TLS passthrough), HostRegexp and other matchers name no host.
    assert.deepEqual(hostsOfMatch('HostSNI(`*`)'), []);
    assert.deepEqual(hostsOfMatch('HostRegexp(`{sub:[a-z]+}.example.org`)'), []);
    assert.deepEqual(hostsOfMatch('PathPrefix(`/`)'), []);
    // Go's \s has no vertical tab; its `.` does take a carriage return.
    assert.deepEqual(hostsOfMatch('Host(\v`i.example.org`)'), []);
    assert.deepEqual(hostsOfMatch('Host(`j.example.org\r`)'), ['j.example.org\r']);
  });
});

describe('translateTraefikRoute', () => {
  const options = buildTranslateOptions({});

  test('match hosts and hostname annotation point at the target annotation', () => {
    const r = translateTraefikRoute(
      'IngressRoute',
      route('IngressRoute', { [TARGET]: '192.0.2.1', [HOSTNAME]: 'x.example.org' }, ['Host(`a.example.org`)']),
      options,
    );
    assert.deepEqual(names(r), ['a.example.org A 192.0.2.1', 'x.example.org A 192.0.2.1']);
    assert.equal(r.endpoints[0]?.labels['resource'], 'ingressroute/apps/r');
  });

  test('IngressRouteUDP reads only annotations; without a target nothing is published', () => {
    const udp = route('IngressRouteUDP', { [TARGET]: 'lb.example.org', [HOSTNAME]: 'u.example.org' }, ['Host(`ignored.example.org`)']);
    assert.deepEqual(names(translateTraefikRoute('IngressRouteUDP', udp, options)), ['u.example.org CNAME lb.example.org']);
    assert.deepEqual(translateTraefikRoute('IngressRoute', route('IngressRoute', {}, ['Host(`a.example.org`)']), options).endpoints, []);
  });

  test('a route of unexpected shape yields what it can, never throws', () => {
    const odd: KubeObject = {
      apiVersion: 'traefik.io/v1alpha1',
      kind: 'IngressRoute',
      metadata: { name: 'odd', annotations: { [TARGET]: '192.0.2.1' } },
      spec: { routes: 'x' },
    };
    assert.deepEqual(translateTraefikRoute('IngressRoute', odd, options).endpoints, []);
    const mixed = route('IngressRouteTCP', { [TARGET]: '192.0.2.1' }, [7, null, 'HostSNI(`t.example.org`)']);
    assert.deepEqual(names(translateTraefikRoute('IngressRouteTCP', mixed, options)), ['t.example.org A 192.0.2.1']);
  });

  test('a bad hostname is a problem naming the object; the others stay', () => {
    const r = translateTraefikRoute('IngressRoute', route('IngressRoute', { [TARGET]: '192.0.2.1' }, ['Host(`bad..name`, `ok.example.org`)']), options);
    assert.deepEqual(names(r), ['ok.example.org A 192.0.2.1']);
    assert.match(r.problems[0]?.message ?? '', /^IngressRoute\/apps\/r: /);
  });

  test('templates: fqdn-target first, then fqdn with target-template, as upstream ApplyTemplates', () => {
    const t = buildTranslateOptions({
      fqdnTemplate: '{{.Name}}.t.example.org',
      targetTemplate: ['lb.example.org'],
      fqdnTargetTemplate: ['{{.Name}}.ft.example.org:192.0.2.9'],
    });
    assert.deepEqual(names(translateTraefikRoute('IngressRoute', route('IngressRoute', {}), t)), ['r.ft.example.org A 192.0.2.9']);
    const combined = { ...t, combineFqdnAnnotation: true };
    assert.deepEqual(names(translateTraefikRoute('IngressRoute', route('IngressRoute', { [TARGET]: '192.0.2.1' }, ['Host(`a.example.org`)']), combined)), [
      'a.example.org A 192.0.2.1',
      'r.ft.example.org A 192.0.2.9',
      'r.t.example.org CNAME lb.example.org',
    ]);
    // Without --target-template, --fqdn-template names get no targets (upstream publishes nothing).
    assert.deepEqual(
      translateTraefikRoute('IngressRoute', route('IngressRoute', {}), buildTranslateOptions({ fqdnTemplate: '{{.Name}}.example.org' })).endpoints,
      [],
    );
  });

  test('a failing template holds the object', () => {
    const t = buildTranslateOptions({ fqdnTemplate: '{{ .Name }}.{{ .Missing }}.example.org', targetTemplate: ['lb.example.org'] });
    const r = translateTraefikRoute('IngressRoute', route('IngressRoute', {}), t);
    assert.equal(r.heldResource, 'ingressroute/apps/r');
  });
});

test('slimTraefikRoute keeps metadata and each match, nothing else', () => {
  const slim = slimTraefikRoute({
    apiVersion: 'traefik.io/v1alpha1',
    kind: 'IngressRoute',
    metadata: { name: 'r', namespace: 'apps', managedFields: [{}], annotations: { a: 'b' } },
    spec: { entryPoints: ['web'], routes: [{ match: 'Host(`a`)', kind: 'Rule', services: [{ name: 's', port: 80 }] }, { match: 3 }], tls: {} },
  });
  assert.deepEqual(slim, {
    apiVersion: 'traefik.io/v1alpha1',
    kind: 'IngressRoute',
    metadata: { name: 'r', namespace: 'apps', annotations: { a: 'b' } },
    spec: { routes: [{ match: 'Host(`a`)' }, {}] },
  });
});
