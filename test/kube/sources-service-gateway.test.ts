/**
 * Headless and NodePort Services and Gateway API route acceptance through the real client and
 * reflectors against the test API server: objects are written over HTTP, the sources' endpoints
 * are read as the controller reads them.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { Registry as MetricsRegistry } from 'prom-client';
import { KubeClient, loadKubeConfig } from '../../src/kube/client.ts';
import { ENDPOINTSLICES, GATEWAYS, HTTPROUTES, PODS, SERVICES } from '../../src/kube/resource.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import { kubeSourceFromConfig } from '../../src/source/kube/factory.ts';
import { httpRouteSource, serviceSource } from '../../src/source/kube/sources.ts';
import type { TranslateOptions } from '../../src/source/translate/options.ts';
import { gatewayCrd, waitFor } from './harness.ts';
import { configFromFlags, untilViewed, useTestApiServer, viewOf } from './source-harness.ts';

const A = 'external-dns.alpha.kubernetes.io/';

interface Ep {
  ip: string;
  pod: string;
  ready?: boolean;
  hostname?: string;
  node?: string;
}

type Obj = Record<string, unknown> & { metadata: { name: string; namespace: string; [field: string]: unknown } };

function slice(name: string, service: string, eps: Ep[]): Obj {
  return {
    metadata: { name, namespace: 'default', labels: { 'kubernetes.io/service-name': service } },
    addressType: 'IPv4',
    endpoints: eps.map((e) => ({
      addresses: [e.ip],
      conditions: { ready: e.ready ?? true },
      ...(e.hostname === undefined ? {} : { hostname: e.hostname }),
      ...(e.node === undefined ? {} : { nodeName: e.node }),
      targetRef: { kind: 'Pod', name: e.pod, namespace: 'default' },
    })),
    ports: [{ name: 'kafka', port: 9092, protocol: 'TCP' }],
  };
}

function headless(name: string, annotations: Record<string, string>): Obj {
  return { metadata: { name, namespace: 'default', annotations }, spec: { clusterIP: 'None', selector: { app: name }, ports: [{ port: 9092 }] } };
}

describe('service and gateway-httproute sources against the test API server', () => {
  const suite = useTestApiServer({ namespaces: ['apps', 'other'], crds: [gatewayCrd('gateways', 'Gateway'), gatewayCrd('httproutes', 'HTTPRoute')] });

  const open = (make: (deps: Parameters<typeof serviceSource>[0]) => KubeObjectSource, translateOptions: TranslateOptions = {}): KubeObjectSource => {
    const s = make(suite.sourceDeps({ translateOptions }));
    suite.closeAfter(() => s.close());
    s.start();
    return s;
  };

  /** Waits until the source's endpoints for names ending in `suffix` are `expected`. */
  const until = (what: string, source: KubeObjectSource, suffix: string, expected: string[]): Promise<void> => untilViewed(what, source, expected, { suffix });

  before(async () => {
    for (const [name, internal, external] of [
      ['node-a', '10.0.0.1', '198.51.100.1'],
      ['node-b', '10.0.0.2', '198.51.100.2'],
    ] as const) {
      suite.api.create({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name },
        status: {
          addresses: [
            { type: 'InternalIP', address: internal },
            { type: 'ExternalIP', address: external },
          ],
        },
      });
    }
  });

  test('a headless Service: one record with the ready addresses, one per endpoint hostname; slices followed', async () => {
    const source = open(serviceSource);
    let events = 0;
    source.addEventHandler(() => events++);
    await suite.kube.create(SERVICES, headless('kafka', { [`${A}hostname`]: 'kafka.example.org' }));
    await suite.kube.create(
      ENDPOINTSLICES,
      slice('kafka-1', 'kafka', [
        { ip: '10.1.0.1', pod: 'kafka-0', hostname: 'kafka-0' },
        { ip: '10.1.0.2', pod: 'kafka-1', hostname: 'kafka-1', ready: false },
      ]),
    );
    await until('kafka records', source, 'kafka.example.org', ['kafka-0.kafka.example.org A 10.1.0.1', 'kafka.example.org A 10.1.0.1']);

    // The second endpoint becomes ready: the slice change alone re-translates the Service and fires an event.
    const before = events;
    await suite.kube.patch(ENDPOINTSLICES, 'default', 'kafka-1', {
      endpoints: slice('kafka-1', 'kafka', [
        { ip: '10.1.0.1', pod: 'kafka-0', hostname: 'kafka-0' },
        { ip: '10.1.0.2', pod: 'kafka-1', hostname: 'kafka-1' },
      ]).endpoints,
    });
    await waitFor('an event for the slice change', () => (events > before ? true : undefined));
    await until('both ready', source, 'kafka.example.org', [
      'kafka-0.kafka.example.org A 10.1.0.1',
      'kafka-1.kafka.example.org A 10.1.0.2',
      'kafka.example.org A 10.1.0.1,10.1.0.2',
    ]);

    // publishNotReadyAddresses publishes a not-ready endpoint too.
    await suite.kube.create(SERVICES, {
      ...headless('zk', { [`${A}hostname`]: 'zk.example.org' }),
      spec: { clusterIP: 'None', publishNotReadyAddresses: true },
    });
    await suite.kube.create(ENDPOINTSLICES, slice('zk-1', 'zk', [{ ip: '10.2.0.1', pod: 'zk-0', ready: false }]));
    await until('zk not ready but published', source, 'zk.example.org', ['zk.example.org A 10.2.0.1']);

    await suite.kube.delete(ENDPOINTSLICES, 'default', 'kafka-1');
    await until('kafka records gone with the slice', source, 'kafka.example.org', []);
  });

  test('endpoints-type NodeExternalIP and HostIP; --publish-host-ip; Pods are watched only when needed', async () => {
    let podRequests = 0;
    // A filter that never matches: it only counts the requests for Pods.
    suite.api.failNextRequests(1, 500, (r) => {
      if (r.plural === 'pods' && (r.verb === 'list' || r.verb === 'watch')) podRequests++;
      return false;
    });
    const source = open(serviceSource);
    await suite.kube.create(SERVICES, headless('nodes', { [`${A}hostname`]: 'nodes.example.org', [`${A}endpoints-type`]: 'NodeExternalIP' }));
    await suite.kube.create(
      ENDPOINTSLICES,
      slice('nodes-1', 'nodes', [
        { ip: '10.3.0.1', pod: 'nodes-0', node: 'node-a' },
        { ip: '10.3.0.2', pod: 'nodes-1', node: 'node-b' },
      ]),
    );
    await until('node external IPs', source, 'nodes.example.org', ['nodes.example.org A 198.51.100.1,198.51.100.2']);
    assert.equal(podRequests, 0, 'no Service reads Pods yet');

    for (const [name, hostIP, hostname] of [
      ['hosts-0', '10.0.0.1', 'h0'],
      ['hosts-1', '10.0.0.2', ''],
    ] as const) {
      await suite.kube.create(PODS, {
        metadata: { name, namespace: 'default', labels: { app: 'hosts' } },
        spec: { hostname, nodeName: hostIP === '10.0.0.1' ? 'node-a' : 'node-b', containers: [{ name: 'c', image: 'x' }] },
      });
      await suite.kube.patch(PODS, 'default', name, { status: { hostIP, podIP: `10.4.0.${name.slice(-1)}` } }, 'status');
    }
    await suite.kube.create(SERVICES, headless('hosts', { [`${A}hostname`]: 'hosts.example.org', [`${A}endpoints-type`]: 'HostIP' }));
    await suite.kube.create(
      ENDPOINTSLICES,
      slice('hosts-1', 'hosts', [
        { ip: '10.4.0.0', pod: 'hosts-0' },
        { ip: '10.4.0.1', pod: 'hosts-1' },
      ]),
    );
    await until('host IPs from the Pods', source, 'hosts.example.org', ['h0.hosts.example.org A 10.0.0.1', 'hosts.example.org A 10.0.0.1,10.0.0.2']);
    // A Pod moving to another host changes the record through the Pod watch.
    await suite.kube.patch(PODS, 'default', 'hosts-1', { status: { hostIP: '10.0.0.9' } }, 'status');
    await until('the Pod moved', source, 'hosts.example.org', ['h0.hosts.example.org A 10.0.0.1', 'hosts.example.org A 10.0.0.1,10.0.0.9']);

    // --publish-host-ip: every headless Service publishes host IPs.
    const flagged = open(serviceSource, { publishHostIP: true });
    await suite.kube.create(SERVICES, headless('flag', { [`${A}hostname`]: 'flag.example.org' }));
    await suite.kube.create(ENDPOINTSLICES, slice('flag-1', 'flag', [{ ip: '10.4.0.0', pod: 'hosts-0' }]));
    await until('publish-host-ip', flagged, 'flag.example.org', ['flag.example.org A 10.0.0.1', 'h0.flag.example.org A 10.0.0.1']);
  });

  test('a NodePort Service: node addresses and an SRV record per protocol', async () => {
    const source = open(serviceSource);
    await suite.kube.create(SERVICES, {
      metadata: { name: 'game', namespace: 'default', annotations: { [`${A}hostname`]: 'game.example.org' } },
      spec: {
        type: 'NodePort',
        ports: [
          { name: 'http', port: 80, nodePort: 30080, protocol: 'TCP' },
          { name: 'voice', port: 9000, nodePort: 30900, protocol: 'UDP' },
        ],
      },
    });
    await until('game', source, 'game.example.org', [
      '_game._tcp.game.example.org SRV 0 50 30080 game.example.org',
      '_game._udp.game.example.org SRV 0 50 30900 game.example.org',
      'game.example.org A 198.51.100.1,198.51.100.2',
    ]);
  });

  test('an HTTPRoute is published only once accepted, for hostnames its listener allows', async () => {
    const source = open(httpRouteSource);
    suite.api.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { team: 'a' } } });
    await suite.kube.create(GATEWAYS, {
      metadata: { name: 'shared', namespace: 'apps' },
      spec: {
        gatewayClassName: 'test',
        listeners: [
          {
            name: 'apps',
            hostname: '*.apps.example.org',
            port: 443,
            protocol: 'HTTPS',
            allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { team: 'a' } } } },
          },
          { name: 'local', port: 80, protocol: 'HTTP' },
        ],
      },
    });
    await suite.kube.patch(GATEWAYS, 'apps', 'shared', { status: { addresses: [{ type: 'IPAddress', value: '192.0.2.60' }] } }, 'status');
    const parentRef = { name: 'shared', namespace: 'apps', sectionName: 'apps' };
    await suite.kube.create(HTTPROUTES, {
      metadata: { name: 'shop', namespace: 'team-a' },
      spec: { hostnames: ['shop.apps.example.org', 'shop.example.com'], parentRefs: [parentRef] },
    });
    await suite.kube.create(HTTPROUTES, {
      metadata: { name: 'stray', namespace: 'other' },
      spec: { hostnames: ['stray.apps.example.org'], parentRefs: [parentRef] },
    });
    const status = (accepted: string): { status: unknown } => ({
      status: {
        parents: [
          {
            parentRef,
            controllerName: 'example.org/gw',
            conditions: [{ type: 'Accepted', status: accepted, reason: 'Test', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }],
          },
        ],
      },
    });
    await suite.kube.patch(HTTPROUTES, 'team-a', 'shop', status('False'), 'status');
    await suite.kube.patch(HTTPROUTES, 'other', 'stray', status('True'), 'status');
    // Both routes are known to the source before it says nothing is published.
    await waitFor('routes listed', () => (source.objectCount() === 2 ? true : undefined));
    assert.deepEqual(await viewOf(source, { suffix: '' }), [], 'not accepted, or from a namespace the listener does not select');

    await suite.kube.patch(HTTPROUTES, 'team-a', 'shop', status('True'), 'status');
    await until('accepted route, intersected with the listener hostname', source, '', ['shop.apps.example.org A 192.0.2.60']);

    // --gateway-name, --gateway-label-filter and --gateway-namespace narrow the Gateways routes attach to.
    const named = open((d) => httpRouteSource(d, { name: 'shared' }));
    const otherName = open((d) => httpRouteSource(d, { name: 'edge' }));
    const labelled = open((d) => httpRouteSource(d, { labelSelector: 'tier=edge' }));
    const otherNamespace = open((d) => httpRouteSource(d, { namespace: 'other' }));
    assert.deepEqual(await viewOf(named, { suffix: '' }), ['shop.apps.example.org A 192.0.2.60']);
    for (const s of [otherName, labelled, otherNamespace]) assert.deepEqual(await viewOf(s, { suffix: '' }), []);
    await suite.kube.patch(GATEWAYS, 'apps', 'shared', { metadata: { labels: { tier: 'edge' } } });
    await until('the Gateway now matches the label filter', labelled, '', ['shop.apps.example.org A 192.0.2.60']);
  });

  test('--kube-context picks the context of a kubeconfig with several', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hostwarden-kube-context-'));
    try {
      const file = await suite.api.writeKubeconfig(dir);
      const doc = parseYaml(await readFile(file, 'utf8')) as { clusters: unknown[]; contexts: unknown[]; 'current-context': string };
      doc.clusters.push({ name: 'nowhere', cluster: { server: 'http://127.0.0.1:9', 'insecure-skip-tls-verify': true } });
      doc.contexts.push({ name: 'nowhere', context: { cluster: 'nowhere', user: 'test' } });
      doc['current-context'] = 'nowhere';
      await writeFile(file, JSON.stringify(doc));
      const chosen = KubeClient.fromConfig({ kubeconfig: file, context: 'test', env: {} }, suite.logger, 2000);
      try {
        const list = await chosen.request<{ items: unknown[] }>('GET', '/api/v1/namespaces/default/services');
        assert.ok(list.items.length > 0);
      } finally {
        chosen.close();
      }
      assert.equal((await loadKubeConfig({ kubeconfig: file, env: {} })).getCurrentCluster()?.name, 'nowhere');
      await assert.rejects(loadKubeConfig({ kubeconfig: file, context: 'missing', env: {} }), /no context "missing"/);

      // The same through the flags, with the caches measured on the run command's registry.
      const cfg = configFromFlags(['--source', 'service', '--kubeconfig', file, '--kube-context', 'test', '--request-timeout', '5s']);
      const metrics = new MetricsRegistry();
      const source = kubeSourceFromConfig('service', cfg, { logger: suite.logger, metrics });
      suite.closeAfter(() => source.close());
      assert.ok((await source.endpoints()).some((e) => e.dnsName === 'game.example.org'));
      const text = await metrics.metrics();
      assert.match(text, /hostwarden_kube_reflector_lists_total\{source="service",resource="services"\} 1/);
      assert.match(text, /hostwarden_kube_reflector_synced\{source="service",resource="endpointslices"\} 1/);
      // The HostIP Service of an earlier test reads Pods, so this source watches them too.
      assert.match(text, /hostwarden_kube_reflector_synced\{source="service",resource="pods"\} 1/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
