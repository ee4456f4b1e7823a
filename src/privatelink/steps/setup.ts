/**
 * Steps 4–8 in order, for one cluster: NLB, endpoint service (user account), endpoint (hub),
 * private zone and record (hub), zone associations. Each step is state-based and idempotent, so
 * running this again after a crash anywhere converges on the same resources. `status` is filled
 * in as steps succeed, so the caller can record partial progress when a later step fails.
 */
import type { Logger } from '../../log.ts';
import type { AwsAccount } from '../aws/ports.ts';
import { reconcileAssociations } from './associations.ts';
import type { WantedVpc } from './associations.ts';
import { reconcileEndpoint } from './endpoint.ts';
import { reconcileEndpointService } from './endpoint-service.ts';
import type { WarnedOnce } from './connections.ts';
import { step } from '../errors.ts';
import { desiredRecord, ensurePrivateZone, ensureRecord } from './hosted-zone.ts';
import { discoverNlb } from './nlb.ts';
import { MESSAGES, REASONS } from '../types.ts';
import type { InventoryVPC, PrivateLinkStatus } from '../types.ts';

export interface SetupInput {
  infraID: string;
  region: string;
  additionalAllowedPrincipals: readonly string[];
  inventory: readonly InventoryVPC[];
  /** HiveConfig's associatedVPCs, each with the Route53 of its account when that is not the hub. */
  associatedVPCs: readonly WantedVpc[];
  dnsRecordType: 'Alias' | 'ARecord';
  /** The API host, read from the admin kubeconfig only when needed. */
  apiHost: () => Promise<string>;
}

export interface SetupDeps {
  user: AwsAccount;
  hub: AwsAccount;
  log: Logger;
  sleep: (ms: number) => Promise<void>;
  waitAttempts: number;
  waitDelayMs: number;
  /** Warnings already given (missing permissions), so each is logged once per cluster. */
  warned?: WarnedOnce;
  /** Called after a step that changed something in AWS (Hive's Reconciled* Ready reasons), with the status so far. */
  progress?: (reason: ProgressReason, message: string) => Promise<void>;
}

export type ProgressReason =
  typeof REASONS.endpointServiceReconciled | typeof REASONS.endpointReconciled | typeof REASONS.hostedZoneReconciled | typeof REASONS.associationsReconciled;

/**
 * `waiting` with a reason is Hive's DiscoveringNLBNotYetFound; without one (NLB not active yet, endpoint
 * not available yet) nothing is recorded, as Hive records nothing while it waits inside its reconcile.
 */
export type SetupOutcome = { kind: 'ready'; principalsChanged: boolean } | { kind: 'waiting'; reason?: string; message: string; retryAfterMs: number };

export const NLB_RETRY_MS = 60_000;
export const ENDPOINT_RETRY_MS = 30_000;

export async function setUpAccess(deps: SetupDeps, input: SetupInput, status: PrivateLinkStatus): Promise<SetupOutcome> {
  const { user, hub, log } = deps;
  const nlb = await step(REASONS.discoveringNLBFailed, () => discoverNlb(user.elbv2, input.infraID));
  if (nlb.kind === 'missing') return { kind: 'waiting', reason: REASONS.nlbNotFound, message: MESSAGES.nlbNotFound, retryAfterMs: NLB_RETRY_MS };
  if (nlb.kind === 'notActive') return { kind: 'waiting', message: `load balancer ${nlb.name} is ${nlb.state}`, retryAfterMs: NLB_RETRY_MS };
  const progress = deps.progress ?? (async () => undefined);
  const before = { serviceId: status.vpcEndpointService?.id, endpointId: status.vpcEndpointID, zoneId: status.hostedZoneID };

  const hubArn = await step(REASONS.endpointServiceFailed, () => hub.sts.callerArn());
  const additional = [...new Set(input.additionalAllowedPrincipals)].filter((p) => p !== hubArn).sort();
  const svc = await step(
    REASONS.endpointServiceFailed,
    () => reconcileEndpointService(user.ec2, { infraID: input.infraID, nlbArn: nlb.lb.arn, principals: [hubArn, ...additional] }, log, deps.warned),
    'failed to reconcile the VPC Endpoint Service',
  );
  status.vpcEndpointService = {
    name: svc.service.name,
    id: svc.service.id,
    defaultAllowedPrincipal: hubArn,
    ...(additional.length > 0 ? { additionalAllowedPrincipals: additional } : {}),
  };
  if (svc.service.id !== before.serviceId || svc.principalsChanged) await progress(REASONS.endpointServiceReconciled, MESSAGES.endpointServiceReconciled);

  const ep = await step(
    REASONS.endpointFailed,
    () =>
      reconcileEndpoint(
        { ec2: hub.ec2, log, sleep: deps.sleep, waitAttempts: deps.waitAttempts, waitDelayMs: deps.waitDelayMs },
        { infraID: input.infraID, serviceName: svc.service.name, inventory: input.inventory },
      ),
    'failed to reconcile the VPC Endpoint',
  );
  status.vpcEndpointID = ep.endpoint.id;
  if (ep.endpoint.id !== before.endpointId) await progress(REASONS.endpointReconciled, MESSAGES.endpointReconciled);
  if (ep.kind === 'waiting') return { kind: 'waiting', message: `VPC endpoint ${ep.endpoint.id} is ${ep.endpoint.state}`, retryAfterMs: ENDPOINT_RETRY_MS };

  const host = await step(REASONS.apiDomainFailed, input.apiHost);
  const endpointVpc = { vpcId: ep.endpoint.vpcId, region: input.region };
  const zone = await step(REASONS.hostedZoneFailed, async () => {
    const id = await ensurePrivateZone(hub.route53, { host, vpc: endpointVpc, knownZoneId: status.hostedZoneID }, log);
    status.hostedZoneID = id;
    const ips = input.dnsRecordType === 'ARecord' ? await hub.ec2.privateIps(ep.endpoint.eniIds) : [];
    const recordChanged = await ensureRecord(hub.route53, id, desiredRecord(host, input.dnsRecordType, ep.endpoint, ips));
    return { id, modified: recordChanged || id !== before.zoneId };
  });
  if (zone.modified) await progress(REASONS.hostedZoneReconciled, MESSAGES.hostedZoneReconciled);

  const associated = await step(REASONS.associationsFailed, () => reconcileAssociations(hub.route53, zone.id, [endpointVpc, ...input.associatedVPCs], log));
  if (associated) await progress(REASONS.associationsReconciled, MESSAGES.associationsReconciled);
  return { kind: 'ready', principalsChanged: svc.principalsChanged };
}
