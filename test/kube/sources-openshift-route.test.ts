/**
 * The openshift-route source through the real client and reflector against the test API server,
 * which serves routes.route.openshift.io once its CRD exists (as on an OpenShift cluster).
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
import { involvedObjectOf } from '../../src/controller/record-events.ts';
import { ROUTES } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { kubeSourceFromConfig } from '../../src/source/kube/factory.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import { openshiftRouteSource } from '../../src/source/kube/sources.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { KubeWriter, waitFor } from './harness.ts';

const ROUTE_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'routes.route.openshift.io' },
  spec: {
    group: 'route.openshift.io',
    scope: 'Namespaced',
    names: { plural: 'routes', singular: 'route', kind: 'Route', listKind: 'RouteList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

interface RouterStatus {
  router: string;
  canonical: string;
  admitted: boolean;
}

/** `host` as the routers report it (the name the source publishes, as upstream). */
function routeStatus(routers: RouterStatus[], host: string): { ingress: unknown[] } {
  return {
    ingress: routers.map((r) => ({
      host,
      routerName: r.router,
      routerCanonicalHostname: r.canonical,
      conditions: [{ type: 'Admitted', status: r.admitted ? 'True' : 'False', lastTransitionTime: '2026-01-01T00:00:00Z' }],
      wildcardPolicy: 'None',
    })),
  };
}

describe('openshift-route source against the test API server', () => {
  let api: TestApiServer;
  let client: KubeClient;
  let kube: KubeWriter;
  const sources: KubeObjectSource[] = [];
  const logger = silentLogger();

  const view = async (source: KubeObjectSource): Promise<string[]> =>
    (await source.endpoints()).map((e) => `${e.dnsName} ${e.recordType} ${[...e.targets].sort().join(',')} ${e.labels['resource'] ?? ''}`).sort();

  const until = (what: string, source: KubeObjectSource, expected: string[]): Promise<true> =>
    waitFor(what, async () => (JSON.stringify(await view(source)) === JSON.stringify(expected) ? true : undefined)).catch(async (err: unknown) => {
      assert.deepEqual(await view(source), expected, String(err));
      throw err;
    });

  /** A Route written as a router would leave it: spec by its owner, status through the status subresource. */
  const createRoute = async (name: string, host: string, routers: RouterStatus[]): Promise<void> => {
    await kube.create(ROUTES, { metadata: { name, namespace: 'apps' }, spec: { host, to: { kind: 'Service', name, weight: 100 }, wildcardPolicy: 'None' } });
    await kube.patch(ROUTES, 'apps', name, { status: routeStatus(routers, host) }, 'status');
  };

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 200, namespaces: ['apps'] });
    api.create(ROUTE_CRD);
    client = new KubeClient({ config: api.kubeConfig(), logger });
    kube = new KubeWriter(client);
    await createRoute('shop', 'shop.example.org', [{ router: 'default', canonical: 'router-default.apps.example.net', admitted: true }]);
    await createRoute('sharded', 'sharded.example.org', [
      { router: 'default', canonical: 'router-default.apps.example.net', admitted: true },
      { router: 'internal', canonical: 'router-internal.apps.example.net', admitted: true },
    ]);
    await createRoute('pending', 'pending.example.org', [{ router: 'default', canonical: 'router-default.apps.example.net', admitted: false }]);
  });

  after(async () => {
    await Promise.all(sources.map((s) => s.close()));
    client.close();
    await api.stop();
  });

  test('admitted routes become CNAMEs to the router canonical hostname; a route admitted later follows', async () => {
    const source = openshiftRouteSource({
      client: new KubeClient({ config: api.kubeConfig(), logger }),
      logger,
      translateOptions: {},
      namespace: '',
      syncTimeoutMs: 5000,
    });
    sources.push(source);
    source.start();
    await until(
      'first-router targets',
      source,
      [
        'shop.example.org CNAME router-default.apps.example.net route/apps/shop',
        'sharded.example.org CNAME router-default.apps.example.net route/apps/sharded',
      ].sort(),
    );

    await kube.patch(
      ROUTES,
      'apps',
      'pending',
      { status: routeStatus([{ router: 'default', canonical: 'router-default.apps.example.net', admitted: true }], 'pending.example.org') },
      'status',
    );
    await until(
      'pending admitted',
      source,
      [
        'pending.example.org CNAME router-default.apps.example.net route/apps/pending',
        'shop.example.org CNAME router-default.apps.example.net route/apps/shop',
        'sharded.example.org CNAME router-default.apps.example.net route/apps/sharded',
      ].sort(),
    );
    await kube.patch(
      ROUTES,
      'apps',
      'pending',
      { status: routeStatus([{ router: 'default', canonical: 'router-default.apps.example.net', admitted: false }], 'pending.example.org') },
      'status',
    );
    await until(
      'pending no longer admitted',
      source,
      [
        'shop.example.org CNAME router-default.apps.example.net route/apps/shop',
        'sharded.example.org CNAME router-default.apps.example.net route/apps/sharded',
      ].sort(),
    );
  });

  test('record Events for a route/ resource label land on the Route', () => {
    assert.deepEqual(involvedObjectOf('route/apps/shop'), { apiVersion: 'route.openshift.io/v1', kind: 'Route', namespace: 'apps', name: 'shop' });
  });

  test('built from flags: --source openshift-route --openshift-router-name picks that router only', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hostwarden-route-'));
    try {
      const file = await api.writeKubeconfig(dir);
      const args = ['--source', 'openshift-route', '--openshift-router-name', 'internal', '--kubeconfig', file, '--request-timeout', '5s'];
      const cfg = resolveConfig(parseArgs(args, {}, [...FLAGS, ...EXTRA_FLAGS]), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
      const source = kubeSourceFromConfig('openshift-route', cfg, { logger });
      sources.push(source);
      await until('internal router only', source, ['sharded.example.org CNAME router-internal.apps.example.net route/apps/sharded']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
