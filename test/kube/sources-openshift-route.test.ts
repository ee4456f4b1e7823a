/**
 * The openshift-route source through the real client and reflector against the test API server,
 * which serves routes.route.openshift.io once its CRD exists (as on an OpenShift cluster).
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { involvedObjectOf } from '../../src/controller/record-events.ts';
import { ROUTES } from '../../src/kube/resource.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import { openshiftRouteSource } from '../../src/source/kube/sources.ts';
import { schemalessCrd } from './harness.ts';
import { untilViewed, useTestApiServer } from './source-harness.ts';

const ROUTE_CRD = schemalessCrd('route.openshift.io', 'routes', 'Route');

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
  const suite = useTestApiServer({ namespaces: ['apps'], crds: [ROUTE_CRD] });

  const until = (what: string, source: KubeObjectSource, expected: string[]): Promise<void> => untilViewed(what, source, expected, { resource: true });

  /** A Route written as a router would leave it: spec by its owner, status through the status subresource. */
  const createRoute = async (name: string, host: string, routers: RouterStatus[]): Promise<void> => {
    await suite.kube.create(ROUTES, {
      metadata: { name, namespace: 'apps' },
      spec: { host, to: { kind: 'Service', name, weight: 100 }, wildcardPolicy: 'None' },
    });
    await suite.kube.patch(ROUTES, 'apps', name, { status: routeStatus(routers, host) }, 'status');
  };

  before(async () => {
    await createRoute('shop', 'shop.example.org', [{ router: 'default', canonical: 'router-default.apps.example.net', admitted: true }]);
    await createRoute('sharded', 'sharded.example.org', [
      { router: 'default', canonical: 'router-default.apps.example.net', admitted: true },
      { router: 'internal', canonical: 'router-internal.apps.example.net', admitted: true },
    ]);
    await createRoute('pending', 'pending.example.org', [{ router: 'default', canonical: 'router-default.apps.example.net', admitted: false }]);
  });

  test('admitted routes become CNAMEs to the router canonical hostname; a route admitted later follows', async () => {
    const source = openshiftRouteSource(suite.sourceDeps({ translateOptions: {} }));
    suite.closeAfter(() => source.close());
    source.start();
    await until(
      'first-router targets',
      source,
      [
        'shop.example.org CNAME router-default.apps.example.net route/apps/shop',
        'sharded.example.org CNAME router-default.apps.example.net route/apps/sharded',
      ].sort(),
    );

    await suite.kube.patch(
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
    await suite.kube.patch(
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
    const source = suite.sourceFromFlags('openshift-route', ['--openshift-router-name', 'internal', '--request-timeout', '5s']);
    await until('internal router only', source, ['sharded.example.org CNAME router-internal.apps.example.net route/apps/sharded']);
  });
});
