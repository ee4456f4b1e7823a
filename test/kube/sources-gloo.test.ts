/**
 * The gloo-proxy source through the CLI configuration, the real client and reflectors against the
 * test API server with Gloo's Proxy, VirtualService and Gateway CRDs installed: a Proxy's domains at
 * its Service's load balancer with the VirtualService's annotations; create, update, delete of the
 * Proxy and of what it reads (the Service, the VirtualService); two Proxies asking for one name are
 * merged; a Proxy whose VirtualService is missing is reported and held, and publishes once it
 * appears; only --gloo-namespace namespaces count; a source started before the CRDs exist starts by
 * itself once they appear.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { involvedObjectOf } from '../../src/controller/record-events.ts';
import { GLOO_GATEWAYS, GLOO_PROXIES, GLOO_VIRTUALSERVICES, SERVICES } from '../../src/kube/resource.ts';
import { glooProxySource } from '../../src/source/kube/gloo-proxy-source.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import type { KubeObject } from '../support/kube-apiserver/server.ts';
import { eventsFor, waitFor } from './harness.ts';
import { assertStartsOnceCrdsExist, runOnce, untilViewed, useTestApiServer } from './source-harness.ts';
import { loadCrds } from '../support/crds/load.ts';

const A = 'external-dns.kubernetes.io/';

const GLOO_CRDS = loadCrds('gloo');

/** A Proxy as Gloo writes it for its gateway-proxy: one HTTP listener, a virtual host per VirtualService. */
function proxy(name: string, namespace: string, hosts: Record<string, string[]>, annotations: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'gloo.solo.io/v1',
    kind: 'Proxy',
    metadata: { name, namespace, annotations },
    spec: {
      listeners: [
        {
          name: 'listener-::-8080',
          bindAddress: '::',
          bindPort: 8080,
          httpListener: {
            virtualHosts: Object.entries(hosts).map(([vs, domains]) => ({
              name: `apps.${vs}`,
              domains,
              routes: [{ matchers: [{ prefix: '/' }], routeAction: { single: { upstream: { name: 'x', namespace: namespace } } } }],
              metadataStatic: { sources: [{ resourceKind: '*v1.VirtualService', resourceRef: { name: vs, namespace: 'apps' }, observedGeneration: 1 }] },
            })),
          },
          metadataStatic: { sources: [{ resourceKind: '*v1.Gateway', resourceRef: { name: 'gateway-proxy', namespace }, observedGeneration: 1 }] },
        },
      ],
    },
  };
}

describe('gloo-proxy source against the test API server', () => {
  const suite = useTestApiServer({ namespaces: ['gloo-system', 'gloo-two', 'apps'], crds: GLOO_CRDS });

  const until = (what: string, source: KubeObjectSource, expected: string[]): Promise<void> =>
    untilViewed(what, source, expected, { ttl: true, resource: true });

  const service = async (name: string, namespace: string, ip: string): Promise<void> => {
    await suite.kube.create(SERVICES, { metadata: { name, namespace }, spec: { type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP' }] } });
    await suite.kube.patch(SERVICES, namespace, name, { status: { loadBalancer: { ingress: [{ ip }] } } }, 'status');
  };

  const fromFlags = (...extra: string[]): KubeObjectSource => suite.sourceFromFlags('gloo-proxy', ['--request-timeout', '5s', ...extra]);

  before(async () => {
    // The Gateways Gloo built the Proxies from (their listeners' metadataStatic sources).
    for (const ns of ['gloo-system', 'gloo-two'])
      await suite.kube.create(GLOO_GATEWAYS, {
        metadata: { name: 'gateway-proxy', namespace: ns },
        spec: { bindAddress: '::', bindPort: 8080, httpGateway: {} },
      });
    await suite.kube.create(GLOO_VIRTUALSERVICES, {
      metadata: { name: 'shop', namespace: 'apps', annotations: { [`${A}ttl`]: '120' } },
      spec: { virtualHost: { domains: ['*'] } },
    });
  });

  test('domains at the Proxy Service with the VirtualService TTL; changes of the Proxy, Service and VirtualService follow; delete', async () => {
    const source = fromFlags();
    await service('gateway-proxy', 'gloo-system', '192.0.2.1');
    await suite.kube.create(GLOO_PROXIES, proxy('gateway-proxy', 'gloo-system', { shop: ['shop.example.org', 'www.shop.example.org.'] }));
    // Another namespace than --gloo-namespace's default: ignored.
    await service('gateway-proxy', 'gloo-two', '192.0.2.2');
    await suite.kube.create(GLOO_PROXIES, proxy('gateway-proxy', 'gloo-two', { shop: ['two.example.org'] }));
    await until('created', source, [
      'shop.example.org A 192.0.2.1 120 proxy/gloo-system/gateway-proxy',
      'www.shop.example.org A 192.0.2.1 120 proxy/gloo-system/gateway-proxy',
    ]);
    await suite.kube.patch(SERVICES, 'gloo-system', 'gateway-proxy', { status: { loadBalancer: { ingress: [{ ip: '192.0.2.9' }] } } }, 'status');
    await suite.kube.patch(GLOO_VIRTUALSERVICES, 'apps', 'shop', { metadata: { annotations: { [`${A}ttl`]: '300' } } });
    await until('Service and VirtualService changed', source, [
      'shop.example.org A 192.0.2.9 300 proxy/gloo-system/gateway-proxy',
      'www.shop.example.org A 192.0.2.9 300 proxy/gloo-system/gateway-proxy',
    ]);
    await suite.kube.patch(GLOO_PROXIES, 'gloo-system', 'gateway-proxy', {
      spec: proxy('gateway-proxy', 'gloo-system', { shop: ['store.example.org'] })['spec'],
    });
    await until('renamed', source, ['store.example.org A 192.0.2.9 300 proxy/gloo-system/gateway-proxy']);
    await suite.kube.delete(GLOO_PROXIES, 'gloo-system', 'gateway-proxy');
    await until('deleted', source, []);
  });

  test('--gloo-namespace is repeatable; two Proxies asking for one name are merged into one record', async () => {
    const source = fromFlags('--gloo-namespace', 'gloo-system', '--gloo-namespace', 'gloo-two');
    await suite.kube.create(GLOO_PROXIES, proxy('gateway-proxy', 'gloo-system', { shop: ['shared.example.org'] }));
    await until('merged', source, [
      'shared.example.org A 192.0.2.9 300 proxy/gloo-system/gateway-proxy',
      'two.example.org A 192.0.2.2 300 proxy/gloo-two/gateway-proxy',
    ]);
    await suite.kube.patch(GLOO_PROXIES, 'gloo-two', 'gateway-proxy', { spec: proxy('gateway-proxy', 'gloo-two', { shop: ['shared.example.org'] })['spec'] });
    await until('merged', source, ['shared.example.org A 192.0.2.2,192.0.2.9 300 proxy/gloo-system/gateway-proxy']);
    await suite.kube.delete(GLOO_PROXIES, 'gloo-system', 'gateway-proxy');
    await suite.kube.delete(GLOO_PROXIES, 'gloo-two', 'gateway-proxy');
    await until('gone', source, []);
  });

  test('a Proxy whose VirtualService is missing is reported and held; the others publish; it publishes once the VirtualService appears', async () => {
    const problems: SourceProblem[] = [];
    const source = glooProxySource(suite.sourceDeps({ onProblem: (p) => problems.push(p) }), ['gloo-system']);
    suite.closeAfter(() => source.close());
    await service('waiting', 'gloo-system', '192.0.2.31');
    await suite.kube.create(GLOO_PROXIES, proxy('waiting', 'gloo-system', { later: ['later.example.org'] }));
    await suite.kube.create(GLOO_PROXIES, proxy('fine', 'gloo-system', { shop: ['fine.example.org'] }, { [`${A}target`]: '192.0.2.32' }));
    await until('only the complete Proxy', source, ['fine.example.org A 192.0.2.32 300 proxy/gloo-system/fine']);
    assert.ok(source.heldResources().has('proxy/gloo-system/waiting'));
    assert.equal(problems.length, 1, problems.map((p) => p.message).join('\n'));
    assert.match(problems[0]?.message ?? '', /Proxy\/gloo-system\/waiting: VirtualService \(gateway.solo.io\) apps\/later not found/);
    await suite.kube.create(GLOO_VIRTUALSERVICES, { metadata: { name: 'later', namespace: 'apps' }, spec: { virtualHost: { domains: ['*'] } } });
    await until('published once found', source, [
      'fine.example.org A 192.0.2.32 300 proxy/gloo-system/fine',
      'later.example.org A 192.0.2.31 0 proxy/gloo-system/waiting',
    ]);
    assert.equal(source.heldResources().size, 0);
    for (const n of ['waiting', 'fine']) await suite.kube.delete(GLOO_PROXIES, 'gloo-system', n);
  });

  test('record Events for a proxy/ resource label land on the Proxy', () => {
    assert.deepEqual(involvedObjectOf('proxy/gloo-system/gateway-proxy'), {
      apiVersion: 'gloo.solo.io/v1',
      kind: 'Proxy',
      namespace: 'gloo-system',
      name: 'gateway-proxy',
    });
  });
});

describe('gloo-proxy before its CRDs exist', () => {
  test('endpoints() fails until the CRDs appear, then the source starts by itself', () =>
    assertStartsOnceCrdsExist({
      build: glooProxySource,
      held: 'proxy/*',
      crds: GLOO_CRDS,
      namespaces: ['gloo-system'],
      write: async (kube) => {
        await kube.create(GLOO_PROXIES, {
          ...proxy('late', 'gloo-system', {}, { [`${A}target`]: '192.0.2.40' }),
          spec: { listeners: [{ httpListener: { virtualHosts: [{ domains: ['late.example.org'] }] } }] },
        });
      },
      publishes: 'late.example.org',
    }));
});

describe('hostwarden run --source gloo-proxy', () => {
  test('records land in the zone file with the VirtualService TTL, and RecordReady Events on the Proxy', () =>
    runOnce(
      {
        namespaces: ['gloo-system', 'apps'],
        crds: GLOO_CRDS,
        objects: [
          { apiVersion: 'gateway.solo.io/v1', kind: 'Gateway', metadata: { name: 'gateway-proxy', namespace: 'gloo-system' }, spec: { bindPort: 8080 } },
          {
            apiVersion: 'gateway.solo.io/v1',
            kind: 'VirtualService',
            metadata: { name: 'shop', namespace: 'apps', annotations: { [`${A}ttl`]: '90' } },
            spec: {},
          },
          {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: 'gateway-proxy', namespace: 'gloo-system' },
            spec: { type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP' }] },
            status: { loadBalancer: { ingress: [{ ip: '192.0.2.60' }] } },
          },
          proxy('gateway-proxy', 'gloo-system', { shop: ['shop.example.org'] }),
        ],
        args: ['--source', 'gloo-proxy', '--gloo-namespace', 'gloo-system'],
      },
      async ({ zone, api }) => {
        assert.match(zone, /^shop\.example\.org\. 90 IN A 192\.0\.2\.60$/m);
        await waitFor('RecordReady on the Proxy', () => (eventsFor(api, 'Proxy', 'gateway-proxy').some((e) => e.reason === 'RecordReady') ? true : undefined));
      },
    ));
});
