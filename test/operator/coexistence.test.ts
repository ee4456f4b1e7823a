/**
 * Installing over the upstream ExternalDNS Operator, through the test API server: start-up is
 * refused while upstream's Deployment runs, allowed once it is scaled to 0 or gone; a CRD without
 * Hostwarden's conversion webhook is reported. The operator's own RBAC may make these checks.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { HostwardenError } from '../../src/errors.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { silentLogger } from '../../src/log.ts';
import { checkCoexistence } from '../../src/operator/coexistence.ts';
import { capturingLogger, WARN } from '../support/log-capture.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { OPERAND_NS, OPERATOR_NS, deployDocs } from './harness.ts';

const TOKEN = 'operator-sa-token';
const DEP_PATH = '/apis/apps/v1/namespaces/external-dns-operator/deployments/external-dns-operator';
const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/externaldnses.externaldns.olm.openshift.io';

describe('coexistence with the upstream operator', () => {
  let api: TestApiServer;
  let admin: KubeClient;
  let operator: KubeClient;
  before(async () => {
    api = await startTestApiServer({
      namespaces: [OPERAND_NS, OPERATOR_NS, 'external-dns-operator'],
      authorization: 'rbac',
      users: { [TOKEN]: { name: `system:serviceaccount:${OPERATOR_NS}:hostwarden-operator`, groups: ['system:serviceaccounts', 'system:authenticated'] } },
    });
    admin = new KubeClient({ config: api.kubeConfig(), logger: silentLogger() });
    for (const o of deployDocs('rbac.json')) if (!String((o['metadata'] as { namespace?: string }).namespace).startsWith('openshift')) api.create(o as never);
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'test', server: api.url, skipTLSVerify: true }],
      users: [{ name: 'sa', token: TOKEN }],
      contexts: [{ name: 'test', cluster: 'test', user: 'sa' }],
      currentContext: 'test',
    });
    operator = new KubeClient({ config: kc, logger: silentLogger() });
  });
  after(async () => {
    admin.close();
    operator.close();
    await api.stop();
  });

  test('nothing upstream: start-up goes on, with no warning', async () => {
    const { logger, lines } = capturingLogger();
    await checkCoexistence(operator, logger);
    assert.deepEqual(
      lines.filter((l) => l.level >= WARN),
      [],
    );
  });

  test("upstream's Deployment running: refused with a message naming it; scaled to 0: allowed", async () => {
    await admin.request('POST', '/apis/apps/v1/namespaces/external-dns-operator/deployments', {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'external-dns-operator', namespace: 'external-dns-operator', labels: { name: 'external-dns-operator' } },
        spec: {
          replicas: 1,
          selector: { matchLabels: { name: 'external-dns-operator' } },
          template: { metadata: { labels: { name: 'external-dns-operator' } }, spec: { containers: [{ name: 'operator', image: 'external-dns-operator' }] } },
        },
      },
    });
    await assert.rejects(
      checkCoexistence(operator, silentLogger()),
      (err: unknown) =>
        err instanceof HostwardenError && err.code === 'OPERATOR_CONFLICT' && /Deployment external-dns-operator\/external-dns-operator/.test(err.message),
    );
    await admin.request('PATCH', DEP_PATH, { body: { spec: { replicas: 0 } }, contentType: 'application/merge-patch+json' });
    await checkCoexistence(operator, silentLogger());
  });

  test("upstream's CRD (no conversion webhook) is reported; Hostwarden's is not", async () => {
    const ours = deployDocs('crd.json')[0]!;
    const upstreamCrd = {
      ...ours,
      metadata: { name: 'externaldnses.externaldns.olm.openshift.io' },
      spec: { ...(ours['spec'] as object), conversion: { strategy: 'None' } },
    };
    await admin.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: upstreamCrd });
    const first = capturingLogger();
    await checkCoexistence(operator, first.logger);
    assert.ok(first.lines.some((l) => l.level === WARN && /not deploy\/operator\/crd.json/.test(l.msg)));
    await admin.request('DELETE', CRD_PATH);
    await admin.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: ours });
    const second = capturingLogger();
    await checkCoexistence(operator, second.logger);
    assert.deepEqual(
      second.lines.filter((l) => l.level >= WARN),
      [],
    );
  });
});
