/** The EC2 port over the SDK: endpoint services (user account), endpoints and ENIs (hub account). */
import { randomUUID } from 'node:crypto';
import {
  CreateVpcEndpointCommand,
  CreateVpcEndpointServiceConfigurationCommand,
  DeleteVpcEndpointServiceConfigurationsCommand,
  DeleteVpcEndpointsCommand,
  DescribeNetworkInterfacesCommand,
  DescribeVpcEndpointConnectionsCommand,
  DescribeVpcEndpointServiceConfigurationsCommand,
  DescribeVpcEndpointServicePermissionsCommand,
  DescribeVpcEndpointServicesCommand,
  DescribeVpcEndpointsCommand,
  ModifyVpcEndpointServiceConfigurationCommand,
  ModifyVpcEndpointServicePermissionsCommand,
  RejectVpcEndpointConnectionsCommand,
} from '@aws-sdk/client-ec2';
import type { EC2Client, Filter, ServiceConfiguration, UnsuccessfulItem, VpcEndpoint as SdkEndpoint } from '@aws-sdk/client-ec2';
import type { Ec2Port, EndpointConnection, EndpointService, Tag, VpcEndpoint } from './ports.ts';
import { SdkPort } from './call.ts';
import { AwsCallError } from '../errors.ts';

const PAGE_LIMIT = 1000;

function toService(c: ServiceConfiguration): EndpointService {
  return {
    id: c.ServiceId ?? '',
    name: c.ServiceName ?? '',
    state: c.ServiceState ?? '',
    acceptanceRequired: c.AcceptanceRequired === true,
    nlbArns: c.NetworkLoadBalancerArns ?? [],
    availabilityZones: c.AvailabilityZones ?? [],
  };
}

function toEndpoint(e: SdkEndpoint): VpcEndpoint {
  return {
    id: e.VpcEndpointId ?? '',
    vpcId: e.VpcId ?? '',
    serviceName: e.ServiceName ?? '',
    state: e.State ?? '',
    subnetIds: e.SubnetIds ?? [],
    eniIds: e.NetworkInterfaceIds ?? [],
    dnsEntries: (e.DnsEntries ?? []).map((d) => ({ dnsName: d.DnsName ?? '', hostedZoneId: d.HostedZoneId ?? '' })),
  };
}

const tagFilter = (tag: Tag): Filter => ({ Name: `tag:${tag.key}`, Values: [tag.value] });

/** A batch delete answers 200 with per-item failures; not-found items count as deleted. */
function checkUnsuccessful(action: string, items: UnsuccessfulItem[] | undefined): void {
  const failed = (items ?? []).filter((i) => !/NotFound/.test(i.Error?.Code ?? ''));
  if (failed.length === 0) return;
  const first = failed[0]!;
  throw new AwsCallError(
    action,
    Object.assign(new Error(`${first.ResourceId ?? ''}: ${first.Error?.Message ?? ''}`), { name: first.Error?.Code ?? 'Unsuccessful' }),
  );
}

export class SdkEc2 extends SdkPort<EC2Client> implements Ec2Port {
  async findEndpointServices(tag: Tag): Promise<EndpointService[]> {
    const out: EndpointService[] = [];
    let token: string | undefined;
    for (let page = 0; page < PAGE_LIMIT; page++) {
      const res = await this.call('ec2:DescribeVpcEndpointServiceConfigurations', () =>
        this.client.send(
          new DescribeVpcEndpointServiceConfigurationsCommand({ Filters: [tagFilter(tag)], ...(token === undefined ? {} : { NextToken: token }) }),
        ),
      );
      out.push(...(res.ServiceConfigurations ?? []).map(toService));
      token = res.NextToken;
      if (token === undefined || token === '') break;
    }
    return out;
  }

  async createEndpointService(nlbArn: string, tag: Tag): Promise<EndpointService> {
    // One token for every retry of this create: a retry after a lost answer gets the same service.
    const token = randomUUID();
    const res = await this.call('ec2:CreateVpcEndpointServiceConfiguration', () =>
      this.client.send(
        new CreateVpcEndpointServiceConfigurationCommand({
          ClientToken: token,
          NetworkLoadBalancerArns: [nlbArn],
          AcceptanceRequired: false,
          TagSpecifications: [{ ResourceType: 'vpc-endpoint-service', Tags: [{ Key: tag.key, Value: tag.value }] }],
        }),
      ),
    );
    if (res.ServiceConfiguration === undefined) throw new AwsCallError('ec2:CreateVpcEndpointServiceConfiguration', new Error('no service in the answer'));
    return toService(res.ServiceConfiguration);
  }

  async modifyEndpointService(id: string, change: { acceptanceRequired?: boolean; addNlbArns?: string[]; removeNlbArns?: string[] }): Promise<void> {
    await this.call('ec2:ModifyVpcEndpointServiceConfiguration', () =>
      this.client.send(
        new ModifyVpcEndpointServiceConfigurationCommand({
          ServiceId: id,
          ...(change.acceptanceRequired === undefined ? {} : { AcceptanceRequired: change.acceptanceRequired }),
          ...(change.addNlbArns === undefined ? {} : { AddNetworkLoadBalancerArns: change.addNlbArns }),
          ...(change.removeNlbArns === undefined ? {} : { RemoveNetworkLoadBalancerArns: change.removeNlbArns }),
        }),
      ),
    );
  }

  async allowedPrincipals(serviceId: string): Promise<string[]> {
    const out: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < PAGE_LIMIT; page++) {
      const res = await this.call('ec2:DescribeVpcEndpointServicePermissions', () =>
        this.client.send(new DescribeVpcEndpointServicePermissionsCommand({ ServiceId: serviceId, ...(token === undefined ? {} : { NextToken: token }) })),
      );
      for (const p of res.AllowedPrincipals ?? []) if (p.Principal !== undefined) out.push(p.Principal);
      token = res.NextToken;
      if (token === undefined || token === '') break;
    }
    return out;
  }

  async modifyAllowedPrincipals(serviceId: string, add: string[], remove: string[]): Promise<void> {
    await this.call('ec2:ModifyVpcEndpointServicePermissions', () =>
      this.client.send(
        new ModifyVpcEndpointServicePermissionsCommand({
          ServiceId: serviceId,
          ...(add.length > 0 ? { AddAllowedPrincipals: add } : {}),
          ...(remove.length > 0 ? { RemoveAllowedPrincipals: remove } : {}),
        }),
      ),
    );
  }

  async deleteEndpointServices(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const res = await this.call('ec2:DeleteVpcEndpointServiceConfigurations', () =>
      this.client.send(new DeleteVpcEndpointServiceConfigurationsCommand({ ServiceIds: ids })),
    );
    checkUnsuccessful('ec2:DeleteVpcEndpointServiceConfigurations', res.Unsuccessful);
  }

  async endpointConnections(serviceId: string): Promise<EndpointConnection[]> {
    const out: EndpointConnection[] = [];
    let token: string | undefined;
    for (let page = 0; page < PAGE_LIMIT; page++) {
      const res = await this.call('ec2:DescribeVpcEndpointConnections', () =>
        this.client.send(
          new DescribeVpcEndpointConnectionsCommand({
            Filters: [{ Name: 'service-id', Values: [serviceId] }],
            ...(token === undefined ? {} : { NextToken: token }),
          }),
        ),
      );
      for (const c of res.VpcEndpointConnections ?? [])
        out.push({ endpointId: c.VpcEndpointId ?? '', owner: c.VpcEndpointOwner ?? '', state: c.VpcEndpointState ?? '' });
      token = res.NextToken;
      if (token === undefined || token === '') break;
    }
    return out;
  }

  async rejectEndpointConnections(serviceId: string, endpointIds: string[]): Promise<void> {
    if (endpointIds.length === 0) return;
    const res = await this.call('ec2:RejectVpcEndpointConnections', () =>
      this.client.send(new RejectVpcEndpointConnectionsCommand({ ServiceId: serviceId, VpcEndpointIds: endpointIds })),
    );
    checkUnsuccessful('ec2:RejectVpcEndpointConnections', res.Unsuccessful);
  }

  async serviceAvailabilityZones(serviceName: string): Promise<string[] | undefined> {
    try {
      const res = await this.call('ec2:DescribeVpcEndpointServices', () =>
        this.client.send(new DescribeVpcEndpointServicesCommand({ ServiceNames: [serviceName] })),
      );
      return res.ServiceDetails?.find((d) => d.ServiceName === serviceName)?.AvailabilityZones;
    } catch (err) {
      if (err instanceof AwsCallError && err.awsCode === 'InvalidServiceName') return undefined;
      throw err;
    }
  }

  private async describeEndpoints(input: { Filters?: Filter[]; VpcEndpointIds?: string[] }): Promise<VpcEndpoint[]> {
    const out: VpcEndpoint[] = [];
    let token: string | undefined;
    for (let page = 0; page < PAGE_LIMIT; page++) {
      const res = await this.call('ec2:DescribeVpcEndpoints', () =>
        this.client.send(new DescribeVpcEndpointsCommand({ ...input, ...(token === undefined ? {} : { NextToken: token }) })),
      );
      out.push(...(res.VpcEndpoints ?? []).map(toEndpoint));
      token = res.NextToken;
      if (token === undefined || token === '') break;
    }
    return out;
  }

  findEndpoints(tag: Tag): Promise<VpcEndpoint[]> {
    return this.describeEndpoints({ Filters: [tagFilter(tag)] });
  }

  async getEndpoint(id: string): Promise<VpcEndpoint | undefined> {
    try {
      return (await this.describeEndpoints({ VpcEndpointIds: [id] }))[0];
    } catch (err) {
      if (err instanceof AwsCallError && /NotFound/.test(err.awsCode)) return undefined;
      throw err;
    }
  }

  async countEndpoints(vpcIds: string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>(vpcIds.map((v) => [v, 0]));
    if (vpcIds.length === 0) return counts;
    for (const e of await this.describeEndpoints({ Filters: [{ Name: 'vpc-id', Values: vpcIds }] })) {
      if (e.state === 'deleted' || e.state === 'deleting') continue;
      counts.set(e.vpcId, (counts.get(e.vpcId) ?? 0) + 1);
    }
    return counts;
  }

  async createEndpoint(input: { vpcId: string; serviceName: string; subnetIds: string[]; tag: Tag }): Promise<VpcEndpoint> {
    const token = randomUUID();
    const res = await this.call('ec2:CreateVpcEndpoint', () =>
      this.client.send(
        new CreateVpcEndpointCommand({
          ClientToken: token,
          VpcEndpointType: 'Interface',
          VpcId: input.vpcId,
          ServiceName: input.serviceName,
          SubnetIds: input.subnetIds,
          PrivateDnsEnabled: false,
          TagSpecifications: [{ ResourceType: 'vpc-endpoint', Tags: [{ Key: input.tag.key, Value: input.tag.value }] }],
        }),
      ),
    );
    if (res.VpcEndpoint === undefined) throw new AwsCallError('ec2:CreateVpcEndpoint', new Error('no endpoint in the answer'));
    return toEndpoint(res.VpcEndpoint);
  }

  async deleteEndpoints(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const res = await this.call('ec2:DeleteVpcEndpoints', () => this.client.send(new DeleteVpcEndpointsCommand({ VpcEndpointIds: ids })));
    checkUnsuccessful('ec2:DeleteVpcEndpoints', res.Unsuccessful);
  }

  async privateIps(eniIds: string[]): Promise<string[]> {
    if (eniIds.length === 0) return [];
    const res = await this.call('ec2:DescribeNetworkInterfaces', () => this.client.send(new DescribeNetworkInterfacesCommand({ NetworkInterfaceIds: eniIds })));
    return (res.NetworkInterfaces ?? []).map((n) => n.PrivateIpAddress ?? '').filter((ip) => ip !== '');
  }
}
