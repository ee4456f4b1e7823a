/**
 * The admission rule for ClusterDeployments: PrivateLink may only be enabled for a region the
 * HiveConfig inventory has VPCs in, since the controller could never set it up elsewhere.
 * A pure decision, served by the AdmissionReview endpoint or called by any other webhook.
 */
import { inventoryFor, isPrivateLinkEnabled } from './types.ts';
import type { ClusterDeployment, HiveConfig } from './types.ts';

/** Why the object is refused, or undefined when it is allowed. */
export function privateLinkDenial(cd: ClusterDeployment, hive: HiveConfig | undefined): string | undefined {
  if (!isPrivateLinkEnabled(cd)) return undefined;
  const inventory = hive?.spec.awsPrivateLink?.endpointVPCInventory ?? [];
  if (inventory.length === 0)
    return 'spec.platform.aws.privateLink.enabled: AWS PrivateLink is not available: HiveConfig spec.awsPrivateLink.endpointVPCInventory is empty';
  const region = cd.spec.platform?.aws?.region ?? '';
  if (inventoryFor(hive, region).length === 0) {
    const regions = [...new Set(inventory.map((v) => v.region))].sort().join(', ');
    return `spec.platform.aws.privateLink.enabled: AWS PrivateLink is not available in region ${JSON.stringify(region)}; HiveConfig's endpointVPCInventory covers ${regions}`;
  }
  return undefined;
}
