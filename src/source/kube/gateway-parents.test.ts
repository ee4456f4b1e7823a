import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../kube/resource.ts';
import { parseSelector } from '../selector.ts';
import type { GatewayLookups } from './gateway-route.ts';
import { translateGatewayRoute } from './gateway-route.ts';

const S = 'external-dns.kubernetes.io/';
const ACCEPTED = [{ type: 'Accepted', status: 'True' }];
const REJECTED = [{ type: 'Accepted', status: 'False' }];

function gateway(name: string, namespace: string, allowedFrom: string | undefined, annotations: Record<string, string> = {}, selector?: unknown): KubeObject {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name, namespace, annotations },
    spec: {
      ...(allowedFrom === undefined ? {} : { allowedListeners: { namespaces: { from: allowedFrom, ...(selector === undefined ? {} : { selector }) } } }),
      listeners: [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }],
    },
    status: { addresses: [{ type: 'IPAddress', value: '192.0.2.1' }] },
  };
}

interface LsOptions {
  gateway?: { name: string; namespace?: string };
  accepted?: boolean;
  listenerStatus?: Record<string, boolean>;
  annotations?: Record<string, string>;
}

function listenerSet(name: string, namespace: string, o: LsOptions = {}): KubeObject {
  const listeners = [
    { name: 'shop', hostname: 'shop.example.org', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'Same' } } },
    { name: 'blog', hostname: 'blog.example.org', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } },
  ];
  const status = o.listenerStatus ?? { shop: true, blog: true };
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'ListenerSet',
    metadata: { name, namespace, annotations: o.annotations ?? {} },
    spec: { parentRef: o.gateway ?? { name: 'gw', namespace: 'infra' }, listeners },
    status: {
      conditions: o.accepted === false ? REJECTED : ACCEPTED,
      listeners: Object.entries(status).map(([n, ok]) => ({ name: n, conditions: ok ? ACCEPTED : REJECTED })),
    },
  };
}

function lookups(gateways: KubeObject[], sets: KubeObject[] | undefined): GatewayLookups {
  const key = (o: KubeObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  return {
    gateway: (ns, name) => gateways.find((g) => key(g) === `${ns}/${name}`),
    listenerSet: sets === undefined ? undefined : (ns, name) => sets.find((l) => key(l) === `${ns}/${name}`),
    namespaceLabels: (ns): Record<string, string> | undefined => (ns === 'team' ? { tenant: 'yes' } : ns === 'infra' || ns === 'other' ? {} : undefined),
  };
}

function route(namespace: string, hostnames: string[], parent: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'r', namespace },
    spec: { hostnames, parentRefs: [parent] },
    status: { parents: [{ parentRef: parent, conditions: ACCEPTED }] },
  };
}

const LS = { group: 'gateway.networking.k8s.io', kind: 'ListenerSet', name: 'ls' };
const names = (r: KubeObject, l: GatewayLookups, options = {}): string[] =>
  translateGatewayRoute('HTTPRoute', r, options, l).endpoints.map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')}`);

describe('gateway-httproute with ListenerSets (--gateway-listener-sets)', () => {
  test('a route attached to an accepted ListenerSet gets its listeners and the parent Gateway addresses', () => {
    const l = lookups([gateway('gw', 'infra', 'All')], [listenerSet('ls', 'team')]);
    assert.deepEqual(names(route('team', [], LS), l), ['blog.example.org A 192.0.2.1', 'shop.example.org A 192.0.2.1']);
    // sectionName picks one listener of the set.
    assert.deepEqual(names(route('team', [], { ...LS, sectionName: 'blog' }), l), ['blog.example.org A 192.0.2.1']);
    assert.deepEqual(names(route('team', [], { ...LS, sectionName: 'nope' }), l), []);
  });

  test('without the flag a ListenerSet parent is never resolved', () => {
    assert.deepEqual(names(route('team', [], LS), lookups([gateway('gw', 'infra', 'All')], undefined)), []);
  });

  test('allowedRoutes "Same" is relative to the ListenerSet namespace, not the Gateway one', () => {
    const l = lookups([gateway('gw', 'infra', 'All')], [listenerSet('ls', 'team')]);
    const other = { ...LS, namespace: 'team' };
    assert.deepEqual(names(route('other', ['shop.example.org', 'blog.example.org'], other), l), ['blog.example.org A 192.0.2.1']);
  });

  test('the Gateway must allow ListenerSets from the namespace: None (default), Same, All, Selector', () => {
    const attached = (gw: KubeObject, lsNamespace = 'team'): string[] =>
      names(route(lsNamespace, [], { ...LS, sectionName: 'blog' }), lookups([gw], [listenerSet('ls', lsNamespace)]));
    assert.deepEqual(attached(gateway('gw', 'infra', undefined)), []);
    assert.deepEqual(attached(gateway('gw', 'infra', 'None')), []);
    assert.deepEqual(attached(gateway('gw', 'infra', 'Same')), []);
    assert.deepEqual(attached(gateway('gw', 'infra', 'Same'), 'infra'), ['blog.example.org A 192.0.2.1']);
    assert.deepEqual(attached(gateway('gw', 'infra', 'Selector', {}, { matchLabels: { tenant: 'yes' } })), ['blog.example.org A 192.0.2.1']);
    assert.deepEqual(attached(gateway('gw', 'infra', 'Selector', {}, { matchLabels: { tenant: 'no' } })), []);
    assert.deepEqual(attached(gateway('gw', 'infra', 'Selector')), [], 'Selector without a selector admits nothing');
  });

  test('the ListenerSet and each of its listeners must be Accepted; the parent Gateway must be known', () => {
    const gw = gateway('gw', 'infra', 'All');
    const r = route('team', [], LS);
    assert.deepEqual(names(r, lookups([gw], [listenerSet('ls', 'team', { accepted: false })])), []);
    assert.deepEqual(names(r, lookups([gw], [listenerSet('ls', 'team', { listenerStatus: { shop: false, blog: true } })])), ['blog.example.org A 192.0.2.1']);
    assert.deepEqual(
      names(r, lookups([gw], [listenerSet('ls', 'team', { listenerStatus: { blog: true } })])),
      ['blog.example.org A 192.0.2.1'],
      'no status entry: not attached',
    );
    assert.deepEqual(names(r, lookups([], [listenerSet('ls', 'team')])), []);
  });

  test('targets: the ListenerSet target annotation, else the Gateway one, else its addresses', () => {
    const r = route('team', [], { ...LS, sectionName: 'blog' });
    const gwTarget = gateway('gw', 'infra', 'All', { [`${S}target`]: 'gw.example.net' });
    assert.deepEqual(names(r, lookups([gwTarget], [listenerSet('ls', 'team')])), ['blog.example.org CNAME gw.example.net']);
    const lsTarget = listenerSet('ls', 'team', { annotations: { [`${S}target`]: '198.51.100.7' } });
    assert.deepEqual(names(r, lookups([gwTarget], [lsTarget])), ['blog.example.org A 198.51.100.7']);
  });

  test('a ListenerSet is subject to the annotation filter and the controller annotation, as routes are', () => {
    const r = route('team', [], { ...LS, sectionName: 'blog' });
    const gw = gateway('gw', 'infra', 'All');
    const options = { annotationFilter: parseSelector('dns=yes', '--annotation-filter') };
    const routeWithAnnotation: KubeObject = { ...r, metadata: { ...r.metadata, annotations: { dns: 'yes' } } };
    assert.deepEqual(names(routeWithAnnotation, lookups([gw], [listenerSet('ls', 'team')]), options), []);
    assert.deepEqual(names(routeWithAnnotation, lookups([gw], [listenerSet('ls', 'team', { annotations: { dns: 'yes' } })]), options), [
      'blog.example.org A 192.0.2.1',
    ]);
    assert.deepEqual(names(r, lookups([gw], [listenerSet('ls', 'team', { annotations: { [`${S}controller`]: 'other' } })])), []);
  });
});
