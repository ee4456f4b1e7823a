/**
 * Test API server, part two, through the real client-node: status subresources, the patch types,
 * finalizers, CRDs, Leases, SubjectAccessReviews, Events, discovery and the direct store helpers.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ApiException,
  ApiextensionsV1Api,
  AppsV1Api,
  AuthorizationV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  NetworkingV1Api,
  PatchStrategy,
  Watch,
  setHeaderOptions,
} from '@kubernetes/client-node';
import type { KubeConfig, V1CustomResourceDefinition } from '@kubernetes/client-node';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';

async function codeOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiException) return err.code;
    throw err;
  }
  assert.fail('expected the call to fail');
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 10_000 && Date.now() < deadline; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`timed out waiting for ${what}`);
}

const strategy = (s: string): ReturnType<typeof setHeaderOptions> => setHeaderOptions('Content-Type', s);

function dnsEndpointCrd(scope: 'Namespaced' | 'Cluster' = 'Namespaced'): V1CustomResourceDefinition {
  const plural = scope === 'Namespaced' ? 'dnsendpoints' : 'clusterthings';
  return {
    metadata: { name: `${plural}.externaldns.k8s.io` },
    spec: {
      group: 'externaldns.k8s.io',
      scope,
      names: {
        plural,
        singular: plural.slice(0, -1),
        kind: scope === 'Namespaced' ? 'DNSEndpoint' : 'ClusterThing',
        listKind: scope === 'Namespaced' ? 'DNSEndpointList' : 'ClusterThingList',
      },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          subresources: scope === 'Namespaced' ? { status: {} } : undefined,
          // Structural: without preserve-unknown-fields on spec and status, kube-apiserver would prune them.
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
                status: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
              },
            },
          },
        },
      ],
    },
  };
}

describe('test API server resources through @kubernetes/client-node', () => {
  let api: TestApiServer;
  let kc: KubeConfig;
  let core: CoreV1Api;
  const controllers: AbortController[] = [];

  before(async () => {
    api = await startTestApiServer();
    kc = api.kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
  });
  after(async () => {
    for (const c of controllers) c.abort();
    await api.stop();
  });

  test('status subresource: create and update ignore status, /status changes only status', async () => {
    const created = await core.createNamespacedService({
      namespace: 'default',
      body: { metadata: { name: 'lb' }, spec: { type: 'LoadBalancer' }, status: { loadBalancer: { ingress: [{ ip: '192.0.2.9' }] } } },
    });
    assert.equal(created.status, undefined);
    created.status = { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } };
    const withStatus = await core.replaceNamespacedServiceStatus({ name: 'lb', namespace: 'default', body: { ...created, spec: { type: 'NodePort' } } });
    assert.equal(withStatus.status?.loadBalancer?.ingress?.[0]?.ip, '192.0.2.1');
    assert.equal(withStatus.spec?.type, 'LoadBalancer', 'a status update leaves spec alone');
    assert.equal(withStatus.metadata?.generation, 1, 'status changes keep the generation');
    const patched = await core.patchNamespacedServiceStatus(
      { name: 'lb', namespace: 'default', body: { status: { loadBalancer: { ingress: [{ hostname: 'lb.example.net' }] } } } },
      strategy(PatchStrategy.MergePatch),
    );
    assert.equal(patched.status?.loadBalancer?.ingress?.[0]?.hostname, 'lb.example.net');
    const replaced = await core.replaceNamespacedService({ name: 'lb', namespace: 'default', body: { ...patched, status: {} } });
    assert.equal(replaced.status?.loadBalancer?.ingress?.[0]?.hostname, 'lb.example.net', 'the main resource ignores status');

    const net = kc.makeApiClient(NetworkingV1Api);
    await net.createNamespacedIngress({ namespace: 'default', body: { metadata: { name: 'ing' }, spec: { rules: [{ host: 'a.example.org' }] } } });
    const ing = await net.patchNamespacedIngressStatus(
      { name: 'ing', namespace: 'default', body: { status: { loadBalancer: { ingress: [{ ip: '198.51.100.1' }] } } } },
      strategy(PatchStrategy.MergePatch),
    );
    assert.equal(ing.status?.loadBalancer?.ingress?.[0]?.ip, '198.51.100.1');
  });

  test('JSON patch (client default), strategic merge of finalizers, server-side apply', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'cm', finalizers: ['a.example/one'] }, data: { k: 'v' } } });
    const jp = await core.patchNamespacedConfigMap({
      name: 'cm',
      namespace: 'default',
      body: [
        { op: 'add', path: '/data/k2', value: 'v2' },
        { op: 'remove', path: '/data/k' },
      ],
    });
    assert.deepEqual(jp.data, { k2: 'v2' });
    assert.equal(
      await codeOf(core.patchNamespacedConfigMap({ name: 'cm', namespace: 'default', body: [{ op: 'test', path: '/data/k2', value: 'nope' }] })),
      422,
    );

    const smp = await core.patchNamespacedConfigMap(
      { name: 'cm', namespace: 'default', body: { metadata: { finalizers: ['b.example/two'] } } },
      strategy(PatchStrategy.StrategicMergePatch),
    );
    assert.deepEqual(smp.metadata?.finalizers, ['a.example/one', 'b.example/two']);
    const removed = await core.patchNamespacedConfigMap(
      { name: 'cm', namespace: 'default', body: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a.example/one'] } } },
      strategy(PatchStrategy.StrategicMergePatch),
    );
    assert.deepEqual(removed.metadata?.finalizers, ['b.example/two']);
    const stale = { metadata: { resourceVersion: jp.metadata!.resourceVersion }, data: { x: 'y' } };
    assert.equal(await codeOf(core.patchNamespacedConfigMap({ name: 'cm', namespace: 'default', body: stale }, strategy(PatchStrategy.MergePatch))), 409);

    const applied = await core.patchNamespacedConfigMap(
      {
        name: 'applied',
        namespace: 'default',
        fieldManager: 'test',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { a: '1' } },
      },
      strategy(PatchStrategy.ServerSideApply),
    );
    assert.deepEqual(applied.data, { a: '1' });
    const again = await core.patchNamespacedConfigMap(
      {
        name: 'applied',
        namespace: 'default',
        fieldManager: 'test',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { b: '2' } },
      },
      strategy(PatchStrategy.ServerSideApply),
    );
    assert.deepEqual(again.data, { a: '1', b: '2' });
    assert.equal(await codeOf(core.patchNamespacedConfigMap({ name: 'cm', namespace: 'default', body: {} }, strategy('text/plain'))), 415);
  });

  test('finalizers: delete sets deletionTimestamp; removing the last finalizer deletes', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'fin', finalizers: ['hostwarden.io/cleanup'] } } });
    const seen: string[] = [];
    controllers.push(
      await new Watch(kc).watch(
        '/api/v1/namespaces/default/configmaps',
        { fieldSelector: 'metadata.name=fin' },
        (type) => seen.push(type),
        () => {},
      ),
    );
    await waitFor('ADDED', () => seen.length === 1);
    await core.deleteNamespacedConfigMap({ name: 'fin', namespace: 'default', propagationPolicy: 'Foreground' });
    const terminating = await core.readNamespacedConfigMap({ name: 'fin', namespace: 'default' });
    assert.ok(terminating.metadata?.deletionTimestamp);
    const more = { ...terminating, metadata: { ...terminating.metadata, finalizers: ['hostwarden.io/cleanup', 'late.example/x'] } };
    assert.equal(await codeOf(core.replaceNamespacedConfigMap({ name: 'fin', namespace: 'default', body: more })), 422, 'no new finalizers while deleting');
    const otherUid = { ...terminating, metadata: { ...terminating.metadata, uid: '00000000-0000-0000-0000-000000000000' } };
    assert.equal(await codeOf(core.replaceNamespacedConfigMap({ name: 'fin', namespace: 'default', body: otherUid })), 409, 'uid precondition');
    terminating.metadata!.finalizers = [];
    await core.replaceNamespacedConfigMap({ name: 'fin', namespace: 'default', body: terminating });
    assert.equal(await codeOf(core.readNamespacedConfigMap({ name: 'fin', namespace: 'default' })), 404);
    await waitFor('DELETED', () => seen.length === 3);
    assert.deepEqual(seen, ['ADDED', 'MODIFIED', 'DELETED']);
  });

  test('a CRD makes its objects served, with status subresource; deleting it stops serving them', async () => {
    const ext = kc.makeApiClient(ApiextensionsV1Api);
    const custom = kc.makeApiClient(CustomObjectsApi);
    const where = { group: 'externaldns.k8s.io', version: 'v1alpha1', plural: 'dnsendpoints', namespace: 'default' };
    assert.equal(await codeOf(custom.listNamespacedCustomObject(where)), 404);
    const crd = await ext.createCustomResourceDefinition({ body: dnsEndpointCrd() });
    assert.ok(crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'));
    const body = {
      apiVersion: 'externaldns.k8s.io/v1alpha1',
      kind: 'DNSEndpoint',
      metadata: { name: 'ep' },
      spec: { endpoints: [{ dnsName: 'a.example.org', recordType: 'A', targets: ['192.0.2.1'] }] },
    };
    const created = (await custom.createNamespacedCustomObject({ ...where, body })) as { metadata: { generation: number } };
    assert.equal(created.metadata.generation, 1);
    const st = (await custom.patchNamespacedCustomObjectStatus(
      { ...where, name: 'ep', body: { status: { observedGeneration: 1 } } },
      strategy(PatchStrategy.MergePatch),
    )) as { status: unknown };
    assert.deepEqual(st.status, { observedGeneration: 1 });
    const list = (await custom.listNamespacedCustomObject(where)) as { kind: string; items: unknown[] };
    assert.equal(list.kind, 'DNSEndpointList');
    assert.equal(list.items.length, 1);
    const resources = (await (await fetch(`${api.url}/apis/externaldns.k8s.io/v1alpha1`)).json()) as { resources: { name: string }[] };
    assert.deepEqual(
      resources.resources.map((r) => r.name),
      ['dnsendpoints', 'dnsendpoints/status'],
    );

    await ext.createCustomResourceDefinition({ body: dnsEndpointCrd('Cluster') });
    await custom.createClusterCustomObject({
      group: 'externaldns.k8s.io',
      version: 'v1alpha1',
      plural: 'clusterthings',
      body: { apiVersion: 'externaldns.k8s.io/v1alpha1', kind: 'ClusterThing', metadata: { name: 'one' } },
    });
    const things = (await custom.listClusterCustomObject({ group: 'externaldns.k8s.io', version: 'v1alpha1', plural: 'clusterthings' })) as {
      items: unknown[];
    };
    assert.equal(things.items.length, 1);

    await ext.deleteCustomResourceDefinition({ name: 'dnsendpoints.externaldns.k8s.io' });
    assert.equal(await codeOf(custom.getNamespacedCustomObject({ ...where, name: 'ep' })), 404);
  });

  test('Leases: create, renew with optimistic concurrency', async () => {
    const coord = kc.makeApiClient(CoordinationV1Api);
    const lease = await coord.createNamespacedLease({
      namespace: 'kube-system',
      body: { metadata: { name: 'hostwarden' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } },
    });
    const renewed = await coord.replaceNamespacedLease({
      name: 'hostwarden',
      namespace: 'kube-system',
      body: { ...lease, spec: { ...lease.spec, renewTime: new Date() } },
    });
    assert.ok(Number(renewed.metadata?.resourceVersion) > Number(lease.metadata?.resourceVersion));
    assert.equal(
      await codeOf(coord.replaceNamespacedLease({ name: 'hostwarden', namespace: 'kube-system', body: { ...lease, spec: { holderIdentity: 'b' } } })),
      409,
    );
  });

  test('SubjectAccessReviews are answered by the configured function', async () => {
    const authz = kc.makeApiClient(AuthorizationV1Api);
    api.setSubjectAccessReviewAnswer((spec) => {
      const attrs = spec.resourceAttributes as { verb?: string } | undefined;
      return attrs?.verb === 'get' ? { allowed: true } : { allowed: false, denied: true, reason: 'read-only' };
    });
    const ask = (verb: string): Promise<{ status?: { allowed: boolean; reason?: string } }> =>
      authz.createSubjectAccessReview({ body: { spec: { user: 'alice', resourceAttributes: { verb, resource: 'services', namespace: 'default' } } } });
    assert.equal((await ask('get')).status?.allowed, true);
    const denied = await ask('delete');
    assert.equal(denied.status?.allowed, false);
    assert.equal(denied.status?.reason, 'read-only');
    const self = await authz.createSelfSubjectAccessReview({ body: { spec: { resourceAttributes: { verb: 'get', resource: 'leases' } } } });
    assert.equal(self.status?.allowed, true);
    const local = await authz.createNamespacedLocalSubjectAccessReview({
      namespace: 'default',
      body: { spec: { user: 'bob', resourceAttributes: { verb: 'list', namespace: 'default' } } },
    });
    assert.equal(local.status?.allowed, false);
  });

  test('Events (core and events.k8s.io), Deployments, discovery and the direct store helpers', async () => {
    await core.createNamespacedEvent({
      namespace: 'default',
      body: {
        metadata: { name: 'e1' },
        involvedObject: { kind: 'Service', name: 'lb', namespace: 'default' },
        reason: 'RecordReady',
        message: 'ok',
        type: 'Normal',
      },
    });
    const events = await core.listNamespacedEvent({ namespace: 'default', fieldSelector: 'involvedObject.name=lb,reason=RecordReady' });
    assert.equal(events.items.length, 1);
    const ev = kc.makeApiClient(EventsV1Api);
    await ev.createNamespacedEvent({
      namespace: 'default',
      body: {
        metadata: { generateName: 'lb.' },
        eventTime: new Date(),
        reportingController: 'hostwarden',
        reportingInstance: 'x',
        action: 'Sync',
        reason: 'RecordReady',
        regarding: { kind: 'Service', name: 'lb' },
      },
    });
    assert.match((await ev.listNamespacedEvent({ namespace: 'default' })).items[0]?.metadata?.name ?? '', /^lb\.[0-9a-f]{5}$/);

    const apps = kc.makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: { metadata: { name: 'hw' }, spec: { selector: { matchLabels: { app: 'hw' } }, template: { metadata: { labels: { app: 'hw' } } } } },
    });

    const core1 = (await (await fetch(`${api.url}/api/v1`)).json()) as { resources: { name: string; verbs: string[] }[] };
    assert.ok(core1.resources.some((r) => r.name === 'services/status'));
    const groups = (await (await fetch(`${api.url}/apis`)).json()) as { groups: { name: string }[] };
    for (const g of ['apps', 'coordination.k8s.io', 'networking.k8s.io', 'apiextensions.k8s.io', 'authorization.k8s.io', 'events.k8s.io']) {
      assert.ok(
        groups.groups.some((x) => x.name === g),
        g,
      );
    }
    assert.equal(((await (await fetch(`${api.url}/version`)).json()) as { major: string }).major, '1');

    const direct = api.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'direct', namespace: 'default' },
      spec: { type: 'LoadBalancer' },
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.7' }] } },
    });
    assert.ok(direct.metadata.uid);
    const viaHttp = await core.readNamespacedService({ name: 'direct', namespace: 'default' });
    assert.equal(viaHttp.status?.loadBalancer?.ingress?.[0]?.ip, '192.0.2.7', 'direct helpers keep status');
    api.update({ ...direct, metadata: { ...direct.metadata, labels: { x: 'y' } } });
    assert.deepEqual(api.get({ apiVersion: 'v1', kind: 'Service', name: 'direct', namespace: 'default' })?.metadata.labels, { x: 'y' });
    assert.throws(() => api.update(direct), /has been modified/);
    assert.ok(api.list('v1', 'Service', 'default').some((s) => s.metadata.name === 'direct'));
    api.delete({ apiVersion: 'v1', kind: 'Service', name: 'direct', namespace: 'default' });
    assert.equal(api.get({ apiVersion: 'v1', kind: 'Service', name: 'direct', namespace: 'default' }), undefined);
  });
});
