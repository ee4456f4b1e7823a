/**
 * gateway-grpcroute, -tlsroute, -tcproute and -udproute through the CLI configuration, the real
 * client and reflectors against the test API server (route CRDs installed; TCPRoute and UDPRoute at
 * v1alpha2): each kind attaches only to the Gateway listeners of its protocol; create, update and
 * delete of a route reach the endpoints; a route with a bad annotation is reported and the annotation
 * skipped; a route of an unexpected shape is ignored without harm. A source whose CRD is absent
 * fails its syncs until the CRD appears, then starts by itself.
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
import { GATEWAYS, GRPCROUTES, TCPROUTES, TLSROUTES, UDPROUTES } from '../../src/kube/resource.ts';
import type { KubeResource } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { kubeSourceFromConfig } from '../../src/source/kube/factory.ts';
import { gatewayRouteSource } from '../../src/source/kube/sources.ts';
import { buildTranslateOptions } from '../../src/source/translate/options.ts';
import type { KubeSourceName } from '../../src/source/kube/factory.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { KubeWriter, gatewayCrd, waitFor } from './harness.ts';

const HOSTNAME = 'external-dns.alpha.kubernetes.io/hostname';
const TTL = 'external-dns.alpha.kubernetes.io/ttl';
const ACCEPTED = [{ type: 'Accepted', status: 'True', reason: 'Test', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }];
const GW = '192.0.2.10';

interface KindCase {
  source: KubeSourceName;
  resource: KubeResource;
  /** The route spec besides parentRefs. */
  spec: (name: string) => Record<string, unknown>;
  annotations: (name: string) => Record<string, string>;
  /** The name a route named `n` publishes. */
  host: (n: string) => string;
}

/** TLSRoute, TCPRoute and UDPRoute require rules (upstream's CRDs). */
const RULES = [{ backendRefs: [{ name: 'backend', port: 8443 }] }];

// Hostnames in spec for the kinds that have them; TCPRoute and UDPRoute take names from annotations.
const KINDS: readonly KindCase[] = [
  {
    source: 'gateway-grpcroute',
    resource: GRPCROUTES,
    spec: (n) => ({ hostnames: [`${n}.apps.example.org`] }),
    annotations: () => ({}),
    host: (n) => `${n}.apps.example.org`,
  },
  {
    source: 'gateway-tlsroute',
    resource: TLSROUTES,
    spec: (n) => ({ hostnames: [`${n}.tls.example.org`] }),
    annotations: () => ({}),
    host: (n) => `${n}.tls.example.org`,
  },
  {
    source: 'gateway-tcproute',
    resource: TCPROUTES,
    // TCPRoute has no spec.hostnames (upstream's CRD would prune it).
    spec: () => ({}),
    annotations: (n) => ({ [HOSTNAME]: `${n}.db.example.org` }),
    host: (n) => `${n}.db.example.org`,
  },
  {
    source: 'gateway-udproute',
    resource: UDPROUTES,
    spec: () => ({}),
    annotations: (n) => ({ [HOSTNAME]: `${n}.dns.example.org` }),
    host: (n) => `${n}.dns.example.org`,
  },
];

describe('gateway-grpcroute, -tlsroute, -tcproute, -udproute against the test API server', () => {
  let api: TestApiServer;
  let kube: KubeWriter;
  let client: KubeClient;
  let dir: string;
  let kubeconfig: string;
  const sources: KubeObjectSource[] = [];
  const logger = silentLogger();

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 200, namespaces: ['infra', 'apps'] });
    for (const [plural, kind, version] of [
      ['gateways', 'Gateway', 'v1'],
      ['grpcroutes', 'GRPCRoute', 'v1'],
      ['tlsroutes', 'TLSRoute', 'v1'],
      ['tcproutes', 'TCPRoute', 'v1alpha2'],
      ['udproutes', 'UDPRoute', 'v1alpha2'],
    ] as const)
      api.create(gatewayCrd(plural, kind, version));
    client = new KubeClient({ config: api.kubeConfig(), logger });
    kube = new KubeWriter(client);
    dir = await mkdtemp(join(tmpdir(), 'hw-gateway-routes-'));
    kubeconfig = await api.writeKubeconfig(dir);
    const all = { namespaces: { from: 'All' } };
    await kube.create(GATEWAYS, {
      metadata: { name: 'edge', namespace: 'infra' },
      spec: {
        gatewayClassName: 'test',
        listeners: [
          { name: 'https', hostname: '*.apps.example.org', port: 443, protocol: 'HTTPS', allowedRoutes: all },
          // A TCPRoute would attach to a TLS listener too (and take its hostname): this one admits TLSRoutes only.
          { name: 'tls', hostname: '*.tls.example.org', port: 8443, protocol: 'TLS', allowedRoutes: { ...all, kinds: [{ kind: 'TLSRoute' }] } },
          { name: 'tcp', port: 5432, protocol: 'TCP', allowedRoutes: all },
          { name: 'udp', port: 53, protocol: 'UDP', allowedRoutes: all },
        ],
      },
    });
    await kube.patch(GATEWAYS, 'infra', 'edge', { status: { addresses: [{ type: 'IPAddress', value: GW }] } }, 'status');
    // Another Gateway of another name: --gateway-name=edge keeps routes on it unpublished.
    await kube.create(GATEWAYS, {
      metadata: { name: 'other', namespace: 'infra' },
      spec: { gatewayClassName: 'test', listeners: [{ name: 'all', port: 1, protocol: 'UDP', allowedRoutes: all }] },
    });
  });
  after(async () => {
    await Promise.all(sources.map((s) => s.close()));
    client.close();
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  });

  function open(name: KubeSourceName, problems: SourceProblem[]): KubeObjectSource {
    const cfg = resolveConfig(parseArgs(['--source', name, '--kubeconfig', kubeconfig, '--gateway-name', 'edge'], {}, [...FLAGS, ...EXTRA_FLAGS]), {
      sources: SOURCE_NAMES,
      providers: PROVIDER_NAMES,
    });
    const source = kubeSourceFromConfig(name, cfg, { logger, onProblem: (p) => problems.push(p) });
    sources.push(source);
    source.start();
    return source;
  }

  const view = async (source: KubeObjectSource): Promise<string[]> =>
    (await source.endpoints()).map((e) => `${e.dnsName} ${e.recordType} ${[...e.targets].sort().join(',')}`).sort();

  async function createRoute(k: KindCase, name: string, annotations: Record<string, string>, spec: Record<string, unknown>, gateway = 'edge'): Promise<void> {
    // No sectionName: every listener is a candidate, and the protocol decides (TCP and UDP listeners
    // have no hostname, so they would take any name).
    const parentRef = { name: gateway, namespace: 'infra' };
    await kube.create(k.resource, { metadata: { name, namespace: 'apps', annotations }, spec: { rules: RULES, ...spec, parentRefs: [parentRef] } });
    await kube.patch(k.resource, 'apps', name, { status: { parents: [{ parentRef, controllerName: 'example.org/gw', conditions: ACCEPTED }] } }, 'status');
  }

  for (const k of KINDS) {
    const kind = k.resource.kind.toLowerCase().replace(/route$/, '');
    test(`${k.source}: create, update, delete; a bad annotation is reported and skipped`, async () => {
      await createRoute(k, kind, k.annotations(kind), k.spec(kind));
      // A route on the Gateway --gateway-name leaves out.
      await createRoute(k, `${kind}-elsewhere`, { [HOSTNAME]: `${kind}-elsewhere.example.org` }, k.spec(`${kind}-elsewhere`), 'other');
      const problems: SourceProblem[] = [];
      const source = open(k.source, problems);
      assert.deepEqual(await view(source), [`${k.host(kind)} A ${GW}`]);
      assert.equal(source.objectCount(), 2);

      // Renamed: the spec hostname (GRPC, TLS) or the annotation (TCP, UDP) changes.
      const renamed = `${kind}2`;
      await kube.patch(k.resource, 'apps', kind, { metadata: { annotations: k.annotations(renamed) }, spec: k.spec(renamed) });
      await waitFor(`${k.source} rename`, async () => ((await view(source)).includes(`${k.host(renamed)} A ${GW}`) ? true : undefined), 20_000);
      assert.deepEqual(await view(source), [`${k.host(renamed)} A ${GW}`]);

      // A bad annotation is reported and skipped (the route is published with the default TTL); a
      // route of an unexpected shape yields nothing; the good route stays.
      const bad = `${kind}bad`;
      await createRoute(k, bad, { ...k.annotations(bad), [TTL]: 'forever' }, k.spec(bad));
      // The API server would refuse it now: it stands for one stored before the CRD had its schema.
      const shapeless = { metadata: { name: `${kind}-shapeless`, namespace: 'apps' }, spec: { parentRefs: 'edge', hostnames: 7 }, status: 'x' };
      api.create({ apiVersion: k.resource.apiVersion, kind: k.resource.kind, ...shapeless }, { bypassSchema: true });
      await waitFor(`${k.source} problem`, () => (problems.some((p) => p.message.includes('forever')) ? true : undefined), 20_000);
      await waitFor(`${k.source} sees the shapeless route`, () => (source.objectCount() === 4 ? true : undefined), 20_000);
      assert.deepEqual(await view(source), [`${k.host(bad)} A ${GW}`, `${k.host(renamed)} A ${GW}`].sort());
      assert.match(problems.find((p) => p.message.includes('forever'))?.message ?? '', new RegExp(`^${k.resource.kind}/apps/${bad}: `));
      assert.equal((await source.endpoints()).find((e) => e.dnsName === k.host(bad))?.recordTTL, 0);

      await kube.delete(k.resource, 'apps', kind);
      await waitFor(`${k.source} delete`, async () => ((await view(source)).length === 1 ? true : undefined), 20_000);
      assert.deepEqual(await view(source), [`${k.host(bad)} A ${GW}`]);
      await kube.delete(k.resource, 'apps', bad);
      await waitFor(`${k.source} delete of the last route`, async () => ((await view(source)).length === 0 ? true : undefined), 20_000);
    });
  }
});

describe('gateway-tcproute before its CRD exists', () => {
  test('endpoints() answers nothing until the CRD appears, then the source starts by itself', async () => {
    const api = await startTestApiServer({ bookmarkIntervalMs: 200 });
    const logger = silentLogger();
    const client = new KubeClient({ config: api.kubeConfig(), logger });
    const writer = new KubeClient({ config: api.kubeConfig(), logger });
    const source = gatewayRouteSource({ client, logger, translateOptions: buildTranslateOptions({}), namespace: '', syncTimeoutMs: 1000 }, 'TCPRoute');
    try {
      api.create(gatewayCrd('gateways', 'Gateway'));
      source.start();
      // While the CRD is missing the source answers nothing (the rest of the process keeps
      // syncing) and its reflector retries the 404 quietly with backoff.
      assert.deepEqual(await source.endpoints(), []);
      api.create(gatewayCrd('tcproutes', 'TCPRoute', 'v1alpha2'));
      const kube = new KubeWriter(writer);
      await kube.create(GATEWAYS, {
        metadata: { name: 'g', namespace: 'default' },
        spec: { gatewayClassName: 'test', listeners: [{ name: 't', port: 1, protocol: 'TCP' }] },
      });
      await kube.patch(GATEWAYS, 'default', 'g', { status: { addresses: [{ type: 'IPAddress', value: GW }] } }, 'status');
      const ref = { name: 'g' };
      await kube.create(TCPROUTES, {
        metadata: { name: 'r', namespace: 'default', annotations: { [HOSTNAME]: 'r.example.org' } },
        spec: { parentRefs: [ref], rules: RULES },
      });
      await kube.patch(
        TCPROUTES,
        'default',
        'r',
        { status: { parents: [{ parentRef: ref, controllerName: 'example.org/gw', conditions: ACCEPTED }] } },
        'status',
      );
      const published = async (): Promise<true | undefined> => {
        try {
          return (await source.endpoints()).some((e) => e.dnsName === 'r.example.org') ? true : undefined;
        } catch {
          return undefined;
        }
      };
      // Bounded by the reflector's backoff (a few seconds by then) on two shared cores.
      await waitFor('the source starts once the CRD exists', published, 30_000);
    } finally {
      await source.close();
      writer.close();
      await api.stop();
    }
  });
});
