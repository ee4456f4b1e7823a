/**
 * The `externaldns.olm.openshift.io` ExternalDNS API as the upstream operator serves it (v1beta1
 * stored, v1alpha1 served), with Hostwarden's additions: `assumeRole.externalID`, the CRD source and
 * the RFC2136/PowerDNS/Embedded providers. Condition types and reasons are stable strings that
 * users and tests match on.
 */
import type { Condition } from '../kube/conditions.ts';
import type { KubeResource } from '../kube/resource.ts';

export const GROUP = 'externaldns.olm.openshift.io';
export const V1BETA1 = `${GROUP}/v1beta1`;
export const V1ALPHA1 = `${GROUP}/v1alpha1`;
export const EXTERNALDNSES: KubeResource = { apiVersion: V1BETA1, kind: 'ExternalDNS', plural: 'externaldnses', namespaced: false };
/** Kept by operators before issue #22; removed from stored objects (owner references do the cleanup). */
export const LEGACY_FINALIZER = `${GROUP}/externaldns`;
/** Where v1beta1-only fields wait while an object is read or written as v1alpha1. */
export const PRESERVED_ANNOTATION = `${GROUP}/v1beta1-preserved`;

export type FilterType = 'Include' | 'Exclude';
export type MatchType = 'Exact' | 'Pattern';
export type ProviderType = 'AWS' | 'GCP' | 'Azure' | 'BlueCat' | 'Infoblox' | 'RFC2136' | 'PowerDNS' | 'Embedded';
export type SourceType = 'Service' | 'OpenShiftRoute' | 'CRD';
export type HostnameAnnotationPolicy = 'Allow' | 'Ignore';

export interface SecretRef {
  name: string;
}

export interface DomainSpec {
  filterType?: FilterType;
  matchType?: MatchType;
  name?: string;
  pattern?: string;
}

export interface AssumeRole {
  arn?: string;
  externalID?: string;
}

export interface ProviderSpec {
  type?: ProviderType;
  aws?: { credentials?: SecretRef; assumeRole?: AssumeRole };
  gcp?: { project?: string; credentials?: SecretRef };
  azure?: { configFile?: SecretRef };
  blueCat?: { configFile?: SecretRef };
  infoblox?: { credentials?: SecretRef; gridHost?: string; wapiPort?: number; wapiVersion?: string };
  rfc2136?: { host?: string; port?: number; zone?: string; tsigSecret?: SecretRef; tsigKeyName?: string; tsigAlgorithm?: string };
  powerDNS?: { server?: string; apiKey?: SecretRef };
}

export interface SourceSpec {
  type?: SourceType;
  namespace?: string;
  labelFilter?: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };
  service?: { serviceType?: string[] };
  openshiftRouteOptions?: { routerName?: string };
  crd?: { apiVersion?: string; kind?: string };
  hostnameAnnotation?: HostnameAnnotationPolicy;
  fqdnTemplate?: string[];
}

export interface ExternalDNSSpec {
  domains?: DomainSpec[];
  provider?: ProviderSpec;
  source?: SourceSpec;
  zones?: string[];
  intervalSeconds?: number;
}

export interface ExternalDNSStatus {
  conditions?: Condition[];
  observedGeneration?: number;
  zones?: string[];
}

export interface ExternalDNS {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
    [k: string]: unknown;
  };
  spec?: ExternalDNSSpec;
  status?: ExternalDNSStatus;
}

export const CONDITION = {
  credentialsSecretExists: 'CredentialsSecretExists',
  deploymentAvailable: 'DeploymentAvailable',
  replicasMinAvailable: 'DeploymentReplicasMinAvailable',
  replicasAllAvailable: 'DeploymentReplicasAllAvailable',
  podsScheduled: 'PodsScheduled',
  providerAuthorized: 'ProviderAuthorized',
} as const;

export const REASON = {
  secretFound: 'SecretFound',
  secretNotFound: 'SecretNotFound',
  noSecretNeeded: 'NoSecretNeeded',
  credentialsRequested: 'CredentialsRequested',
  unsupportedSpec: 'UnsupportedSpec',
  deploymentAvailable: 'DeploymentAvailable',
  deploymentUnavailable: 'DeploymentUnavailable',
  deploymentPending: 'DeploymentPending',
  replicasAvailable: 'ReplicasAvailable',
  replicasUnavailable: 'ReplicasUnavailable',
  podsScheduled: 'PodsScheduled',
  podsUnschedulable: 'PodsUnschedulable',
  syncSucceeded: 'SyncSucceeded',
  accessDenied: 'AccessDenied',
  notYetReported: 'NotYetReported',
} as const;
