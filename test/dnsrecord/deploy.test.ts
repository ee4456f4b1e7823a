/**
 * deploy/dnsrecord: the CRD matches what the code reads and what Gardener ships (names, short name,
 * printer columns, status subresource); RBAC grants exactly DNSRECORD_PERMISSIONS, and a scan of
 * the controller's source finds no API call outside that table; the Deployment's args are flags
 * bin/hostwarden accepts; the webhook points at the path the server serves.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DNSRECORD_PERMISSIONS, permissionKey } from '../../src/dnsrecord/permissions.ts';
import { DNSRECORDS } from '../../src/dnsrecord/types.ts';
import { objectPath } from '../../src/kube/resource.ts';
import { WEBHOOK_PATH } from '../../src/dnsrecord/webhook.ts';
import { REPO_ROOT } from '../support/cli.ts';
import { findKubectl, kubectlRunner } from '../support/kubectl.ts';
import { get, grantsOf, ofKind, parseContainerArgs } from '../deploy/checks.ts';
import type { Obj } from '../deploy/checks.ts';
import { NS, create, deployJson, dnsRecord, get as get2, startEnv } from './harness.ts';
import { loadCrd } from '../support/crds/load.ts';
import { restate } from '../support/crds/restate.ts';

const NAMESPACE = 'hostwarden';
const ACCOUNT = 'hostwarden-dnsrecord-controller';

function objects(): Obj[] {
  return readdirSync(join(REPO_ROOT, 'deploy/dnsrecord'))
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => {
      const doc = deployJson(f) as Obj;
      return doc['kind'] === 'List' ? (doc['items'] as Obj[]) : [doc];
    });
}

const TARGETS: Readonly<Record<string, { group: string; resource: string }>> = {
  DNSRECORDS: { group: 'extensions.gardener.cloud', resource: 'dnsrecords' },
  SECRETS: { group: 'core', resource: 'secrets' },
  CLUSTERS: { group: 'extensions.gardener.cloud', resource: 'clusters' },
  NAMESPACES: { group: 'core', resource: 'namespaces' },
};
const VERBS: Readonly<Record<string, string>> = { GET: 'get', PATCH: 'patch', PUT: 'update', POST: 'create', DELETE: 'delete' };

/** The API calls in the controller's source, as `group/resource:verb`, with the ones the scan could not read. */
function scan(): { needs: Map<string, string>; unresolved: string[] } {
  const files = [
    ...(readdirSync(join(REPO_ROOT, 'src/dnsrecord'), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => join('src/dnsrecord', f)),
    'src/cli/dnsrecord-controller.ts',
  ];
  const needs = new Map<string, string>();
  const unresolved: string[] = [];
  for (const rel of files) {
    const text = readFileSync(join(REPO_ROOT, rel), 'utf8');
    const at = (i: number | undefined): string => `${rel}:${text.slice(0, i).split('\n').length}`;
    for (const m of text.matchAll(/\.request(?:<[^>(]*>)?\(\s*'([A-Z]+)',\s*([^\n]+)/g)) {
      let expr = m[2] ?? '';
      const local = /^(\w+)[,)]/.exec(expr)?.[1];
      if (local !== undefined) expr = [...text.slice(0, m.index).matchAll(new RegExp(`const ${local}\\s*=\\s*([^;\\n]+)`, 'g'))].pop()?.[1] ?? expr;
      const target = TARGETS[/(?:objectPath|collectionPath)\((\w+)/.exec(expr)?.[1] ?? ''];
      const verb = VERBS[m[1] ?? ''];
      if (target === undefined || verb === undefined) {
        unresolved.push(`${at(m.index)}: ${m[0]}`);
        continue;
      }
      needs.set(`${target.group}/${target.resource}${/\)\}\/status`/.test(expr) ? '/status' : ''}:${verb}`, at(m.index));
    }
    for (const m of text.matchAll(/patchFinalizers\([^,]+,\s*(\w+)/g)) {
      const target = TARGETS[m[1] ?? ''];
      if (target === undefined) unresolved.push(`${at(m.index)}: ${m[0]}`);
      else needs.set(`${target.group}/${target.resource}:patch`, at(m.index));
    }
    for (const m of text.matchAll(/new Reflector<\w+>\(\{[^}]*resource: (\w+)/g)) {
      const target = TARGETS[m[1] ?? ''];
      if (target === undefined) unresolved.push(`${at(m.index)}: ${m[0]}`);
      else for (const verb of ['list', 'watch']) needs.set(`${target.group}/${target.resource}:${verb}`, at(m.index));
    }
    for (const m of text.matchAll(/new EventRecorder\(/g)) needs.set('events.k8s.io/events:create', at(m.index));
    for (const m of text.matchAll(/new LeaderElector\(|leaderElectorFromFlags\(/g))
      for (const verb of ['get', 'create', 'update']) needs.set(`coordination.k8s.io/leases:${verb}`, at(m.index));
  }
  return { needs, unresolved };
}

describe('deploy/dnsrecord', () => {
  test('the CRD: extensions.gardener.cloud DNSRecord, namespaced, short name dns, status subresource, printer columns', () => {
    const crd = deployJson('crd.json');
    assert.equal(get(crd, 'metadata', 'name'), `${DNSRECORDS.plural}.extensions.gardener.cloud`);
    assert.equal(get(crd, 'spec', 'scope'), 'Namespaced');
    assert.deepEqual(get(crd, 'spec', 'names', 'shortNames'), ['dns']);
    assert.equal(get(crd, 'spec', 'names', 'kind'), DNSRECORDS.kind);
    const version = (get(crd, 'spec', 'versions') as Obj[])[0] as Obj;
    assert.equal(`extensions.gardener.cloud/${String(version['name'])}`, DNSRECORDS.apiVersion);
    assert.deepEqual(get(version, 'subresources'), { status: {} });
    const columns = (version['additionalPrinterColumns'] as Obj[]).map((c) => c['jsonPath']);
    assert.deepEqual(columns, ['.spec.type', '.spec.name', '.spec.recordType', '.status.lastOperation.state', '.metadata.creationTimestamp']);
    assert.deepEqual(get(version, 'schema', 'openAPIV3Schema', 'properties', 'spec', 'required'), ['name', 'recordType', 'secretRef', 'type', 'values']);
  });

  test("the CRD's schema is Gardener's (restated under test/support/crds/gardener), status included", () => {
    const ours = restate(deployJson('crd.json'), '');
    const gardener = loadCrd('gardener', 'dnsrecords.extensions.gardener.cloud');
    assert.deepEqual(get(ours, 'spec'), gardener.spec);
    const status = get(gardener.spec.versions[0], 'schema', 'openAPIV3Schema', 'properties', 'status', 'properties') as Obj;
    for (const field of ['providerStatus', 'state', 'resources', 'zone', 'conditions', 'lastError', 'lastOperation', 'observedGeneration'])
      assert.ok(field in status, field);
  });

  test('status fields of other controllers (providerStatus, state, resources) survive the API server, which prunes by schema', async () => {
    const env = await startEnv();
    try {
      await create(env.client, dnsRecord('kept', { type: 'aws-route53', name: 'kept.example.org' }));
      const status = {
        providerStatus: { apiVersion: 'aws.provider.extensions.gardener.cloud/v1alpha1', kind: 'DNSRecordStatus', any: { nested: [1, 'two'] } },
        state: { zoneCache: { 'example.org': 'Z1' } },
        resources: [{ name: 'dns-creds', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'dns-creds' } }],
        zone: 'Z1',
        unknownField: 'pruned',
      };
      await env.client.request('PATCH', `${objectPath(DNSRECORDS, NS, 'kept')}/status`, { body: { status }, contentType: 'application/merge-patch+json' });
      const read = (await get2(env.client, 'kept'))?.status as Obj | undefined;
      const { unknownField: _pruned, ...kept } = status;
      assert.deepEqual(read, kept);
    } finally {
      await env.stop();
    }
  });

  test('RBAC grants exactly the permission table: cluster-wide records and Secrets, the Lease in its namespace', () => {
    const grants = grantsOf(objects(), { name: ACCOUNT, namespace: NAMESPACE });
    assert.deepEqual(grants.problems, []);
    const want = (scope: string): string[] =>
      DNSRECORD_PERMISSIONS.filter((p) => p.scope === scope)
        .map(permissionKey)
        .sort();
    assert.deepEqual([...grants.cluster].sort(), want('cluster'));
    assert.deepEqual([...grants.namespaced].sort(), want('namespace'));
  });

  test('every API call in the controller is in the table, and every table entry is used', () => {
    const { needs, unresolved } = scan();
    assert.deepEqual(unresolved, []);
    const table = new Set(DNSRECORD_PERMISSIONS.map(permissionKey));
    assert.deepEqual(
      [...needs.keys()].filter((k) => !table.has(k)).map((k) => `${needs.get(k) ?? ''}: ${k}`),
      [],
    );
    assert.deepEqual(
      [...table].filter((k) => !needs.has(k)),
      [],
    );
  });

  test('the Deployment runs dnsrecord-controller with flags bin/hostwarden accepts, as its ServiceAccount', () => {
    const deployment = ofKind(objects(), 'Deployment')[0];
    const pod = get(deployment, 'spec', 'template', 'spec');
    assert.equal(get(pod, 'serviceAccountName'), ACCOUNT);
    const args = get(pod, 'containers', 0, 'args') as string[];
    assert.equal(args[0], 'dnsrecord-controller');
    const cfg = parseContainerArgs(args);
    assert.deepEqual(cfg.flags.list('dnsrecord-types'), ['aws-route53', 'rfc2136']);
    assert.equal(cfg.flags.bool('leader-elect'), true);
    assert.equal(get(pod, 'containers', 0, 'securityContext', 'readOnlyRootFilesystem'), true);
  });

  test('the ValidatingWebhookConfiguration calls the served path for CREATE and UPDATE of dnsrecords, failing closed', () => {
    const hook = get(ofKind(objects(), 'ValidatingWebhookConfiguration')[0], 'webhooks', 0) as Obj;
    assert.equal(get(hook, 'clientConfig', 'service', 'path'), WEBHOOK_PATH);
    assert.equal(get(hook, 'clientConfig', 'service', 'name'), ACCOUNT);
    assert.equal(hook['failurePolicy'], 'Fail');
    assert.deepEqual(get(hook, 'rules', 0, 'operations'), ['CREATE', 'UPDATE']);
    assert.deepEqual(get(hook, 'rules', 0, 'resources'), ['dnsrecords']);
  });
});

const KUBECTL = findKubectl();

describe('kubectl with the DNSRecord CRD', { skip: KUBECTL === undefined ? 'kubectl not installed' : false }, () => {
  test('kubectl creates a DNSRecord from the CRD and finds it by its short name dns', async () => {
    const env = await startEnv();
    const dir = await mkdtemp(join(tmpdir(), 'hw-dnsrecord-kubectl-'));
    try {
      const kubeconfig = await env.api.writeKubeconfig(dir);
      const kubectl = kubectlRunner(KUBECTL as string, () => ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), '--request-timeout', '10s']);
      await kubectl.ok(['create', '-f', '-'], JSON.stringify(dnsRecord('api', { type: 'aws-route53', name: 'api.example.org' })));
      await env.client.request('PATCH', `${objectPath(DNSRECORDS, NS, 'api')}/status`, {
        body: { status: { lastOperation: { type: 'Create', state: 'Succeeded', description: '', lastUpdateTime: new Date().toISOString(), progress: 100 } } },
        contentType: 'application/merge-patch+json',
      });
      const out = await kubectl.ok(['get', 'dns', '-n', NS]);
      // The test API server prints CRDs with NAME and AGE only (no additionalPrinterColumns); the
      // columns themselves are checked in the CRD test above.
      const [header, row] = out
        .trim()
        .split('\n')
        .map((l) => l.trim().split(/\s{2,}/));
      assert.equal(header?.[0], 'NAME');
      assert.equal(row?.[0], 'api');
      const state = await kubectl.ok(['get', 'dns', 'api', '-n', NS, '-o', 'jsonpath={.spec.type} {.status.lastOperation.state}']);
      assert.equal(state, 'aws-route53 Succeeded');
    } finally {
      await env.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
