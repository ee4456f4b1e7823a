import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../kube/resource.ts';
import { matchingHost, protocolMatches, translateGatewayRoute } from './gateway-route.ts';
import type { GatewayLookups, GatewayRouteKind } from './gateway-route.ts';
import { labelSelectorMatches } from './label-selector.ts';

const A = 'external-dns.alpha.kubernetes.io/';
const ACCEPTED = [{ type: 'Accepted', status: 'True' }];

function gateway(name: string, namespace: string, listeners: Record<string, unknown>[], annotations: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name, namespace, annotations },
    spec: { listeners },
    status: { addresses: [{ type: 'IPAddress', value: `192.0.2.${name.length}` }] },
  };
}

const GATEWAYS = new Map<string, KubeObject>([
  [
    'infra/shared',
    gateway('shared', 'infra', [
      { name: 'apps', hostname: '*.apps.example.org', port: 443, protocol: 'HTTPS', allowedRoutes: { namespaces: { from: 'All' } } },
      {
        name: 'team',
        hostname: 'team.example.org',
        port: 80,
        protocol: 'HTTP',
        allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { team: 'a' } } } },
      },
      { name: 'tcp', port: 5432, protocol: 'TCP', allowedRoutes: { namespaces: { from: 'All' } } },
    ]),
  ],
  ['web/own', gateway('own', 'web', [{ name: 'http', port: 80, protocol: 'HTTP' }], { [`${A}target`]: 'lb.example.net' })],
]);

const LOOKUPS: GatewayLookups = {
  gateway: (ns, name) => GATEWAYS.get(`${ns}/${name}`),
  namespaceLabels: (ns): Record<string, string> | undefined => (ns === 'web' ? { team: 'a' } : ns === 'other' ? {} : undefined),
};

function route(
  namespace: string,
  hostnames: string[],
  parentRefs: Record<string, unknown>[],
  parents: { ref: Record<string, unknown>; conditions: unknown[] }[],
  annotations: Record<string, string> = {},
): KubeObject {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'r', namespace, annotations },
    spec: { hostnames, parentRefs },
    status: { parents: parents.map((p) => ({ parentRef: p.ref, conditions: p.conditions })) },
  };
}

function names(obj: KubeObject): string[] {
  return translateGatewayRoute('HTTPRoute', obj, {}, LOOKUPS).endpoints.map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')}`);
}

const SHARED = { name: 'shared', namespace: 'infra' };

describe('gateway-httproute', () => {
  test('published only for parents whose status says Accepted=True', () => {
    assert.deepEqual(names(route('web', ['x.apps.example.org'], [SHARED], [])), []);
    assert.deepEqual(names(route('web', ['x.apps.example.org'], [SHARED], [{ ref: SHARED, conditions: [{ type: 'Accepted', status: 'False' }] }])), []);
    assert.deepEqual(names(route('web', ['x.apps.example.org'], [SHARED], [{ ref: SHARED, conditions: ACCEPTED }])), ['x.apps.example.org A 192.0.2.6']);
    // A status entry for a parent the spec no longer lists does not count.
    assert.deepEqual(names(route('web', ['x.apps.example.org'], [{ name: 'own' }], [{ ref: SHARED, conditions: ACCEPTED }])), []);
  });

  test('route hostnames are intersected with the listener hostname', () => {
    const r = route(
      'web',
      ['a.apps.example.org', 'b.c.apps.example.org', 'apps.example.org', 'other.example.org', '*.apps.example.org'],
      [SHARED],
      [{ ref: SHARED, conditions: ACCEPTED }],
    );
    assert.deepEqual(names(r), ['*.apps.example.org A 192.0.2.6', 'a.apps.example.org A 192.0.2.6', 'b.c.apps.example.org A 192.0.2.6']);
    // Without route hostnames the listener's own hostname is published.
    assert.deepEqual(names(route('web', [], [{ ...SHARED, sectionName: 'team' }], [{ ref: { ...SHARED, sectionName: 'team' }, conditions: ACCEPTED }])), [
      'team.example.org A 192.0.2.6',
    ]);
  });

  test('sectionName and port select the listener; allowedRoutes namespaces Same, All and Selector are honoured', () => {
    const team = { ...SHARED, sectionName: 'team' };
    assert.deepEqual(names(route('web', ['team.example.org'], [team], [{ ref: team, conditions: ACCEPTED }])), ['team.example.org A 192.0.2.6']);
    assert.deepEqual(
      names(route('other', ['team.example.org'], [team], [{ ref: team, conditions: ACCEPTED }])),
      [],
      'namespace labels do not match the selector',
    );
    assert.deepEqual(names(route('unknown', ['team.example.org'], [team], [{ ref: team, conditions: ACCEPTED }])), [], 'namespace not known');
    const apps = { ...SHARED, sectionName: 'apps' };
    assert.deepEqual(
      names(route('web', ['team.example.org'], [apps], [{ ref: apps, conditions: ACCEPTED }])),
      [],
      'the selected listener does not match the hostname',
    );
    const wrongPort = { ...SHARED, port: 80 };
    assert.deepEqual(names(route('web', ['x.apps.example.org'], [wrongPort], [{ ref: wrongPort, conditions: ACCEPTED }])), []);
    // Listener without allowedRoutes: Same namespace only. The Gateway's target annotation wins over its addresses.
    const own = { name: 'own', namespace: 'web' };
    assert.deepEqual(names(route('web', ['own.example.org'], [{ name: 'own' }], [{ ref: own, conditions: ACCEPTED }])), [
      'own.example.org CNAME lb.example.net',
    ]);
    assert.deepEqual(names(route('other', ['own.example.org'], [own], [{ ref: own, conditions: ACCEPTED }])), []);
  });

  test('annotation hostnames must match a listener too; gateway-hostname-source narrows the names', () => {
    const ann = { [`${A}hostname`]: 'extra.apps.example.org,nope.example.org' };
    const accepted = [{ ref: SHARED, conditions: ACCEPTED }];
    assert.deepEqual(names(route('web', ['x.apps.example.org'], [SHARED], accepted, ann)), [
      'extra.apps.example.org A 192.0.2.6',
      'x.apps.example.org A 192.0.2.6',
    ]);
    assert.deepEqual(names(route('web', ['x.apps.example.org'], [SHARED], accepted, { ...ann, [`${A}gateway-hostname-source`]: 'annotation-only' })), [
      'extra.apps.example.org A 192.0.2.6',
    ]);
    assert.deepEqual(names(route('web', ['x.apps.example.org'], [SHARED], accepted, { ...ann, [`${A}gateway-hostname-source`]: 'defined-hosts-only' })), [
      'x.apps.example.org A 192.0.2.6',
    ]);
  });

  test('host matching follows the Gateway API wildcard rules', () => {
    assert.equal(matchingHost('*.example.org', 'a.b.example.org'), 'a.b.example.org');
    assert.equal(matchingHost('a.example.org', '*.example.org'), 'a.example.org');
    assert.equal(matchingHost('*.example.org', 'example.org'), undefined);
    assert.equal(matchingHost('*.example.org', '*.a.example.org'), '*.a.example.org');
    assert.equal(matchingHost('', 'A.Example.org'), 'a.example.org');
    assert.equal(matchingHost('192.0.2.1', ''), undefined);
    assert.equal(matchingHost('x.example.org', 'y.example.org'), undefined);
  });

  test('label selectors: matchLabels and matchExpressions', () => {
    const labels = { team: 'a', env: 'prod' };
    assert.equal(labelSelectorMatches({}, labels), true);
    assert.equal(labelSelectorMatches(undefined, labels), false);
    assert.equal(
      labelSelectorMatches({ matchLabels: { team: 'a' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'stage'] }] }, labels),
      true,
    );
    assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, labels), false);
    assert.equal(
      labelSelectorMatches(
        {
          matchExpressions: [
            { key: 'x', operator: 'DoesNotExist' },
            { key: 'team', operator: 'Exists' },
          ],
        },
        labels,
      ),
      true,
    );
    assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'team', operator: 'Bogus' }] }, labels), false);
  });
});

describe('the other route kinds share the HTTPRoute logic', () => {
  const MIXED = new Map<string, KubeObject>([
    [
      'infra/mixed',
      gateway('mixed', 'infra', [
        { name: 'web', hostname: 'web.example.org', port: 443, protocol: 'HTTPS', allowedRoutes: { namespaces: { from: 'All' } } },
        { name: 'tls', hostname: 'tls.example.org', port: 8443, protocol: 'TLS', allowedRoutes: { namespaces: { from: 'All' } } },
        { name: 'tcp', hostname: 'tcp.example.org', port: 5432, protocol: 'TCP', allowedRoutes: { namespaces: { from: 'All' } } },
        { name: 'udp', hostname: 'udp.example.org', port: 53, protocol: 'UDP', allowedRoutes: { namespaces: { from: 'All' } } },
        {
          name: 'only-tcp',
          hostname: 'kinds.example.org',
          port: 6000,
          protocol: 'TCP',
          allowedRoutes: { namespaces: { from: 'All' }, kinds: [{ kind: 'TCPRoute' }] },
        },
      ]),
    ],
  ]);
  const lookups: GatewayLookups = { gateway: (ns, name) => MIXED.get(`${ns}/${name}`), namespaceLabels: () => ({}) };
  const MIXED_REF = { name: 'mixed', namespace: 'infra' };
  const of = (kind: GatewayRouteKind, hostnames: string[], annotations: Record<string, string> = {}): string[] => {
    const obj = { ...route('web', hostnames, [MIXED_REF], [{ ref: MIXED_REF, conditions: ACCEPTED }], annotations), kind };
    return translateGatewayRoute(kind, obj, {}, lookups).endpoints.map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')}`);
  };

  test('each kind attaches to the listeners of its protocol (HTTP is HTTPS; TCP also takes TLS)', () => {
    assert.deepEqual(of('HTTPRoute', []), ['web.example.org A 192.0.2.5']);
    assert.deepEqual(of('GRPCRoute', []), ['web.example.org A 192.0.2.5']);
    assert.deepEqual(of('TLSRoute', []), ['tls.example.org A 192.0.2.5']);
    assert.deepEqual(of('TCPRoute', []), ['kinds.example.org A 192.0.2.5', 'tcp.example.org A 192.0.2.5', 'tls.example.org A 192.0.2.5']);
    assert.deepEqual(of('UDPRoute', []), ['udp.example.org A 192.0.2.5']);
  });

  test('TCPRoute and UDPRoute ignore spec.hostnames: names come from listeners and annotations', () => {
    // spec.hostnames would not match any listener: ignored, the route takes the listeners' names.
    assert.deepEqual(of('TCPRoute', ['other.example.org']), ['kinds.example.org A 192.0.2.5', 'tcp.example.org A 192.0.2.5', 'tls.example.org A 192.0.2.5']);
    // Annotated names are intersected with the listener hostnames like any other.
    assert.deepEqual(
      of('TCPRoute', ['other.example.org'], { [`${A}hostname`]: 'tcp.example.org,db.example.org', [`${A}gateway-hostname-source`]: 'annotation-only' }),
      ['tcp.example.org A 192.0.2.5'],
    );
    assert.deepEqual(of('UDPRoute', ['other.example.org'], { [`${A}gateway-hostname-source`]: 'defined-hosts-only' }), []);
    assert.deepEqual(of('TLSRoute', ['tls.example.org', 'x.example.org'], { [`${A}gateway-hostname-source`]: 'defined-hosts-only' }), [
      'tls.example.org A 192.0.2.5',
    ]);
  });

  test('the endpoints carry the kind in their resource label', () => {
    const obj = { ...route('web', [], [MIXED_REF], [{ ref: MIXED_REF, conditions: ACCEPTED }]), kind: 'UDPRoute' };
    assert.deepEqual(
      translateGatewayRoute('UDPRoute', obj, {}, lookups).endpoints.map((e) => e.labels['resource']),
      ['udproute/web/r'],
    );
  });

  test('protocolMatches is upstream gwProtocolMatches(route, listener)', () => {
    assert.equal(protocolMatches('HTTP', 'HTTPS'), true);
    assert.equal(protocolMatches('HTTPS', 'HTTP'), true);
    assert.equal(protocolMatches('TCP', 'TLS'), true);
    assert.equal(protocolMatches('TLS', 'TCP'), false);
    assert.equal(protocolMatches('UDP', 'TCP'), false);
    assert.equal(protocolMatches('TLS', 'HTTPS'), false);
  });
});
