/**
 * deploy/operator/bundle (OLM) and deploy/operator/openshift-service-ca, checked offline: the
 * committed files are what bin/operator-bundle.ts renders from deploy/operator/*.json, the CSV has
 * the fields OLM's registry+v1 format documents, it owns exactly the CRDs it ships, its webhooks
 * point at the paths the operator serves, its RBAC grants what rbac.json grants, and the image
 * labels match metadata/annotations.yaml. The CSV is also created against OLM's own ClusterServiceVersion
 * schema (test/support/crds/olm) on the test API server, which validates and prunes.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { KubernetesObjectApi } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { parse } from 'yaml';
import {
  BUNDLE_DIR,
  INJECT_CABUNDLE_ANNOTATION,
  OLM_CERT_DIR,
  SERVICE_CA_ANNOTATION,
  SERVICE_CA_DIR,
  readOperatorDeploy,
  renderBundle,
  renderServiceCa,
} from '../../bin/operator-bundle.ts';
import { parseListenAddress, resolveConfig } from '../../src/config/config.ts';
import { parseCommandArgs } from '../../src/cli/commands.ts';
import type { Command } from '../../src/cli/commands.ts';
import { PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';
import { CONVERT_PATH, VALIDATE_PATH } from '../../src/operator/webhook.ts';
import { installCrd, loadCrd } from '../support/crds/load.ts';
import type { CrdObject } from '../support/crds/load.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const deploy = readOperatorDeploy();
const read = (dir: string, f: string): string => readFileSync(join(dir, f), 'utf8');
const manifests = readdirSync(join(BUNDLE_DIR, 'manifests')).map((f) => parse(read(BUNDLE_DIR, `manifests/${f}`)) as Obj);
const csv = manifests.find((m) => m['kind'] === 'ClusterServiceVersion')!;
const crds = manifests.filter((m) => m['kind'] === 'CustomResourceDefinition');
const INSTALL_MODES = ['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'];
const WEBHOOK_TYPES = ['ValidatingAdmissionWebhook', 'MutatingAdmissionWebhook', 'ConversionWebhook'];

function assertStrings(v: unknown, what: string): void {
  assert.ok(Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === 'string'), `${what}: a non-empty list of strings`);
}

function assertRules(rules: Obj[], what: string): void {
  assert.ok(Array.isArray(rules) && rules.length > 0, `${what}: rules`);
  for (const r of rules) {
    assert.ok(Array.isArray(r['apiGroups']), `${what}: apiGroups`);
    assertStrings(r['resources'], `${what}: resources`);
    assertStrings(r['verbs'], `${what}: verbs`);
  }
}

/** Does some rule grant verb on group/resource? */
function grants(rules: Obj[], group: string, resource: string, verb: string): boolean {
  return rules.some((r) => r['apiGroups'].includes(group) && r['resources'].includes(resource) && r['verbs'].includes(verb));
}

describe('OLM bundle', () => {
  test('the committed files are what bin/operator-bundle.ts renders', () => {
    for (const [f, text] of renderBundle(deploy))
      assert.equal(read(BUNDLE_DIR, f), text, `deploy/operator/bundle/${f} is stale: run node --import tsx bin/operator-bundle.ts`);
    for (const [f, text] of renderServiceCa(deploy))
      assert.equal(read(SERVICE_CA_DIR, f), text, `deploy/operator/openshift-service-ca/${f} is stale: run node --import tsx bin/operator-bundle.ts`);
    assert.deepEqual(
      readdirSync(join(BUNDLE_DIR, 'manifests')).sort(),
      [...renderBundle(deploy).keys()]
        .filter((f) => f.startsWith('manifests/'))
        .map((f) => f.slice(10))
        .sort(),
    );
  });

  test('the CSV has the documented required fields', () => {
    assert.equal(csv['apiVersion'], 'operators.coreos.com/v1alpha1');
    const spec = csv['spec'] as Obj;
    assert.match(spec['version'], /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/, 'spec.version is semver');
    const pkg = parse(read(BUNDLE_DIR, 'metadata/annotations.yaml'))['annotations']['operators.operatorframework.io.bundle.package.v1'];
    assert.equal(csv['metadata']['name'], `${pkg as string}.v${spec['version'] as string}`);
    for (const f of ['displayName', 'description', 'maturity']) assert.equal(typeof spec[f], 'string', `spec.${f}`);
    assert.equal(typeof spec['provider']['name'], 'string');
    const examples = JSON.parse(csv['metadata']['annotations']['alm-examples']) as Obj[];
    assert.ok(
      examples.every((e) => crds.some((c) => c['spec']['names']['kind'] === e['kind'] && e['apiVersion'] === `${c['spec']['group'] as string}/v1beta1`)),
    );
    const install = spec['install'] as Obj;
    assert.equal(install['strategy'], 'deployment');
    assert.ok(install['spec']['deployments'].length === 1 && typeof install['spec']['deployments'][0]['name'] === 'string');
    for (const kind of ['clusterPermissions', 'permissions']) {
      for (const p of install['spec'][kind] as Obj[]) {
        assert.equal(
          p['serviceAccountName'],
          install['spec']['deployments'][0]['spec']['template']['spec']['serviceAccountName'],
          `${kind}: for the operator's ServiceAccount`,
        );
        assertRules(p['rules'], kind);
      }
    }
    for (const i of spec['relatedImages'] as Obj[])
      assert.ok(typeof i['name'] === 'string' && /^[^\s:]+:[^\s]+$/.test(i['image']), `relatedImages: ${JSON.stringify(i)}`);
  });

  test('the openshift feature annotations are all present, "true" or "false"', () => {
    const ann = csv['metadata']['annotations'] as Record<string, string>;
    for (const f of [
      'disconnected',
      'fips-compliant',
      'proxy-aware',
      'tls-profiles',
      'token-auth-aws',
      'token-auth-azure',
      'token-auth-gcp',
      'cnf',
      'cni',
      'csi',
    ]) {
      assert.ok(['true', 'false'].includes(ann[`features.operators.openshift.io/${f}`]!), f);
    }
    // Proxy-aware because the operator hands its proxy variables on to the operands (docs/operator.md).
    assert.equal(ann['features.operators.openshift.io/proxy-aware'], 'true');
  });

  test('install modes: AllNamespaces only, as OLM requires of a CSV with a conversion webhook', () => {
    const modes = csv['spec']['installModes'] as Obj[];
    assert.deepEqual(modes.map((m) => m['type']).sort(), [...INSTALL_MODES].sort());
    assert.ok(modes.every((m) => typeof m['supported'] === 'boolean'));
    assert.deepEqual(
      modes.filter((m) => m['supported']).map((m) => m['type']),
      ['AllNamespaces'],
    );
  });

  test('owned CRDs are exactly the CRDs in manifests/, one entry per served version', () => {
    const owned = (csv['spec']['customresourcedefinitions']['owned'] as Obj[])
      .map((o) => `${o['name'] as string}/${o['version'] as string}/${o['kind'] as string}`)
      .sort();
    const shipped = crds
      .flatMap((c) =>
        (c['spec']['versions'] as Obj[])
          .filter((v) => v['served'])
          .map((v) => `${c['metadata']['name'] as string}/${v['name'] as string}/${c['spec']['names']['kind'] as string}`),
      )
      .sort();
    assert.deepEqual(owned, shipped);
    for (const o of csv['spec']['customresourcedefinitions']['owned'] as Obj[]) {
      assert.ok(typeof o['displayName'] === 'string' && typeof o['description'] === 'string');
      const crd = crds.find((c) => c['metadata']['name'] === o['name'])!;
      const schema = (crd['spec']['versions'] as Obj[]).find((v) => v['name'] === o['version'])!['schema']['openAPIV3Schema'];
      for (const [kind, list] of [
        ['spec', o['specDescriptors']],
        ['status', o['statusDescriptors']],
      ] as const) {
        for (const d of list as Obj[]) {
          const found = (d['path'] as string).split('.').reduce<Obj | undefined>((s, k) => s?.['properties']?.[k], schema['properties'][kind]);
          assert.ok(found !== undefined, `${o['version'] as string} ${kind}Descriptor ${d['path'] as string} names a field of the schema`);
          assertStrings(d['x-descriptors'], `${d['path'] as string} x-descriptors`);
        }
      }
    }
    // OLM sets the conversion webhook and its CA; a cert-manager annotation would fight it.
    for (const c of crds) assert.ok(c['spec']['conversion'] === undefined && c['metadata']['annotations'] === undefined);
  });

  test('webhookdefinitions point at the paths and port the operator serves', () => {
    const defs = csv['spec']['webhookdefinitions'] as Obj[];
    const dep = csv['spec']['install']['spec']['deployments'][0] as Obj;
    const c = dep['spec']['template']['spec']['containers'][0] as Obj;
    const env = Object.fromEntries((c['env'] as Obj[]).filter((e) => e['value'] !== undefined).map((e) => [e['name'], e['value']]));
    const args = (c['args'] as string[]).map((a) => a.replace(/\$\((\w+)\)/g, (_m, v: string) => env[v] ?? 'openshift-operators'));
    const cfg = resolveConfig(parseCommandArgs(args[0] as Command, args.slice(1), {}), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
    const port = parseListenAddress(cfg.flags.str('webhook-listen'), '--webhook-listen').port;
    assert.ok(cfg.flags.str('tls-cert-file').startsWith(`${OLM_CERT_DIR}/`), 'serves the certificate OLM mounts');
    assert.ok(cfg.flags.str('tls-private-key-file').startsWith(`${OLM_CERT_DIR}/`));
    for (const d of defs) {
      assert.ok(WEBHOOK_TYPES.includes(d['type']), d['type']);
      assert.equal(d['deploymentName'], dep['name']);
      assert.equal(d['targetPort'], port);
      assert.ok(Number.isInteger(d['containerPort']));
      assert.equal(typeof d['generateName'], 'string');
      assertStrings(d['admissionReviewVersions'], 'admissionReviewVersions');
      assert.ok(['None', 'NoneOnDryRun'].includes(d['sideEffects']));
    }
    assert.deepEqual(
      defs.filter((d) => d['type'] === 'ValidatingAdmissionWebhook').map((d) => d['webhookPath']),
      [VALIDATE_PATH],
    );
    const conv = defs.filter((d) => d['type'] === 'ConversionWebhook');
    assert.deepEqual(
      conv.map((d) => d['webhookPath']),
      [CONVERT_PATH],
    );
    assert.deepEqual(
      conv[0]!['conversionCRDs'],
      crds.map((x) => x['metadata']['name']),
    );
    const validating = defs.find((d) => d['type'] === 'ValidatingAdmissionWebhook')!;
    assert.deepEqual(validating['rules'][0]['resources'], [crds[0]!['spec']['names']['plural']]);
  });

  test('the CSV grants every rule rbac.json grants', () => {
    const spec = csv['spec']['install']['spec'] as Obj;
    const all = [...spec['clusterPermissions'], ...spec['permissions']].flatMap((p: Obj) => p['rules'] as Obj[]);
    for (const item of deploy.rbac.filter((i) => i['rules'] !== undefined)) {
      for (const r of item['rules'] as Obj[]) {
        for (const g of r['apiGroups'] as string[]) {
          for (const res of r['resources'] as string[]) {
            for (const v of r['verbs'] as string[])
              assert.ok(grants(all, g, res, v), `${item['kind'] as string} ${String(item['metadata']['namespace'])}: ${v} ${g}/${res}`);
          }
        }
      }
    }
    // The install namespace holds the operator and its operands; the Roles of both go there.
    const args = spec['deployments'][0]['spec']['template']['spec']['containers'][0]['args'] as string[];
    assert.ok(args.includes('--operator-namespace=$(OPERATOR_NAMESPACE)') && args.includes('--operand-namespace=$(OPERATOR_NAMESPACE)'));
  });

  test('annotations.yaml and the bundle.Dockerfile labels agree', () => {
    const ann = parse(read(BUNDLE_DIR, 'metadata/annotations.yaml'))['annotations'] as Record<string, string>;
    const labels = Object.fromEntries(
      read(BUNDLE_DIR, 'bundle.Dockerfile')
        .split('\n')
        .filter((l) => l.startsWith('LABEL '))
        .map((l) => l.slice(6).split('=') as [string, string]),
    );
    assert.deepEqual(labels, ann);
    for (const k of ['mediatype', 'manifests', 'metadata', 'package', 'channels']) assert.ok(ann[`operators.operatorframework.io.bundle.${k}.v1`], k);
    assert.equal(ann['operators.operatorframework.io.bundle.mediatype.v1'], 'registry+v1');
    assert.ok(ann['operators.operatorframework.io.bundle.channels.v1']!.split(',').includes(ann['operators.operatorframework.io.bundle.channel.default.v1']!));
    for (const dir of ['manifests', 'metadata']) assert.match(read(BUNDLE_DIR, 'bundle.Dockerfile'), new RegExp(`^COPY ${dir} /${dir}/$`, 'm'));
  });
});

describe('service-CA certificates (deploy/operator/openshift-service-ca)', () => {
  const rendered = renderServiceCa(deploy);
  const items = (JSON.parse(rendered.get('deployment.json')!) as Obj)['items'] as Obj[];
  const webhook = JSON.parse(rendered.get('webhook.json')!) as Obj;
  const crd = JSON.parse(rendered.get('crd.json')!) as Obj;

  test('the webhook Service asks the service CA for the Secret the Deployment mounts', () => {
    assert.ok(
      items.every((i) => !String(i['apiVersion']).startsWith('cert-manager.io/')),
      'no cert-manager objects',
    );
    const dep = items.find((i) => i['kind'] === 'Deployment')!;
    const svc = items.find((i) => i['kind'] === 'Service')!;
    const pod = dep['spec']['template']['spec'] as Obj;
    const c = pod['containers'][0] as Obj;
    const cert = (c['args'] as string[]).find((a) => a.startsWith('--tls-cert-file='))!.split('=')[1]!;
    const mount = (c['volumeMounts'] as Obj[]).find((m) => cert.startsWith(`${m['mountPath'] as string}/`))!;
    const secret = (pod['volumes'] as Obj[]).find((v) => v['name'] === mount['name'])!['secret']['secretName'];
    assert.equal(svc['metadata']['annotations'][SERVICE_CA_ANNOTATION], secret);
    // The service CA writes tls.crt/tls.key, the names the args read.
    assert.deepEqual(
      [cert, (c['args'] as string[]).find((a) => a.startsWith('--tls-private-key-file='))],
      [`${mount['mountPath'] as string}/tls.crt`, `--tls-private-key-file=${mount['mountPath'] as string}/tls.key`],
    );
  });

  test('the webhook configuration and the CRD get the CA bundle injected, not from cert-manager', () => {
    for (const o of [webhook, crd]) {
      assert.equal(o['metadata']['annotations'][INJECT_CABUNDLE_ANNOTATION], 'true', o['kind']);
      assert.equal(o['metadata']['annotations']['cert-manager.io/inject-ca-from'], undefined, o['kind']);
    }
    const svc = items.find((i) => i['kind'] === 'Service')!;
    const refs = [...(webhook['webhooks'] as Obj[]).map((w) => w['clientConfig']['service']), crd['spec']['conversion']['webhook']['clientConfig']['service']];
    for (const r of refs) assert.deepEqual([r['namespace'], r['name']], [svc['metadata']['namespace'], svc['metadata']['name']]);
  });

  test('everything else is the cert-manager variant unchanged', () => {
    const base = deploy.deployment.filter((i) => !String(i['apiVersion']).startsWith('cert-manager.io/'));
    assert.deepEqual(
      items.find((i) => i['kind'] === 'Deployment'),
      base.find((i) => i['kind'] === 'Deployment'),
    );
    assert.deepEqual(webhook['webhooks'], deploy.webhook['webhooks']);
    assert.deepEqual(crd['spec'], deploy.crd['spec']);
  });
});

/** Leaf paths of `sent` that `stored` lacks: what the server pruned. Defaults it adds are fine. */
function lostPaths(sent: unknown, stored: unknown, at: string): string[] {
  if (typeof sent !== 'object' || sent === null) return stored === undefined ? [at] : [];
  if (typeof stored !== 'object' || stored === null) return [at];
  return Object.entries(sent as Obj).flatMap(([k, v]) => lostPaths(v, (stored as Obj)[k], `${at}.${k}`));
}

/** The rendered objects as an API server takes them: created through @kubernetes/client-node against the test API server. */
describe('rendered objects on the test API server', () => {
  async function withServer(namespaces: string[], body: (objects: KubernetesObjectApi, api: TestApiServer) => Promise<void>): Promise<void> {
    const api = await startTestApiServer({ namespaces });
    try {
      await body(KubernetesObjectApi.makeApiClient(api.kubeConfig()), api);
    } finally {
      await api.stop();
    }
  }

  test("the CSV is valid by OLM's own ClusterServiceVersion schema, and nothing of it is pruned", async () => {
    await withServer(['openshift-operators'], async (objects, api) => {
      await installCrd(api, loadCrd('olm', 'clusterserviceversions.operators.coreos.com'));
      const sent: Obj = { ...csv, metadata: { ...csv['metadata'], namespace: 'openshift-operators' } };
      const stored = (await objects.create(sent as KubernetesObject)) as Obj;
      assert.deepEqual(lostPaths(sent['spec'], stored['spec'], 'spec'), [], 'fields the CSV schema does not know (pruned)');
    });
  });

  test("the bundle's CRD is accepted and its alm-examples validate against it", async () => {
    await withServer([], async (objects, api) => {
      const crd = crds[0] as CrdObject;
      await installCrd(api, crd);
      for (const example of JSON.parse(csv['metadata']['annotations']['alm-examples']) as Obj[]) {
        const created = (await objects.create(example as KubernetesObject)) as Obj;
        assert.deepEqual(created['spec']['zones'], example['spec']['zones']);
      }
    });
  });

  test('the service-CA variant is accepted and keeps its annotations', async () => {
    const rendered = renderServiceCa(deploy);
    const items = (JSON.parse(rendered.get('deployment.json')!) as Obj)['items'] as Obj[];
    const crd = JSON.parse(rendered.get('crd.json')!) as CrdObject;
    await withServer(['hostwarden-operator'], async (objects, api) => {
      await installCrd(api, crd);
      for (const o of [...items, JSON.parse(rendered.get('webhook.json')!) as Obj]) await objects.create(o as KubernetesObject);
      const svc = (await objects.read({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'hostwarden-operator-webhook', namespace: 'hostwarden-operator' },
      })) as Obj;
      assert.equal(svc['metadata']['annotations'][SERVICE_CA_ANNOTATION], 'hostwarden-operator-webhook-tls');
      const vwc = (await objects.read({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'hostwarden-operator' },
      })) as Obj;
      assert.equal(vwc['metadata']['annotations'][INJECT_CABUNDLE_ANNOTATION], 'true');
      const storedCrd = (await objects.read({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: crd.metadata.name },
      })) as Obj;
      assert.equal(storedCrd['metadata']['annotations'][INJECT_CABUNDLE_ANNOTATION], 'true');
    });
  });
});
