/**
 * deploy/privatelink/ (beside Hive): RBAC granting exactly PRIVATELINK_PERMISSIONS (which
 * controller.test.ts checks against the requests really made) and a Deployment running flags the
 * CLI accepts — no CRD (hive-operator owns them) and no admission webhook (Hive's own checks the
 * region). deploy/privatelink/standalone/ (without Hive): Hive's CRDs serving the resources the code
 * uses and the admission webhook reaching what it serves, both as bin/privatelink-deploy.ts writes them.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseListenAddress, resolveConfig } from '../../src/config/config.ts';
import { parseCommandArgs } from '../../src/cli/commands.ts';
import type { Command } from '../../src/cli/commands.ts';
import { PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';
import { standaloneFiles } from '../../bin/privatelink-deploy.ts';
import { PRIVATELINK_WEBHOOK_PATH } from '../../src/privatelink/admission-server.ts';
import { PRIVATELINK_PERMISSIONS } from '../../src/privatelink/permissions.ts';
import { CLUSTER_DEPLOYMENTS, CLUSTER_DEPROVISIONS, CLUSTER_PROVISIONS, HIVE_CONFIGS } from '../../src/privatelink/types.ts';

type Obj = Record<string, unknown>;
const DIR = join(dirname(fileURLToPath(import.meta.url)), '../../deploy/privatelink');

function get(v: unknown, ...path: (string | number)[]): unknown {
  let cur = v;
  for (const k of path) cur = typeof cur === 'object' && cur !== null ? (cur as Record<string | number, unknown>)[k] : undefined;
  return cur;
}

/** What `kubectl apply -f <dir>` applies (not recursive). */
function load(dir = DIR): Obj[] {
  return (readdirSync(dir) as string[])
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => {
      const doc = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Obj;
      return doc['kind'] === 'List' ? (doc['items'] as Obj[]) : [doc];
    });
}

const ofKind = (objs: Obj[], kind: string): Obj[] => objs.filter((o) => o['kind'] === kind);

const STANDALONE = join(DIR, 'standalone');

describe('deploy/privatelink manifests', () => {
  const objs = load();
  const deployment = ofKind(objs, 'Deployment')[0]!;
  const pod = get(deployment, 'spec', 'template', 'spec') as Obj;
  const container = (get(pod, 'containers') as Obj[])[0]!;

  test('beside Hive: no CRD (hive-operator owns them), no admission webhook or server (Hive admits ClusterDeployments)', () => {
    assert.deepEqual(ofKind(objs, 'CustomResourceDefinition'), []);
    assert.deepEqual(ofKind(objs, 'ValidatingWebhookConfiguration'), []);
    assert.ok(!(get(container, 'args') as string[]).some((a) => a.startsWith('--privatelink-admission-listen')));
  });

  test('standalone: the committed files are what bin/privatelink-deploy.ts writes (CRDs from test/support/crds/hive)', () => {
    for (const [file, content] of standaloneFiles())
      assert.equal(readFileSync(file, 'utf8'), content, `${file}: run node --import tsx bin/privatelink-deploy.ts`);
  });

  test('standalone: the CRDs serve the four Hive resources the controller uses, with status subresources', () => {
    const crds = ofKind(load(STANDALONE), 'CustomResourceDefinition');
    const want = [CLUSTER_DEPLOYMENTS, CLUSTER_PROVISIONS, CLUSTER_DEPROVISIONS, HIVE_CONFIGS]
      .map((r) => `${r.plural}.hive.openshift.io ${r.kind} ${r.namespaced ? 'Namespaced' : 'Cluster'} v1`)
      .sort();
    const got = crds
      .map(
        (c) =>
          `${String(get(c, 'metadata', 'name'))} ${String(get(c, 'spec', 'names', 'kind'))} ${String(get(c, 'spec', 'scope'))} ${String(get(c, 'spec', 'versions', 0, 'name'))}`,
      )
      .sort();
    assert.deepEqual(got, want);
    for (const c of crds) assert.deepEqual(get(c, 'spec', 'versions', 0, 'subresources'), { status: {} });
  });

  test("RBAC grants exactly PRIVATELINK_PERMISSIONS to the Deployment's service account", () => {
    const sa = pod['serviceAccountName'];
    const bound = (kind: string, roleKind: string): string[] =>
      ofKind(objs, kind)
        .filter((b) => (get(b, 'subjects') as Obj[]).some((s) => s['name'] === sa && s['kind'] === 'ServiceAccount'))
        .flatMap((b) => ofKind(objs, roleKind).filter((r) => get(r, 'metadata', 'name') === get(b, 'roleRef', 'name')))
        .flatMap((r) =>
          (get(r, 'rules') as Obj[]).flatMap((rule) =>
            (rule['apiGroups'] as string[]).flatMap((g) =>
              (rule['resources'] as string[]).flatMap((res) => (rule['verbs'] as string[]).map((v) => `${g}/${res}:${v}`)),
            ),
          ),
        )
        .sort();
    const want = (scope: string): string[] =>
      PRIVATELINK_PERMISSIONS.filter((p) => p.scope === scope)
        .map((p) => `${p.group}/${p.resource}:${p.verb}`)
        .sort();
    assert.deepEqual(bound('ClusterRoleBinding', 'ClusterRole'), want('cluster'));
    assert.deepEqual(bound('RoleBinding', 'Role'), want('namespace'));
    assert.equal(ofKind(objs, 'ServiceAccount').length, 1);
  });

  test('the Deployment runs flags the CLI accepts, elects a leader in its namespace and probes readiness and liveness on the metrics port', () => {
    const args = get(container, 'args') as string[];
    assert.equal(args[0], 'privatelink-controller');
    const cfg = resolveConfig(parseCommandArgs(args[0] as Command, args.slice(1), {}), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
    assert.equal(cfg.flags.bool('leader-elect'), true);
    assert.equal(cfg.flags.str('leader-election-namespace'), get(deployment, 'metadata', 'namespace'));
    assert.equal(cfg.flags.str('hive-namespace'), 'hive');
    const port = (get(container, 'ports') as Obj[]).find((p) => p['name'] === 'metrics');
    assert.equal(port?.['containerPort'], parseListenAddress(cfg.metricsAddress, '--metrics-address').port);
    // Not ready (with the reason) while Hive runs its own awsprivatelink controller; alive all the same.
    assert.equal(get(container, 'readinessProbe', 'httpGet', 'path'), '/readyz');
    assert.equal(get(container, 'livenessProbe', 'httpGet', 'path'), '/healthz');
    assert.equal(get(container, 'securityContext', 'readOnlyRootFilesystem'), true);
    assert.ok(
      (get(container, 'volumeMounts') as Obj[]).some((m) => m['mountPath'] === '/tmp'),
      '/tmp is writable for tsx',
    );
  });
});

describe('deploy/privatelink/standalone admission webhook', () => {
  const objs = load(STANDALONE);
  const container = (get(ofKind(objs, 'Deployment')[0], 'spec', 'template', 'spec', 'containers') as Obj[])[0]!;
  const pod = get(ofKind(objs, 'Deployment')[0], 'spec', 'template', 'spec') as Obj;

  test('ClusterDeployment CREATEs (the only operation Hive checks PrivateLink on) go to the path and port the controller serves, with a certificate cert-manager issues', () => {
    const hooks = get(ofKind(objs, 'ValidatingWebhookConfiguration')[0], 'webhooks') as Obj[];
    assert.equal(hooks.length, 1);
    const h = hooks[0]!;
    assert.deepEqual(get(h, 'rules'), [
      { apiGroups: ['hive.openshift.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['clusterdeployments'], scope: 'Namespaced' },
    ]);
    assert.equal(h['failurePolicy'], 'Fail');
    assert.equal(h['sideEffects'], 'None');
    assert.equal(get(h, 'clientConfig', 'service', 'path'), PRIVATELINK_WEBHOOK_PATH);
    const svc = ofKind(objs, 'Service').find((s) => get(s, 'metadata', 'name') === get(h, 'clientConfig', 'service', 'name'))!;
    const port = (get(svc, 'spec', 'ports') as Obj[]).find((p) => p['port'] === get(h, 'clientConfig', 'service', 'port'))!;
    const args = get(container, 'args') as string[];
    const cfg = resolveConfig(parseCommandArgs(args[0] as Command, args.slice(1), {}), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
    const containerPort = (get(container, 'ports') as Obj[]).find((p) => p['name'] === port['targetPort']);
    assert.equal(containerPort?.['containerPort'], parseListenAddress(cfg.flags.str('privatelink-admission-listen'), '--privatelink-admission-listen').port);
    const cert = ofKind(objs, 'Certificate')[0]!;
    assert.ok((get(cert, 'spec', 'dnsNames') as string[]).includes(`${String(get(svc, 'metadata', 'name'))}.${String(get(svc, 'metadata', 'namespace'))}.svc`));
    const mount = (get(container, 'volumeMounts') as Obj[]).find((m) => cfg.flags.str('tls-cert-file').startsWith(`${String(m['mountPath'])}/`))!;
    const volume = (get(pod, 'volumes') as Obj[]).find((v) => v['name'] === mount['name'])!;
    assert.equal(get(volume, 'secret', 'secretName'), get(cert, 'spec', 'secretName'));
    assert.ok(cfg.flags.str('tls-private-key-file').startsWith(`${String(mount['mountPath'])}/`));
    assert.equal(
      get(ofKind(objs, 'ValidatingWebhookConfiguration')[0], 'metadata', 'annotations', 'cert-manager.io/inject-ca-from'),
      `${String(get(cert, 'metadata', 'namespace'))}/${String(get(cert, 'metadata', 'name'))}`,
    );
  });
});
