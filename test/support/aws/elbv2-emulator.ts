/**
 * Elastic Load Balancing v2 on the awsQuery API (Version 2015-12-01): DescribeLoadBalancers by
 * `Names.member.N` or `LoadBalancerArns.member.N` (a missing one fails the whole call with
 * `LoadBalancerNotFound`, as AWS does), paged with Marker/PageSize. Load balancers are created by
 * tests with `addNetworkLoadBalancer`; one may stay `provisioning` for a number of describes.
 */
import { randomBytes } from 'node:crypto';
import type { AwsEmulator, EmulatedRequest, EmulatedResponse, ServiceHandler } from './emulator.ts';
import type { LoadBalancer, LoadBalancerState, NetworkModel } from './ec2-model.ts';
import { listParam, page } from './query.ts';
import { el } from './xml.ts';

const NS = 'http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/';

export class Elbv2Emulator implements ServiceHandler {
  readonly service = 'elasticloadbalancing';
  readonly model: NetworkModel;

  constructor(aws: AwsEmulator, model: NetworkModel) {
    this.model = model;
    aws.register(this);
  }

  /**
   * A network load balancer of `account` over subnets (their zones become the load balancer's);
   * with `provisioningDescribes: n` the first n describes answer `provisioning`.
   */
  addNetworkLoadBalancer(
    account: string,
    region: string,
    name: string,
    subnetIds: readonly string[],
    opts: { state?: LoadBalancerState; provisioningDescribes?: number; scheme?: 'internal' | 'internet-facing' } = {},
  ): LoadBalancer {
    return this.model.addLoadBalancer(account, region, name, subnetIds, opts);
  }

  loadBalancers(account: string, region?: string): LoadBalancer[] {
    return [...this.model.loadBalancers.values()].filter((lb) => lb.account === account && (region === undefined || lb.region === region));
  }

  operation(req: EmulatedRequest): string {
    const action = new URLSearchParams(req.body).get('Action') ?? req.query.get('Action');
    if (action === null) throw new Error('missing Action');
    return action;
  }

  handle(req: EmulatedRequest, op: string): EmulatedResponse {
    const form = new URLSearchParams(req.body);
    if (op !== 'DescribeLoadBalancers') return this.error(400, 'InvalidAction', `Could not find operation ${op} for version 2015-12-01`);
    const mine = this.loadBalancers(req.account, req.region);
    const names = listParam(form, 'Names', true);
    const arns = listParam(form, 'LoadBalancerArns', true);
    if (names.length > 0 && arns.length > 0)
      return this.error(400, 'ValidationError', 'Load balancer names and load balancer ARNs cannot be specified at the same time');
    for (const n of names) if (!mine.some((lb) => lb.name === n)) return this.error(400, 'LoadBalancerNotFound', `Load balancers '[${n}]' not found`);
    for (const a of arns) if (!mine.some((lb) => lb.arn === a)) return this.error(400, 'LoadBalancerNotFound', `One or more load balancers not found`);
    const found = mine.filter((lb) => (names.length === 0 || names.includes(lb.name)) && (arns.length === 0 || arns.includes(lb.arn)));
    for (const lb of found) this.model.observeLoadBalancer(lb);
    const p = page(found, form, 'PageSize', 'Marker');
    return ok(op, [
      el(
        'LoadBalancers',
        p.items.map((lb) => el('member', [this.lbXml(lb)])),
      ),
      ...(p.next === undefined ? [] : [el('NextMarker', p.next)]),
    ]);
  }

  error(status: number, code: string, message: string): EmulatedResponse {
    return {
      status,
      body: `<?xml version="1.0" encoding="UTF-8"?><ErrorResponse xmlns="${NS}">${el('Error', [el('Type', status >= 500 ? 'Receiver' : 'Sender'), el('Code', code), el('Message', message)])}${el('RequestId', randomBytes(8).toString('hex'))}</ErrorResponse>`,
    };
  }

  private lbXml(lb: LoadBalancer): string {
    const zones = lb.subnetIds.map((id) => {
      const s = this.model.subnets.get(id);
      return el('member', [
        el('ZoneName', s === undefined ? '' : this.model.azName(lb.account, lb.region, s.azId)),
        el('SubnetId', id),
        el('LoadBalancerAddresses', []),
      ]);
    });
    return [
      el('LoadBalancerArn', lb.arn),
      el('DNSName', lb.dnsName),
      el('CanonicalHostedZoneId', lb.canonicalHostedZoneId),
      el('CreatedTime', lb.createdAt.toISOString()),
      el('LoadBalancerName', lb.name),
      el('Scheme', lb.scheme),
      el('VpcId', lb.vpcId),
      el('State', [el('Code', lb.state)]),
      el('Type', 'network'),
      el('AvailabilityZones', zones),
      el('IpAddressType', 'ipv4'),
    ].join('');
  }
}

function ok(op: string, result: readonly string[]): EmulatedResponse {
  return {
    status: 200,
    body: `<?xml version="1.0" encoding="UTF-8"?><${op}Response xmlns="${NS}">${el(`${op}Result`, [...result])}${el('ResponseMetadata', [el('RequestId', randomBytes(8).toString('hex'))])}</${op}Response>`,
  };
}
