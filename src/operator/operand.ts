/**
 * The operand of one ExternalDNS, as plain Kubernetes objects (pure: no I/O, no clock): a
 * Deployment of `hostwarden run` with one container per zone, its ServiceAccount, RBAC and the
 * copied credentials Secret. The args follow the upstream operator's mapping (docs/operator.md has
 * the table), so an ExternalDNS object means the same DNS behaviour under either operator.
 */
import { createHash } from 'node:crypto';
import { boundTokenVolume, needsBoundToken, partitionSettings, stsCredentialsFile } from './aws-sts.ts';
import { withDefaults } from './defaults.ts';
import { operandRbac } from './operand-rbac.ts';
import type { ClusterRole, ClusterRoleBinding } from './operand-rbac.ts';
import { EXTERNALDNSES, V1BETA1 } from './types.ts';
import type { ExternalDNS, ExternalDNSSpec, SecretRef } from './types.ts';

export const METRICS_START_PORT = 7979;
export const OWNER_LABEL = 'externaldns.olm.openshift.io/owning-externaldns';
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'hostwarden-operator' } as const;
export const SECRET_HASH_ANNOTATION = 'externaldns.olm.openshift.io/credentials-secret-hash';
export const TXT_PREFIX = 'external-dns-';
export const CREDENTIALS_DIR = '/etc/hostwarden/credentials';
export const TRUSTED_CA_DIR = '/etc/pki/ca-trust/extracted/pem';
export const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy'] as const;

export interface PlatformFacts {
  openshift: boolean;
  /** The cluster's GCP project on OpenShift (Infrastructure status). */
  gcpProject?: string | undefined;
  /** The cluster's AWS region on OpenShift (Infrastructure status): its partition shapes the operand. */
  awsRegion?: string | undefined;
}

export interface OperandSettings {
  /** Where the operand objects live (`--operand-namespace`). */
  namespace: string;
  image: string;
  platform: PlatformFacts;
  /** Proxy variables of the operator, handed on to the operand. */
  proxy?: Readonly<Record<string, string>>;
  /** ConfigMap in the operand namespace with the trusted CA bundle (`ca-bundle.crt`). */
  trustedCAConfigMap?: string | undefined;
  /** Extra args for every container (tests point the AWS SDK at an emulator this way). */
  extraArgs?: readonly string[];
}

export interface SecretData {
  /** base64 values, as the API returns them. */
  data: Readonly<Record<string, string>>;
}

type Obj = Record<string, unknown>;

export interface OperandObjects {
  serviceAccount: Obj;
  clusterRole: ClusterRole;
  clusterRoleBinding: ClusterRoleBinding;
  /** The copy of the user's Secret, or the azure.json generated from a minted one (undefined when none is needed or the platform's is mounted as is). */
  secret: Obj | undefined;
  deployment: Obj;
  /** One per container: the zone ids, or [] when the operand is not split by zone. */
  zones: string[];
}

export function operandName(ed: Pick<ExternalDNS, 'metadata'>): string {
  return `hostwarden-${ed.metadata.name}`;
}

export function credentialsSecretName(ed: Pick<ExternalDNS, 'metadata'>): string {
  return `hostwarden-${ed.metadata.name}-credentials`;
}

/** The Secret holding the azure.json built from the Cloud Credential Operator's minted keys. */
export function azureConfigSecretName(ed: Pick<ExternalDNS, 'metadata'>): string {
  return `hostwarden-${ed.metadata.name}-azure-config`;
}

/** Azure on OpenShift without a user Secret: the operand's config is generated from the minted one. */
export function mintedAzure(spec: ExternalDNSSpec, s: Pick<OperandSettings, 'platform'>): boolean {
  return spec.provider?.type === 'Azure' && s.platform.openshift && userSecretRef(spec) === undefined;
}

/**
 * azure.json from the minted keys, exactly as upstream's credentials-secret controller writes it
 * (Go marshals a map with sorted keys; azure_region is not used by the provider and not copied).
 */
export function azureConfigFromMinted(data: Readonly<Record<string, string>>): string {
  return JSON.stringify({
    aadClientId: unb64(data['azure_client_id']),
    aadClientSecret: unb64(data['azure_client_secret']),
    resourceGroup: unb64(data['azure_resourcegroup']),
    subscriptionId: unb64(data['azure_subscription_id']),
    tenantId: unb64(data['azure_tenant_id']),
  });
}

function generatedAzureSecret(ed: ExternalDNS, s: OperandSettings, minted: SecretData): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: azureConfigSecretName(ed), namespace: s.namespace, labels: labelsOf(ed), ownerReferences: [ownerReference(ed)] },
    type: 'Opaque',
    data: { 'azure.json': b64(azureConfigFromMinted(minted.data)) },
  };
}

/** The Secret the user named in the spec, if the provider takes one. */
export function userSecretRef(spec: ExternalDNSSpec): SecretRef | undefined {
  const p = spec.provider ?? {};
  const ref =
    p.type === 'AWS'
      ? p.aws?.credentials
      : p.type === 'GCP'
        ? p.gcp?.credentials
        : p.type === 'Azure'
          ? p.azure?.configFile
          : p.type === 'PowerDNS'
            ? p.powerDNS?.apiKey
            : p.type === 'RFC2136'
              ? p.rfc2136?.tsigSecret
              : undefined;
  return ref === undefined || ref.name === '' ? undefined : ref;
}

/** A stable digest of a Secret's content: it goes into the pod template, so new content rolls the pods. */
export function secretHash(secret: SecretData | undefined): string {
  if (secret === undefined) return '';
  const h = createHash('sha256');
  for (const key of Object.keys(secret.data).sort()) h.update(`${key}\0${secret.data[key] ?? ''}\0`);
  return h.digest('hex');
}

export function ownerReference(ed: ExternalDNS): Obj {
  return { apiVersion: V1BETA1, kind: EXTERNALDNSES.kind, name: ed.metadata.name, uid: ed.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

function unb64(v: string | undefined): string {
  return v === undefined ? '' : Buffer.from(v, 'base64').toString('utf8');
}

/**
 * The copy in the operand namespace. For AWS the access key pair becomes a shared-credentials file
 * too (key `credentials`), the one form the SDK's default chain reads from a mounted volume.
 */
export function copiedSecret(ed: ExternalDNS, s: OperandSettings, source: SecretData): Obj {
  const spec = withDefaults(ed.spec);
  const data: Record<string, string> = { ...source.data };
  const id = unb64(source.data['aws_access_key_id']);
  if (spec.provider?.type === 'AWS' && id !== '' && source.data['credentials'] === undefined) {
    data['credentials'] = b64(`[default]\naws_access_key_id = ${id}\naws_secret_access_key = ${unb64(source.data['aws_secret_access_key'])}\n`);
  }
  // An STS Secret that only names the role: the file points the SDK at the mounted token.
  const role = unb64(source.data['role_arn']).trim();
  if (spec.provider?.type === 'AWS' && id === '' && role !== '' && source.data['credentials'] === undefined) {
    data['credentials'] = b64(stsCredentialsFile(role));
  }
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: credentialsSecretName(ed), namespace: s.namespace, labels: labelsOf(ed), ownerReferences: [ownerReference(ed)] },
    type: 'Opaque',
    data,
  };
}

function labelsOf(ed: ExternalDNS): Record<string, string> {
  return { ...MANAGED_BY, [OWNER_LABEL]: ed.metadata.name };
}

function combine(patterns: readonly string[]): string {
  return patterns.length === 1 ? (patterns[0] ?? '') : patterns.map((p) => `(${p})`).join('|');
}

function labelSelector(filter: NonNullable<ExternalDNSSpec['source']>['labelFilter']): string {
  const parts = Object.entries(filter?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of filter?.matchExpressions ?? []) {
    const values = (e.values ?? []).join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.join(',');
}

const PROVIDER_ARG: Readonly<Record<string, string>> = {
  AWS: 'aws',
  GCP: 'google',
  Azure: 'azure',
  RFC2136: 'rfc2136',
  PowerDNS: 'pdns',
  Embedded: 'embedded',
};
const SOURCE_ARG: Readonly<Record<string, string>> = { Service: 'service', CRD: 'crd', OpenShiftRoute: 'openshift-route' };

/**
 * The args of the container for zone number `seq` (`zone` '' when not split by zone; `privateDns`
 * for the Azure private-zone container of an operand without zones).
 */
export function operandArgs(ed: ExternalDNS, s: OperandSettings, seq: number, zone: string, hasSecret: boolean, privateDns = false): string[] {
  const spec = withDefaults(ed.spec);
  const p = spec.provider ?? {};
  const src = spec.source ?? {};
  const args: string[] = [];
  const include: string[] = [];
  const exclude: string[] = [];
  for (const d of spec.domains ?? []) {
    if (d.matchType === 'Pattern') (d.filterType === 'Exclude' ? exclude : include).push(d.pattern ?? '');
    else args.push(`${d.filterType === 'Exclude' ? '--exclude-domains' : '--domain-filter'}=${d.name ?? ''}`);
  }
  if (include.length > 0) args.push(`--regex-domain-filter=${combine(include)}`);
  if (exclude.length > 0) args.push(`--regex-domain-exclusion=${combine(exclude)}`);
  let provider = PROVIDER_ARG[p.type ?? ''] ?? '';
  if (p.type === 'Azure' && (privateDns || zone.toLowerCase().includes('privatednszones'))) provider = 'azure-private-dns';
  args.push(
    `--metrics-address=127.0.0.1:${METRICS_START_PORT + seq}`,
    `--txt-owner-id=external-dns-${ed.metadata.name}`,
    `--provider=${provider}`,
    `--source=${SOURCE_ARG[src.type ?? ''] ?? ''}`,
    '--policy=sync',
    '--registry=txt',
    `--txt-prefix=${TXT_PREFIX}`,
    // One replica with the Recreate strategy: no Lease needed, and containers of one pod must not compete.
    '--leader-elect=false',
    `--status-externaldns=${ed.metadata.name}`,
  );
  if (zone !== '') args.push(`--zone-id-filter=${zone}`);
  if ((src.namespace ?? '') !== '') args.push(`--namespace=${src.namespace ?? ''}`);
  const selector = labelSelector(src.labelFilter);
  if (selector !== '') args.push(`--label-filter=${selector}`);
  const types = src.type === 'Service' ? (src.service?.serviceType ?? []) : [];
  for (const t of types) args.push(`--service-type-filter=${t}`);
  if (types.includes('ClusterIP')) args.push('--publish-internal-services');
  if (src.hostnameAnnotation === 'Ignore') args.push('--ignore-hostname-annotation');
  if ((src.fqdnTemplate ?? []).length > 0) args.push(`--fqdn-template=${(src.fqdnTemplate ?? []).join(',')}`);
  if (src.type === 'CRD') {
    if ((src.crd?.apiVersion ?? '') !== '') args.push(`--crd-source-apiversion=${src.crd?.apiVersion ?? ''}`);
    if ((src.crd?.kind ?? '') !== '') args.push(`--crd-source-kind=${src.crd?.kind ?? ''}`);
  }
  if (src.type === 'OpenShiftRoute' && (src.openshiftRouteOptions?.routerName ?? '') !== '') {
    args.push(`--openshift-router-name=${src.openshiftRouteOptions?.routerName ?? ''}`);
  }
  if (spec.intervalSeconds !== undefined) args.push(`--interval=${spec.intervalSeconds}s`);
  args.push(...providerArgs(spec, s, hasSecret));
  args.push(...(s.extraArgs ?? []));
  return args;
}

function providerArgs(spec: ExternalDNSSpec, s: OperandSettings, hasSecret: boolean): string[] {
  const p = spec.provider ?? {};
  const out: string[] = [];
  switch (p.type) {
    case 'AWS':
      if (hasSecret) out.push(`--aws-shared-credentials-file=${CREDENTIALS_DIR}/credentials`);
      if ((p.aws?.assumeRole?.arn ?? '') !== '') out.push(`--aws-assume-role=${p.aws?.assumeRole?.arn ?? ''}`);
      if ((p.aws?.assumeRole?.externalID ?? '') !== '') out.push(`--aws-assume-role-external-id=${p.aws?.assumeRole?.externalID ?? ''}`);
      out.push(...partitionSettings(spec, s.platform.awsRegion).args);
      break;
    case 'GCP': {
      const project = s.platform.openshift ? (s.platform.gcpProject ?? '') : (p.gcp?.project ?? '');
      if (project !== '') out.push(`--google-project=${project}`);
      if (hasSecret) out.push(`--google-key-file=${CREDENTIALS_DIR}/${s.platform.openshift ? 'service_account.json' : 'gcp-credentials.json'}`);
      break;
    }
    case 'Azure':
      // Upstream always sets it (kubernetes-sigs/external-dns#2922): a zone taken over from the
      // upstream operand keeps its ownership record names for wildcards.
      out.push('--txt-wildcard-replacement=any');
      if (hasSecret) out.push(`--azure-config-file=${CREDENTIALS_DIR}/azure.json`);
      break;
    case 'RFC2136': {
      const r = p.rfc2136 ?? {};
      out.push(`--rfc2136-host=${r.host ?? ''}`, `--rfc2136-zone=${r.zone ?? ''}`);
      if (r.port !== undefined) out.push(`--rfc2136-port=${r.port}`);
      if ((r.tsigKeyName ?? '') !== '') out.push(`--rfc2136-tsig-keyname=${r.tsigKeyName ?? ''}`);
      if ((r.tsigAlgorithm ?? '') !== '') out.push(`--rfc2136-tsig-secret-alg=${r.tsigAlgorithm ?? ''}`);
      if (!hasSecret) out.push('--rfc2136-insecure');
      break;
    }
    case 'PowerDNS':
      out.push(`--pdns-server=${p.powerDNS?.server ?? ''}`);
      break;
    case 'Embedded':
      out.push('--embedded-data-dir=/var/lib/hostwarden', '--dns-listen=0.0.0.0:5353');
      break;
    default:
      break;
  }
  return out;
}

/** Secret keys handed over as `EXTERNAL_DNS_*` variables rather than files. */
function secretEnv(spec: ExternalDNSSpec, secretName: string): Obj[] {
  const ref = (name: string, key: string): Obj => ({ name, valueFrom: { secretKeyRef: { name: secretName, key } } });
  if (spec.provider?.type === 'PowerDNS') return [ref('EXTERNAL_DNS_PDNS_API_KEY', 'api-key')];
  if (spec.provider?.type === 'RFC2136') return [ref('EXTERNAL_DNS_RFC2136_TSIG_SECRET', 'tsig-secret')];
  return [];
}

/** Proxy and trusted-CA variables of the operator, secret keys as variables, the AWS partition's. */
function operandEnv(spec: ExternalDNSSpec, s: OperandSettings, secretName: string | undefined): Obj[] {
  return [
    ...PROXY_VARIABLES.filter((v) => (s.proxy?.[v] ?? '') !== '').map((v) => ({ name: v, value: s.proxy?.[v] ?? '' })),
    ...(s.trustedCAConfigMap === undefined ? [] : [{ name: 'NODE_EXTRA_CA_CERTS', value: `${TRUSTED_CA_DIR}/tls-ca-bundle.pem` }]),
    ...(secretName === undefined ? [] : secretEnv(spec, secretName)),
    ...partitionSettings(spec, s.platform.awsRegion).env,
  ];
}

/** One container per zone; as upstream, an Azure operand without zones gets a public and a private-zone container. */
function containerSlots(spec: ExternalDNSSpec): { zone: string; privateDns: boolean }[] {
  const zones = spec.zones ?? [];
  if (zones.length > 0) return zones.map((zone) => ({ zone, privateDns: false }));
  if (spec.provider?.type === 'Azure')
    return [
      { zone: '', privateDns: false },
      { zone: '', privateDns: true },
    ];
  return [{ zone: '', privateDns: false }];
}

/** Everything the operator creates for `ed`. `secret` is the user's Secret (or the platform's), if any. */
export function buildOperand(ed: ExternalDNS, s: OperandSettings, secret: SecretData | undefined): OperandObjects {
  const spec = withDefaults(ed.spec);
  const name = operandName(ed);
  const labels = labelsOf(ed);
  const meta = (extra: Obj = {}): Obj => ({ name, labels, ownerReferences: [ownerReference(ed)], ...extra });
  const hasSecret = secret !== undefined;
  const generated = hasSecret && mintedAzure(spec, s);
  const secretName = generated ? azureConfigSecretName(ed) : credentialsSecretName(ed);
  const zones = [...(spec.zones ?? [])];
  const fileSecret = hasSecret && spec.provider?.type !== 'PowerDNS' && spec.provider?.type !== 'RFC2136';
  const env = operandEnv(spec, s, hasSecret ? secretName : undefined);
  // The root filesystem is read-only; the TypeScript runtime compiles into /tmp.
  const mounts: Obj[] = [{ name: 'tmp', mountPath: '/tmp' }];
  const volumes: Obj[] = [{ name: 'tmp', emptyDir: {} }];
  if (fileSecret) {
    volumes.push({ name: 'credentials', secret: generated ? { secretName, items: [{ key: 'azure.json', path: 'azure.json' }] } : { secretName } });
    mounts.push({ name: 'credentials', mountPath: CREDENTIALS_DIR, readOnly: true });
  }
  if (needsBoundToken(spec, fileSecret)) {
    const token = boundTokenVolume();
    volumes.push(token.volume);
    mounts.push(token.mount);
  }
  if (s.trustedCAConfigMap !== undefined) {
    volumes.push({ name: 'trusted-ca', configMap: { name: s.trustedCAConfigMap, items: [{ key: 'ca-bundle.crt', path: 'tls-ca-bundle.pem' }] } });
    mounts.push({ name: 'trusted-ca', mountPath: TRUSTED_CA_DIR, readOnly: true });
  }
  if (spec.provider?.type === 'Embedded') {
    volumes.push({ name: 'data', emptyDir: {} });
    mounts.push({ name: 'data', mountPath: '/var/lib/hostwarden' });
  }
  const containers = containerSlots(spec).map(({ zone, privateDns }, seq) => ({
    name: privateDns ? 'hostwarden-azure-private-dns' : zone === '' ? 'hostwarden' : `hostwarden-${seq}`,
    image: s.image,
    imagePullPolicy: 'IfNotPresent',
    args: ['run', ...operandArgs(ed, s, seq, zone, hasSecret, privateDns)],
    ...(env.length === 0 ? {} : { env }),
    volumeMounts: mounts,
    terminationMessagePolicy: 'FallbackToLogsOnError',
    securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
  }));
  const deployment: Obj = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta({ namespace: s.namespace }),
    spec: {
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: { 'app.kubernetes.io/instance': name } },
      template: {
        metadata: { labels: { ...labels, 'app.kubernetes.io/instance': name }, annotations: { [SECRET_HASH_ANNOTATION]: secretHash(secret) } },
        spec: {
          serviceAccountName: name,
          securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
          containers,
          volumes,
        },
      },
    },
  };
  const { clusterRole, clusterRoleBinding } = operandRbac(ed, { name, namespace: s.namespace, labels, owner: ownerReference(ed) });
  return {
    serviceAccount: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta({ namespace: s.namespace }) },
    clusterRole,
    clusterRoleBinding,
    secret:
      secret === undefined
        ? undefined
        : generated
          ? generatedAzureSecret(ed, s, secret)
          : userSecretRef(spec) !== undefined
            ? copiedSecret(ed, s, secret)
            : undefined,
    deployment,
    zones,
  };
}
