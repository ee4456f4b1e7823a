/**
 * --gateway-listener-sets through the CLI configuration, the real client and reflectors against
 * the test API server: an HTTPRoute attached to a ListenerSet is published once the Gateway allows
 * ListenerSets from its namespace and the set and its listener are Accepted; without the flag the
 * source neither reads ListenerSets nor publishes the route.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXTRA_FLAGS, PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';
import { resolveConfig } from '../../src/config/config.ts';
import { FLAGS } from '../../src/config/flags.ts';
import { parseArgs } from '../../src/config/parse.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { GATEWAYS, HTTPROUTES, LISTENERSETS } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { kubeSourceFromConfig } from '../../src/source/kube/factory.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { KubeWriter, gatewayCrd, waitFor } from './harness.ts';

const ACCEPTED = (status: string): unknown[] => [{ type: 'Accepted', status, reason: 'Test', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }];

describe('gateway-httproute with --gateway-listener-sets against the test API server', () => {
  let api: TestApiServer;
  let kube: KubeWriter;
  let client: KubeClient;
  let dir: string;
  let kubeconfig: string;
  const sources: KubeObjectSource[] = [];
  const logger = silentLogger();

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 200, namespaces: ['infra', 'team'] });
    for (const [plural, kind] of [
      ['gateways', 'Gateway'],
      ['httproutes', 'HTTPRoute'],
      ['listenersets', 'ListenerSet'],
    ] as const)
      api.create(gatewayCrd(plural, kind));
    client = new KubeClient({ config: api.kubeConfig(), logger });
    kube = new KubeWriter(client);
    dir = await mkdtemp(join(tmpdir(), 'hw-listenersets-'));
    // Written once: each source's client loads it when it first lists, so rewriting it for a
    // second source could hand the first a half-written file.
    kubeconfig = await api.writeKubeconfig(dir);
  });
  after(async () => {
    await Promise.all(sources.map((s) => s.close()));
    client.close();
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  });

  function open(flags: string[]): KubeObjectSource {
    const cfg = resolveConfig(parseArgs(['--source', 'gateway-httproute', '--kubeconfig', kubeconfig, ...flags], {}, [...FLAGS, ...EXTRA_FLAGS]), {
      sources: SOURCE_NAMES,
      providers: PROVIDER_NAMES,
    });
    const source = kubeSourceFromConfig('gateway-httproute', cfg, { logger });
    sources.push(source);
    source.start();
    return source;
  }

  const view = async (source: KubeObjectSource): Promise<string[]> =>
    (await source.endpoints()).map((e) => `${e.dnsName} ${e.recordType} ${[...e.targets].sort().join(',')}`).sort();

  test('a route on an accepted ListenerSet is published with the parent Gateway addresses', async () => {
    await kube.create(GATEWAYS, {
      metadata: { name: 'edge', namespace: 'infra' },
      spec: { gatewayClassName: 'test', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] },
    });
    await kube.patch(GATEWAYS, 'infra', 'edge', { status: { addresses: [{ type: 'IPAddress', value: '192.0.2.80' }] } }, 'status');
    await kube.create(LISTENERSETS, {
      metadata: { name: 'team-listeners', namespace: 'team' },
      spec: {
        parentRef: { name: 'edge', namespace: 'infra' },
        listeners: [{ name: 'shop', hostname: 'shop.example.org', port: 80, protocol: 'HTTP' }],
      },
    });
    await kube.patch(
      LISTENERSETS,
      'team',
      'team-listeners',
      { status: { conditions: ACCEPTED('True'), listeners: [{ name: 'shop', attachedRoutes: 0, conditions: ACCEPTED('True') }] } },
      'status',
    );
    const parentRef = { group: 'gateway.networking.k8s.io', kind: 'ListenerSet', name: 'team-listeners' };
    await kube.create(HTTPROUTES, { metadata: { name: 'shop', namespace: 'team' }, spec: { parentRefs: [parentRef] } });
    await kube.patch(
      HTTPROUTES,
      'team',
      'shop',
      { status: { parents: [{ parentRef, controllerName: 'example.org/gw', conditions: ACCEPTED('True') }] } },
      'status',
    );

    const withSets = open(['--gateway-listener-sets']);
    const without = open([]);
    // The Gateway does not allow ListenerSets yet (allowedListeners defaults to None). endpoints()
    // waits for the first listing, which already holds every object created above.
    assert.deepEqual(await view(withSets), []);
    assert.equal(withSets.objectCount(), 1);

    await kube.patch(GATEWAYS, 'infra', 'edge', { spec: { allowedListeners: { namespaces: { from: 'All' } } } });
    // Generous bounds: the machine's two cores are shared with other test files.
    await waitFor('the ListenerSet attaches', async () => ((await view(withSets)).length > 0 ? true : undefined), 20_000);
    assert.deepEqual(await view(withSets), ['shop.example.org A 192.0.2.80']);
    assert.deepEqual(await view(without), [], 'without --gateway-listener-sets a ListenerSet parent is ignored');

    // The ListenerSet's listener loses its Accepted condition: the route is withdrawn.
    await kube.patch(
      LISTENERSETS,
      'team',
      'team-listeners',
      { status: { listeners: [{ name: 'shop', attachedRoutes: 0, conditions: ACCEPTED('False') }] } },
      'status',
    );
    await waitFor('the listener is detached', async () => ((await view(withSets)).length === 0 ? true : undefined), 20_000);
  });
});
