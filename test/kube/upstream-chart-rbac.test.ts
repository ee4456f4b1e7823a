/**
 * `hostwarden run --source=service --source=ingress` with exactly the ClusterRole external-dns's
 * Helm chart renders by default (no Events, no Leases), Events and leader election on: it starts,
 * warns once per missing permission, and keeps publishing records.
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

function service(name: string, host: string, ip: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default', annotations: { 'external-dns.alpha.kubernetes.io/hostname': host } },
    spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
    status: { loadBalancer: { ingress: [{ ip }] } },
  };
}

test("run with external-dns's chart ClusterRole: one warning per missing permission, records still land", { timeout: 120_000 }, async () => {
  const { namespace, name } = chart.serviceAccount;
  const user = {
    name: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
  };
  const api: TestApiServer = await startTestApiServer({ namespaces: [namespace], authorization: 'rbac', users: { [SA_TOKEN]: user }, bookmarkIntervalMs: 200 });
  const dir = await mkdtemp(join(tmpdir(), 'hw-chart-rbac-'));
  let hw: RunningHostwarden | undefined;
  try {
    for (const o of chart.objects) api.create(o as never);
    api.create(service('web', 'www.example.org', '192.0.2.10') as never);
    api.create({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'shop', namespace: 'default' },
      spec: { rules: [{ host: 'shop.example.org' }] },
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.20' }] } },
    } as never);
    const kubeconfig = await api.writeKubeconfig(dir, 'default', SA_TOKEN);
    const data = join(dir, 'data');
    hw = await startHostwarden([
      '--source=service',
      '--source=ingress',
      `--kubeconfig=${kubeconfig}`,
      '--provider=embedded',
      `--embedded-data-dir=${data}`,
      '--embedded-zone=example.org',
      '--txt-owner-id=external-dns',
      '--emit-events=RecordReady,RecordDeleted,RecordError',
      '--leader-elect=true',
      `--leader-election-namespace=${namespace}`,
      '--min-event-sync-interval=100ms',
    ]);
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
    // More syncs, more Events wanted: still no second warning.
    api.create(service('api', 'api.example.org', '192.0.2.30') as never);
    await eventually(
      () => `api.example.org in the zone file; last log lines:\n${logTail()}`,
      async () => (/^api\S*\s.*\bA\s+192\.0\.2\.30$/m.test(await zoneText(data)) ? true : undefined),
    );
    await hw.waitForLog((l) => l['resource'] === 'events' && l['level'] === WARN, 10_000);
    await new Promise((r) => setTimeout(r, 500));

    // The runtime's own notice (an end-of-life Node.js release) is not about permissions.
    const warnings = hw.logs.filter((l) => l['level'] === WARN && l['node'] === undefined);
    const about = (resource: string) => warnings.filter((w) => w['resource'] === resource);
    assert.equal(about('events').length, 1, `one warning about Events:\n${JSON.stringify(about('events'))}`);
    assert.deepEqual(
      [about('events')[0]?.['verb'], about('events')[0]?.['namespace'], about('events')[0]?.['feature']],
      ['create', 'default', 'Kubernetes Events about DNS records'],
    );
    assert.equal(about('leases').length, 1, `one warning about Leases:\n${JSON.stringify(about('leases'))}`);
    assert.deepEqual([about('leases')[0]?.['verb'], about('leases')[0]?.['namespace'], about('leases')[0]?.['feature']], ['get', namespace, 'leader election']);
    assert.deepEqual(
      warnings.filter((w) => w['resource'] !== 'events' && w['resource'] !== 'leases'),
      [],
      'nothing else the chart role lacks is warned about',
    );
    assert.equal(hw.child.exitCode, null, 'still running');
    assert.equal(api.list('events.k8s.io/v1', 'Event').length, 0, 'no Event was written (the role has no permission)');
  } finally {
    await hw?.stop();
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
