/**
 * `hostwarden run --source=service --source=ingress` with exactly the ClusterRole external-dns's
 * Helm chart renders by default (no Events, no Leases), Events on, source objects in two
 * namespaces: it starts, warns once per missing permission (Events, and the ConfigMap of the
 * embedded provider's SOA serials), and keeps publishing records.
 *
 * The process runs outside a cluster, where leader election is off unless --leader-elect is given;
 * the chart's in-cluster case (election on by default, the first Lease request refused: the replica
 * acts alone) is test/kube/leader.test.ts, over the same leaderElectorFromFlags. Here an explicit
 * --leader-elect with the chart role shows the other side: a refused Lease never means acting alone.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startHostwarden } from '../support/hostwarden-process.ts';
import type { RunningHostwarden } from '../support/hostwarden-process.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';

interface ChartRbac {
  serviceAccount: { namespace: string; name: string };
  objects: Record<string, unknown>[];
}

const chart = JSON.parse(await readFile(new URL('../conformance/external-dns/chart-rbac.json', import.meta.url), 'utf8')) as ChartRbac;
const SA_TOKEN = 'external-dns-sa-token';
const WARN = 40;
const DEBUG = 20;
const OTHER_NS = 'team-a';

async function zoneText(dir: string): Promise<string> {
  const files = await readdir(dir).catch(() => [] as string[]);
  return (await Promise.all(files.filter((f) => f.endsWith('.zone')).map((f) => readFile(join(dir, f), 'utf8')))).join('\n');
}

async function eventually<T>(what: () => string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function service(name: string, host: string, ip: string, namespace = 'default'): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, annotations: { 'external-dns.alpha.kubernetes.io/hostname': host } },
    spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
    status: { loadBalancer: { ingress: [{ ip }] } },
  };
}

const saUser = {
  name: `system:serviceaccount:${chart.serviceAccount.namespace}:${chart.serviceAccount.name}`,
  groups: ['system:serviceaccounts', `system:serviceaccounts:${chart.serviceAccount.namespace}`, 'system:authenticated'],
};

/** The test API server holding the chart's RBAC objects and a Service and an Ingress in two namespaces. */
async function chartCluster(): Promise<TestApiServer> {
  const api = await startTestApiServer({
    namespaces: [chart.serviceAccount.namespace, OTHER_NS],
    authorization: 'rbac',
    users: { [SA_TOKEN]: saUser },
    bookmarkIntervalMs: 200,
  });
  for (const o of chart.objects) api.create(o as never);
  api.create(service('web', 'www.example.org', '192.0.2.10') as never);
  api.create({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'shop', namespace: OTHER_NS },
    spec: { rules: [{ host: 'shop.example.org' }] },
    status: { loadBalancer: { ingress: [{ ip: '192.0.2.20' }] } },
  } as never);
  return api;
}

function chartArgs(kubeconfig: string, data: string): string[] {
  return [
    '--source=service',
    '--source=ingress',
    `--kubeconfig=${kubeconfig}`,
    '--provider=embedded',
    `--embedded-data-dir=${data}`,
    '--embedded-zone=example.org',
    '--txt-owner-id=external-dns',
    '--emit-events=RecordReady,RecordDeleted,RecordError',
    '--min-event-sync-interval=100ms',
  ];
}

test("run with external-dns's chart ClusterRole: one warning per missing permission, records still land", { timeout: 120_000 }, async () => {
  const api = await chartCluster();
  const dir = await mkdtemp(join(tmpdir(), 'hw-chart-rbac-'));
  let hw: RunningHostwarden | undefined;
  try {
    const kubeconfig = await api.writeKubeconfig(dir, 'default', SA_TOKEN);
    const data = join(dir, 'data');
    // Debug level shows the second namespace's refusal, which must not be a warning.
    hw = await startHostwarden([...chartArgs(kubeconfig, data), '--log-level=debug']);
    const logTail = (): string =>
      (hw?.logs ?? [])
        .slice(-20)
        .map((l) => JSON.stringify(l))
        .join('\n');
    await eventually(
      () => `both records in the zone file; last log lines:\n${logTail()}`,
      async () => {
        const text = await zoneText(data);
        return /^www\S*\s.*\bA\s+192\.0\.2\.10$/m.test(text) && /^shop\S*\s.*\bA\s+192\.0\.2\.20$/m.test(text) ? text : undefined;
      },
    );
    // More syncs, more Events wanted in both namespaces: still no second warning.
    api.create(service('api', 'api.example.org', '192.0.2.30', OTHER_NS) as never);
    await eventually(
      () => `api.example.org in the zone file; last log lines:\n${logTail()}`,
      async () => (/^api\S*\s.*\bA\s+192\.0\.2\.30$/m.test(await zoneText(data)) ? true : undefined),
    );
    const refusedIn = (namespace: string) => (l: Record<string, unknown>) => l['resource'] === 'events' && l['namespace'] === namespace;
    await hw.waitForLog(refusedIn('default'), 10_000);
    await hw.waitForLog(refusedIn(OTHER_NS), 10_000);
    await new Promise((r) => setTimeout(r, 500));

    // The runtime's own notice (an end-of-life Node.js release) is not about permissions.
    const warnings = hw.logs.filter((l) => l['level'] === WARN && l['node'] === undefined);
    const about = (resource: string) => warnings.filter((w) => w['resource'] === resource);
    assert.equal(about('events').length, 1, `one warning about Events for both namespaces:\n${JSON.stringify(about('events'))}`);
    assert.deepEqual([about('events')[0]?.['verb'], about('events')[0]?.['feature']], ['create', 'Kubernetes Events about DNS records']);
    const firstNs = about('events')[0]?.['namespace'];
    const laterNs = firstNs === 'default' ? OTHER_NS : 'default';
    assert.equal(
      hw.logs.filter((l) => refusedIn(laterNs)(l) && l['level'] === DEBUG).length,
      1,
      `the other namespace's refusal is one debug line (first refused in ${String(firstNs)})`,
    );
    // The chart grants no ConfigMaps: the embedded provider's serials cannot be kept (docs/providers/embedded.md#soa-serial).
    assert.deepEqual(
      about('configmaps').map((w) => [w['verb'], w['feature']]),
      [['get', 'embedded SOA serials']],
    );
    assert.deepEqual(
      warnings.filter((w) => w['resource'] !== 'events' && w['resource'] !== 'configmaps'),
      [],
      'nothing else the chart role lacks is warned about (outside a cluster no Lease is asked for)',
    );
    assert.equal(hw.child.exitCode, null, 'still running');
    assert.equal(api.list('events.k8s.io/v1', 'Event').length, 0, 'no Event was written (the role has no permission)');
  } finally {
    await hw?.stop();
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

test('with --leader-elect given and the chart role, a refused Lease means applying nothing, with one warning', { timeout: 120_000 }, async () => {
  const api = await chartCluster();
  const dir = await mkdtemp(join(tmpdir(), 'hw-chart-rbac-elect-'));
  let hw: RunningHostwarden | undefined;
  try {
    const kubeconfig = await api.writeKubeconfig(dir, 'default', SA_TOKEN);
    const data = join(dir, 'data');
    const { namespace } = chart.serviceAccount;
    hw = await startHostwarden([...chartArgs(kubeconfig, data), '--leader-elect=true', `--leader-election-namespace=${namespace}`]);
    await hw.waitForLog((l) => l['resource'] === 'leases' && l['level'] === WARN, 20_000);
    // The sync plans both records and applies neither.
    const planned = await hw.waitForLog((l) => l['component'] === 'controller' && l['leader'] === false, 20_000);
    assert.deepEqual(planned['created'], ['shop.example.org A', 'www.example.org A']);
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(await zoneText(data).then((t) => /^www\S*\s/m.test(t)), false, 'no record was applied');
    const leases = hw.logs.filter((l) => l['level'] === WARN && l['resource'] === 'leases');
    assert.deepEqual(
      leases.map((w) => [w['verb'], w['namespace'], w['feature']]),
      [['get', namespace, 'leader election']],
      JSON.stringify(leases),
    );
    assert.equal(hw.child.exitCode, null, 'still running');
  } finally {
    await hw?.stop();
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
