/**
 * Endpoint connections to the cluster's endpoint service. The service accepts without approval, so
 * any allowed principal connects at once, and a principal later taken off the list keeps its
 * connection; an endpoint of another account also makes AWS refuse to delete the service
 * (`ExistingVpcEndpointConnections`). So setup rejects the connections the allowed principals no
 * longer cover, and cleanup rejects them all before deleting the service.
 *
 * Hive's published IAM policy for the cluster account grants neither action: a denial is logged
 * once per cluster and the work goes on without it.
 */
import type { Logger } from '../../log.ts';
import type { Ec2Port, EndpointConnection } from '../aws/ports.ts';
import { AwsCallError } from '../errors.ts';

export const CONNECTION_PERMISSIONS = ['ec2:DescribeVpcEndpointConnections', 'ec2:RejectVpcEndpointConnections'] as const;

/** States in which an endpoint holds a connection (and AWS keeps the service from being deleted). */
const CONNECTED = new Set(['pendingAcceptance', 'pending', 'available']);

/**
 * The accounts whose endpoints the allowed principals cover, or `all` for `*`. AWS allows an
 * account root ARN (every principal of the account), an IAM user or role ARN (that principal
 * only) or `*` (everyone). A connection shows only the account owning the endpoint, not who
 * created it, so any ARN of an account covers that account's connections here.
 */
export function coveredAccounts(principals: readonly string[]): Set<string> | 'all' {
  if (principals.includes('*')) return 'all';
  const accounts = new Set<string>();
  for (const p of principals) {
    const account = p.split(':')[4];
    if (p.startsWith('arn:') && account !== undefined && /^\d{12}$/.test(account)) accounts.add(account);
  }
  return accounts;
}

/** AWS refused the call for lack of permission (EC2 says UnauthorizedOperation). */
export function isPermissionDenied(err: unknown): boolean {
  return err instanceof AwsCallError && /^(UnauthorizedOperation|AccessDenied|AccessDeniedException)$/.test(err.awsCode);
}

/** Which warnings were given already, so each is logged once per cluster (one per reconciler). */
export class WarnedOnce {
  private readonly seen = new Set<string>();

  first(key: string): boolean {
    if (this.seen.has(key)) return false;
    // Bounded: past this many clusters the memory starts over, costing at most one more warning each.
    if (this.seen.size >= 10_000) this.seen.clear();
    this.seen.add(key);
    return true;
  }
}

export interface ConnectionContext {
  ec2: Ec2Port;
  serviceId: string;
  /** The cluster's infraID: the key of the once-per-cluster warning. */
  infraID: string;
  log: Logger;
  warned?: WarnedOnce | undefined;
}

/** What was rejected, or the action the credentials may not call (nothing was rejected then). */
export type RejectOutcome = { rejected: EndpointConnection[]; denied?: undefined } | { denied: string; rejected?: undefined };

async function rejectUnless(ctx: ConnectionContext, keep: (c: EndpointConnection) => boolean): Promise<RejectOutcome> {
  let doomed: EndpointConnection[];
  try {
    doomed = (await ctx.ec2.endpointConnections(ctx.serviceId)).filter((c) => CONNECTED.has(c.state) && !keep(c));
    if (doomed.length > 0)
      await ctx.ec2.rejectEndpointConnections(
        ctx.serviceId,
        doomed.map((c) => c.endpointId),
      );
  } catch (err) {
    if (!isPermissionDenied(err)) throw err;
    const action = (err as AwsCallError).action;
    if (ctx.warned?.first(ctx.infraID) ?? true)
      ctx.log.warn(
        { service: ctx.serviceId, action, recommended: CONNECTION_PERMISSIONS },
        'the cluster credentials may not list or reject VPC endpoint connections: endpoints of accounts no longer allowed stay connected and can block deleting the endpoint service',
      );
    return { denied: action };
  }
  for (const c of doomed) ctx.log.info({ service: ctx.serviceId, endpoint: c.endpointId, owner: c.owner, state: c.state }, 'rejected VPC endpoint connection');
  return { rejected: doomed };
}

/** Rejects connections of accounts the allowed principals do not cover; with `*` nothing is rejected. */
export async function rejectForeignConnections(ctx: ConnectionContext, principals: readonly string[]): Promise<RejectOutcome> {
  const covered = coveredAccounts(principals);
  if (covered === 'all') return { rejected: [] };
  return rejectUnless(ctx, (c) => covered.has(c.owner));
}

/** Rejects every remaining connection, so the service can be deleted. */
export function rejectAllConnections(ctx: ConnectionContext): Promise<RejectOutcome> {
  return rejectUnless(ctx, () => false);
}
