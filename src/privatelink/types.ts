/**
 * The Hive objects the PrivateLink controller reads and writes (the subset it uses), and the names
 * it shares with Hive: finalizer, condition types and reasons, the tag that marks its AWS resources.
 */
import type { KubeMeta, KubeResource } from '../kube/resource.ts';

export const CLUSTER_DEPLOYMENTS: KubeResource = {
  apiVersion: 'hive.openshift.io/v1',
  kind: 'ClusterDeployment',
  plural: 'clusterdeployments',
  namespaced: true,
};
export const CLUSTER_PROVISIONS: KubeResource = { apiVersion: 'hive.openshift.io/v1', kind: 'ClusterProvision', plural: 'clusterprovisions', namespaced: true };
export const CLUSTER_DEPROVISIONS: KubeResource = {
  apiVersion: 'hive.openshift.io/v1',
  kind: 'ClusterDeprovision',
  plural: 'clusterdeprovisions',
  namespaced: true,
};
export const HIVE_CONFIGS: KubeResource = { apiVersion: 'hive.openshift.io/v1', kind: 'HiveConfig', plural: 'hiveconfigs', namespaced: false };
export const PL_SECRETS: KubeResource = { apiVersion: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true };

/** Hive's only HiveConfig is named `hive`. */
export const HIVE_CONFIG_NAME = 'hive';

export type HiveConditionStatus = 'True' | 'False' | 'Unknown';

/** hivev1.ClusterDeploymentCondition: reason and message are optional, both times are kept. */
export interface HiveCondition {
  type: string;
  status: HiveConditionStatus;
  reason?: string;
  message?: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
}

export const FINALIZER = 'hive.openshift.io/aws-private-link';
/** Every endpoint service (user account) and endpoint (hub account) carries it, valued with the infraID. */
export const ACCESS_TAG = 'hive.openshift.io/private-link-access-for';
/** The prevInfraID whose resources were already removed, so a retried install cleans it once (Hive's key). */
export const LAST_CLEANUP_ANNOTATION = 'aws-private-link-controller.hive.openshift.io/last-cleanup-for';
/** The key Hostwarden wrote before it used Hive's: still read, so such clusters are not cleaned twice. */
export const LEGACY_CLEANED_PREV_ANNOTATION = 'hive.openshift.io/aws-private-link-cleaned-prev-infra-id';

export const READY = 'AWSPrivateLinkReady';
export const FAILED = 'AWSPrivateLinkFailed';

/** The condition reasons, valued as Hive's awsprivatelink controller writes them. */
export const REASONS = {
  initialized: 'Initialized',
  ready: 'PrivateLinkAccessReady',
  unsupportedRegion: 'UnsupportedRegion',
  nlbNotFound: 'DiscoveringNLBNotYetFound',
  discoveringNLBFailed: 'DiscoveringNLBFailed',
  endpointServiceReconciled: 'ReconciledVPCEndpointService',
  endpointServiceFailed: 'VPCEndpointServiceReconcileFailed',
  endpointReconciled: 'ReconciledVPCEndpoint',
  endpointFailed: 'VPCEndpointReconcileFailed',
  noSupportedAZs: 'NoSupportedAZsInInventory',
  apiDomainFailed: 'CouldNotCalculateAPIDomain',
  hostedZoneReconciled: 'ReconciledPrivateHostedZone',
  hostedZoneFailed: 'PrivateHostedZoneReconcileFailed',
  associationsReconciled: 'ReconciledAssociationsToVPCs',
  associationsFailed: 'AssociatingVPCsToHostedZoneFailed',
  cleanupFailed: 'CleanupForProvisionReattemptFailed',
  previousAttemptCleaned: 'PreviousAttemptCleanupComplete',
  deprovisionCleanupFailed: 'CleanupForDeprovisionFailed',
  deprovisioned: 'DeprovisionCleanupComplete',
  /** Hostwarden only (docs/privatelink.md): Hive returns a credentials error without a condition. */
  credentialsFailed: 'CredentialsFailed',
} as const;

/** Hive's fixed condition messages, by reason. */
export const MESSAGES = {
  nlbNotFound: 'discovering NLB for the cluster, but it does not exist yet',
  endpointServiceReconciled: 'reconciled the VPC Endpoint Service for the cluster',
  endpointReconciled: 'reconciled the VPC Endpoint for the cluster',
  hostedZoneReconciled: 'reconciled the Private Hosted Zone for the VPC Endpoint of the cluster',
  associationsReconciled: 'reconciled the associations of all the required VPCs to the Private Hosted Zone for the VPC Endpoint',
  ready: 'private link access is ready for use',
  previousAttemptCleaned: 'successfully cleaned up resources from previous provision attempt so that next attempt can start',
  deprovisioned: 'successfully cleaned up private link resources created to deprovision cluster',
  noSupportedAZs: 'no supported VPC in inventory which support the AZs of the service',
} as const;

/** Hive's UnsupportedRegion message (Go's %q quoting). */
export function unsupportedRegionMessage(region: string): string {
  return `cluster deployment region ${JSON.stringify(region)} is not supported as there is no inventory to create necessary resources`;
}

export type FailureReason = (typeof REASONS)[keyof typeof REASONS];

export interface SecretRef {
  name: string;
}

export interface AssumeRole {
  roleARN: string;
  externalID?: string;
}

export interface PrivateLinkStatus {
  vpcEndpointService?: { name: string; id: string; defaultAllowedPrincipal?: string; additionalAllowedPrincipals?: string[] };
  vpcEndpointID?: string;
  hostedZoneID?: string;
}

export interface ClusterDeployment {
  apiVersion?: string;
  kind?: string;
  metadata: KubeMeta & { finalizers?: string[] };
  spec: {
    clusterName?: string;
    installed?: boolean;
    preserveOnDelete?: boolean;
    platform?: {
      aws?: {
        region?: string;
        credentialsSecretRef?: SecretRef;
        credentialsAssumeRole?: AssumeRole;
        privateLink?: { enabled?: boolean; additionalAllowedPrincipals?: string[] };
      };
    };
    clusterMetadata?: { infraID?: string; adminKubeconfigSecretRef?: SecretRef };
  };
  status?: {
    provisionRef?: { name: string };
    conditions?: HiveCondition[];
    platformStatus?: { aws?: { privateLink?: PrivateLinkStatus } };
    [field: string]: unknown;
  };
}

export interface ClusterProvision {
  metadata: KubeMeta;
  spec: {
    clusterDeploymentRef?: { name: string };
    infraID?: string;
    prevInfraID?: string;
    adminKubeconfigSecretRef?: SecretRef;
    stage?: string;
  };
}

export interface ClusterDeprovision {
  metadata: KubeMeta;
  spec: { infraID?: string; clusterID?: string; platform?: { aws?: { region?: string } } };
  status?: { completed?: boolean };
}

export interface InventoryVPC {
  vpcID: string;
  region: string;
  subnets: { subnetID: string; availabilityZone: string }[];
}

export interface AssociatedVPC {
  vpcID: string;
  region: string;
  credentialsSecretRef?: SecretRef;
}

export interface HiveConfig {
  metadata: KubeMeta;
  spec: {
    /** The service-provider identity that assumes a cluster's credentialsAssumeRole (Secret in the hive namespace). */
    serviceProviderCredentialsConfig?: { aws?: { credentialsSecretRef?: SecretRef } };
    awsPrivateLink?: {
      credentialsSecretRef?: SecretRef;
      endpointVPCInventory?: InventoryVPC[];
      associatedVPCs?: AssociatedVPC[];
      dnsRecordType?: 'Alias' | 'ARecord';
    };
  };
}

export function isPrivateLinkEnabled(cd: ClusterDeployment): boolean {
  return cd.spec.platform?.aws?.privateLink?.enabled === true;
}

/** The inventory VPCs of `region`. */
export function inventoryFor(hive: HiveConfig | undefined, region: string): InventoryVPC[] {
  return (hive?.spec.awsPrivateLink?.endpointVPCInventory ?? []).filter((v) => v.region.toLowerCase() === region.toLowerCase());
}
