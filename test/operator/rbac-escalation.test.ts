/**
 * deploy/operator/rbac.json without `escalate`/`bind`, against the test API server's RBAC with
 * kube-apiserver's escalation prevention: the operator still creates each operand's ClusterRole and
 * ClusterRoleBinding (it holds every permission it grants), and cannot bind or create anything else.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../../src/kube/client.ts';
import { objectPath } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { ExternalDNSReconciler } from '../../src/operator/reconciler.ts';
import { CLUSTER_ROLE_BINDINGS, CLUSTER_ROLES, DEPLOYMENTS } from '../../src/operator/resources.ts';
import { EXTERNALDNSES } from '../../src/operator/types.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { OPERAND_NS, OPERATOR_NS, awsExternalDNS, awsSecret, deployDocs } from './harness.ts';

const TOKEN = 'operator-sa-token';
const RBAC = 'rbac.authorization.k8s.io/v1';

describe('operator RBAC without escalate/bind', () => {
  let api: TestApiServer;
  let admin: KubeClient;
  let operator: KubeClient;
  before(async () => {
    api = await startTestApiServer({
      namespaces: [OPERAND_NS, OPERATOR_NS],
      authorization: 'rbac',
      users: {
        [TOKEN]: {
          name: `system:serviceaccount:${OPERATOR_NS}:hostwarden-operator`,
          groups: ['system:serviceaccounts', `system:serviceaccounts:${OPERATOR_NS}`, 'system:authenticated'],
        },
      },
    });
    admin = new KubeClient({ config: api.kubeConfig(), logger: silentLogger() });
    await admin.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: deployDocs('crd.json')[0] });
    for (const o of deployDocs('rbac.json'))
      if (!String(o['metadata'] && (o['metadata'] as { namespace?: string }).namespace).startsWith('openshift')) api.create(o as never);
    api.create({
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: 'cluster-admin' },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    } as never);
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'test', server: api.url, skipTLSVerify: true }],
      users: [{ name: 'sa', token: TOKEN }],
      contexts: [{ name: 'test', cluster: 'test', user: 'sa' }],
      currentContext: 'test',
    });
    operator = new KubeClient({ config: kc, logger: silentLogger() });
    await admin.request('POST', `/api/v1/namespaces/${OPERATOR_NS}/secrets`, { body: awsSecret('aws-creds') });
  });
  after(async () => {
    admin.close();
    operator.close();
    await api.stop();
  });

  test('the operator reconciles Service, OpenShiftRoute and DNSEndpoint sources as its own service account', async () => {
    const r = new ExternalDNSReconciler({
      client: operator,
      logger: silentLogger(),
      operand: { namespace: OPERAND_NS, image: 'hostwarden:test', platform: { openshift: false } },
      operatorNamespace: OPERATOR_NS,
    });
    const sources = {
      svc: { type: 'Service' as const, fqdnTemplate: ['{{.Name}}.example.org'] },
      route: { type: 'OpenShiftRoute' as const, hostnameAnnotation: 'Allow' as const },
      crd: { type: 'CRD' as const, hostnameAnnotation: 'Allow' as const, crd: { apiVersion: 'externaldns.k8s.io/v1alpha1', kind: 'DNSEndpoint' } },
    };
    for (const [name, source] of Object.entries(sources)) {
      await admin.request('POST', '/apis/externaldns.olm.openshift.io/v1beta1/externaldnses', { body: awsExternalDNS(name, { source }) });
      assert.deepEqual(await r.reconcile(name), {}, name);
      const st = (await admin.request<{ status?: unknown }>('GET', objectPath(EXTERNALDNSES, '', name))).status;
      assert.ok(!JSON.stringify(st).includes('UnsupportedSpec'), JSON.stringify(st));
      await admin.request('GET', objectPath(CLUSTER_ROLES, '', `${OPERAND_NS}-hostwarden-${name}`));
      await admin.request('GET', objectPath(CLUSTER_ROLE_BINDINGS, '', `${OPERAND_NS}-hostwarden-${name}`));
      await admin.request('GET', objectPath(DEPLOYMENTS, OPERAND_NS, `hostwarden-${name}`));
    }
  });

  test('the operator cannot bind a role it does not hold, nor write a role granting more', async () => {
    const binding = {
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'steal' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'hostwarden-operator', namespace: OPERATOR_NS }],
    };
    await assert.rejects(operator.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { body: binding }), /forbidden/);
    const role = {
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: 'secrets-reader' },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
    };
    await assert.rejects(
      operator.request('PATCH', objectPath(CLUSTER_ROLES, '', 'secrets-reader'), {
        body: role,
        contentType: 'application/apply-patch+yaml',
        query: { fieldManager: 'x', force: true },
      }),
      /forbidden/,
    );
  });
});
