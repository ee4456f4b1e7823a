/**
 * STS clusters and AWS partitions through the test API server: the projected service-account token
 * (audience `openshift`) and the credentials file that reads it, as the upstream operator mounts them;
 * the partition (policy ARN prefix, region, GovCloud's CNAME preference) from the Infrastructure's region.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { findCondition } from '../../src/kube/conditions.ts';
import { objectPath } from '../../src/kube/resource.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import { silentLogger } from '../../src/log.ts';
import { BOUND_SA_TOKEN_FILE } from '../../src/operator/aws-sts.ts';
import { ExternalDNSReconciler } from '../../src/operator/reconciler.ts';
import { detectPlatform } from '../../src/operator/platform.ts';
import { CCO_NAMESPACE, CREDENTIALS_REQUESTS, DEPLOYMENTS, INFRASTRUCTURES, SECRETS } from '../../src/operator/resources.ts';
import type { OperandSettings } from '../../src/operator/operand.ts';
import { CONDITION } from '../../src/operator/types.ts';
import { OPERAND_NS, OPERATOR_NS, ROLE, awsExternalDNS, getExternalDNS, installCcoApi, startOperatorEnv } from './harness.ts';
import type { OperatorEnv } from './harness.ts';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const STS_FILE = `[default]\nrole_arn = ${ROLE}\nweb_identity_token_file = ${BOUND_SA_TOKEN_FILE}\n`;

async function podSpec(client: KubeClient, name: string): Promise<Obj> {
  const dep = await client.request<Obj>('GET', objectPath(DEPLOYMENTS, OPERAND_NS, `hostwarden-${name}`));
  return dep['spec'].template.spec;
}

describe('operator on STS clusters', () => {
  let env: OperatorEnv;
  let ocp: OperandSettings;
  before(async () => {
    env = await startOperatorEnv();
    await installCcoApi(env.client);
    ocp = { ...env.settings, platform: { openshift: true } };
  });
  after(async () => env.stop());

  const reconciler = (settings: OperandSettings): ExternalDNSReconciler =>
    new ExternalDNSReconciler({ client: env.client, logger: silentLogger(), operand: settings, operatorNamespace: OPERATOR_NS });

  test('a minted STS Secret: the bound token is projected (audience openshift) where its credentials file points', async () => {
    const { client } = env;
    await client.request('POST', '/apis/externaldns.olm.openshift.io/v1beta1/externaldnses', {
      body: awsExternalDNS('sts', { provider: { type: 'AWS' } }),
    });
    // What the Cloud Credential Operator writes in manual STS mode (and ccoctl creates).
    await client.request('POST', `/api/v1/namespaces/${OPERAND_NS}/secrets`, {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'hostwarden-sts-credentials', namespace: OPERAND_NS }, data: { credentials: b64(STS_FILE) } },
    });
    assert.deepEqual(await reconciler(ocp).reconcile('sts'), {});
    const spec = await podSpec(client, 'sts');
    const token = spec.volumes.find((v: Obj) => v['name'] === 'bound-sa-token');
    assert.deepEqual(token.projected.sources, [{ serviceAccountToken: { audience: 'openshift', expirationSeconds: 3600, path: 'token' } }]);
    const c = spec.containers[0];
    assert.deepEqual(
      c.volumeMounts.find((m: Obj) => m['name'] === 'bound-sa-token'),
      { name: 'bound-sa-token', mountPath: '/var/run/secrets/openshift/serviceaccount', readOnly: true },
    );
    assert.ok(c.args.includes('--aws-shared-credentials-file=/etc/hostwarden/credentials/credentials'));
    assert.equal(spec.volumes.find((v: Obj) => v['name'] === 'credentials').secret.secretName, 'hostwarden-sts-credentials');
    assert.equal(spec.serviceAccountName, 'hostwarden-sts');
    const cond = findCondition((await getExternalDNS(client, 'sts')).status?.conditions, CONDITION.credentialsSecretExists);
    assert.match(cond?.message ?? '', /STS/);
  });

  test('a user Secret holding only role_arn: the copy gets the credentials file that reads the token', async () => {
    const { client } = env;
    await client.request('POST', `/api/v1/namespaces/${OPERATOR_NS}/secrets`, {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sts-role', namespace: OPERATOR_NS }, data: { role_arn: b64(ROLE) } },
    });
    await client.request('POST', '/apis/externaldns.olm.openshift.io/v1beta1/externaldnses', {
      body: awsExternalDNS('role', { provider: { type: 'AWS', aws: { credentials: { name: 'sts-role' } } } }),
    });
    assert.deepEqual(await reconciler(env.settings).reconcile('role'), {});
    const copy = await client.request<Obj>('GET', objectPath(SECRETS, OPERAND_NS, 'hostwarden-role-credentials'));
    assert.equal(Buffer.from(copy['data'].credentials, 'base64').toString(), STS_FILE);
    const spec = await podSpec(client, 'role');
    assert.ok(spec.volumes.some((v: Obj) => v['name'] === 'bound-sa-token'));
  });
});

describe('operator in other AWS partitions', () => {
  let env: OperatorEnv;
  before(async () => {
    env = await startOperatorEnv();
    await installCcoApi(env.client);
    await env.client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'infrastructures.config.openshift.io' },
        spec: {
          group: 'config.openshift.io',
          scope: 'Cluster',
          names: { kind: 'Infrastructure', plural: 'infrastructures', singular: 'infrastructure', listKind: 'InfrastructureList' },
          versions: [
            { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
          ],
        },
      },
    });
  });
  after(async () => env.stop());

  /** An OpenShift cluster in `region`, detected as the operator does at start; returns the operand's first container and the policy. */
  async function clusterIn(region: string, name: string): Promise<{ container: Obj; statements: Obj[] }> {
    const { client } = env;
    const infra = {
      apiVersion: 'config.openshift.io/v1',
      kind: 'Infrastructure',
      metadata: { name: 'cluster' },
      status: { platformStatus: { type: 'AWS', aws: { region } } },
    };
    await client.request('DELETE', objectPath(INFRASTRUCTURES, '', 'cluster')).catch(() => undefined);
    await client.request('POST', '/apis/config.openshift.io/v1/infrastructures', { body: infra });
    const platform = await detectPlatform(client);
    assert.deepEqual(platform, { openshift: true, gcpProject: undefined, awsRegion: region });
    const settings = { ...env.settings, platform };
    await client.request('POST', '/apis/externaldns.olm.openshift.io/v1beta1/externaldnses', { body: awsExternalDNS(name, { provider: { type: 'AWS' } }) });
    const r = new ExternalDNSReconciler({ client, logger: silentLogger(), operand: settings, operatorNamespace: OPERATOR_NS });
    await r.reconcile(name);
    const cr = await client.request<Obj>('GET', objectPath(CREDENTIALS_REQUESTS, CCO_NAMESPACE, `hostwarden-${name}`));
    await client.request('POST', `/api/v1/namespaces/${OPERAND_NS}/secrets`, {
      body: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: `hostwarden-${name}-credentials`, namespace: OPERAND_NS },
        data: { credentials: b64(STS_FILE) },
      },
    });
    await r.reconcile(name);
    return { container: (await podSpec(client, name)).containers[0], statements: cr['spec'].providerSpec.statementEntries };
  }

  test('us-gov-west-1: arn:aws-us-gov policy, AWS_REGION and --aws-prefer-cname as upstream', async () => {
    const { container, statements } = await clusterIn('us-gov-west-1', 'gov');
    assert.ok(statements.some((e) => e['resource'] === 'arn:aws-us-gov:route53:::hostedzone/*'));
    assert.ok(!statements.some((e) => String(e['resource']).startsWith('arn:aws:')));
    assert.deepEqual(container['env'], [{ name: 'AWS_REGION', value: 'us-gov-west-1' }]);
    assert.ok(container['args'].includes('--aws-prefer-cname'));
    assert.ok(container['args'].includes('--aws-region=us-gov-west-1'));
  });

  test('cn-north-1: arn:aws-cn policy and the region, no --aws-prefer-cname', async () => {
    const { container, statements } = await clusterIn('cn-north-1', 'cn');
    assert.ok(statements.some((e) => e['resource'] === 'arn:aws-cn:route53:::hostedzone/*'));
    assert.deepEqual(container['env'], [{ name: 'AWS_REGION', value: 'cn-north-1' }]);
    assert.ok(!container['args'].includes('--aws-prefer-cname'));
    assert.ok(container['args'].includes('--aws-region=cn-north-1'));
  });

  test('us-east-1: arn:aws, no region env or args', async () => {
    const { container, statements } = await clusterIn('us-east-1', 'commercial');
    assert.ok(statements.some((e) => e['resource'] === 'arn:aws:route53:::hostedzone/*'));
    assert.equal(container['env'], undefined);
    assert.ok(!container['args'].some((a: string) => a.startsWith('--aws-region') || a === '--aws-prefer-cname'));
  });
});
