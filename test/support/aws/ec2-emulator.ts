/**
 * EC2 on its query API (form `Action=…&Version=2016-11-15`), stateful per account and region.
 *
 * Supported: DescribeVpcs, DescribeSubnets, DescribeNetworkInterfaces, CreateTags, DeleteTags, and
 * the PrivateLink operations of ec2-endpoints.ts (endpoint services, their permissions, endpoints)
 * and ec2-connections.ts (the service owner's view of endpoint connections: describe, reject, accept).
 * A caller sees only its own account's resources in the region it signed for, except endpoint
 * services shared with it. Not-found errors carry AWS's codes (`InvalidVpcID.NotFound` …).
 */
import type { AwsEmulator, EmulatedRequest, EmulatedResponse, ServiceHandler } from './emulator.ts';
import { ConnectionOperations } from './ec2-connections.ts';
import { EndpointOperations } from './ec2-endpoints.ts';
import type { Endpoint, EndpointService, EndpointState, NetworkInterface, NetworkModel, Owned, Subnet, Vpc } from './ec2-model.ts';
import { Ec2Fault, ec2Error, ec2Ok, interfaceXml, items, subnetXml, vpcXml } from './ec2-xml.ts';
import { describe, next } from './ec2-describe.ts';
import { listParam, mergeTags, page, removeTags, tagList } from './query.ts';
import type { QueryFilter } from './query.ts';

export interface EndpointKnobs {
  /** Describes of a new endpoint that still answer `pending` (AWS takes a minute or two). */
  pendingDescribes: number;
  /** Where new endpoints end up after `pending`: `available`, or `failed` / `rejected` to test recovery. */
  outcome: EndpointState;
  /**
   * Keep deleted endpoints listed as `deleted` (with their tags), as AWS does for a while, so a
   * controller finding endpoints by tag must skip them. Off: deleted endpoints vanish at once.
   */
  keepDeleted: boolean;
}

export class Ec2Emulator implements ServiceHandler {
  readonly service = 'ec2';
  readonly model: NetworkModel;
  readonly knobs: EndpointKnobs = { pendingDescribes: 1, outcome: 'available', keepDeleted: false };
  private readonly endpointOps: EndpointOperations;
  private readonly connectionOps: ConnectionOperations;

  constructor(aws: AwsEmulator, model: NetworkModel) {
    this.model = model;
    this.endpointOps = new EndpointOperations(model, this.knobs);
    this.connectionOps = new ConnectionOperations(model);
    aws.register(this);
  }

  /** End state for assertions: what exists in `account` (optionally in one region). */
  vpcs(account: string, region?: string): Vpc[] {
    return ofAccount(this.model.vpcs.values(), account, region);
  }

  subnets(account: string, region?: string): Subnet[] {
    return ofAccount(this.model.subnets.values(), account, region);
  }

  networkInterfaces(account: string, region?: string): NetworkInterface[] {
    return ofAccount(this.model.interfaces.values(), account, region);
  }

  endpointServices(account: string, region?: string): EndpointService[] {
    return ofAccount(this.model.services.values(), account, region);
  }

  endpoints(account: string, region?: string): Endpoint[] {
    return ofAccount(this.model.endpoints.values(), account, region);
  }

  /** Moves an endpoint to `state` at once, as AWS would on a failure or a rejection. */
  setEndpointState(id: string, state: EndpointState): void {
    const e = this.model.endpoints.get(id);
    if (e === undefined) throw new Error(`no endpoint ${id}`);
    e.state = state;
    e.outcome = state;
  }

  operation(req: EmulatedRequest): string {
    const action = new URLSearchParams(req.body).get('Action') ?? req.query.get('Action');
    if (action === null) throw new Error('missing Action');
    return action;
  }

  handle(req: EmulatedRequest, op: string): EmulatedResponse {
    const form = new URLSearchParams(req.body);
    try {
      const content = this.dispatch(req, op, form);
      return ec2Ok(op, content);
    } catch (err) {
      if (err instanceof Ec2Fault) return ec2Error(400, err.code, err.message);
      throw err;
    }
  }

  error(status: number, code: string, message: string): EmulatedResponse {
    return ec2Error(status, code, message);
  }

  private dispatch(req: EmulatedRequest, op: string, form: URLSearchParams): string[] {
    switch (op) {
      case 'DescribeVpcs': {
        const found = describe(this.model.vpcs.values(), req, listParam(form, 'VpcId'), ['InvalidVpcID.NotFound', 'vpc'], form, (v, f) =>
          f.name === 'vpc-id'
            ? f.values.includes(v.id)
            : f.name === 'cidr' || f.name === 'cidr-block'
              ? f.values.includes(v.cidr)
              : f.name === 'owner-id'
                ? f.values.includes(v.account)
                : undefined,
        );
        const p = page(found, form);
        return [items('vpcSet', p.items.map(vpcXml)), ...next(p.next)];
      }
      case 'DescribeSubnets': {
        const found = describe(this.model.subnets.values(), req, listParam(form, 'SubnetId'), ['InvalidSubnetID.NotFound', 'subnet'], form, (s, f) =>
          this.subnetFilter(s, f),
        );
        const p = page(found, form);
        return [
          items(
            'subnetSet',
            p.items.map((s) => subnetXml(this.model, s)),
          ),
          ...next(p.next),
        ];
      }
      case 'DescribeNetworkInterfaces': {
        const found = describe(
          this.model.interfaces.values(),
          req,
          listParam(form, 'NetworkInterfaceId'),
          ['InvalidNetworkInterfaceID.NotFound', 'networkInterface'],
          form,
          (n, f) => this.interfaceFilter(n, f),
        );
        const p = page(found, form);
        return [
          items(
            'networkInterfaceSet',
            p.items.map((n) => interfaceXml(this.model, n)),
          ),
          ...next(p.next),
        ];
      }
      case 'CreateTags':
      case 'DeleteTags':
        this.tag(req, form, op === 'CreateTags');
        return ['<return>true</return>'];
      default:
        return this.connectionOps.dispatch(req, op, form) ?? this.endpointOps.dispatch(req, op, form);
    }
  }

  private subnetFilter(s: Subnet, f: QueryFilter): boolean | undefined {
    switch (f.name) {
      case 'vpc-id':
        return f.values.includes(s.vpcId);
      case 'subnet-id':
        return f.values.includes(s.id);
      case 'availability-zone':
        return f.values.includes(this.model.azName(s.account, s.region, s.azId));
      case 'availability-zone-id':
        return f.values.includes(s.azId);
      case 'cidr-block':
        return f.values.includes(s.cidr);
      default:
        return undefined;
    }
  }

  private interfaceFilter(n: NetworkInterface, f: QueryFilter): boolean | undefined {
    switch (f.name) {
      case 'vpc-id':
        return f.values.includes(n.vpcId);
      case 'subnet-id':
        return f.values.includes(n.subnetId);
      case 'network-interface-id':
        return f.values.includes(n.id);
      case 'description':
        return f.values.includes(n.description);
      case 'interface-type':
        return f.values.includes('vpc_endpoint');
      default:
        return undefined;
    }
  }

  private tag(req: EmulatedRequest, form: URLSearchParams, add: boolean): void {
    const ids = listParam(form, 'ResourceId');
    if (ids.length === 0) throw new Ec2Fault('MissingParameter', 'The request must contain the parameter resourceIdSet');
    const targets = ids.map((id) => {
      const r = this.resourceById(id);
      if (r === undefined || r.account !== req.account || r.region !== req.region) throw new Ec2Fault(notFoundCode(id), `The ID '${id}' does not exist`);
      return r;
    });
    const tags = tagList(form, 'Tag');
    for (const r of targets) {
      if (add) r.tags = mergeTags(r.tags, tags);
      else
        r.tags = removeTags(
          r.tags,
          tags.map((t, i) => (form.has(`Tag.${i + 1}.Value`) ? t : { key: t.key })),
        );
    }
  }

  private resourceById(id: string): Owned | undefined {
    return (
      this.model.vpcs.get(id) ?? this.model.subnets.get(id) ?? this.model.interfaces.get(id) ?? this.model.services.get(id) ?? this.model.endpoints.get(id)
    );
  }
}

function ofAccount<T extends Owned>(all: Iterable<T>, account: string, region: string | undefined): T[] {
  return [...all].filter((r) => r.account === account && (region === undefined || r.region === region));
}

function notFoundCode(id: string): string {
  if (id.startsWith('vpce-svc-')) return 'InvalidVpcEndpointServiceId.NotFound';
  if (id.startsWith('vpce-')) return 'InvalidVpcEndpointId.NotFound';
  if (id.startsWith('vpc-')) return 'InvalidVpcID.NotFound';
  if (id.startsWith('subnet-')) return 'InvalidSubnetID.NotFound';
  if (id.startsWith('eni-')) return 'InvalidNetworkInterfaceID.NotFound';
  return 'InvalidID';
}
