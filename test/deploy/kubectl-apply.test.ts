/**
 * The manifests and the rendered chart applied with the real kubectl to the test API server
 * (test/support/kube-apiserver): kubectl reads them, the server stores every object, a second
 * apply changes nothing, and an external-dns DNSEndpoint is served by the CRD with its status
 * subresource. Skipped when kubectl is not installed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync, readdirSync } from 'node:fs';
import { stringify } from 'yaml';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { findKubectl, kubectlRunner } from '../support/kubectl.ts';
import { parseYamlDocuments, renderChart } from './chart.ts';
import { get } from './checks.ts';
import type { Obj } from './checks.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

const KUBECTL = findKubectl();

// Kinds the test API server does not serve (no storage or operator behind them).
const NOT_SERVED = new Set(['PersistentVolumeClaim', 'ServiceMonitor']);

const DNS_ENDPOINT = `apiVersion: externaldns.k8s.io/v1alpha1
kind: DNSEndpoint
metadata: {name: from-external-dns, namespace: default}
spec:
  endpoints:
  - dnsName: foo.bar.com
    recordTTL: 180
    recordType: A
    targets: [192.168.99.216]
    labels: {team: web}
    setIdentifier: eu-west
    providerSpecific: [{name: aws/weight, value: "10"}]
`;

function deployObjects(): Obj[] {
  const dir = join(ROOT, 'deploy');
  return (
    (readdirSync(dir, { recursive: true }) as string[])
      // deploy/gardener is for a Gardener garden cluster (test/deploy/gardener.test.ts); deploy/operator/bundle
      // is an OLM bundle image's content (test/operator/bundle.test.ts).
      .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml' && !f.startsWith('gardener/') && !f.startsWith('operator/bundle/'))
      .flatMap((f) => parseYamlDocuments(readFileSync(join(dir, f), 'utf8'), f))
  );
}

function refOf(o: Obj): { apiVersion: string; kind: string; name: string; namespace?: string } {
  const ns = get(o, 'metadata', 'namespace');
  return {
    apiVersion: String(o['apiVersion']),
    kind: String(o['kind']),
    name: String(get(o, 'metadata', 'name')),
    ...(typeof ns === 'string' ? { namespace: ns } : {}),
  };
}

describe('kubectl apply to the test API server', { skip: KUBECTL === undefined ? 'kubectl not installed' : false }, () => {
  let api: TestApiServer;
  let dir: string;
  let base: string[];

  const { ok } = kubectlRunner(KUBECTL ?? 'kubectl', () => base, 60_000);

  before(async () => {
    api = await startTestApiServer();
    dir = await mkdtemp(join(tmpdir(), 'hw-deploy-kubectl-'));
    const kubeconfig = await api.writeKubeconfig(dir);
    // The test server serves no OpenAPI v2, which kubectl's client-side validation downloads.
    base = ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), '--request-timeout', '30s'];
  });
  after(async () => {
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('apply -k deploy/ creates every object; applying again changes nothing', async () => {
    const first = await ok(['apply', '--validate=false', '-k', join(ROOT, 'deploy')]);
    const objs = deployObjects();
    assert.equal(first.split('\n').filter((l) => / created$/.test(l)).length, objs.length, first);
    for (const o of objs) {
      const stored = api.get(refOf(o));
      assert.ok(stored !== undefined, `${String(o['kind'])}/${String(get(o, 'metadata', 'name'))} not stored`);
    }
    const deployment = api.get({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'hostwarden', namespace: 'hostwarden' });
    assert.deepEqual(
      get(deployment, 'spec', 'template', 'spec', 'containers', 0, 'args'),
      get(
        objs.find((o) => o['kind'] === 'Deployment'),
        'spec',
        'template',
        'spec',
        'containers',
        0,
        'args',
      ),
    );
    const pdbRef = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', name: 'hostwarden', namespace: 'hostwarden' };
    const pdbVersion = get(api.get(pdbRef), 'metadata', 'resourceVersion');
    const second = await ok(['apply', '--validate=false', '-k', join(ROOT, 'deploy')]);
    // kubectl always sends a PodDisruptionBudget's spec.selector (its patch strategy is replace), so it
    // prints "configured" for one that did not change, against kube-apiserver too; the object stays as it was.
    const lines = second.split('\n').filter((l) => l !== '');
    assert.equal(lines.filter((l) => / unchanged$/.test(l)).length, objs.length - 1, second);
    assert.ok(lines.includes('poddisruptionbudget.policy/hostwarden configured'), second);
    assert.equal(get(api.get(pdbRef), 'metadata', 'resourceVersion'), pdbVersion, 'the re-applied PodDisruptionBudget is unchanged');
  });

  test('the CRD serves an external-dns DNSEndpoint, and its status subresource takes observedGeneration', async () => {
    // Idempotent: this test does not depend on the one above having run.
    await ok(['apply', '--validate=false', '-f', join(ROOT, 'deploy/crds')]);
    await ok(['wait', '--for=condition=established', 'crd/dnsendpoints.externaldns.k8s.io', '--timeout=20s']);
    assert.match(await ok(['apply', '--validate=false', '-f', '-'], DNS_ENDPOINT), /dnsendpoint.externaldns.k8s.io\/from-external-dns created/);
    await ok(['patch', 'dnsendpoint', 'from-external-dns', '--subresource=status', '--type=merge', '-p', '{"status":{"observedGeneration":1}}']);
    const got = await ok([
      'get',
      'dnsendpoint',
      'from-external-dns',
      '-o',
      'jsonpath={.status.observedGeneration} {.spec.endpoints[0].providerSpecific[0].value}',
    ]);
    assert.equal(got, '1 10');
  });

  test('the rendered chart applies in the release namespace', async () => {
    const rendered = renderChart(
      join(ROOT, 'charts/hostwarden'),
      { sources: ['service', 'ingress', 'crd', 'gateway-httproute'], serviceMonitor: { enabled: true } },
      { name: 'hw', namespace: 'dns-system' },
    );
    const objs = rendered.objects.filter((o) => !NOT_SERVED.has(String(o['kind'])));
    const docs = [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dns-system' } }, ...rendered.crds, ...objs].map((o) => stringify(o)).join('---\n');
    await ok(['apply', '--validate=false', '-f', '-'], docs);
    for (const o of objs) assert.ok(api.get(refOf(o)) !== undefined, `${String(o['kind'])}/${String(get(o, 'metadata', 'name'))} not stored`);
  });
});
