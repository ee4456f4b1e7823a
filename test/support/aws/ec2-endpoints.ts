/**
 * The PrivateLink half of the EC2 emulator.
 *
 * Provider side (the account owning the network load balancer): CreateVpcEndpointServiceConfiguration,
 * DescribeVpcEndpointServiceConfigurations, ModifyVpcEndpointServiceConfiguration,
 * DeleteVpcEndpointServiceConfigurations (refused per item while endpoints are connected),
 * DescribeVpcEndpointServicePermissions, ModifyVpcEndpointServicePermissions.
 * Consumer side: DescribeVpcEndpointServices (only services the caller owns or is allowed on, zone
 * names in the caller's mapping), CreateVpcEndpoint (Interface only; one network interface with a
 * private address per subnet; subnets must be in the service's zones), DescribeVpcEndpoints
 * (`pending` for `knobs.pendingDescribes` describes, then `knobs.outcome`), DeleteVpcEndpoints
 * (gone at once, or left `deleted` with `knobs.keepDeleted`).
 */
import { awsPartition } from '../../../src/aws/partition.ts';
import type { EmulatedRequest } from './emulator.ts';
import { describe, next } from './ec2-describe.ts';
import type { EndpointKnobs } from './ec2-emulator.ts';
import type { Endpoint, EndpointService, NetworkModel, Subnet } from './ec2-model.ts';
import { Ec2Fault, endpointXml, items, serviceConfigurationXml, serviceDetailXml, textItems } from './ec2-xml.ts';
import { boolParam, filters, hexId, listParam, page, tagFilterMatches, tagSpecifications } from './query.ts';
import type { QueryFilter } from './query.ts';
import { el } from './xml.ts';

export class EndpointOperations {
  private readonly model: NetworkModel;
  private readonly knobs: EndpointKnobs;
  /** ClientToken → id of what it created, so a retried create returns the same resource. */
  private readonly tokens = new Map<string, string>();

  constructor(model: NetworkModel, knobs: EndpointKnobs) {
    this.model = model;
    this.knobs = knobs;
  }

  dispatch(req: EmulatedRequest, op: string, form: URLSearchParams): string[] {
    switch (op) {
      case 'CreateVpcEndpointServiceConfiguration':
        return [el('serviceConfiguration', [serviceConfigurationXml(this.model, this.createService(req, form))])];
      case 'DescribeVpcEndpointServiceConfigurations': {
        const found = describe(
          this.model.services.values(),
          req,
          listParam(form, 'ServiceId'),
          ['InvalidVpcEndpointServiceId.NotFound', 'VpcEndpointService'],
          form,
          serviceFilter,
        );
        const p = page(found, form);
        return [
          items(
            'serviceConfigurationSet',
            p.items.map((s) => serviceConfigurationXml(this.model, s)),
          ),
          ...next(p.next),
        ];
      }
      case 'ModifyVpcEndpointServiceConfiguration':
        this.modifyService(req, form);
        return ['<return>true</return>'];
      case 'DeleteVpcEndpointServiceConfigurations':
        return [unsuccessful(listParam(form, 'ServiceId').flatMap((id) => this.deleteService(req, id)))];
      case 'DescribeVpcEndpointServicePermissions': {
        const svc = this.ownService(req, form.get('ServiceId') ?? '');
        const p = page(svc.allowedPrincipals, form);
        return [
          items(
            'allowedPrincipals',
            p.items.map((arn) => principalXml(svc, arn)),
          ),
          ...next(p.next),
        ];
      }
      case 'ModifyVpcEndpointServicePermissions':
        return this.modifyPermissions(req, form);
      case 'DescribeVpcEndpointServices':
        return this.describeServices(req, form);
      case 'CreateVpcEndpoint':
        return [el('vpcEndpoint', [endpointXml(this.model, this.createEndpoint(req, form))])];
      case 'DescribeVpcEndpoints': {
        for (const e of this.model.endpoints.values()) if (e.account === req.account && e.region === req.region) this.model.observeEndpoint(e);
        const found = describe(
          this.model.endpoints.values(),
          req,
          listParam(form, 'VpcEndpointId'),
          ['InvalidVpcEndpointId.NotFound', 'Vpc Endpoint'],
          form,
          endpointFilter,
        );
        const p = page(found, form);
        return [
          items(
            'vpcEndpointSet',
            p.items.map((e) => endpointXml(this.model, e)),
          ),
          ...next(p.next),
        ];
      }
      case 'DeleteVpcEndpoints':
        return [unsuccessful(listParam(form, 'VpcEndpointId').flatMap((id) => this.deleteEndpoint(req, id)))];
      default:
        throw new Ec2Fault('InvalidAction', `The action ${op} is not valid for this web service.`);
    }
  }

  private createService(req: EmulatedRequest, form: URLSearchParams): EndpointService {
    const token = form.get('ClientToken');
    const earlier = token === null ? undefined : this.model.services.get(this.tokens.get(`svc:${req.account}:${token}`) ?? '');
    if (earlier !== undefined) return earlier;
    const arns = listParam(form, 'NetworkLoadBalancerArn');
    if (arns.length === 0) throw new Ec2Fault('InvalidParameter', 'At least one Network Load Balancer or Gateway Load Balancer ARN must be specified');
    for (const arn of arns) this.ownLoadBalancer(req, arn);
    const id = `vpce-svc-${hexId(9).slice(0, 17)}`;
    const svc: EndpointService = {
      id,
      account: req.account,
      region: req.region,
      // China's endpoint service names carry a `cn.` prefix (cn.com.amazonaws.vpce.cn-north-1.vpce-svc-…).
      name: `${awsPartition(req.region) === 'aws-cn' ? 'cn.' : ''}com.amazonaws.vpce.${req.region}.${id}`,
      acceptanceRequired: boolParam(form, 'AcceptanceRequired') ?? true,
      nlbArns: arns,
      allowedPrincipals: [],
      tags: tagSpecifications(form, 'vpc-endpoint-service'),
    };
    this.model.services.set(id, svc);
    if (token !== null) this.tokens.set(`svc:${req.account}:${token}`, id);
    return svc;
  }

  private ownLoadBalancer(req: EmulatedRequest, arn: string): void {
    const lb = this.model.loadBalancers.get(arn);
    if (lb === undefined || lb.account !== req.account || lb.region !== req.region)
      throw new Ec2Fault('InvalidParameter', `The Network Load Balancer ARN '${arn}' does not exist`);
  }

  private ownService(req: EmulatedRequest, id: string): EndpointService {
    const svc = this.model.services.get(id);
    if (svc === undefined || svc.account !== req.account || svc.region !== req.region)
      throw new Ec2Fault('InvalidVpcEndpointServiceId.NotFound', `The VpcEndpointService Id '${id}' does not exist`);
    return svc;
  }

  private modifyService(req: EmulatedRequest, form: URLSearchParams): void {
    const svc = this.ownService(req, form.get('ServiceId') ?? '');
    const add = listParam(form, 'AddNetworkLoadBalancerArn');
    const remove = listParam(form, 'RemoveNetworkLoadBalancerArn');
    for (const arn of add) this.ownLoadBalancer(req, arn);
    for (const arn of remove) {
      if (!svc.nlbArns.includes(arn))
        throw new Ec2Fault('InvalidParameter', `The Network Load Balancer ARN '${arn}' is not associated with the service ${svc.id}`);
    }
    const nlbs = [...svc.nlbArns.filter((a) => !remove.includes(a)), ...add.filter((a) => !svc.nlbArns.includes(a))];
    if (nlbs.length === 0) throw new Ec2Fault('InvalidParameter', `The service ${svc.id} must keep at least one load balancer`);
    svc.nlbArns = nlbs;
    const acceptance = boolParam(form, 'AcceptanceRequired');
    if (acceptance !== undefined) svc.acceptanceRequired = acceptance;
  }

  private deleteService(req: EmulatedRequest, id: string): { id: string; code: string; message: string }[] {
    const svc = this.model.services.get(id);
    if (svc === undefined || svc.account !== req.account || svc.region !== req.region)
      return [{ id, code: 'InvalidVpcEndpointService.NotFound', message: `The VpcEndpointService Id '${id}' does not exist` }];
    if (this.model.connectedEndpoints(svc).length > 0)
      return [{ id, code: 'ExistingVpcEndpointConnections', message: 'Service has existing active VPC Endpoint connections!' }];
    this.model.services.delete(id);
    return [];
  }

  private modifyPermissions(req: EmulatedRequest, form: URLSearchParams): string[] {
    const svc = this.ownService(req, form.get('ServiceId') ?? '');
    const add = listParam(form, 'AddAllowedPrincipals');
    const remove = listParam(form, 'RemoveAllowedPrincipals');
    for (const p of [...add, ...remove]) {
      if (p !== '*' && !/^arn:aws[a-z-]*:(iam|sts)::\d{12}:/.test(p)) throw new Ec2Fault('InvalidPrincipal', `Invalid principal ${p}`);
    }
    svc.allowedPrincipals = [...svc.allowedPrincipals.filter((p) => !remove.includes(p)), ...add.filter((p) => !svc.allowedPrincipals.includes(p))];
    return [
      items(
        'addedPrincipalSet',
        add.map((p) => principalXml(svc, p)),
      ),
      '<return>true</return>',
    ];
  }

  private describeServices(req: EmulatedRequest, form: URLSearchParams): string[] {
    const names = listParam(form, 'ServiceName');
    const visible = [...this.model.services.values()].filter((s) => s.region === req.region && this.model.mayConnect(s, req.principal, req.account));
    for (const n of names) {
      if (!visible.some((s) => s.name === n)) throw new Ec2Fault('InvalidServiceName', `The Vpc Endpoint Service '${n}' does not exist`);
    }
    const fs = filters(form);
    const found = visible.filter(
      (s) =>
        (names.length === 0 || names.includes(s.name)) &&
        fs.every((f) => matchOrThrow(f, s.account === req.account ? (tagFilterMatches(f, s.tags) ?? serviceFilter(s, f)) : serviceFilter(s, f))),
    );
    const p = page(found, form);
    return [
      textItems(
        'serviceNameSet',
        p.items.map((s) => s.name),
      ),
      items(
        'serviceDetailSet',
        p.items.map((s) => serviceDetailXml(this.model, s, req.account)),
      ),
      ...next(p.next),
    ];
  }

  private createEndpoint(req: EmulatedRequest, form: URLSearchParams): Endpoint {
    const token = form.get('ClientToken');
    const earlier = token === null ? undefined : this.model.endpoints.get(this.tokens.get(`vpce:${req.account}:${token}`) ?? '');
    if (earlier !== undefined) return earlier;
    const type = form.get('VpcEndpointType') ?? 'Gateway';
    if (type !== 'Interface') throw new Ec2Fault('InvalidParameter', `The emulator creates Interface endpoints only, not ${type}`);
    const vpcId = form.get('VpcId') ?? '';
    const vpc = this.model.vpcs.get(vpcId);
    if (vpc === undefined || vpc.account !== req.account || vpc.region !== req.region)
      throw new Ec2Fault('InvalidVpcID.NotFound', `The vpc ID '${vpcId}' does not exist`);
    const serviceName = form.get('ServiceName') ?? '';
    const svc = this.model.serviceByName(serviceName);
    if (svc === undefined || svc.region !== req.region || !this.model.mayConnect(svc, req.principal, req.account))
      throw new Ec2Fault('InvalidServiceName', `The Vpc Endpoint Service '${serviceName}' does not exist`);
    const zones = this.model.serviceZones(svc);
    const subnets: Subnet[] = [];
    for (const id of listParam(form, 'SubnetId')) {
      const s = this.model.subnets.get(id);
      if (s === undefined || s.account !== req.account || s.region !== req.region)
        throw new Ec2Fault('InvalidSubnetID.NotFound', `The subnet ID '${id}' does not exist`);
      if (s.vpcId !== vpcId) throw new Ec2Fault('InvalidParameter', `The subnet ${id} does not belong to ${vpcId}`);
      if (!zones.includes(s.azId))
        throw new Ec2Fault('InvalidParameter', `The VPC endpoint service ${svc.name} does not support the availability zone of the subnet: ${id}.`);
      if (subnets.some((o) => o.azId === s.azId))
        throw new Ec2Fault(
          'DuplicateSubnetsInSameZone',
          `Found another VPC endpoint subnet in the availability zone of ${id}. VPC endpoint subnets should be in different availability zones supported by the VPC endpoint service.`,
        );
      subnets.push(s);
    }
    if (boolParam(form, 'PrivateDnsEnabled') === true)
      throw new Ec2Fault('InvalidParameter', `Private DNS can't be enabled because the service ${serviceName} does not provide a private DNS name.`);
    const id = `vpce-${hexId(9).slice(0, 17)}`;
    const endpoint: Endpoint = {
      id,
      account: req.account,
      region: req.region,
      vpcId,
      serviceName,
      serviceId: svc.id,
      subnetIds: subnets.map((s) => s.id),
      eniIds: [],
      privateDnsEnabled: false,
      state: svc.acceptanceRequired ? 'pendingAcceptance' : 'pending',
      pendingDescribes: this.knobs.pendingDescribes,
      outcome: this.knobs.outcome,
      dnsPrefix: `${id}-${hexId(4)}`,
      createdAt: new Date(),
      tags: tagSpecifications(form, 'vpc-endpoint'),
    };
    for (const s of subnets) {
      const eniId = `eni-${hexId(9).slice(0, 17)}`;
      this.model.interfaces.set(eniId, {
        id: eniId,
        account: req.account,
        region: req.region,
        subnetId: s.id,
        vpcId,
        azId: s.azId,
        privateIp: this.model.allocateIp(s),
        description: `VPC Endpoint Interface ${id}`,
        endpointId: id,
        tags: [],
      });
      endpoint.eniIds.push(eniId);
    }
    this.model.endpoints.set(id, endpoint);
    if (token !== null) this.tokens.set(`vpce:${req.account}:${token}`, id);
    return endpoint;
  }

  private deleteEndpoint(req: EmulatedRequest, id: string): { id: string; code: string; message: string }[] {
    const e = this.model.endpoints.get(id);
    if (e === undefined || e.account !== req.account || e.region !== req.region)
      return [{ id, code: 'InvalidVpcEndpoint.NotFound', message: `The VPC endpoint '${id}' does not exist` }];
    if (e.state === 'deleted') return [];
    this.model.deleteEndpoint(e, this.knobs.keepDeleted);
    return [];
  }
}

function serviceFilter(s: EndpointService, f: QueryFilter): boolean | undefined {
  switch (f.name) {
    case 'service-name':
      return f.values.includes(s.name);
    case 'service-id':
      return f.values.includes(s.id);
    case 'service-state':
      return f.values.includes('Available');
    case 'service-type':
      return f.values.includes('Interface');
    case 'owner':
      return f.values.includes(s.account);
    default:
      return undefined;
  }
}

function endpointFilter(e: Endpoint, f: QueryFilter): boolean | undefined {
  switch (f.name) {
    case 'vpc-id':
      return f.values.includes(e.vpcId);
    case 'service-name':
      return f.values.includes(e.serviceName);
    case 'vpc-endpoint-id':
      return f.values.includes(e.id);
    case 'vpc-endpoint-state':
      return f.values.includes(e.state);
    case 'vpc-endpoint-type':
      return f.values.includes('Interface');
    default:
      return undefined;
  }
}

function matchOrThrow(f: QueryFilter, ok: boolean | undefined): boolean {
  if (ok === undefined) throw new Ec2Fault('InvalidParameterValue', `The filter '${f.name}' is invalid`);
  return ok;
}

function principalType(arn: string): string {
  if (arn === '*') return 'All';
  if (arn.endsWith(':root')) return 'Account';
  if (arn.includes(':role/') || arn.includes(':assumed-role/')) return 'Role';
  return 'User';
}

function principalXml(svc: EndpointService, arn: string): string {
  return (
    el('principalType', principalType(arn)) +
    el('principal', arn) +
    el('servicePermissionId', `vpce-svc-perm-${Buffer.from(arn).toString('hex').slice(-12)}`) +
    el('serviceId', svc.id)
  );
}

function unsuccessful(failures: readonly { id: string; code: string; message: string }[]): string {
  return items(
    'unsuccessful',
    failures.map((f) => el('error', [el('code', f.code), el('message', f.message)]) + el('resourceId', f.id)),
  );
}
