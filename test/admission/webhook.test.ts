/**
 * The admission webhook end to end: real AdmissionReview payloads over HTTPS (certificate
 * verified), the override SubjectAccessReview answered by the test API server, malformed bodies,
 * a SubjectAccessReview that hangs, certificate rotation, the policy file and the live OpenShift
 * Network source.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry as MetricsRegistry } from 'prom-client';
import type { AdmissionWebhook } from '../../src/admission/webhook.ts';
import { ConfigError } from '../../src/errors.ts';
import { silentLogger } from '../../src/log.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { fingerprint, httpsCall, makeCert, opensslMissing, responseOf, serviceReview, startWebhook, writeKubeconfig } from './harness.ts';

const skip = await opensslMissing();

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('admission webhook over HTTPS', { skip }, () => {
  let dir = '';
  let api: TestApiServer;
  let kubeconfig = '';
  let cert: { certFile: string; keyFile: string };
  let ca: Buffer;
  let webhook: AdmissionWebhook;
  let port = 0;
  const registry = new MetricsRegistry();
  const reviews: Record<string, unknown>[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hostwarden-admission-'));
    api = await startTestApiServer();
    api.setSubjectAccessReviewAnswer((spec) => {
      reviews.push(spec);
      const groups = (spec['groups'] as string[] | undefined) ?? [];
      return groups.includes('system:masters') ? { allowed: true, reason: 'admins may' } : { allowed: false, reason: 'no RBAC rule' };
    });
    kubeconfig = await writeKubeconfig(dir, api.url);
    const a = await makeCert(dir, 'a');
    cert = { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') };
    await copyFile(a.certFile, cert.certFile);
    await copyFile(a.keyFile, cert.keyFile);
    ca = await readFile(a.certFile);
    ({ webhook, port } = await startWebhook(
      [
        '--kubeconfig',
        kubeconfig,
        '--tls-cert-file',
        cert.certFile,
        '--tls-private-key-file',
        cert.keyFile,
        '--allowed-cidrs',
        '10.0.0.0/8,2001:db8::/32',
        '--rejected-cidrs',
        '10.66.0.0/16',
        '--allow-ingress-ip',
      ],
      silentLogger(),
      registry,
    ));
  });

  after(async () => {
    await webhook?.stop();
    await api?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('a Service inside the allowed ranges is admitted; the uid is echoed', async () => {
    const res = responseOf(await httpsCall(port, ca, { body: serviceReview({ uid: 'u-ok', externalIPs: ['10.1.2.3', '2001:db8::5'] }) }));
    assert.deepEqual(res, { uid: 'u-ok', allowed: true });
  });

  test('/ accepts the same POST', async () => {
    const res = responseOf(await httpsCall(port, ca, { path: '/', body: serviceReview({ uid: 'u-root', externalIPs: ['10.1.2.3'] }) }));
    assert.equal(res.allowed, true);
  });

  test('an ordinary user outside the ranges is denied after a SubjectAccessReview says no', async () => {
    reviews.length = 0;
    const res = responseOf(
      await httpsCall(port, ca, { body: serviceReview({ uid: 'u-no', externalIPs: ['10.66.1.1', '192.0.2.1'], user: 'bob', groups: ['dev'] }) }),
    );
    assert.equal(res.uid, 'u-no');
    assert.equal(res.allowed, false);
    assert.equal(res.status?.code, 403);
    assert.equal(
      res.status?.message,
      'services "web" is forbidden: [spec.externalIPs[0]: Forbidden: externalIP is not allowed, spec.externalIPs[1]: Forbidden: externalIP is not allowed]',
    );
    assert.equal(reviews.length, 1);
    assert.deepEqual(reviews[0], {
      user: 'bob',
      uid: 'uid-alice',
      groups: ['dev'],
      extra: { 'authentication.kubernetes.io/credential-id': ['X509SHA256=abc'] },
      resourceAttributes: { verb: 'create', group: 'network.openshift.io', resource: 'service', subresource: 'externalips' },
    });
  });

  test('an admin override is admitted with a warning', async () => {
    const res = responseOf(
      await httpsCall(port, ca, { body: serviceReview({ uid: 'u-admin', externalIPs: ['192.0.2.1'], user: 'root', groups: ['system:masters'] }) }),
    );
    assert.equal(res.allowed, true);
    assert.match(res.warnings?.[0] ?? '', /override/);
  });

  test('a LoadBalancer update keeping its ingress IP is admitted; the same on a ClusterIP is not', async () => {
    const lb = responseOf(
      await httpsCall(port, ca, {
        body: serviceReview({ operation: 'UPDATE', type: 'LoadBalancer', externalIPs: ['203.0.113.9'], oldIngressIp: '203.0.113.9' }),
      }),
    );
    assert.equal(lb.allowed, true);
    const cip = responseOf(
      await httpsCall(port, ca, { body: serviceReview({ operation: 'UPDATE', type: 'ClusterIP', externalIPs: ['203.0.113.9'], oldIngressIp: '203.0.113.9' }) }),
    );
    assert.equal(cip.allowed, false);
  });

  test('malformed bodies are denied with a clear message, and the server keeps serving', async () => {
    const cases: [string, RegExp][] = [
      ['not json', /not JSON/],
      ['[]', /not an AdmissionReview object/],
      [
        JSON.stringify({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: { uid: 'x' } }),
        /expected kind AdmissionReview, apiVersion admission\.k8s\.io\/v1/,
      ],
      [JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }), /has no request/],
      [JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { operation: 'CREATE' } }), /has no uid/],
      [
        JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          request: { uid: 'm', operation: 'CREATE', resource: { group: '', resource: 'services' } },
        }),
        /without the Service object/,
      ],
      [
        JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          request: { uid: 'm', operation: 'CREATE', resource: { group: '', resource: 'services' }, object: { spec: { externalIPs: 'x' } } },
        }),
        /not a list/,
      ],
      ['', /not JSON/],
    ];
    for (const [body, message] of cases) {
      const answer = await httpsCall(port, ca, { body });
      assert.equal(answer.status, 200, body);
      const res = responseOf(answer);
      assert.equal(res.allowed, false, body);
      assert.match(res.status?.message ?? '', message, body);
    }
    const big = await httpsCall(port, ca, { body: 'x'.repeat(5 * 1024 * 1024) });
    assert.equal(big.status, 413);
    assert.equal((await httpsCall(port, ca, { method: 'GET' })).status, 405);
    assert.equal((await httpsCall(port, ca, { path: '/nope', body: '{}' })).status, 404);
    assert.equal(responseOf(await httpsCall(port, ca, { body: serviceReview({ externalIPs: ['10.0.0.1'] }) })).allowed, true);
  });

  test('a failing SubjectAccessReview denies and says the override could not be checked', async () => {
    api.failNextRequests(1, 500, (r) => r.plural === 'subjectaccessreviews');
    const res = responseOf(await httpsCall(port, ca, { body: serviceReview({ externalIPs: ['192.0.2.1'], groups: ['system:masters'] }) }));
    assert.equal(res.allowed, false);
    assert.match(res.status?.message ?? '', /could not be checked: the SubjectAccessReview failed: HTTP 500/);
  });

  test('/healthz and /metrics (decisions by result and reason, latency)', async () => {
    const health = await httpsCall(port, ca, { method: 'GET', path: '/healthz' });
    assert.equal(health.status, 200);
    const metrics = (await httpsCall(port, ca, { method: 'GET', path: '/metrics' })).body;
    assert.match(metrics, /hostwarden_admission_decisions_total\{result="allowed",reason="within-policy"\} [1-9]/);
    assert.match(metrics, /hostwarden_admission_decisions_total\{result="denied",reason="refused"\} [1-9]/);
    assert.match(metrics, /hostwarden_admission_decisions_total\{result="allowed",reason="override"\} 1/);
    assert.match(metrics, /hostwarden_admission_decisions_total\{result="denied",reason="malformed"\} [1-9]/);
    assert.match(metrics, /hostwarden_admission_decision_duration_seconds_count\{override_check="yes"\} [1-9]/);
    assert.match(metrics, /hostwarden_admission_override_checks_total\{result="error"\} 1/);
  });

  test('certificate rotation: new connections see the new certificate; a half-written pair is not installed', async () => {
    const before = await httpsCall(port, ca, { method: 'GET', path: '/healthz' });
    assert.equal(before.peer, fingerprint(ca));
    const b = await makeCert(dir, 'b');
    const caB = await readFile(b.certFile);
    // The key first: for a moment key and certificate do not match; the old pair must keep serving.
    await writeFile(cert.keyFile, await readFile(b.keyFile));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await httpsCall(port, ca, { method: 'GET', path: '/healthz' })).peer, fingerprint(ca));
    await writeFile(cert.certFile, caB);
    let seen = '';
    await until('the new certificate', async () => {
      try {
        seen = (await httpsCall(port, caB, { method: 'GET', path: '/healthz' })).peer;
      } catch {
        seen = '';
      }
      return seen === fingerprint(caB);
    });
    const metrics = (await httpsCall(port, caB, { method: 'GET', path: '/metrics' })).body;
    assert.match(metrics, /hostwarden_admission_certificate_reloads_total 1/);
  });
});

describe('admission webhook: a SubjectAccessReview that never answers', { skip }, () => {
  test('is cut off after --subject-access-review-timeout and the request is denied', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hostwarden-admission-hang-'));
    const sockets = new Set<Socket>();
    const hung = createServer(() => {
      // never answers
    });
    hung.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', () => r()));
    let webhook: AdmissionWebhook | undefined;
    try {
      const kc = await writeKubeconfig(dir, `http://127.0.0.1:${(hung.address() as AddressInfo).port}`);
      const c = await makeCert(dir, 'c');
      ({ webhook } = await startWebhook(
        ['--kubeconfig', kc, '--tls-cert-file', c.certFile, '--tls-private-key-file', c.keyFile, '--subject-access-review-timeout', '300ms'],
        silentLogger(),
      ).then(async (w) => {
        const ca = await readFile(c.certFile);
        const res = responseOf(await httpsCall(w.port, ca, { body: serviceReview({ externalIPs: ['1.2.3.4'] }) }));
        assert.equal(res.allowed, false);
        assert.match(res.status?.message ?? '', /externalIPs have been disabled/);
        assert.match(res.status?.message ?? '', /could not be checked: the SubjectAccessReview got no answer within 300 ms/);
        // The aborted review closes its connection to the API server.
        await until('the hung connection to close', async () => sockets.size === 0, 5000);
        return w;
      }));
    } finally {
      await webhook?.stop();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => hung.close(() => r()));
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('admission webhook: local trial', { skip }, () => {
  test('--tls-self-signed without any Kubernetes configuration: serves, and refusals stand', async () => {
    const { webhook, port } = await startWebhook(['--tls-self-signed', '--allowed-cidrs', '10.0.0.0/8'], silentLogger());
    try {
      const health = await httpsCall(port, 'insecure', { method: 'GET', path: '/healthz' });
      assert.equal(health.status, 200);
      assert.equal(responseOf(await httpsCall(port, 'insecure', { body: serviceReview({ externalIPs: ['10.0.0.1'] }) })).allowed, true);
      const res = responseOf(await httpsCall(port, 'insecure', { body: serviceReview({ externalIPs: ['192.0.2.1'], groups: ['system:masters'] }) }));
      assert.equal(res.allowed, false);
      assert.match(res.status?.message ?? '', /could not be checked: no Kubernetes configuration/);
    } finally {
      await webhook.stop();
    }
    await assert.rejects(startWebhook(['--tls-self-signed', '--kubeconfig', '/nonexistent/kubeconfig'], silentLogger()), /kubeconfig/);
  });
});

describe('admission webhook: policy sources', { skip }, () => {
  let dir = '';
  let api: TestApiServer;
  let kubeconfig = '';
  let tlsArgs: string[] = [];
  let ca: Buffer;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hostwarden-admission-policy-'));
    api = await startTestApiServer();
    api.setSubjectAccessReviewAnswer(() => ({ allowed: false }));
    kubeconfig = await writeKubeconfig(dir, api.url);
    const c = await makeCert(dir, 'p');
    tlsArgs = ['--kubeconfig', kubeconfig, '--tls-cert-file', c.certFile, '--tls-private-key-file', c.keyFile];
    ca = await readFile(c.certFile);
  });

  after(async () => {
    await api?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const allowed = async (port: number, ip: string): Promise<boolean> =>
    responseOf(await httpsCall(port, ca, { body: serviceReview({ externalIPs: [ip] }) })).allowed;

  test('--config reads an ExternalIPRangerAdmissionConfig; a bad entry stops start-up naming it', async () => {
    const file = join(dir, 'ranger.yaml');
    await writeFile(
      file,
      'apiVersion: network.openshift.io/v1\nkind: ExternalIPRangerAdmissionConfig\nexternalIPNetworkCIDRs:\n  - "!172.16.5.0/24"\n  - 172.16.0.0/12\n',
    );
    const { webhook, port } = await startWebhook([...tlsArgs, '--config', file], silentLogger());
    try {
      assert.equal(await allowed(port, '172.16.1.1'), true);
      assert.equal(await allowed(port, '172.16.5.1'), false);
      assert.equal(await allowed(port, '10.0.0.1'), false);
    } finally {
      await webhook.stop();
    }
    await writeFile(file, 'externalIPNetworkCIDRs: ["172.16.0.0/12", "172.16.0.0/40"]\n');
    await assert.rejects(startWebhook([...tlsArgs, '--config', file], silentLogger()), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /externalIPNetworkCIDRs\[1\]: "172\.16\.0\.0\/40" is not a CIDR/);
      return true;
    });
    await assert.rejects(startWebhook([...tlsArgs, '--config', file, '--allowed-cidrs', '10.0.0.0/8'], silentLogger()), /cannot be used together/);
    await assert.rejects(startWebhook(['--kubeconfig', kubeconfig, '--allowed-cidrs', '10.0.0.0/8'], silentLogger()), /--tls-cert-file/);
  });

  test('--openshift-network follows the Network object; an invalid update keeps the last good policy', async () => {
    api.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'networks.config.openshift.io' },
      spec: {
        group: 'config.openshift.io',
        scope: 'Cluster',
        names: { plural: 'networks', singular: 'network', kind: 'Network', listKind: 'NetworkList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    const network = (policy: Record<string, unknown>): Record<string, unknown> => ({
      apiVersion: 'config.openshift.io/v1',
      kind: 'Network',
      metadata: { name: 'cluster' },
      spec: { externalIP: { policy } },
    });
    await until('the Network type to be served', async () => {
      try {
        api.create(network({ allowedCIDRs: ['198.51.100.0/24'], rejectedCIDRs: ['198.51.100.128/25'] }) as never);
        return true;
      } catch {
        return false;
      }
    });
    const registry = new MetricsRegistry();
    const { webhook, port } = await startWebhook(
      [...tlsArgs, '--openshift-network', 'cluster', '--openshift-network-interval', '100ms'],
      silentLogger(),
      registry,
    );
    try {
      assert.equal(await allowed(port, '198.51.100.1'), true);
      assert.equal(await allowed(port, '198.51.100.200'), false);
      const current = api.get({ apiVersion: 'config.openshift.io/v1', kind: 'Network', name: 'cluster' })!;
      api.update({ ...current, spec: { externalIP: { policy: { allowedCIDRs: ['not-a-cidr'] } } } } as never);
      await until('the invalid update to be reported', async () => /hostwarden_admission_policy_errors_total 1/.test(await registry.metrics()));
      assert.equal(await allowed(port, '198.51.100.1'), true, 'the last good policy stays');
      const again = api.get({ apiVersion: 'config.openshift.io/v1', kind: 'Network', name: 'cluster' })!;
      api.update({ ...again, spec: { externalIP: { policy: { allowedCIDRs: ['192.0.2.0/24'] } } } } as never);
      await until('the new policy', async () => allowed(port, '192.0.2.7'));
      assert.equal(await allowed(port, '198.51.100.1'), false);
    } finally {
      await webhook.stop();
    }
  });
});
