/**
 * The test API server's RBAC answers to SubjectAccessReviews, asked through client-node over HTTP:
 * binding scope (a RoleBinding never grants outside its namespace, nor cluster-wide), subresource
 * spelling, wildcards, resourceNames, ServiceAccount and Group subjects, aggregation, system:masters,
 * and kube-apiserver's 422 for a spec without a user or attributes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthorizationV1Api } from '@kubernetes/client-node';
import type { V1ResourceAttributes } from '@kubernetes/client-node';
import { startTestApiServer } from './server.ts';
import type { TestApiServer } from './server.ts';

const RBAC = 'rbac.authorization.k8s.io/v1';

describe('test API server: RBAC SubjectAccessReviews', () => {
  let api: TestApiServer;
  let authz: AuthorizationV1Api;

  const ask = async (user: string, attrs: V1ResourceAttributes, groups: string[] = []): Promise<boolean> => {
    const review = await authz.createSubjectAccessReview({
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user, groups, resourceAttributes: attrs } },
    });
    return review.status?.allowed === true;
  };

  before(async () => {
    api = await startTestApiServer({ namespaces: ['team-a', 'team-b'], authorization: 'rbac' });
    authz = api.kubeConfig().makeApiClient(AuthorizationV1Api);
    api.create({ apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: 'admin-all' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] });
    api.create({
      apiVersion: RBAC,
      kind: 'RoleBinding',
      metadata: { name: 'alice-admin', namespace: 'team-a' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin-all' },
      subjects: [{ kind: 'User', name: 'alice' }],
    });
    api.create({
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: 'svc-ext' },
      rules: [{ apiGroups: ['network.openshift.io'], resources: ['service/externalips'], verbs: ['create'] }],
    });
    api.create({
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'netadmins' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'svc-ext' },
      subjects: [{ kind: 'Group', name: 'netadmins' }],
    });
    api.create({
      apiVersion: RBAC,
      kind: 'Role',
      metadata: { name: 'cm-reader', namespace: 'team-b' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'], verbs: ['get'] }],
    });
    api.create({
      apiVersion: RBAC,
      kind: 'RoleBinding',
      metadata: { name: 'robot', namespace: 'team-b' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'robot' }],
    });
    api.create({
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: 'aggregate' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.org/aggregate': 'true' } }] },
      rules: [],
    });
    api.create({
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: 'scale-any', labels: { 'example.org/aggregate': 'true' } },
      rules: [{ apiGroups: ['apps'], resources: ['*/scale'], verbs: ['update'] }],
    });
    api.create({
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'carol-agg' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'aggregate' },
      subjects: [{ kind: 'User', name: 'carol' }],
    });
  });

  after(async () => {
    await api?.stop();
  });

  test('a RoleBinding grants in its own namespace only, never cluster-wide', async () => {
    const attrs = { verb: 'create', group: 'network.openshift.io', resource: 'service', subresource: 'externalips' };
    assert.equal(await ask('alice', { ...attrs, namespace: 'team-a' }), true);
    assert.equal(await ask('alice', { ...attrs, namespace: 'team-b' }), false);
    assert.equal(await ask('alice', attrs), false, 'no namespace: only ClusterRoleBindings count');
  });

  test('a ClusterRoleBinding grants everywhere; the subresource must be spelled as in the rule', async () => {
    const attrs = { verb: 'create', group: 'network.openshift.io', resource: 'service', subresource: 'externalips' };
    assert.equal(await ask('bob', attrs, ['netadmins']), true);
    assert.equal(await ask('bob', { ...attrs, namespace: 'team-b' }, ['netadmins']), true);
    assert.equal(await ask('bob', { ...attrs, resource: 'services' }, ['netadmins']), false);
    assert.equal(await ask('bob', { ...attrs, subresource: '' }, ['netadmins']), false);
    assert.equal(await ask('bob', { ...attrs, verb: 'update' }, ['netadmins']), false);
    assert.equal(await ask('bob', attrs, ['dev']), false);
  });

  test('ServiceAccount subjects default to the binding namespace; resourceNames narrow the rule', async () => {
    const robot = 'system:serviceaccount:team-b:robot';
    assert.equal(await ask(robot, { namespace: 'team-b', verb: 'get', resource: 'configmaps', name: 'settings' }), true);
    assert.equal(await ask(robot, { namespace: 'team-b', verb: 'get', resource: 'configmaps', name: 'other' }), false);
    assert.equal(await ask('system:serviceaccount:team-a:robot', { namespace: 'team-b', verb: 'get', resource: 'configmaps', name: 'settings' }), false);
  });

  test('aggregated ClusterRoles and */subresource rules; system:masters may do anything', async () => {
    assert.equal(await ask('carol', { namespace: 'team-a', verb: 'update', group: 'apps', resource: 'deployments', subresource: 'scale' }), true);
    assert.equal(await ask('carol', { namespace: 'team-a', verb: 'update', group: 'apps', resource: 'deployments' }), false);
    assert.equal(await ask('root', { verb: 'delete', resource: 'nodes' }, ['system:masters']), true);
  });

  test('a review without a user or group, or without attributes, is Invalid (422)', async () => {
    await assert.rejects(
      authz.createSubjectAccessReview({ body: { spec: { resourceAttributes: { verb: 'get' } } } }),
      (e: unknown) => (e as { code?: number }).code === 422,
    );
    await assert.rejects(authz.createSubjectAccessReview({ body: { spec: { user: 'x' } } }), (e: unknown) => (e as { code?: number }).code === 422);
  });
});

describe('test API server: requests authorized by RBAC for users known by token', () => {
  test('a ServiceAccount token may do what its bindings grant and gets Forbidden, in kube-apiserver words, otherwise', async () => {
    const sa = { name: 'system:serviceaccount:dns:external-dns', groups: ['system:serviceaccounts', 'system:serviceaccounts:dns', 'system:authenticated'] };
    const api = await startTestApiServer({ authorization: 'rbac', users: { 'sa-token': sa } });
    try {
      api.create({
        apiVersion: RBAC,
        kind: 'ClusterRole',
        metadata: { name: 'read-services' },
        rules: [{ apiGroups: [''], resources: ['services'], verbs: ['list'] }],
      });
      api.create({
        apiVersion: RBAC,
        kind: 'ClusterRoleBinding',
        metadata: { name: 'read-services' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'read-services' },
        subjects: [{ kind: 'ServiceAccount', name: 'external-dns', namespace: 'dns' }],
      });
      const as = (token: string, path: string, init: RequestInit = {}): Promise<Response> =>
        fetch(`${api.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
      assert.equal((await as('sa-token', '/api/v1/services')).status, 200);
      const denied = await as('sa-token', '/apis/events.k8s.io/v1/namespaces/default/events', { method: 'POST', body: '{}' });
      assert.equal(denied.status, 403);
      const status = (await denied.json()) as { reason: string; message: string; details: { group: string; kind: string } };
      assert.equal(status.reason, 'Forbidden');
      assert.equal(
        status.message,
        'events.events.k8s.io is forbidden: User "system:serviceaccount:dns:external-dns" cannot create resource "events" in API group "events.k8s.io" in the namespace "default"',
      );
      assert.deepEqual(status.details, { group: 'events.k8s.io', kind: 'events' });
      const lease = await as('sa-token', '/apis/coordination.k8s.io/v1/namespaces/dns/leases/x');
      assert.equal(lease.status, 403);
      assert.match(((await lease.json()) as { message: string }).message, /^leases\.coordination\.k8s\.io "x" is forbidden: .* cannot get resource "leases"/);
      assert.equal((await as('sa-token', '/version')).status, 200, 'non-resource paths (discovery) stay open');
      assert.equal((await as('test-token', '/apis/events.k8s.io/v1/namespaces/default/events')).status, 200, 'the default token stays an administrator');
    } finally {
      await api.stop();
    }
  });
});
