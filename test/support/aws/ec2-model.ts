/**
 * The network state the EC2, ELBv2 and Route53 emulators share: VPCs, subnets, network
 * interfaces, load balancers, endpoint services and endpoints, each owned by an account in a
 * region. Availability zones are stored by zone id (`use1-az1`); each account sees them under its
 * own names (`us-east-1a`), as AWS maps them per account.
 */
import { awsPartition, dnsSuffix } from '../../../src/aws/partition.ts';
import { hexId } from './query.ts';
import type { Tag } from './query.ts';

export interface Owned {
  id: string;
  account: string;
  region: string;
  tags: Tag[];
}

export interface Vpc extends Owned {
  cidr: string;
}

export interface Subnet extends Owned {
  vpcId: string;
  azId: string;
  cidr: string;
  /** Host addresses handed out so far (AWS keeps the first four). */
  allocated: number;
}

export interface NetworkInterface extends Owned {
  subnetId: string;
  vpcId: string;
  azId: string;
  privateIp: string;
  description: string;
  endpointId: string;
}

export type LoadBalancerState = 'provisioning' | 'active' | 'failed';

export interface LoadBalancer extends Owned {
  name: string;
  arn: string;
  dnsName: string;
  canonicalHostedZoneId: string;
  vpcId: string;
  subnetIds: string[];
  scheme: 'internal' | 'internet-facing';
  state: LoadBalancerState;
  /** Describes that still answer `provisioning` before the state turns `active`. */
  provisioningDescribes: number;
  createdAt: Date;
}

export interface EndpointService extends Owned {
  name: string;
  acceptanceRequired: boolean;
  nlbArns: string[];
  /** ARNs as given to ModifyVpcEndpointServicePermissions (`*`, an account root, a user, a role). */
  allowedPrincipals: string[];
}

export type EndpointState = 'pendingAcceptance' | 'pending' | 'available' | 'deleting' | 'deleted' | 'rejected' | 'failed' | 'expired';

export interface Endpoint extends Owned {
  vpcId: string;
  serviceName: string;
  serviceId: string;
  subnetIds: string[];
  eniIds: string[];
  privateDnsEnabled: boolean;
  state: EndpointState;
  /** Describes that still answer `pending`; then `outcome` takes over. */
  pendingDescribes: number;
  outcome: EndpointState;
  dnsPrefix: string;
  createdAt: Date;
}

/** Route53's hosted zone id for VPC endpoint DNS names, per region (`*.vpce.amazonaws.com`). */
const VPCE_ZONES: Readonly<Record<string, string>> = {
  'us-east-1': 'Z7HUB22UULQXV',
  'us-east-2': 'ZC8PG0KIFKBRI',
  'us-west-2': 'Z1YSA3EXCYUU9Z',
  'eu-west-1': 'Z38GZ743OKFT7T',
};
/** ... and for network load balancers (`*.elb.<region>.amazonaws.com`). */
const NLB_ZONES: Readonly<Record<string, string>> = {
  'us-east-1': 'Z26RNL4JYFTOTI',
  'us-east-2': 'ZLMOA37VPKANP',
  'us-west-2': 'Z18D5FSROUN65G',
  'eu-west-1': 'Z2IFOLAFXWLO4F',
};

export function vpceHostedZoneId(region: string): string {
  return VPCE_ZONES[region] ?? 'ZVPCEEMULATED';
}

export function nlbHostedZoneId(region: string): string {
  return NLB_ZONES[region] ?? 'ZNLBEMULATED';
}

/** `us-east-1` → `use1`, the prefix of the region's zone ids. */
export function regionShortName(region: string): string {
  const [geo = '', dir = '', n = ''] = region.split('-');
  return `${geo}${dir.charAt(0)}${n}`;
}

export class NetworkModel {
  readonly vpcs = new Map<string, Vpc>();
  readonly subnets = new Map<string, Subnet>();
  readonly interfaces = new Map<string, NetworkInterface>();
  readonly loadBalancers = new Map<string, LoadBalancer>();
  readonly services = new Map<string, EndpointService>();
  readonly endpoints = new Map<string, Endpoint>();
  /** account → region → zone id → the zone's name for that account. */
  private readonly azNames = new Map<string, Map<string, Map<string, string>>>();
  private nextCidr = 0;

  /**
   * Gives `account` its own names for zone ids in `region`, e.g. `{ 'use1-az1': 'us-east-1c' }`;
   * zone ids not listed keep the default (`<region>a` for `az1`, `b` for `az2` …).
   */
  setAzNames(account: string, region: string, names: Record<string, string>): void {
    const byRegion = this.azNames.get(account) ?? new Map<string, Map<string, string>>();
    byRegion.set(region, new Map(Object.entries(names)));
    this.azNames.set(account, byRegion);
  }

  azName(account: string, region: string, azId: string): string {
    const custom = this.azNames.get(account)?.get(region)?.get(azId);
    if (custom !== undefined) return custom;
    const n = Number(/az(\d+)$/.exec(azId)?.[1] ?? '1');
    return `${region}${String.fromCharCode(96 + n)}`;
  }

  /** The zone id behind `name` for `account`, or undefined when the region has no such zone. */
  azIdOf(account: string, region: string, name: string): string | undefined {
    for (let n = 1; n <= 6; n++) {
      const id = `${regionShortName(region)}-az${n}`;
      if (this.azName(account, region, id) === name) return id;
    }
    return undefined;
  }

  addVpc(account: string, region: string, opts: { cidr?: string; tags?: Tag[]; id?: string } = {}): Vpc {
    const cidr = opts.cidr ?? `10.${this.nextCidr++ % 256}.0.0/16`;
    const vpc: Vpc = { id: opts.id ?? `vpc-${hexId(9).slice(0, 17)}`, account, region, cidr, tags: [...(opts.tags ?? [])] };
    this.vpcs.set(vpc.id, vpc);
    return vpc;
  }

  /** A /24 in the VPC, in the zone given by id (`use1-az2`) or by the account's name for it. */
  addSubnet(vpcId: string, opts: { azId?: string; az?: string; cidr?: string; tags?: Tag[]; id?: string }): Subnet {
    const vpc = this.vpcs.get(vpcId);
    if (vpc === undefined) throw new Error(`no VPC ${vpcId}`);
    const azId = opts.azId ?? (opts.az === undefined ? `${regionShortName(vpc.region)}-az1` : this.azIdOf(vpc.account, vpc.region, opts.az));
    if (azId === undefined) throw new Error(`no availability zone ${opts.az ?? ''} in ${vpc.region} for ${vpc.account}`);
    const index = [...this.subnets.values()].filter((s) => s.vpcId === vpcId).length;
    const [a = '10', b = '0'] = vpc.cidr.split('.');
    const subnet: Subnet = {
      id: opts.id ?? `subnet-${hexId(9).slice(0, 17)}`,
      account: vpc.account,
      region: vpc.region,
      vpcId,
      azId,
      cidr: opts.cidr ?? `${a}.${b}.${index}.0/24`,
      allocated: 0,
      tags: [...(opts.tags ?? [])],
    };
    this.subnets.set(subnet.id, subnet);
    return subnet;
  }

  /** The next free host address of the subnet. */
  allocateIp(subnet: Subnet): string {
    const [a = '10', b = '0', c = '0'] = subnet.cidr.split('.');
    subnet.allocated++;
    return `${a}.${b}.${c}.${subnet.allocated + 3}`;
  }

  /** A network load balancer over `subnetIds` (at most one per zone), `active` unless told otherwise. */
  addLoadBalancer(
    account: string,
    region: string,
    name: string,
    subnetIds: readonly string[],
    opts: { state?: LoadBalancerState; provisioningDescribes?: number; scheme?: 'internal' | 'internet-facing' } = {},
  ): LoadBalancer {
    const subnets = subnetIds.map((id) => {
      const s = this.subnets.get(id);
      if (s === undefined || s.account !== account || s.region !== region) throw new Error(`no subnet ${id} in ${account}/${region}`);
      return s;
    });
    const first = subnets[0];
    if (first === undefined) throw new Error('a load balancer needs at least one subnet');
    const suffix = hexId(8);
    const provisioningDescribes = opts.provisioningDescribes ?? 0;
    const lb: LoadBalancer = {
      id: suffix,
      account,
      region,
      name,
      arn: `arn:${awsPartition(region)}:elasticloadbalancing:${region}:${account}:loadbalancer/net/${name}/${suffix}`,
      dnsName: `${name}-${suffix.slice(0, 10)}.elb.${region}.${dnsSuffix(region)}`,
      canonicalHostedZoneId: nlbHostedZoneId(region),
      vpcId: first.vpcId,
      subnetIds: [...subnetIds],
      scheme: opts.scheme ?? 'internal',
      state: opts.state ?? (provisioningDescribes > 0 ? 'provisioning' : 'active'),
      provisioningDescribes,
      createdAt: new Date(),
      tags: [],
    };
    this.loadBalancers.set(lb.arn, lb);
    return lb;
  }

  loadBalancerZones(lb: LoadBalancer): string[] {
    return unique(lb.subnetIds.map((id) => this.subnets.get(id)?.azId ?? ''));
  }

  /** The zone ids an endpoint service offers: those of its load balancers' subnets. */
  serviceZones(svc: EndpointService): string[] {
    return unique(
      svc.nlbArns.flatMap((arn) => {
        const lb = this.loadBalancers.get(arn);
        return lb === undefined ? [] : this.loadBalancerZones(lb);
      }),
    ).sort();
  }

  serviceByName(name: string): EndpointService | undefined {
    return [...this.services.values()].find((s) => s.name === name);
  }

  /** Whether `principal` (the caller's ARN) of `account` may see and connect to `svc`. */
  mayConnect(svc: EndpointService, principal: string, account: string): boolean {
    if (svc.account === account) return true;
    const partition = principal.split(':')[1] ?? 'aws';
    const role = /^arn:aws[a-z-]*:sts::(\d{12}):assumed-role\/([^/]+)\//.exec(principal);
    const candidates = [
      principal,
      `arn:${partition}:iam::${account}:root`,
      '*',
      ...(role === null ? [] : [`arn:${partition}:iam::${role[1] ?? ''}:role/${role[2] ?? ''}`]),
    ];
    return svc.allowedPrincipals.some((p) => candidates.includes(p));
  }

  /** Endpoints that hold a connection to the service (AWS refuses to delete it while any do). */
  connectedEndpoints(svc: EndpointService): Endpoint[] {
    return [...this.endpoints.values()].filter((e) => e.serviceId === svc.id && ['pendingAcceptance', 'pending', 'available'].includes(e.state));
  }

  /** Counts one Describe of the endpoint, moving it out of `pending` when its turn comes. */
  observeEndpoint(e: Endpoint): void {
    if (e.state !== 'pending') return;
    if (e.pendingDescribes > 0) {
      e.pendingDescribes--;
      return;
    }
    e.state = e.outcome;
  }

  observeLoadBalancer(lb: LoadBalancer): void {
    if (lb.state !== 'provisioning') return;
    if (lb.provisioningDescribes > 0) {
      lb.provisioningDescribes--;
      return;
    }
    lb.state = 'active';
  }

  /** Frees the endpoint's interfaces; the endpoint itself goes, or stays as `deleted` when `keep`. */
  deleteEndpoint(e: Endpoint, keep = false): void {
    for (const id of e.eniIds) this.interfaces.delete(id);
    e.eniIds = [];
    if (keep) e.state = 'deleted';
    else this.endpoints.delete(e.id);
  }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
