/**
 * The operator's webhooks over HTTPS (the test API server calls no webhooks, so the tests do):
 * admission decisions with exact messages, ConversionReview, and the `hostwarden operator` command
 * serving them while it reconciles.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSignedCertificate } from '../../src/http/tls.ts';
import type { TlsMaterial } from '../../src/http/tls.ts';
import { objectPath } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { DEPLOYMENTS } from '../../src/operator/resources.ts';
import { PRESERVED_ANNOTATION, V1ALPHA1, V1BETA1 } from '../../src/operator/types.ts';
import type { ExternalDNSSpec } from '../../src/operator/types.ts';
import { CONVERT_PATH, OperatorWebhookServer, VALIDATE_PATH } from '../../src/operator/webhook.ts';
import { BIN, REPO_ROOT } from '../support/cli.ts';
import { OPERAND_NS, OPERATOR_NS, awsExternalDNS, awsSecret, startOperatorEnv } from './harness.ts';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** `ca` undefined: accept any certificate (the command's self-signed one is made at its start). */
function post(port: number, ca: Buffer | undefined, path: string, body: unknown): Promise<Obj> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        ...(ca === undefined ? { rejectUnauthorized: false } : { ca }),
        servername: 'localhost',
        headers: { 'content-type': 'application/json' },
        timeout: 10_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(JSON.parse(text) as Obj));
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end(JSON.stringify(body));
  });
}

const review = (uid: string, object: unknown, operation = 'CREATE'): Obj => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: { uid, operation, name: 'x', object },
});
const obj = (spec: ExternalDNSSpec, apiVersion = V1BETA1): Obj => ({ apiVersion, kind: 'ExternalDNS', metadata: { name: 'x' }, spec });
const svc: NonNullable<ExternalDNSSpec['source']> = { type: 'Service', fqdnTemplate: ['{{.Name}}.example.org'] };
const role = (arn: string): ExternalDNSSpec => ({ provider: { type: 'AWS', aws: { credentials: { name: 'c' }, assumeRole: { arn } } }, source: svc });

describe('operator webhooks over HTTPS', () => {
  let tls: TlsMaterial;
  let server: OperatorWebhookServer;
  let port: number;

  before(async () => {
    tls = await selfSignedCertificate(['localhost', '127.0.0.1']);
    server = new OperatorWebhookServer({ tls, logger: silentLogger(), openshift: () => false });
    port = (await server.start('127.0.0.1', 0)).port;
  });
  after(async () => server.stop());

  const table: [string, Obj, string | undefined][] = [
    ['aws partition', obj(role('arn:aws:iam::123456789012:role/dns')), undefined],
    ['aws-cn partition', obj(role('arn:aws-cn:iam::123456789012:role/dns')), undefined],
    ['aws-us-gov partition with a path', obj(role('arn:aws-us-gov:iam::123456789012:role/team/dns')), undefined],
    [
      'v1alpha1 with the preserved role',
      {
        ...obj({ provider: { type: 'AWS', aws: { credentials: { name: 'c' } } }, source: svc }, V1ALPHA1),
        metadata: { name: 'x', annotations: { [PRESERVED_ANNOTATION]: '{"spec.provider.aws.assumeRole":{"arn":"arn:aws:iam::12:role/dns"}}' } },
      },
      undefined,
    ],
    [
      "not an ARN (the SDK's IsARN)",
      obj(role('arn:aws:iam:123456789012:role/dns')),
      'ExternalDNS.externaldns.olm.openshift.io "x" is invalid: spec.provider.aws.assumeRole.arn: Invalid value: "arn:aws:iam:123456789012:role/dns": arn "arn:aws:iam:123456789012:role/dns" is not a valid AWS ARN',
    ],
    ['aws-iso-b partition (admitted as upstream)', obj(role('arn:aws-iso-b:iam::123456789012:role/dns')), undefined],
    ['aws-cn with a region (admitted as upstream, with a warning)', obj(role('arn:aws-cn:iam:cn-north-1:123456789012:role/dns')), undefined],
    ['aws-us-gov user, not a role (admitted as upstream, with a warning)', obj(role('arn:aws-us-gov:iam::123456789012:user/dns')), undefined],
    [
      'missing credentials',
      obj({ provider: { type: 'AWS' }, source: svc }),
      'ExternalDNS.externaldns.olm.openshift.io "x" is invalid: spec.provider.aws.credentials.name: Required value: credentials secret must be specified when provider type is AWS',
    ],
    [
      'assumeRole without a credentials Secret outside OpenShift (no fallback to the pod identity)',
      obj({ provider: { type: 'AWS', aws: { assumeRole: { arn: 'arn:aws:iam::123456789012:role/dns' } } }, source: svc }),
      'ExternalDNS.externaldns.olm.openshift.io "x" is invalid: spec.provider.aws.credentials.name: Required value: credentials secret must be specified when provider type is AWS',
    ],
    [
      'Exact without a name',
      obj({ provider: { type: 'AWS', aws: { credentials: { name: 'c' } } }, source: svc, domains: [{ filterType: 'Include', matchType: 'Exact' }] }),
      'ExternalDNS.externaldns.olm.openshift.io "x" is invalid: spec.domains[0].name: Required value: name is required when matchType is Exact',
    ],
    [
      'a pattern that does not compile',
      obj({ provider: { type: 'AWS', aws: { credentials: { name: 'c' } } }, source: svc, domains: [{ matchType: 'Pattern', pattern: '[a-' }] }),
      'ExternalDNS.externaldns.olm.openshift.io "x" is invalid: spec.domains[0].pattern: Invalid value: "[a-": does not compile: Invalid regular expression: /[a-/: Unterminated character class',
    ],
    [
      'Ignore without a template',
      obj({ provider: { type: 'AWS', aws: { credentials: { name: 'c' } } }, source: { type: 'Service' } }),
      'ExternalDNS.externaldns.olm.openshift.io "x" is invalid: spec.source.fqdnTemplate: Required value: fqdnTemplate is required when hostnameAnnotation is Ignore',
    ],
  ];
  for (const [name, object, message] of table) {
    test(`admission: ${name}`, async () => {
      const answer = await post(port, tls.cert, VALIDATE_PATH, review('uid-1', object));
      assert.equal(answer['kind'], 'AdmissionReview');
      assert.equal(answer['response'].uid, 'uid-1');
      assert.equal(answer['response'].allowed, message === undefined);
      if (message !== undefined) {
        assert.equal(answer['response'].status.message, message);
        assert.equal(answer['response'].status.code, 403);
      }
    });
  }

  test('admission: an admitted ARN that is no IAM role ARN comes with a warning', async () => {
    const answer = await post(port, tls.cert, VALIDATE_PATH, review('uw', obj(role('arn:aws-us-gov:iam::123456789012:user/dns'))));
    assert.equal(answer['response'].allowed, true);
    assert.match(
      answer['response'].warnings?.[0] ?? '',
      /does not look like an IAM role ARN \(resource must be role\/<name>, not "user\/dns"\); admitted as upstream admits it/,
    );
  });

  test('admission: all errors together, with field causes; deletes and unreadable bodies', async () => {
    const answer = await post(
      port,
      tls.cert,
      '/validate',
      review('u2', obj({ provider: { type: 'AWS' }, source: { type: 'Service' }, domains: [{ matchType: 'Exact' }] })),
    );
    assert.deepEqual(
      answer['response'].status.details.causes.map((c: Obj) => c['field']),
      ['spec.domains[0].name', 'spec.provider.aws.credentials.name', 'spec.source.fqdnTemplate'],
    );
    assert.equal((await post(port, tls.cert, VALIDATE_PATH, review('u3', undefined, 'DELETE')))['response'].allowed, true);
    const bad = await post(port, tls.cert, VALIDATE_PATH, { kind: 'Nope' });
    assert.equal(bad['response'].allowed, false);
    assert.match(bad['response'].status.message, /could not read the request/);
  });

  test('conversion: v1beta1 → v1alpha1 → v1beta1 through ConversionReview', async () => {
    const beta = obj(role('arn:aws:iam::123456789012:role/dns'));
    const down = await post(port, tls.cert, CONVERT_PATH, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      request: { uid: 'c1', desiredAPIVersion: V1ALPHA1, objects: [beta] },
    });
    assert.equal(down['response'].result.status, 'Success');
    const alpha = down['response'].convertedObjects[0];
    assert.equal(alpha.apiVersion, V1ALPHA1);
    assert.equal(alpha.spec.provider.aws.assumeRole, undefined);
    const up = await post(port, tls.cert, CONVERT_PATH, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      request: { uid: 'c2', desiredAPIVersion: V1BETA1, objects: [alpha] },
    });
    assert.deepEqual(up['response'].convertedObjects[0], beta);
  });
});

describe('hostwarden operator (the command)', () => {
  test('serves the webhooks and turns an ExternalDNS into a Deployment; stops on SIGTERM', async () => {
    const env = await startOperatorEnv();
    const dir = await mkdtemp(join(tmpdir(), 'hw-operator-'));
    const child = spawn(
      process.execPath,
      [
        BIN,
        'operator',
        '--kubeconfig',
        await env.api.writeKubeconfig(dir),
        '--webhook-listen',
        '127.0.0.1:0',
        '--tls-self-signed',
        '--metrics-address',
        '127.0.0.1:0',
        '--leader-elect',
        '--leader-election-namespace',
        OPERATOR_NS,
        '--operand-image',
        'hostwarden:e2e',
        '--log-format',
        'json',
      ],
      {
        cwd: REPO_ROOT,
        env: { PATH: process.env['PATH'] ?? '', HTTPS_PROXY: 'http://proxy.example:3128' },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let logs = '';
    child.stderr.on('data', (d: Buffer) => (logs += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await env.client.request('POST', `/api/v1/namespaces/${OPERATOR_NS}/secrets`, { body: awsSecret('aws-creds') });
      await env.client.request('POST', '/apis/externaldns.olm.openshift.io/v1beta1/externaldnses', { body: awsExternalDNS('cli') });
      let dep: Obj | undefined;
      for (let i = 0; i < 300 && dep === undefined; i++) {
        dep = await env.client.request<Obj>('GET', objectPath(DEPLOYMENTS, OPERAND_NS, 'hostwarden-cli')).catch(() => undefined);
        if (dep === undefined) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(dep !== undefined, logs);
      const c = dep['spec'].template.spec.containers[0];
      assert.equal(c.image, 'hostwarden:e2e');
      assert.deepEqual(c.env, [{ name: 'HTTPS_PROXY', value: 'http://proxy.example:3128' }]);
      const lease = await env.client.request<Obj>('GET', `/apis/coordination.k8s.io/v1/namespaces/${OPERATOR_NS}/leases/hostwarden-operator`);
      assert.match(lease['spec'].holderIdentity, /./);
      const portOf = (msg: string): number => {
        const line = logs
          .split('\n')
          .map((l) => {
            try {
              return JSON.parse(l) as Obj;
            } catch {
              return {};
            }
          })
          .find((l) => l['msg'] === msg);
        return Number(
          String(line?.['address'] ?? '')
            .split(':')
            .pop(),
        );
      };
      const port = portOf('ExternalDNS webhooks listening (HTTPS)');
      // The counter moves when the reconcile returns, which may be just after the Deployment appears.
      const reconciled = /hostwarden_operator_reconciles_total\{outcome="success"\} [1-9]/;
      let metrics = '';
      for (let i = 0; i < 100 && !reconciled.test(metrics); i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 100));
        metrics = await (await fetch(`http://127.0.0.1:${portOf('metrics listening')}/metrics`)).text();
      }
      assert.match(metrics, reconciled);
      const answer = await post(port, undefined, VALIDATE_PATH, review('cli', obj({ provider: { type: 'AWS' }, source: svc })));
      assert.equal(answer['response'].allowed, false);
      assert.match(answer['response'].status.message, /spec\.provider\.aws\.credentials\.name: Required value/);
      child.kill('SIGTERM');
      assert.equal(await exited, 0, logs);
    } finally {
      child.kill('SIGKILL');
      await env.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
