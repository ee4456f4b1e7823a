/**
 * The seed scenario end to end: the operator builds the operand of an AWS ExternalDNS with an
 * assumed role in another account; the CLI entry point runs in process with exactly the generated
 * args (the mounted Secret materialised as a file, the emulator's URL added, --once) and writes records into the
 * other account's zone through the role (ExternalId checked). When the role may not list zones,
 * the ExternalDNS object says so: ProviderAuthorized=False with the role ARN and the action.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { main } from '../../src/cli/main.ts';
import { findCondition } from '../../src/kube/conditions.ts';
import { objectPath } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { ExternalDNSReconciler } from '../../src/operator/reconciler.ts';
import { DEPLOYMENTS, SECRETS } from '../../src/operator/resources.ts';
import { CONDITION, REASON } from '../../src/operator/types.ts';
import { startAwsEmulators } from '../support/aws/start.ts';
import type { AwsEmulators } from '../support/aws/start.ts';
import { OPERAND_NS, OPERATOR_NS, ROLE, awsExternalDNS, awsSecret, getExternalDNS, startOperatorEnv } from './harness.ts';
import type { OperatorEnv } from './harness.ts';

const ZONE_ACCOUNT = '444455556666';

describe('operand with an assumed role (Route53 emulator)', () => {
  let env: OperatorEnv;
  let aws: AwsEmulators;
  let dir: string;
  let kubeconfig: string;

  before(async () => {
    env = await startOperatorEnv();
    aws = await startAwsEmulators();
    dir = await mkdtemp(join(tmpdir(), 'hw-operand-'));
    kubeconfig = await env.api.writeKubeconfig(dir);
    env.api.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default' },
      spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } },
    });
    await env.client.request('POST', `/api/v1/namespaces/${OPERATOR_NS}/secrets`, { body: awsSecret('aws-creds') });
    aws.sts.addRole({ arn: ROLE, externalId: 'shared-vpc', trusted: [aws.aws.rootIdentity.arn] });
  });
  after(async () => {
    await env.stop();
    await aws.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Reconciles `name` and runs its operand's first container once, as the pod would. */
  async function runOperand(name: string): Promise<{ code: number | null; stderr: string }> {
    const r = new ExternalDNSReconciler({ client: env.client, logger: silentLogger(), operand: env.settings, operatorNamespace: OPERATOR_NS });
    await r.reconcile(name);
    const dep = await env.client.request<{ spec: { template: { spec: { containers: { args: string[] }[] } } } }>(
      'GET',
      objectPath(DEPLOYMENTS, OPERAND_NS, `hostwarden-${name}`),
    );
    const copy = await env.client.request<{ data: Record<string, string> }>('GET', objectPath(SECRETS, OPERAND_NS, `hostwarden-${name}-credentials`));
    const credentials = join(dir, `${name}-credentials`);
    await writeFile(credentials, Buffer.from(copy.data['credentials'] ?? '', 'base64'));
    const args = (dep.spec.template.spec.containers[0]?.args ?? []).map((a) =>
      a.startsWith('--aws-shared-credentials-file=')
        ? `--aws-shared-credentials-file=${credentials}`
        : a.startsWith('--metrics-address=')
          ? '--metrics-address='
          : a,
    );
    let stderr = '';
    const sink = (collect: boolean): NodeJS.WriteStream =>
      new Writable({
        write(chunk: Buffer, _enc, done) {
          if (collect) stderr += chunk.toString();
          done();
        },
      }) as unknown as NodeJS.WriteStream;
    const code = await main({
      argv: [...args, '--once', '--kubeconfig', kubeconfig, '--aws-endpoint-url', aws.url, '--aws-batch-change-interval', '0s', '--log-format', 'json'],
      env: { AWS_EC2_METADATA_DISABLED: 'true', HOME: dir },
      stdout: sink(false),
      stderr: sink(true),
      onSignal: () => undefined,
    });
    return { code, stderr };
  }

  test("the generated args assume the role with its ExternalId and write into the other account's zone; ProviderAuthorized=True", async () => {
    const zone = aws.route53.createZone('example.org', { id: 'ZSHARED', account: ZONE_ACCOUNT });
    await env.client.request('POST', '/apis/externaldns.olm.openshift.io/v1beta1/externaldnses', { body: awsExternalDNS('shared', { zones: ['ZSHARED'] }) });
    const result = await runOperand('shared');
    assert.equal(result.code, 0, result.stderr);
    const call = aws.sts.assumeRoleCalls.at(-1);
    assert.deepEqual(call, { roleArn: ROLE, externalId: 'shared-vpc', ok: true, caller: aws.aws.rootIdentity.arn, sessionName: 'hostwarden' });
    assert.deepEqual(aws.route53.find(zone, 'web.example.org', 'A')?.values, ['192.0.2.10']);
    assert.match(aws.route53.find(zone, 'external-dns-a-web.example.org', 'TXT')?.values[0] ?? '', /external-dns\/owner=external-dns-shared/);
    const c = findCondition((await getExternalDNS(env.client, 'shared')).status?.conditions, CONDITION.providerAuthorized);
    assert.deepEqual([c?.status, c?.reason], ['True', REASON.syncSucceeded]);
  });

  test('route53:ListHostedZones denied to the role: ProviderAuthorized=False names the role and the action', async () => {
    aws.route53.createZone('denied.example', { id: 'ZDENIED', account: ZONE_ACCOUNT });
    aws.aws.authorize = (principal, action) => !(principal.includes(':assumed-role/external-dns/') && action === 'route53:ListHostedZones');
    try {
      await env.client.request('POST', '/apis/externaldns.olm.openshift.io/v1beta1/externaldnses', { body: awsExternalDNS('denied', { zones: ['ZDENIED'] }) });
      const result = await runOperand('denied');
      assert.equal(result.code, 1, result.stderr);
      const c = findCondition((await getExternalDNS(env.client, 'denied')).status?.conditions, CONDITION.providerAuthorized);
      assert.equal(c?.status, 'False');
      assert.equal(c?.reason, REASON.accessDenied);
      assert.match(c?.message ?? '', /^role arn:aws:iam::444455556666:role\/external-dns is not allowed route53:ListHostedZones: access denied/);
    } finally {
      aws.aws.authorize = () => true;
    }
  });
});
