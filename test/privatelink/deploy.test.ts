/**
 * deploy/privatelink/: the CRDs serve the resources the code uses, the RBAC grants exactly
 * PRIVATELINK_PERMISSIONS (which controller.test.ts checks against the requests really made), and
 * the Deployment runs flags the CLI accepts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseListenAddress, resolveConfig } from '../../src/config/config.ts';
import { FLAGS } from '../../src/config/flags.ts';
import { parseArgs } from '../../src/config/parse.ts';
import { EXTRA_FLAGS, PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';
import { PRIVATELINK_PERMISSIONS } from '../../src/privatelink/permissions.ts';
import { CLUSTER_DEPLOYMENTS, CLUSTER_DEPROVISIONS, CLUSTER_PROVISIONS, HIVE_CONFIGS } from '../../src/privatelink/types.ts';

type Obj = Record<string, unknown>;
const DIR = join(dirname(fileURLToPath(import.meta.url)), '../../deploy/privatelink');

function get(v: unknown, ...path: (string | number)[]): unknown {
  let cur = v;
  for (const k of path) cur = typeof cur === 'object' && cur !== null ? (cur as Record<string | number, unknown>)[k] : undefined;
  return cur;
}

function load(): Obj[] {
  return (readdirSync(DIR) as string[])
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => {
      const doc = JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Obj;
      return doc['kind'] === 'List' ? (doc['items'] as Obj[]) : [doc];
    });
}

const ofKind = (objs: Obj[], kind: string): Obj[] => objs.filter((o) => o['kind'] === kind);

describe('deploy/privatelink manifests', () => {
  const objs = load();
  const deployment = ofKind(objs, 'Deployment')[0]!;
  const pod = get(deployment, 'spec', 'template', 'spec') as Obj;
  const container = (get(pod, 'containers') as Obj[])[0]!;

  test('CRDs serve the four Hive resources the controller uses, with status subresources', () => {
    const crds = ofKind(objs, 'CustomResourceDefinition');
    const want = [CLUSTER_DEPLOYMENTS, CLUSTER_PROVISIONS, CLUSTER_DEPROVISIONS, HIVE_CONFIGS].map((r) => `${r.plural}.hive.openshift.io ${r.kind} ${r.namespaced ? 'Namespaced' : 'Cluster'} v1`).sort();
    const got = crds.map((c) => `${String(get(c, 'metadata', 'name'))} ${String(get(c, 'spec', 'names', 'kind'))} ${String(get(c, 'spec', 'scope'))} ${String(get(c, 'spec', 'versions', 0, 'name'))}`).sort();
    assert.deepEqual(got, want);
    for (const c of crds) assert.deepEqual(get(c, 'spec', 'versions', 0, 'subresources'), { status: {} });
  });

  test('RBAC grants exactly PRIVATELINK_PERMISSIONS to the Deployment\'s service account', () => {
    const sa = pod['serviceAccountName'];
    const bound = (kind: string, roleKind: string): string[] =>
      ofKind(objs, kind)
        .filter((b) => (get(b, 'subjects') as Obj[]).some((s) => s['name'] === sa && s['kind'] === 'ServiceAccount'))
        .flatMap((b) => ofKind(objs, roleKind).filter((r) => get(r, 'metadata', 'name') === get(b, 'roleRef', 'name')))
        .flatMap((r) => (get(r, 'rules') as Obj[]).flatMap((rule) => (rule['apiGroups'] as string[]).flatMap((g) => (rule['resources'] as string[]).flatMap((res) => (rule['verbs'] as string[]).map((v) => `${g}/${res}:${v}`)))))
        .sort();
    const want = (scope: string): string[] => PRIVATELINK_PERMISSIONS.filter((p) => p.scope === scope).map((p) => `${p.group}/${p.resource}:${p.verb}`).sort();
    assert.deepEqual(bound('ClusterRoleBinding', 'ClusterRole'), want('cluster'));
    assert.deepEqual(bound('RoleBinding', 'Role'), want('namespace'));
    assert.equal(ofKind(objs, 'ServiceAccount').length, 1);
  });

  test('the Deployment runs flags the CLI accepts, elects a leader in its namespace and probes the metrics port', () => {
    const args = get(container, 'args') as string[];
    assert.equal(args[0], 'privatelink-controller');
    const cfg = resolveConfig(parseArgs(args.slice(1), {}, [...FLAGS, ...EXTRA_FLAGS]), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
    assert.equal(cfg.flags.bool('leader-elect'), true);
    assert.equal(cfg.flags.str('leader-election-namespace'), get(deployment, 'metadata', 'namespace'));
    assert.equal(cfg.flags.str('hive-namespace'), 'hive');
    const port = (get(container, 'ports') as Obj[]).find((p) => p['name'] === 'metrics');
    assert.equal(port?.['containerPort'], parseListenAddress(cfg.metricsAddress, '--metrics-address').port);
    for (const probe of ['readinessProbe', 'livenessProbe']) assert.equal(get(container, probe, 'httpGet', 'path'), '/healthz');
    assert.equal(get(container, 'securityContext', 'readOnlyRootFilesystem'), true);
    assert.ok((get(container, 'volumeMounts') as Obj[]).some((m) => m['mountPath'] === '/tmp'), '/tmp is writable for tsx');
  });
});
