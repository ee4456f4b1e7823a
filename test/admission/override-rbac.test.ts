/**
 * Who may override the ranges, decided by real RBAC in the test API server: the override needs a
 * cluster-wide grant of `create` on `service/externalips` in `network.openshift.io`, as OpenShift's
 * plugin asks it. Anything granted inside one namespace (even cluster-admin through a RoleBinding)
 * does not count, and the plural `services/externalips` is a different resource.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AdmissionWebhook } from '../../src/admission/webhook.ts';
import { silentLogger } from '../../src/log.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { httpsCall, makeCert, opensslMissing, responseOf, serviceReview, startWebhook, writeKubeconfig } from './harness.ts';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const skip = await opensslMissing();

describe('the external-IP override is cluster-wide, decided by RBAC', { skip }, () => {
  let dir = '';
  let api: TestApiServer;
  let webhook: AdmissionWebhook;
  let port = 0;
  let ca: Buffer;

  const clusterRole = (name: string, rules: unknown[]): void => {
    api.create({ apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: { name }, rules });
  };
  const bind = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, role: string, user: string, namespace?: string): void => {
    api.create({
      apiVersion: `${RBAC_GROUP}/v1`,
      kind,
      metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: user }],
    });
  };
  const review = async (user: string, namespace = 'team-a') =>
    responseOf(await httpsCall(port, ca, { body: serviceReview({ user, groups: ['system:authenticated'], namespace, externalIPs: ['198.51.100.7'] }) }));

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hostwarden-override-rbac-'));
    api = await startTestApiServer({ namespaces: ['team-a'], authorization: 'rbac' });
    clusterRole('cluster-admin', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]);
    // Namespace-scoped cluster-admin: everything, but only inside team-a.
    bind('RoleBinding', 'dana-admin', 'cluster-admin', 'dana', 'team-a');
    clusterRole('externalips-override', [{ apiGroups: ['network.openshift.io'], resources: ['service/externalips'], verbs: ['create'] }]);
    bind('ClusterRoleBinding', 'erin-externalips', 'externalips-override', 'erin');
    clusterRole('externalips-plural', [{ apiGroups: ['network.openshift.io'], resources: ['services/externalips'], verbs: ['create'] }]);
    bind('ClusterRoleBinding', 'frank-plural', 'externalips-plural', 'frank');
    // The OpenShift role, but granted through a RoleBinding: still namespaced, still not enough.
    bind('RoleBinding', 'gina-externalips', 'externalips-override', 'gina', 'team-a');
    const kubeconfig = await writeKubeconfig(dir, api.url);
    const cert = await makeCert(dir, 'webhook');
    ca = await readFile(cert.certFile);
    ({ webhook, port } = await startWebhook(
      ['--kubeconfig', kubeconfig, '--tls-cert-file', cert.certFile, '--tls-private-key-file', cert.keyFile, '--allowed-cidrs', '10.0.0.0/8'],
      silentLogger(),
    ));
  });

  after(async () => {
    await webhook?.stop();
    await api?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('cluster-admin through a RoleBinding in the Service namespace is denied', async () => {
    const res = await review('dana');
    assert.equal(res.allowed, false);
    assert.equal(res.status?.message, 'services "web" is forbidden: spec.externalIPs[0]: Forbidden: externalIP is not allowed');
  });

  test('the override ClusterRole bound by a RoleBinding is denied too', async () => {
    assert.equal((await review('gina')).allowed, false);
  });

  test('a ClusterRoleBinding to create service/externalips in network.openshift.io admits, with the override warning', async () => {
    const res = await review('erin');
    assert.equal(res.allowed, true);
    assert.match(
      res.warnings?.[0] ?? '',
      /cluster-wide override \(create service\/externalips in network\.openshift\.io\).*spec\.externalIPs\[0\]: Forbidden: externalIP is not allowed/,
    );
    assert.equal((await review('erin', 'default')).allowed, true);
  });

  test('a ClusterRole on services/externalips (plural) does not grant it', async () => {
    assert.equal((await review('frank')).allowed, false);
  });

  test('the shipped override ClusterRole, bound cluster-wide, grants it', async () => {
    const shipped = (
      JSON.parse(await readFile(join(import.meta.dirname, '../../deploy/admission/rbac.json'), 'utf8')) as {
        items: { kind: string; metadata: { name: string } }[];
      }
    ).items;
    const role = shipped.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'hostwarden-externalip-override');
    assert.ok(role !== undefined);
    api.create(role as Parameters<TestApiServer['create']>[0]);
    bind('ClusterRoleBinding', 'hank-shipped', 'hostwarden-externalip-override', 'hank');
    assert.equal((await review('hank')).allowed, true);
  });
});
