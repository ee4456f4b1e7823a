/**
 * Step 8: the VPCs the private zone is associated with — the endpoint's VPC and HiveConfig's
 * associatedVPCs. A VPC of another account is associated with that account's credentials between
 * an authorization the hub creates and deletes; authorizations a crash left behind are removed on
 * the next run, and associations no longer wanted are removed after the new ones exist.
 */
import type { Logger } from '../../log.ts';
import type { Route53Port, Vpc } from '../aws/ports.ts';

export interface WantedVpc extends Vpc {
  /** Route53 of the VPC's own account when it is not the hub's. */
  account?: Route53Port | undefined;
}

const keyOf = (v: Vpc): string => `${v.region}/${v.vpcId}`;

export function associationPlan(current: readonly Vpc[], wanted: readonly WantedVpc[]): { add: WantedVpc[]; remove: Vpc[] } {
  const have = new Set(current.map(keyOf));
  const want = new Set(wanted.map(keyOf));
  const seen = new Set<string>();
  const add = wanted.filter((v) => !have.has(keyOf(v)) && !seen.has(keyOf(v)) && seen.add(keyOf(v)));
  return { add, remove: current.filter((v) => !want.has(keyOf(v))) };
}

/** True when an association was added or removed. */
export async function reconcileAssociations(hub: Route53Port, zoneId: string, wanted: readonly WantedVpc[], log: Logger): Promise<boolean> {
  const plan = associationPlan(await hub.zoneVpcs(zoneId), wanted);
  for (const vpc of plan.add) {
    if (vpc.account === undefined) {
      await hub.associate(zoneId, vpc);
    } else {
      await hub.createAuthorization(zoneId, vpc);
      await vpc.account.associate(zoneId, vpc);
      await hub.deleteAuthorization(zoneId, vpc);
    }
    log.info({ zone: zoneId, vpc: vpc.vpcId, region: vpc.region, crossAccount: vpc.account !== undefined }, 'associated VPC with the private zone');
  }
  for (const vpc of plan.remove) {
    await hub.disassociate(zoneId, vpc);
    log.info({ zone: zoneId, vpc: vpc.vpcId, region: vpc.region }, 'disassociated VPC from the private zone');
  }
  await removeAuthorizations(hub, zoneId);
  return plan.add.length > 0 || plan.remove.length > 0;
}

/** Authorizations are only needed for the moment of an association: any left over is removed. */
export async function removeAuthorizations(hub: Route53Port, zoneId: string): Promise<void> {
  for (const vpc of await hub.listAuthorizations(zoneId)) await hub.deleteAuthorization(zoneId, vpc);
}
