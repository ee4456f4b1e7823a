/**
 * deploy/admission/: the manifests agree with each other and with the code — the webhook calls the
 * path the server serves, the Deployment runs flags the CLI accepts with files its volumes provide,
 * the RBAC grants exactly the SubjectAccessReview the override check makes.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decide } from '../../src/admission/decision.ts';
import { emptyPolicy, parsePolicyFile } from '../../src/admission/policy.ts';
import { WEBHOOK_PATH } from '../../src/admission/server.ts';
import { parseListenAddress, resolveConfig } from '../../src/config/config.ts';
import { parseCommandArgs } from '../../src/cli/commands.ts';
import type { Command } from '../../src/cli/commands.ts';
import { PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';

type Obj = Record<string, unknown>;
const DIR = join(dirname(fileURLToPath(import.meta.url)), '../../deploy/admission');

function get(v: unknown, ...path: (string | number)[]): unknown {
  let cur = v;
  for (const k of path) cur = typeof cur === 'object' && cur !== null ? (cur as Record<string | number, unknown>)[k] : undefined;
  return cur;
}

function load(): Obj[] {
  const files = (readdirSync(DIR, { recursive: true }) as string[]).filter((f) => f.endsWith('.json')).sort();
  return files.flatMap((f) => {
    const doc = JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Obj;
    return doc['kind'] === 'List' ? (doc['items'] as Obj[]) : [doc];
  });
}

function one(objs: Obj[], kind: string, name?: string): Obj {
  const found = objs.filter((o) => o['kind'] === kind && (name === undefined || get(o, 'metadata', 'name') === name));
  assert.equal(found.length, 1, `${kind} ${name ?? ''}`);
  return found[0]!;
}

describe('deploy/admission manifests', () => {
  const objs = load();
  const deployment = one(objs, 'Deployment');
  const pod = get(deployment, 'spec', 'template', 'spec') as Obj;
  const container = (get(pod, 'containers') as Obj[])[0]!;
  const args = get(container, 'args') as string[];

  test('the ValidatingWebhookConfiguration: Services, CREATE/UPDATE, fail closed, no side effects, short timeout', () => {
    const vwc = one(objs, 'ValidatingWebhookConfiguration');
    const hooks = get(vwc, 'webhooks') as Obj[];
    assert.equal(hooks.length, 1);
    const h = hooks[0]!;
    assert.deepEqual(get(h, 'rules'), [
      { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['services'], scope: 'Namespaced' },
    ]);
    assert.equal(h['failurePolicy'], 'Fail');
    assert.equal(h['sideEffects'], 'None');
    assert.deepEqual(h['admissionReviewVersions'], ['v1']);
    const timeout = h['timeoutSeconds'] as number;
    assert.ok(timeout >= 1 && timeout <= 10, `timeoutSeconds ${timeout}`);
    assert.equal(get(h, 'clientConfig', 'service', 'path'), WEBHOOK_PATH);
    const svc = one(objs, 'Service', get(h, 'clientConfig', 'service', 'name') as string);
    assert.equal(get(svc, 'metadata', 'namespace'), get(h, 'clientConfig', 'service', 'namespace'));
    const port = (get(svc, 'spec', 'ports') as Obj[]).find((p) => p['port'] === get(h, 'clientConfig', 'service', 'port'));
    assert.ok(port !== undefined, 'the webhook port is a Service port');
    const containerPort = (get(container, 'ports') as Obj[]).find((p) => p['name'] === port['targetPort']);
    const cfg = resolveConfig(parseCommandArgs(args[0] as Command, args.slice(1), {}), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
    assert.equal(containerPort?.['containerPort'], parseListenAddress(cfg.flags.str('listen'), '--listen').port);
    // The override check must give up before the API server gives up on the webhook.
    assert.ok(cfg.flags.num('subject-access-review-timeout') < timeout * 1000);
    assert.equal(
      get(vwc, 'metadata', 'annotations', 'cert-manager.io/inject-ca-from'),
      `${String(get(svc, 'metadata', 'namespace'))}/${String(get(one(objs, 'Certificate'), 'metadata', 'name'))}`,
    );
  });

  test('every namespace is judged (no selector exempts one); only Services with externalIPs are sent, so the webhook never blocks its own Service', () => {
    const h = (get(one(objs, 'ValidatingWebhookConfiguration'), 'webhooks') as Obj[])[0]!;
    assert.equal(h['namespaceSelector'], undefined);
    assert.equal(h['objectSelector'], undefined);
    assert.deepEqual(h['matchConditions'], [{ name: 'has-external-ips', expression: 'has(object.spec.externalIPs) && size(object.spec.externalIPs) > 0' }]);
    // What the condition leaves out is what the webhook would allow anyway.
    for (const svc of objs.filter((o) => o['kind'] === 'Service')) {
      assert.equal(get(svc, 'spec', 'externalIPs'), undefined);
      const req = {
        uid: 'u',
        operation: 'CREATE',
        resource: { group: '', version: 'v1', resource: 'services' },
        namespace: String(get(svc, 'metadata', 'namespace')),
        object: svc,
      };
      assert.equal(decide(emptyPolicy('none'), req).reason, 'no-external-ips');
    }
  });

  test('the Deployment runs flags the CLI accepts, with the files its volumes provide', () => {
    assert.equal(args[0], 'admission-webhook');
    const cfg = resolveConfig(parseCommandArgs(args[0] as Command, args.slice(1), {}), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
    const mounts = get(container, 'volumeMounts') as Obj[];
    const volumes = get(pod, 'volumes') as Obj[];
    const volumeAt = (file: string): Obj => {
      const m = mounts.find((x) => file.startsWith(`${String(x['mountPath'])}/`));
      assert.ok(m !== undefined, `no mount holds ${file}`);
      return volumes.find((v) => v['name'] === m['name'])!;
    };
    const tls = volumeAt(cfg.flags.str('tls-cert-file'));
    assert.equal(volumeAt(cfg.flags.str('tls-private-key-file')), tls);
    const secretName = get(tls, 'secret', 'secretName');
    assert.equal(secretName, get(one(objs, 'Certificate'), 'spec', 'secretName'));
    const configFile = cfg.flags.str('config');
    const cmName = get(volumeAt(configFile), 'configMap', 'name') as string;
    const cm = one(objs, 'ConfigMap', cmName);
    const key = configFile.split('/').pop() ?? '';
    const policy = parsePolicyFile(get(cm, 'data', key) as string, key);
    assert.ok(policy.admit.length + policy.reject.length > 0);
    for (const probe of ['readinessProbe', 'livenessProbe']) {
      assert.equal(get(container, probe, 'httpGet', 'path'), '/healthz');
      assert.equal(get(container, probe, 'httpGet', 'scheme'), 'HTTPS');
    }
    const sec = get(container, 'securityContext') as Obj;
    assert.equal(sec['readOnlyRootFilesystem'], true);
    assert.equal(sec['allowPrivilegeEscalation'], false);
    assert.ok(
      mounts.some((m) => m['mountPath'] === '/tmp'),
      '/tmp is writable for tsx',
    );
  });

  test('RBAC: the webhook may create SubjectAccessReviews (and read the Network for --openshift-network), nothing else; the override role is separate', () => {
    const sa = pod['serviceAccountName'];
    const bindings = objs.filter((o) => o['kind'] === 'ClusterRoleBinding' && (get(o, 'subjects') as Obj[]).some((s) => s['name'] === sa));
    const roles = bindings.map((b) => one(objs, 'ClusterRole', get(b, 'roleRef', 'name') as string));
    const rules = roles.flatMap((r) => get(r, 'rules') as Obj[]).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
    assert.deepEqual(rules, [
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
      // only used with --openshift-network; documented as optional
      { apiGroups: ['config.openshift.io'], resources: ['networks'], verbs: ['get'] },
    ]);
    const override = one(objs, 'ClusterRole', 'hostwarden-externalip-override');
    assert.deepEqual(get(override, 'rules'), [{ apiGroups: ['network.openshift.io'], resources: ['service/externalips'], verbs: ['create'] }]);
  });

  test('cert-manager issues a certificate for the Service name the API server calls', () => {
    const svc = one(objs, 'Service');
    const name = `${String(get(svc, 'metadata', 'name'))}.${String(get(svc, 'metadata', 'namespace'))}.svc`;
    assert.ok((get(one(objs, 'Certificate'), 'spec', 'dnsNames') as string[]).includes(name));
  });
});
