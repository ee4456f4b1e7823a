/**
 * Events on the source object for GRPCRoute, TLSRoute, TCPRoute and UDPRoute: the whole pipeline
 * (route sources, TXT registry, controller, Event reporter) against the test API server with
 * upstream's Gateway API CRDs. RecordReady lands on the route once its record exists, RecordDeleted
 * once it is gone, regarding the route at the apiVersion its source reads.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '../../src/kube/client.ts';
import { GATEWAYS, GRPCROUTES, TCPROUTES, TLSROUTES, UDPROUTES } from '../../src/kube/resource.ts';
import type { KubeResource } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import { gatewayRouteSource } from '../../src/source/kube/sources.ts';
import type { KubeSourceDeps } from '../../src/source/kube/sources.ts';
import { buildTranslateOptions } from '../../src/source/translate/options.ts';
import { installCrds } from '../support/crds/load.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { KubeWriter, gatewayCrd, waitFor } from './harness.ts';
import { syncPipeline } from './source-harness.ts';
import type { Pipeline } from './source-harness.ts';

const HOSTNAME = 'external-dns.alpha.kubernetes.io/hostname';
const GW = '192.0.2.40';
const ACCEPTED = [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }];
const RULES = [{ backendRefs: [{ name: 'backend', port: 8443 }] }];

interface Case {
  kind: 'GRPCRoute' | 'TLSRoute' | 'TCPRoute' | 'UDPRoute';
  resource: KubeResource;
  listener: { name: string; port: number; protocol: string; hostname?: string };
  spec: Record<string, unknown>;
  annotations: Record<string, string>;
  host: string;
}

const CASES: readonly Case[] = [
  {
    kind: 'GRPCRoute',
    resource: GRPCROUTES,
    listener: { name: 'grpc', port: 443, protocol: 'HTTPS', hostname: '*.grpc.example.org' },
    spec: { hostnames: ['api.grpc.example.org'] },
    annotations: {},
    host: 'api.grpc.example.org',
  },
  {
    kind: 'TLSRoute',
    resource: TLSROUTES,
    listener: { name: 'tls', port: 8443, protocol: 'TLS', hostname: '*.tls.example.org' },
    spec: { hostnames: ['db.tls.example.org'], rules: RULES },
    annotations: {},
    host: 'db.tls.example.org',
  },
  {
    kind: 'TCPRoute',
    resource: TCPROUTES,
    listener: { name: 'tcp', port: 5432, protocol: 'TCP' },
    spec: { rules: RULES },
    annotations: { [HOSTNAME]: 'pg.tcp.example.org' },
    host: 'pg.tcp.example.org',
  },
  {
    kind: 'UDPRoute',
    resource: UDPROUTES,
    listener: { name: 'udp', port: 53, protocol: 'UDP' },
    spec: { rules: RULES },
    annotations: { [HOSTNAME]: 'dns.udp.example.org' },
    host: 'dns.udp.example.org',
  },
];

interface RouteEvent {
  reason: string;
  note: string;
  regarding: { apiVersion?: string; kind?: string; name?: string; namespace?: string; uid?: string };
}

function eventsOn(api: TestApiServer, kind: string, name: string): RouteEvent[] {
  return api
    .list('events.k8s.io/v1', 'Event')
    .map((e) => ({ reason: String(e['reason']), note: String(e['note']), regarding: (e['regarding'] ?? {}) as RouteEvent['regarding'] }))
    .filter((e) => e.regarding.kind === kind && e.regarding.name === name);
}

describe('Events on GRPCRoute, TLSRoute, TCPRoute and UDPRoute objects', () => {
  let api: TestApiServer;
  let kube: KubeWriter;
  let pipeline: Pipeline;

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 200, namespaces: ['apps'] });
    await installCrds(api, [
      gatewayCrd('gateways', 'Gateway'),
      gatewayCrd('grpcroutes', 'GRPCRoute'),
      gatewayCrd('tlsroutes', 'TLSRoute'),
      gatewayCrd('tcproutes', 'TCPRoute', 'v1alpha2'),
      gatewayCrd('udproutes', 'UDPRoute', 'v1alpha2'),
    ]);
    const logger = silentLogger();
    const client = new KubeClient({ config: api.kubeConfig(), logger });
    kube = new KubeWriter(new KubeClient({ config: api.kubeConfig(), logger }));
    const deps: KubeSourceDeps = { client, logger, translateOptions: buildTranslateOptions({}), namespace: '', syncTimeoutMs: 5000 };
    const sources: KubeObjectSource[] = CASES.map((c) => gatewayRouteSource(deps, c.kind));
    pipeline = syncPipeline(sources, client, logger, { ownerId: 'hw-events', managedRecordTypes: ['A', 'CNAME'] });
    const all = { namespaces: { from: 'All' } };
    await kube.create(GATEWAYS, {
      metadata: { name: 'edge', namespace: 'default' },
      spec: { gatewayClassName: 'test', listeners: CASES.map((c) => ({ ...c.listener, allowedRoutes: all })) },
    });
    await kube.patch(GATEWAYS, 'default', 'edge', { status: { addresses: [{ type: 'IPAddress', value: GW }] } }, 'status');
  });

  after(async () => {
    await pipeline.close();
    await api.stop();
  });

  const published = async (host: string): Promise<boolean> => (await pipeline.endpoints()).some((e) => e.dnsName === host && e.recordType === 'A');

  for (const c of CASES) {
    test(`${c.kind}: RecordReady when its record exists, RecordDeleted when it is gone`, async () => {
      const name = c.kind.toLowerCase();
      const parentRef = { name: 'edge', namespace: 'default', sectionName: c.listener.name };
      await kube.create(c.resource, {
        metadata: { name, namespace: 'apps', annotations: c.annotations },
        spec: { ...c.spec, parentRefs: [parentRef] },
      });
      await kube.patch(c.resource, 'apps', name, { status: { parents: [{ parentRef, controllerName: 'example.org/gw', conditions: ACCEPTED }] } }, 'status');
      await waitFor(`${c.host} published`, async () => ((await published(c.host)) ? true : undefined), 20_000);
      const ready = await waitFor(`RecordReady on ${c.kind} ${name}`, () => eventsOn(api, c.kind, name).find((e) => e.reason === 'RecordReady'), 20_000);
      assert.match(ready.note, new RegExp(c.host.replaceAll('.', '\\.')));
      // Built from the record's resource label, as for every kind: apiVersion, kind, namespace, name (no uid).
      assert.deepEqual(ready.regarding, { apiVersion: c.resource.apiVersion, kind: c.kind, namespace: 'apps', name });

      // The hostname moves away: the old record is deleted, and the route hears of it.
      const moved =
        c.kind === 'GRPCRoute' || c.kind === 'TLSRoute'
          ? { spec: { hostnames: [c.host.replace(/^[^.]+/, 'moved')] } }
          : { metadata: { annotations: { [HOSTNAME]: c.host.replace(/^[^.]+/, 'moved') } } };
      await kube.patch(c.resource, 'apps', name, moved);
      await waitFor(`${c.host} deleted`, async () => ((await published(c.host)) ? undefined : true), 20_000);
      const deleted = await waitFor(
        `RecordDeleted on ${c.kind} ${name}`,
        () => eventsOn(api, c.kind, name).find((e) => e.reason === 'RecordDeleted' && e.note.includes(c.host)),
        20_000,
      );
      assert.equal(deleted.regarding.namespace, 'apps');
      await kube.delete(c.resource, 'apps', name);
    });
  }
});
