/**
 * Removes what the controller made for one infraID: the private zone's records (all but SOA and
 * NS) and the zone, the hub's endpoints and the user's endpoint services carrying the tag (after
 * rejecting the connections still holding on to them: endpoints of other accounts would block it).
 * Whatever is already gone counts as removed, so a cleanup interrupted anywhere can simply run again.
 */
import type { Logger } from '../../log.ts';
import type { Ec2Port, Route53Port } from '../aws/ports.ts';
import { HostwardenError, errorMessage } from '../../errors.ts';
import { AwsCallError, isNotFound } from '../errors.ts';
import { removeAuthorizations } from './associations.ts';
import { ACCESS_TAG } from '../types.ts';
import { CONNECTION_PERMISSIONS, rejectAllConnections } from './connections.ts';
import type { WarnedOnce } from './connections.ts';

export interface CleanupInput {
  infraID: string;
  /** The zone recorded in status, when any. */
  zoneId?: string | undefined;
  /** The API host, when known: zones with that exact name are removed too. */
  host?: string | undefined;
}

export interface CleanupAccounts {
  hubEc2: Ec2Port;
  hubRoute53: Route53Port;
  /** Undefined when the user's credentials are unusable (e.g. the Secret is gone): services stay. */
  userEc2: Ec2Port | undefined;
}

async function ignoreNotFound(fn: () => Promise<unknown>): Promise<void> {
  await ignoreNotFoundOr(fn);
}

export async function deleteZone(r53: Route53Port, zoneId: string): Promise<void> {
  await ignoreNotFound(async () => {
    const extra = (await r53.listRecords(zoneId)).filter((r) => r.type !== 'SOA' && r.type !== 'NS');
    if (extra.length > 0) await r53.deleteRecords(zoneId, extra);
    await removeAuthorizations(r53, zoneId);
    await r53.deleteZone(zoneId);
  });
}

/**
 * Rejects the services' remaining connections, then deletes the services. Without the permission to
 * reject, the delete is still tried: it fails only when a connection really is left, and then says
 * which permission is missing.
 */
async function deleteServices(ec2: Ec2Port, ids: string[], infraID: string, log: Logger, warned: WarnedOnce | undefined): Promise<void> {
  let denied: string | undefined;
  for (const serviceId of ids) {
    const outcome = await ignoreNotFoundOr(() => rejectAllConnections({ ec2, serviceId, infraID, log, warned }));
    denied ??= outcome?.denied;
  }
  try {
    await ignoreNotFound(() => ec2.deleteEndpointServices(ids));
  } catch (err) {
    if (denied === undefined || !(err instanceof AwsCallError) || err.awsCode !== 'ExistingVpcEndpointConnections') throw err;
    throw new HostwardenError(
      'PRIVATELINK_AWS_FAILED',
      `${errorMessage(err)} (endpoints still connected to the service cannot be rejected: the cluster credentials were denied ${denied}; grant ${CONNECTION_PERMISSIONS.join(' and ')})`,
      { transient: true, cause: err },
    );
  }
}

async function ignoreNotFoundOr<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    if (!isNotFound(err)) throw err;
    return undefined;
  }
}

export async function cleanupAccess(accounts: CleanupAccounts, input: CleanupInput, log: Logger, warned?: WarnedOnce): Promise<void> {
  const zones = new Set<string>();
  if (input.zoneId !== undefined && input.zoneId !== '') zones.add(input.zoneId);
  if (input.host !== undefined) for (const id of await accounts.hubRoute53.findPrivateZones(input.host)) zones.add(id);
  for (const id of zones) {
    await deleteZone(accounts.hubRoute53, id);
    log.info({ zone: id }, 'deleted private hosted zone');
  }
  const tag = { key: ACCESS_TAG, value: input.infraID };
  const endpoints = (await accounts.hubEc2.findEndpoints(tag)).filter((e) => e.state !== 'deleted');
  if (endpoints.length > 0) {
    await ignoreNotFound(() => accounts.hubEc2.deleteEndpoints(endpoints.map((e) => e.id)));
    log.info({ endpoints: endpoints.map((e) => e.id) }, 'deleted VPC endpoints');
  }
  if (accounts.userEc2 !== undefined) {
    const services = (await accounts.userEc2.findEndpointServices(tag)).filter((s) => s.state !== 'Deleted');
    if (services.length > 0) {
      await deleteServices(
        accounts.userEc2,
        services.map((s) => s.id),
        input.infraID,
        log,
        warned,
      );
      log.info({ services: services.map((s) => s.id) }, 'deleted VPC endpoint services');
    }
  }
}
