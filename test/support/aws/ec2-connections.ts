/**
 * Endpoint connections, as the owner of an endpoint service sees them (EC2 API reference:
 * DescribeVpcEndpointConnections, RejectVpcEndpointConnections, AcceptVpcEndpointConnections).
 *
 * - Only the service's owner sees or changes its connections: another account's service id is
 *   `InvalidVpcEndpointServiceId.NotFound`, and its connections never show in a describe.
 * - Describe filters: `service-id`, `vpc-endpoint-owner`, `vpc-endpoint-state`, `vpc-endpoint-id`,
 *   `ip-address-type` (an unknown one is `InvalidParameterValue`); MaxResults 5–1000 (more is
 *   capped at 1000, less is `InvalidParameterValue`) with NextToken.
 * - Reject/Accept answer per item: an endpoint id not connected to the service is an
 *   `InvalidVpcEndpoint.NotFound` item of `unsuccessful`. A rejected endpoint stays listed (its
 *   owner deletes it) but no longer holds a connection, so it does not block deleting the service;
 *   rejecting it again changes nothing. Accept moves `pendingAcceptance` to `pending` (then
 *   `available`); any other state is an `InvalidState` item.
 */
import type { EmulatedRequest } from './emulator.ts';
import { next } from './ec2-describe.ts';
import type { Endpoint, EndpointService, NetworkModel } from './ec2-model.ts';
import { Ec2Fault, endpointDnsEntries, items, textItems } from './ec2-xml.ts';
import { filters, listParam, page } from './query.ts';
import type { QueryFilter } from './query.ts';
import { el } from './xml.ts';

type ItemError = { id: string; code: string; message: string };

export class ConnectionOperations {
  private readonly model: NetworkModel;

  constructor(model: NetworkModel) {
    this.model = model;
  }

  /** The answer's content, or undefined when `op` is not a connection operation. */
  dispatch(req: EmulatedRequest, op: string, form: URLSearchParams): string[] | undefined {
    switch (op) {
      case 'DescribeVpcEndpointConnections':
        return this.describe(req, form);
      case 'RejectVpcEndpointConnections':
        return [unsuccessful(this.change(req, form, (e) => reject(e)))];
      case 'AcceptVpcEndpointConnections':
        return [unsuccessful(this.change(req, form, (e) => accept(e)))];
      default:
        return undefined;
    }
  }

  private describe(req: EmulatedRequest, form: URLSearchParams): string[] {
    const fs = filters(form);
    const mine = new Map([...this.model.services.values()].filter((s) => s.account === req.account && s.region === req.region).map((s) => [s.id, s]));
    const found = [...this.model.endpoints.values()].filter(
      (e) =>
        mine.has(e.serviceId) &&
        fs.every((f) => {
          const ok = connectionFilter(e, f);
          if (ok === undefined) throw new Ec2Fault('InvalidParameterValue', `The filter '${f.name}' is invalid`);
          return ok;
        }),
    );
    const p = page(found, boundedPage(form));
    return [
      items(
        'vpcEndpointConnectionSet',
        p.items.map((e) => this.connectionXml(e, mine.get(e.serviceId)!)),
      ),
      ...next(p.next),
    ];
  }

  private change(req: EmulatedRequest, form: URLSearchParams, apply: (e: Endpoint) => ItemError | undefined): ItemError[] {
    const serviceId = form.get('ServiceId') ?? '';
    const svc = this.model.services.get(serviceId);
    if (svc === undefined || svc.account !== req.account || svc.region !== req.region)
      throw new Ec2Fault('InvalidVpcEndpointServiceId.NotFound', `The VpcEndpointService Id '${serviceId}' does not exist`);
    const ids = listParam(form, 'VpcEndpointId');
    if (ids.length === 0) throw new Ec2Fault('MissingParameter', 'The request must contain the parameter VpcEndpointId');
    const failures: ItemError[] = [];
    for (const id of ids) {
      const e = this.model.endpoints.get(id);
      if (e === undefined || e.serviceId !== svc.id || e.state === 'deleted') {
        failures.push({ id, code: 'InvalidVpcEndpoint.NotFound', message: `The Vpc Endpoint Id '${id}' does not exist` });
        continue;
      }
      const failure = apply(e);
      if (failure !== undefined) failures.push(failure);
    }
    return failures;
  }

  private connectionXml(e: Endpoint, svc: EndpointService): string {
    return [
      el('serviceId', svc.id),
      el('vpcEndpointId', e.id),
      el('vpcEndpointOwner', e.account),
      el('vpcEndpointState', e.state),
      el('creationTimestamp', e.createdAt.toISOString()),
      items(
        'dnsEntrySet',
        endpointDnsEntries(this.model, e).map((d) => el('dnsName', d.dnsName) + el('hostedZoneId', d.hostedZoneId)),
      ),
      textItems('networkLoadBalancerArnSet', svc.nlbArns),
      el('ipAddressType', 'ipv4'),
      el('vpcEndpointConnectionId', `vpce-con-${e.id.slice(5)}`),
    ].join('');
  }
}

function reject(e: Endpoint): undefined {
  e.state = 'rejected';
  e.outcome = 'rejected';
  return undefined;
}

function accept(e: Endpoint): ItemError | undefined {
  if (e.state !== 'pendingAcceptance')
    return { id: e.id, code: 'InvalidState', message: `The Vpc Endpoint '${e.id}' is in state ${e.state} and cannot be accepted` };
  e.state = 'pending';
  e.outcome = 'available';
  return undefined;
}

function connectionFilter(e: Endpoint, f: QueryFilter): boolean | undefined {
  switch (f.name) {
    case 'service-id':
      return f.values.includes(e.serviceId);
    case 'vpc-endpoint-owner':
      return f.values.includes(e.account);
    case 'vpc-endpoint-state':
      return f.values.includes(e.state);
    case 'vpc-endpoint-id':
      return f.values.includes(e.id);
    case 'ip-address-type':
      return f.values.includes('ipv4');
    default:
      return undefined;
  }
}

/** MaxResults as AWS bounds it here: 5 to 1000, larger values capped at 1000. */
function boundedPage(form: URLSearchParams): URLSearchParams {
  const raw = form.get('MaxResults');
  if (raw === null) return form;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 5)
    throw new Ec2Fault('InvalidParameterValue', `Value ( ${raw} ) for parameter maxResults is invalid. Expecting a value between 5 and 1000.`);
  const bounded = new URLSearchParams(form);
  bounded.set('MaxResults', String(Math.min(n, 1000)));
  return bounded;
}

function unsuccessful(failures: readonly ItemError[]): string {
  return items(
    'unsuccessful',
    failures.map((f) => el('error', [el('code', f.code), el('message', f.message)]) + el('resourceId', f.id)),
  );
}
