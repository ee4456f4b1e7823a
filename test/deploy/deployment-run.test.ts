/**
 * The Deployment's own container args, run: bin/hostwarden starts with the args of
 * deploy/deployment.yaml against the test API server (only addresses, the data directory and the
 * kubeconfig swapped for local ones), answers the /healthz probe, takes the Lease in the namespace
 * the Role covers, and publishes a Service and an external-dns DNSEndpoint into the embedded zone.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { startHostwarden } from '../support/hostwarden-process.ts';
import type { RunningHostwarden } from '../support/hostwarden-process.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { parseYamlDocuments } from './chart.ts';
import { get, ofKind } from './checks.ts';
import type { Obj } from './checks.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
// Replaced by local equivalents: the pod's listen addresses, volume path and log format.
const LOCAL_FLAGS = ['--dns-listen', '--metrics-address', '--embedded-data-dir', '--log-format'];

function manifest(file: string): Obj[] {
  return parseYamlDocuments(readFileSync(join(ROOT, 'deploy', file), 'utf8'), file);
}

function healthz(port: number, path = '/healthz'): Promise<number> {
  return new Promise((resolve) => {
    const req = httpGet({ host: '127.0.0.1', port, path, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
  });
}

async function eventually<T>(what: string | (() => string), probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 1200; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
}

describe('the Deployment args, run against the test API server', () => {
  let api: TestApiServer;
  let dir: string;
  let hw: RunningHostwarden | undefined;

  before(async () => {
    api = await startTestApiServer({ namespaces: ['hostwarden'] });
    dir = await mkdtemp(join(tmpdir(), 'hw-deploy-run-'));
    for (const crd of manifest('crds/dnsendpoints.externaldns.k8s.io.yaml')) api.create(crd as never);
  });
  after(async () => {
    await hw?.stop();
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('starts, is healthy, publishes records and leads from its namespace', async () => {
    const deployment = ofKind(manifest('deployment.yaml'), 'Deployment')[0];
    const args = (get(deployment, 'spec', 'template', 'spec', 'containers', 0, 'args') as string[]).filter(
      (a) => !LOCAL_FLAGS.some((f) => a === f || a.startsWith(`${f}=`)),
    );
    // client-node refuses plain HTTP unless TLS verification is explicitly off.
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'test', cluster: { server: api.url, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'test', user: { token: 'test-token' } }],
        contexts: [{ name: 'test', context: { cluster: 'test', user: 'test' } }],
        'current-context': 'test',
      }),
      { mode: 0o600 },
    );
    hw = await startHostwarden([
      ...args,
      `--embedded-data-dir=${join(dir, 'data')}`,
      `--kubeconfig=${kubeconfig}`,
      // In a pod the Lease namespace is the service account's; here it is named explicitly.
      '--leader-election-namespace=hostwarden',
    ]);
    const port = hw.metricsPort;
    assert.equal(await eventually('/healthz 200', async () => ((await healthz(port)) === 200 ? 200 : undefined)), 200);
    // The readiness probe's path: ready once the first sync has succeeded.
    assert.equal(await eventually('/readyz 200', async () => ((await healthz(port, '/readyz')) === 200 ? 200 : undefined)), 200);

    api.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default', annotations: { 'external-dns.alpha.kubernetes.io/hostname': 'www.example.org' } },
      spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } },
    } as never);
    api.create({
      apiVersion: 'externaldns.k8s.io/v1alpha1',
      kind: 'DNSEndpoint',
      metadata: { name: 'from-external-dns', namespace: 'default', generation: 1 },
      spec: { endpoints: [{ dnsName: 'foo.example.org', recordType: 'A', recordTTL: 180, targets: ['192.0.2.20'], labels: { team: 'web' } }] },
    } as never);

    const zone = await eventually(
      () =>
        `both records in the zone file; last log lines:\n${(hw?.logs ?? [])
          .slice(-15)
          .map((l) => JSON.stringify(l))
          .join('\n')}`,
      async () => {
        const files = await readdir(join(dir, 'data')).catch(() => [] as string[]);
        const texts = await Promise.all(files.filter((f) => f.endsWith('.zone')).map((f) => readFile(join(dir, 'data', f), 'utf8')));
        const text = texts.join('\n');
        return /^www\S*\s.*\bA\s+192\.0\.2\.10$/m.test(text) && /^foo\S*\s.*\bA\s+192\.0\.2\.20$/m.test(text) ? text : undefined;
      },
    );
    // Ownership records as external-dns writes them, under the manifest's owner id.
    assert.match(zone, /external-dns\/owner=hostwarden/);

    // The crd source records what it read through the status subresource (RBAC: dnsendpoints/status patch).
    await eventually('status.observedGeneration', async () => {
      const ep = api.get({ apiVersion: 'externaldns.k8s.io/v1alpha1', kind: 'DNSEndpoint', name: 'from-external-dns', namespace: 'default' });
      const generation = get(ep, 'metadata', 'generation');
      return generation !== undefined && get(ep, 'status', 'observedGeneration') === generation ? true : undefined;
    });

    // Records are applied, so with --leader-elect this instance holds the Lease, in the namespace
    // the Role covers.
    const leases = api.list('coordination.k8s.io/v1', 'Lease', 'hostwarden');
    assert.equal(leases.length, 1, 'no leader Lease in the hostwarden namespace');
  });
});
