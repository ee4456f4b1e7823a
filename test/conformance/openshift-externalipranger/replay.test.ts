/**
 * Replays OpenShift's ExternalIPRanger unit-test cases (cases.json, facts only) through the real
 * webhook: each case's plugin configuration becomes an ExternalIPRangerAdmissionConfig file given
 * to `--config`, its request an AdmissionReview over HTTPS, and upstream's fake authorizer
 * ("test:admin may override") a ClusterRoleBinding of deploy/admission's override ClusterRole,
 * answered by the test API server's RBAC.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AdmissionWebhook } from '../../../src/admission/webhook.ts';
import { silentLogger } from '../../../src/log.ts';
import { httpsCall, makeCert, opensslMissing, responseOf, serviceReview, startWebhook, writeKubeconfig } from '../../admission/harness.ts';
import { startTestApiServer } from '../../support/kube-apiserver/server.ts';
import type { KubeObject, TestApiServer } from '../../support/kube-apiserver/server.ts';

interface Case {
  name: string;
  upstream: { repo: string; file: string; test: string };
  config: { externalIPNetworkCIDRs: string[]; allowIngressIP: boolean };
  operation: string;
  user: string;
  serviceType: string;
  externalIPs: string[];
  oldIngressIP?: string;
  expect: { allowed: boolean; messageContains?: string[] };
}

const HERE = dirname(fileURLToPath(import.meta.url));
const CASES = (JSON.parse(await readFile(join(HERE, 'cases.json'), 'utf8')) as { cases: Case[] }).cases;
const OVERRIDE_ROLE = 'hostwarden-externalip-override';

async function overrideRole(): Promise<KubeObject> {
  const list = JSON.parse(await readFile(join(HERE, '../../../deploy/admission/rbac.json'), 'utf8')) as { items: KubeObject[] };
  const role = list.items.find((o) => o.kind === 'ClusterRole' && o.metadata.name === OVERRIDE_ROLE);
  assert.ok(role !== undefined, `deploy/admission/rbac.json has the ClusterRole ${OVERRIDE_ROLE}`);
  return role;
}

const skip = await opensslMissing();

describe('OpenShift ExternalIPRanger unit-test cases, replayed over HTTPS with RBAC', { skip }, () => {
  let dir = '';
  let api: TestApiServer;
  let kubeconfig = '';
  let cert: { certFile: string; keyFile: string };
  let ca: Buffer;
  const webhooks = new Map<string, { webhook: AdmissionWebhook; port: number }>();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hostwarden-ranger-'));
    api = await startTestApiServer({ authorization: 'rbac' });
    api.create(await overrideRole());
    api.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'test-admin-externalips' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: OVERRIDE_ROLE },
      subjects: [{ kind: 'ServiceAccount', name: 'admin', namespace: 'test' }],
    });
    kubeconfig = await writeKubeconfig(dir, api.url);
    cert = await makeCert(dir, 'ranger');
    ca = await readFile(cert.certFile);
  });

  after(async () => {
    for (const { webhook } of webhooks.values()) await webhook.stop();
    await api?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** One webhook per distinct plugin configuration, started from its config file. */
  async function webhookFor(config: Case['config']): Promise<number> {
    const key = JSON.stringify(config);
    let entry = webhooks.get(key);
    if (entry === undefined) {
      const file = join(dir, `ranger-${webhooks.size}.json`);
      await writeFile(file, JSON.stringify({ apiVersion: 'network.openshift.io/v1', kind: 'ExternalIPRangerAdmissionConfig', ...config }));
      entry = await startWebhook(
        ['--kubeconfig', kubeconfig, '--tls-cert-file', cert.certFile, '--tls-private-key-file', cert.keyFile, '--config', file],
        silentLogger(),
      );
      webhooks.set(key, entry);
    }
    return entry.port;
  }

  for (const c of CASES) {
    test(`${c.upstream.test}: ${c.name}`, async () => {
      const port = await webhookFor(c.config);
      const ns = c.user.split(':')[2] ?? '';
      const body = serviceReview({
        uid: `case-${CASES.indexOf(c)}`,
        operation: c.operation,
        externalIPs: c.externalIPs,
        type: c.serviceType,
        ...(c.oldIngressIP === undefined ? {} : { oldIngressIp: c.oldIngressIP }),
        user: c.user,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
        name: 'test',
        namespace: 'namespace',
      });
      const res = responseOf(await httpsCall(port, ca, { body }));
      assert.equal(res.allowed, c.expect.allowed, res.status?.message ?? 'allowed');
      if (!c.expect.allowed) {
        assert.equal(res.status?.code, 403);
        assert.equal(res.status?.reason, 'Forbidden');
        assert.match(res.status?.message ?? '', /^services "test" is forbidden: /);
        assert.deepEqual({ ...res.status?.details, causes: undefined }, { name: 'test', group: '', kind: 'services', causes: undefined });
      }
      for (const part of c.expect.messageContains ?? [])
        assert.ok(res.status?.message.includes(part), `${JSON.stringify(res.status?.message)} contains ${JSON.stringify(part)}`);
    });
  }
});
