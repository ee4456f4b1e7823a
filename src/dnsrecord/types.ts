/**
 * The Gardener `extensions.gardener.cloud/v1alpha1` DNSRecord as Hostwarden reads and writes it,
 * and the names of the contract (finalizer, operation annotation, condition, error codes) that
 * Gardener's gardenlet expects an extension controller to honour.
 */
import type { KubeResource } from '../kube/resource.ts';

export const DNSRECORDS: KubeResource = { apiVersion: 'extensions.gardener.cloud/v1alpha1', kind: 'DNSRecord', plural: 'dnsrecords', namespaced: true };
export const CLUSTERS: KubeResource = { apiVersion: 'extensions.gardener.cloud/v1alpha1', kind: 'Cluster', plural: 'clusters', namespaced: false };
export const NAMESPACES: KubeResource = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false };
export const SECRETS: KubeResource = { apiVersion: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true };

export const FINALIZER = 'extensions.gardener.cloud/dnsrecord';
export const OPERATION_ANNOTATION = 'gardener.cloud/operation';
export const OP_RECONCILE = 'reconcile';
export const OP_RESTORE = 'restore';
export const OP_MIGRATE = 'migrate';
export const OP_WAIT_FOR_STATE = 'wait-for-state';

/** Gardener's extension classes; a DNSRecord without spec.class is `shoot`. */
export const EXTENSION_CLASS_SHOOT = 'shoot';
/** The Namespace label (gardener.cloud/role=shoot) that marks a shoot namespace, whose Cluster is read. */
export const GARDEN_ROLE_LABEL = 'gardener.cloud/role';
export const GARDEN_ROLE_SHOOT = 'shoot';
/** The Shoot annotation that confirms a force deletion (ShootNeedsForceDeletion). */
export const FORCE_DELETION_ANNOTATION = 'confirmation.gardener.cloud/force-deletion';

export const CONDITION_CREATED = 'Created';

/** Gardener's error codes (gardencorev1beta1.ErrorCode), the ones this controller reports. */
export const ERR_CONFIGURATION_PROBLEM = 'ERR_CONFIGURATION_PROBLEM';
export const ERR_INFRA_UNAUTHENTICATED = 'ERR_INFRA_UNAUTHENTICATED';
export const ERR_INFRA_UNAUTHORIZED = 'ERR_INFRA_UNAUTHORIZED';
export const ERR_INFRA_RATE_LIMITS_EXCEEDED = 'ERR_INFRA_RATE_LIMITS_EXCEEDED';
export const ERR_INFRA_DEPENDENCIES = 'ERR_INFRA_DEPENDENCIES';
export const ERR_INFRA_QUOTA_EXCEEDED = 'ERR_INFRA_QUOTA_EXCEEDED';
export const ERR_RETRYABLE_INFRA_DEPENDENCIES = 'ERR_RETRYABLE_INFRA_DEPENDENCIES';
export const ERR_INFRA_RESOURCES_DEPLETED = 'ERR_INFRA_RESOURCES_DEPLETED';
export const ERR_RETRYABLE_CONFIGURATION_PROBLEM = 'ERR_RETRYABLE_CONFIGURATION_PROBLEM';

export type OperationType = 'Create' | 'Reconcile' | 'Delete' | 'Migrate' | 'Restore';
export type OperationState = 'Processing' | 'Succeeded' | 'Error' | 'Failed';

export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'TXT'] as const;
export type DNSRecordType = (typeof RECORD_TYPES)[number];

/**
 * provider-aws's annotation (pkg/apis/aws/const.go AnnotationKeyIPStack) choosing the alias
 * record types written for a CNAME to an AWS target: A (`ipv4`, also any other value or none),
 * AAAA (`ipv6`) or both (`dual-stack`).
 */
export const IP_STACK_ANNOTATION = 'dns.gardener.cloud/ip-stack';
export type IpStack = 'ipv4' | 'ipv6' | 'dual-stack';

/** The IP stack a DNSRecord asks for, as provider-aws's getIPStack reads it. */
export function ipStackOf(annotations: Readonly<Record<string, string>> | undefined): IpStack {
  const v = annotations?.[IP_STACK_ANNOTATION];
  return v === 'ipv6' || v === 'dual-stack' ? v : 'ipv4';
}

/** provider-aws's DefaultDNSRegion: aws-route53's region when neither spec.region, the Secret nor --aws-region sets one. */
export const DEFAULT_AWS_DNS_REGION = 'us-west-2';

/** Gardener's default when spec.ttl is unset. */
export const DEFAULT_TTL = 120;

export interface DNSRecordSpec {
  type: string;
  secretRef: { name: string; namespace?: string };
  region?: string;
  zone?: string;
  name: string;
  recordType: string;
  values: string[];
  ttl?: number;
  class?: string;
  providerConfig?: unknown;
}

export interface LastOperation {
  type: OperationType;
  state: OperationState;
  description: string;
  lastUpdateTime: string;
  progress: number;
}

export interface LastError {
  description: string;
  codes?: string[];
  lastUpdateTime: string;
}

/** gardencorev1beta1.Condition, as the DNSRecord CRD's status.conditions holds it. */
export interface GardenerCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime: string;
  lastUpdateTime: string;
  reason: string;
  message: string;
  codes?: string[];
}

export interface DNSRecordStatus {
  zone?: string;
  lastOperation?: LastOperation | null;
  lastError?: LastError | null;
  conditions?: GardenerCondition[];
  observedGeneration?: number;
  /** Written by other controllers; read and kept, never set here. */
  providerStatus?: Record<string, unknown>;
  state?: Record<string, unknown>;
  resources?: { name: string; resourceRef: { apiVersion?: string; kind: string; name: string } }[];
}

export interface DNSRecord {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    annotations?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
    [k: string]: unknown;
  };
  spec: DNSRecordSpec;
  status?: DNSRecordStatus;
  [field: string]: unknown;
}
