/**
 * Step 5: the VPC endpoint service in the user's account, found by its tag or created, fronting
 * exactly the cluster's NLB with acceptance off, and allowing exactly the hub's principal plus the
 * additional ones (changed as a diff, so principals someone else may rely on are not churned);
 * then the connections of accounts those principals no longer cover are rejected (connections.ts).
 */
import type { Logger } from '../../log.ts';
import type { Ec2Port, EndpointService } from '../aws/ports.ts';
import { wrapped } from '../errors.ts';
import { ACCESS_TAG } from '../types.ts';
import { rejectForeignConnections } from './connections.ts';
import type { WarnedOnce } from './connections.ts';

export interface PrincipalDiff {
  add: string[];
  remove: string[];
}

export function principalDiff(current: readonly string[], desired: readonly string[]): PrincipalDiff {
  const want = new Set(desired);
  const have = new Set(current);
  return { add: [...want].filter((p) => !have.has(p)).sort(), remove: [...have].filter((p) => !want.has(p)).sort() };
}

export interface EndpointServiceResult {
  service: EndpointService;
  /** Allowed principals were changed by this run. */
  principalsChanged: boolean;
}

export async function reconcileEndpointService(
  ec2: Ec2Port,
  input: { infraID: string; nlbArn: string; principals: readonly string[] },
  log: Logger,
  warned?: WarnedOnce,
): Promise<EndpointServiceResult> {
  const tag = { key: ACCESS_TAG, value: input.infraID };
  const found = await ec2.findEndpointServices(tag);
  const live = found.filter((s) => s.state !== 'Deleted' && s.state !== 'Deleting' && s.state !== 'Failed');
  if (live.length > 1)
    log.warn({ infraID: input.infraID, services: live.map((s) => s.id) }, 'several endpoint services carry the cluster tag; using the first');
  let service = live[0];
  if (service === undefined) {
    service = await wrapped('failed to create VPC Endpoint Service for cluster', () => ec2.createEndpointService(input.nlbArn, tag));
    log.info({ service: service.id }, 'created VPC endpoint service');
  }
  const add = service.nlbArns.includes(input.nlbArn) ? [] : [input.nlbArn];
  const remove = service.nlbArns.filter((a) => a !== input.nlbArn);
  if (service.acceptanceRequired || add.length > 0 || remove.length > 0) {
    await ec2.modifyEndpointService(service.id, {
      acceptanceRequired: false,
      ...(add.length > 0 ? { addNlbArns: add } : {}),
      ...(remove.length > 0 ? { removeNlbArns: remove } : {}),
    });
    service = { ...service, acceptanceRequired: false, nlbArns: [input.nlbArn] };
  }
  const diff = principalDiff(await ec2.allowedPrincipals(service.id), input.principals);
  const principalsChanged = diff.add.length > 0 || diff.remove.length > 0;
  if (principalsChanged) {
    await ec2.modifyAllowedPrincipals(service.id, diff.add, diff.remove);
    log.info({ service: service.id, ...diff }, 'changed allowed principals of the endpoint service');
  }
  await rejectForeignConnections({ ec2, serviceId: service.id, infraID: input.infraID, log, warned }, input.principals);
  return { service, principalsChanged };
}
