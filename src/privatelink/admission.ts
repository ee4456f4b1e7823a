/**
 * The admission rule for ClusterDeployments, as Hive's own webhook has it (validateAWSPrivateLink
 * in pkg/validating-webhooks/hive/v1, called on CREATE for AWS clusters): PrivateLink may only be
 * enabled when HiveConfig's endpointVPCInventory has a VPC in the cluster's region. Same field path,
 * same error type (Forbidden) and same wording, so a client sees Hive's answer. A pure decision.
 */
import type { FieldError } from '../http/admission-review.ts';
import type { ClusterDeployment, HiveConfig } from './types.ts';

export const PRIVATELINK_ENABLED_FIELD = 'spec.platform.aws.privateLink.enabled';

/** Hive's field errors for this ClusterDeployment (none when allowed). */
export function privateLinkFieldErrors(cd: ClusterDeployment, hive: HiveConfig | undefined): FieldError[] {
  const aws = cd.spec.platform?.aws;
  if (aws === undefined || aws.privateLink?.enabled !== true) return [];
  const inventory = hive?.spec.awsPrivateLink?.endpointVPCInventory ?? [];
  const forbidden = (detail: string): FieldError[] => [{ field: PRIVATELINK_ENABLED_FIELD, type: 'Forbidden', detail }];
  if (inventory.length === 0) return forbidden('AWS PrivateLink is not supported in the environment');
  const region = aws.region ?? '';
  if (!inventory.some((v) => v.region === region)) return forbidden(`AWS Private Link is not supported in ${region} region`);
  return [];
}
