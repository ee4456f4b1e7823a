/**
 * Step 6: the VPC endpoint in the hub account. An inventory VPC qualifies when it has subnets in
 * the service's availability zones (named as the hub sees them); among those the one with the
 * fewest endpoints wins, so clusters spread over the inventory. A good endpoint carrying the
 * cluster's tag is adopted; a failed or rejected one, or one for another service, is replaced.
 */
import type { Logger } from '../../log.ts';
import type { Ec2Port, VpcEndpoint } from '../aws/ports.ts';
import { StepError } from '../errors.ts';
import { ACCESS_TAG, MESSAGES, REASONS } from '../types.ts';
import type { InventoryVPC } from '../types.ts';

export interface EndpointPlacement {
  vpcId: string;
  subnetIds: string[];
}

const GONE = new Set(['deleting', 'deleted']);
const BAD = new Set(['failed', 'rejected', 'expired']);

/** Inventory VPCs with subnets in `azs`, each with those subnets, in inventory order. */
export function eligibleVpcs(inventory: readonly InventoryVPC[], azs: readonly string[]): EndpointPlacement[] {
  const wanted = new Set(azs);
  return inventory
    .map((v) => ({ vpcId: v.vpcID, subnetIds: v.subnets.filter((s) => wanted.has(s.availabilityZone)).map((s) => s.subnetID) }))
    .filter((p) => p.subnetIds.length > 0);
}

/** The eligible VPC with the fewest endpoints; the first in inventory order on a tie. */
export function chooseVpc(eligible: readonly EndpointPlacement[], counts: ReadonlyMap<string, number>): EndpointPlacement | undefined {
  let best: EndpointPlacement | undefined;
  for (const p of eligible) if (best === undefined || (counts.get(p.vpcId) ?? 0) < (counts.get(best.vpcId) ?? 0)) best = p;
  return best;
}

/** Splits tagged endpoints into the one to keep and those to delete. */
export function classifyEndpoints(
  found: readonly VpcEndpoint[],
  serviceName: string,
): { keep: VpcEndpoint | undefined; replace: VpcEndpoint[]; extra: VpcEndpoint[] } {
  const live = found.filter((e) => !GONE.has(e.state.toLowerCase()));
  const good = live.filter((e) => e.serviceName === serviceName && !BAD.has(e.state.toLowerCase()));
  const replace = live.filter((e) => !good.includes(e));
  const ranked = [...good].sort((a, b) => Number(b.state === 'available') - Number(a.state === 'available'));
  return { keep: ranked[0], replace, extra: ranked.slice(1) };
}

export interface EndpointDeps {
  ec2: Ec2Port;
  log: Logger;
  sleep: (ms: number) => Promise<void>;
  /** Polls of the endpoint state before giving up for this run (the queue comes back later). */
  waitAttempts: number;
  waitDelayMs: number;
}

export type EndpointOutcome = { kind: 'available'; endpoint: VpcEndpoint } | { kind: 'waiting'; endpoint: VpcEndpoint };

export async function reconcileEndpoint(
  deps: EndpointDeps,
  input: { infraID: string; serviceName: string; inventory: readonly InventoryVPC[] },
): Promise<EndpointOutcome> {
  const { ec2, log } = deps;
  const tag = { key: ACCESS_TAG, value: input.infraID };
  const { keep, replace, extra } = classifyEndpoints(await ec2.findEndpoints(tag), input.serviceName);
  if (extra.length > 0)
    log.warn({ infraID: input.infraID, kept: keep?.id, others: extra.map((e) => e.id) }, 'several VPC endpoints carry the cluster tag; keeping one');
  if (replace.length > 0) {
    log.info({ endpoints: replace.map((e) => `${e.id}:${e.state}`) }, 'deleting failed or stale VPC endpoints');
    await ec2.deleteEndpoints(replace.map((e) => e.id));
  }
  let endpoint = keep;
  if (endpoint === undefined) {
    const azs = await ec2.serviceAvailabilityZones(input.serviceName);
    if (azs === undefined)
      throw new StepError(REASONS.endpointFailed, `the hub account cannot see endpoint service ${input.serviceName} (allowed principals not applied yet?)`);
    const eligible = eligibleVpcs(input.inventory, azs);
    const counts = await ec2.countEndpoints(eligible.map((p) => p.vpcId));
    const choice = chooseVpc(eligible, counts);
    if (choice === undefined) throw new StepError(REASONS.noSupportedAZs, MESSAGES.noSupportedAZs);
    endpoint = await ec2.createEndpoint({ vpcId: choice.vpcId, serviceName: input.serviceName, subnetIds: choice.subnetIds, tag });
    log.info({ endpoint: endpoint.id, vpc: choice.vpcId }, 'created VPC endpoint');
  }
  return waitAvailable(deps, endpoint);
}

/** Polls a bounded number of times; the caller decides what a non-available state means. */
export async function waitAvailable(deps: EndpointDeps, first: VpcEndpoint): Promise<EndpointOutcome> {
  let endpoint = first;
  for (let i = 0; ; i++) {
    const state = endpoint.state.toLowerCase();
    if (state === 'available') return { kind: 'available', endpoint };
    if (BAD.has(state) || GONE.has(state)) throw new StepError(REASONS.endpointFailed, `VPC endpoint ${endpoint.id} is ${endpoint.state}`);
    if (i >= deps.waitAttempts) return { kind: 'waiting', endpoint };
    await deps.sleep(deps.waitDelayMs);
    const again = await deps.ec2.getEndpoint(endpoint.id);
    if (again === undefined) throw new StepError(REASONS.endpointFailed, `VPC endpoint ${endpoint.id} disappeared`);
    endpoint = again;
  }
}
