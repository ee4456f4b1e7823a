/**
 * Renders the OLM bundle (deploy/operator/bundle/) and the OpenShift service-CA variant
 * (deploy/operator/openshift-service-ca/) from deploy/operator/*.json, so neither can drift from the
 * manifests the tests check against the code. test/operator/bundle.test.ts fails when a committed
 * file differs from what this renders.
 *
 *   node --import tsx bin/operator-bundle.ts          # rewrites both directories
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OPERATOR_DEPLOY_DIR = join(ROOT, 'deploy/operator');
export const BUNDLE_DIR = join(OPERATOR_DEPLOY_DIR, 'bundle');
export const SERVICE_CA_DIR = join(OPERATOR_DEPLOY_DIR, 'openshift-service-ca');

export const PACKAGE = 'hostwarden-operator';
export const CHANNEL = 'alpha';
/** Where OLM mounts the serving certificate it generates for each webhookdefinition's Deployment. */
export const OLM_CERT_DIR = '/apiserver.local.config/certificates';
export const SERVICE_CA_ANNOTATION = 'service.beta.openshift.io/serving-cert-secret-name';
export const INJECT_CABUNDLE_ANNOTATION = 'service.beta.openshift.io/inject-cabundle';
const CERT_MANAGER_ANNOTATION = 'cert-manager.io/inject-ca-from';

/** The bundle's image labels; metadata/annotations.yaml and bundle.Dockerfile both carry them. */
export const BUNDLE_ANNOTATIONS: Readonly<Record<string, string>> = {
  'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
  'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
  'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
  'operators.operatorframework.io.bundle.package.v1': PACKAGE,
  'operators.operatorframework.io.bundle.channels.v1': CHANNEL,
  'operators.operatorframework.io.bundle.channel.default.v1': CHANNEL,
};

export interface OperatorDeploy {
  crd: Obj;
  rbac: Obj[];
  deployment: Obj[];
  webhook: Obj;
  version: string;
}

export function readOperatorDeploy(dir = OPERATOR_DEPLOY_DIR): OperatorDeploy {
  const json = (f: string): Obj => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Obj;
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  return {
    crd: json('crd.json'),
    rbac: json('rbac.json')['items'] as Obj[],
    deployment: json('deployment.json')['items'] as Obj[],
    webhook: json('webhook.json'),
    version: pkg.version,
  };
}

const clone = <T>(v: T): T => structuredClone(v);
const ofKind = (items: Obj[], kind: string): Obj[] => items.filter((i) => i['kind'] === kind);

/** The CRD as OLM installs it: OLM sets the conversion webhook and injects its CA itself. */
export function bundleCrd(crd: Obj): Obj {
  const out = clone(crd);
  delete out['metadata']['annotations'];
  delete out['spec']['conversion'];
  return out;
}

/**
 * rbac.json's ClusterRole becomes clusterPermissions. Its Roles become permissions in the install
 * namespace, where the bundle runs the operands too; OLM creates no Role in another namespace, so
 * the CredentialsRequest rights (a Role in openshift-cloud-credential-operator) go cluster-wide.
 */
export function bundlePermissions(rbac: Obj[]): { clusterRules: Obj[]; namespacedRules: Obj[] } {
  const roles = ofKind(rbac, 'Role');
  const foreign = roles.filter((r) => r['metadata']['namespace'] === 'openshift-cloud-credential-operator');
  return {
    clusterRules: [...ofKind(rbac, 'ClusterRole').flatMap((r) => r['rules'] as Obj[]), ...foreign.flatMap((r) => r['rules'] as Obj[])],
    namespacedRules: roles.filter((r) => !foreign.includes(r)).flatMap((r) => r['rules'] as Obj[]),
  };
}

/** The Deployment under OLM: namespaces from the install namespace, OLM's certificate, images as relatedImages. */
export function bundleDeployment(deployment: Obj): Obj {
  const spec = clone(deployment['spec']) as Obj;
  const pod = spec['template']['spec'] as Obj;
  const container = pod['containers'][0] as Obj;
  const operandImage = operandImageOf(container);
  container['args'] = (container['args'] as string[]).map((a) => {
    if (a.startsWith('--operator-namespace=') || a.startsWith('--operand-namespace=')) return `${a.split('=')[0]!}=$(OPERATOR_NAMESPACE)`;
    if (a.startsWith('--operand-image=')) return '--operand-image=$(RELATED_IMAGE_OPERAND)';
    if (a.startsWith('--tls-cert-file=')) return `--tls-cert-file=${OLM_CERT_DIR}/apiserver.crt`;
    if (a.startsWith('--tls-private-key-file=')) return `--tls-private-key-file=${OLM_CERT_DIR}/apiserver.key`;
    return a;
  });
  container['env'] = [
    { name: 'OPERATOR_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    { name: 'RELATED_IMAGE_OPERAND', value: operandImage },
    ...((container['env'] as Obj[] | undefined) ?? []),
  ];
  // OLM mounts its own certificate volume; the cert-manager Secret does not exist under OLM.
  container['volumeMounts'] = (container['volumeMounts'] as Obj[]).filter((m) => m['name'] !== 'tls');
  pod['volumes'] = (pod['volumes'] as Obj[]).filter((v) => v['name'] !== 'tls');
  return { name: deployment['metadata']['name'], label: deployment['metadata']['labels'], spec };
}

function operandImageOf(container: Obj): string {
  const arg = (container['args'] as string[]).find((a) => a.startsWith('--operand-image='));
  return arg === undefined ? (container['image'] as string) : arg.slice('--operand-image='.length);
}

function webhookDefinitions(deploy: OperatorDeploy, deploymentName: string): Obj[] {
  const service = ofKind(deploy.deployment, 'Service')[0]!;
  const targetPort = (deploy.deployment[0]!['spec']['template']['spec']['containers'][0]['ports'] as Obj[]).find(
    (p) => p['name'] === service['spec']['ports'][0]['targetPort'],
  )!['containerPort'] as number;
  const validating = (deploy.webhook['webhooks'] as Obj[]).map((w) => ({
    type: 'ValidatingAdmissionWebhook',
    generateName: w['name'],
    deploymentName,
    containerPort: 443,
    targetPort,
    webhookPath: w['clientConfig']['service']['path'],
    admissionReviewVersions: w['admissionReviewVersions'],
    rules: (w['rules'] as Obj[]).map(({ scope: _scope, ...r }) => r),
    matchPolicy: w['matchPolicy'],
    failurePolicy: w['failurePolicy'],
    sideEffects: w['sideEffects'],
    timeoutSeconds: w['timeoutSeconds'],
  }));
  const conversion = deploy.crd['spec']['conversion'] as Obj;
  return [
    ...validating,
    {
      type: 'ConversionWebhook',
      generateName: `c${deploy.crd['spec']['names']['singular'] as string}.hostwarden.io`,
      deploymentName,
      containerPort: 443,
      targetPort,
      webhookPath: conversion['webhook']['clientConfig']['service']['path'],
      admissionReviewVersions: conversion['webhook']['conversionReviewVersions'],
      conversionCRDs: [deploy.crd['metadata']['name']],
      sideEffects: 'None',
    },
  ];
}

function ownedCrds(crd: Obj): Obj[] {
  const names = crd['spec']['names'] as Obj;
  return (crd['spec']['versions'] as Obj[]).map((v) => ({
    name: crd['metadata']['name'],
    version: v['name'],
    kind: names['kind'],
    displayName: 'External DNS',
    description: 'An external-dns operand run by Hostwarden: which sources it reads, which provider and zones it writes.',
    specDescriptors: [
      {
        path: 'provider.type',
        displayName: 'Provider',
        description: 'The DNS provider the operand writes to.',
        'x-descriptors': [
          'urn:alm:descriptor:com.tectonic.ui:select:AWS',
          'urn:alm:descriptor:com.tectonic.ui:select:GCP',
          'urn:alm:descriptor:com.tectonic.ui:select:Azure',
        ],
      },
      {
        path: 'source.type',
        displayName: 'Source',
        description: 'The kind of object the operand publishes.',
        'x-descriptors': ['urn:alm:descriptor:com.tectonic.ui:text'],
      },
      {
        path: 'zones',
        displayName: 'Zones',
        description: 'The zone IDs the operand may change; one container per zone.',
        'x-descriptors': ['urn:alm:descriptor:com.tectonic.ui:text'],
      },
      {
        path: 'domains',
        displayName: 'Domains',
        description: 'Include/exclude filters on the names it publishes.',
        'x-descriptors': ['urn:alm:descriptor:com.tectonic.ui:arrayFieldGroup:domains'],
      },
    ],
    statusDescriptors: [
      {
        path: 'conditions',
        displayName: 'Conditions',
        description: 'Whether the operand is available and its spec supported.',
        'x-descriptors': ['urn:alm:descriptor:io.kubernetes.conditions'],
      },
      { path: 'zones', displayName: 'Zones', description: 'The zones the operand manages.', 'x-descriptors': ['urn:alm:descriptor:com.tectonic.ui:text'] },
    ],
  }));
}

const FEATURES: Readonly<Record<string, string>> = {
  'features.operators.openshift.io/disconnected': 'false',
  'features.operators.openshift.io/fips-compliant': 'false',
  'features.operators.openshift.io/proxy-aware': 'true',
  'features.operators.openshift.io/tls-profiles': 'false',
  'features.operators.openshift.io/token-auth-aws': 'false',
  'features.operators.openshift.io/token-auth-azure': 'false',
  'features.operators.openshift.io/token-auth-gcp': 'false',
  'features.operators.openshift.io/cnf': 'false',
  'features.operators.openshift.io/cni': 'false',
  'features.operators.openshift.io/csi': 'false',
};

const EXAMPLE = {
  apiVersion: 'externaldns.olm.openshift.io/v1beta1',
  kind: 'ExternalDNS',
  metadata: { name: 'sample-aws' },
  spec: { provider: { type: 'AWS' }, source: { type: 'OpenShiftRoute', openshiftRouteOptions: { routerName: 'default' } }, zones: ['Z0123456789EXAMPLE'] },
};

export function renderCsv(deploy: OperatorDeploy): Obj {
  const dep = ofKind(deploy.deployment, 'Deployment')[0]!;
  const container = dep['spec']['template']['spec']['containers'][0] as Obj;
  const sa = ofKind(deploy.rbac, 'ServiceAccount')[0]!['metadata']['name'] as string;
  const { clusterRules, namespacedRules } = bundlePermissions(deploy.rbac);
  const name = dep['metadata']['name'] as string;
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: {
      name: `${PACKAGE}.v${deploy.version}`,
      annotations: {
        'alm-examples': JSON.stringify([EXAMPLE], null, 2),
        capabilities: 'Basic Install',
        categories: 'Networking',
        containerImage: container['image'],
        'operatorframework.io/suggested-namespace': 'openshift-operators',
        ...FEATURES,
      },
    },
    spec: {
      displayName: 'Hostwarden ExternalDNS Operator',
      description: 'Serves the externaldns.olm.openshift.io API and runs Hostwarden as the external-dns operand. See docs/operator.md.',
      version: deploy.version,
      maturity: 'alpha',
      provider: { name: 'Hostwarden' },
      keywords: ['dns', 'externaldns', 'operator'],
      // The conversion webhook serves every namespace's clients: OLM allows it only with AllNamespaces.
      installModes: [
        { type: 'OwnNamespace', supported: false },
        { type: 'SingleNamespace', supported: false },
        { type: 'MultiNamespace', supported: false },
        { type: 'AllNamespaces', supported: true },
      ],
      customresourcedefinitions: { owned: ownedCrds(deploy.crd) },
      install: {
        strategy: 'deployment',
        spec: {
          clusterPermissions: [{ serviceAccountName: sa, rules: clusterRules }],
          permissions: [{ serviceAccountName: sa, rules: namespacedRules }],
          deployments: [bundleDeployment(dep)],
        },
      },
      webhookdefinitions: webhookDefinitions(deploy, name),
      relatedImages: [
        { name: 'operator', image: container['image'] },
        { name: 'operand', image: operandImageOf(container) },
      ],
    },
  };
}

export function renderDockerfile(): string {
  const labels = Object.entries(BUNDLE_ANNOTATIONS).map(([k, v]) => `LABEL ${k}=${v}`);
  return [
    '# Rendered by bin/operator-bundle.ts; build from deploy/operator/bundle.',
    'FROM scratch',
    '',
    ...labels,
    '',
    'COPY manifests /manifests/',
    'COPY metadata /metadata/',
    '',
  ].join('\n');
}

/** Bundle files by path relative to deploy/operator/bundle. */
export function renderBundle(deploy: OperatorDeploy): Map<string, string> {
  const crd = bundleCrd(deploy.crd);
  const header = '# Rendered by bin/operator-bundle.ts from deploy/operator/*.json; do not edit.\n';
  return new Map([
    [`manifests/${PACKAGE}.clusterserviceversion.yaml`, header + stringify(renderCsv(deploy))],
    [`manifests/${crd['metadata']['name'] as string}.crd.yaml`, header + stringify(crd)],
    ['metadata/annotations.yaml', header + stringify({ annotations: BUNDLE_ANNOTATIONS })],
    ['bundle.Dockerfile', renderDockerfile()],
  ]);
}

/**
 * deployment.json, webhook.json and crd.json for OpenShift's service CA instead of cert-manager: the
 * service CA writes the serving certificate into the Secret the Deployment already mounts and
 * injects its CA bundle into the webhook configuration and the CRD's conversion webhook.
 */
export function renderServiceCa(deploy: OperatorDeploy): Map<string, string> {
  const deployment = clone(deploy.deployment).filter((o) => !String(o['apiVersion']).startsWith('cert-manager.io/'));
  const secretName = (ofKind(deployment, 'Deployment')[0]!['spec']['template']['spec']['volumes'] as Obj[]).find((v) => v['name'] === 'tls')!['secret'][
    'secretName'
  ] as string;
  for (const svc of ofKind(deployment, 'Service')) svc['metadata']['annotations'] = { [SERVICE_CA_ANNOTATION]: secretName };
  const swap = (o: Obj): Obj => {
    const out = clone(o);
    const { [CERT_MANAGER_ANNOTATION]: _gone, ...rest } = (out['metadata']['annotations'] as Record<string, string> | undefined) ?? {};
    out['metadata']['annotations'] = { ...rest, [INJECT_CABUNDLE_ANNOTATION]: 'true' };
    return out;
  };
  const json = (o: Obj): string => `${JSON.stringify(o, null, 2)}\n`;
  return new Map([
    ['deployment.json', json({ apiVersion: 'v1', kind: 'List', items: deployment })],
    ['webhook.json', json(swap(deploy.webhook))],
    ['crd.json', json(swap(deploy.crd))],
  ]);
}

function write(dir: string, files: Map<string, string>): void {
  rmSync(dir, { recursive: true, force: true });
  for (const [path, text] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const deploy = readOperatorDeploy();
  write(BUNDLE_DIR, renderBundle(deploy));
  write(SERVICE_CA_DIR, renderServiceCa(deploy));
}
