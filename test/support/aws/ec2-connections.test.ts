/**
 * Endpoint connections in the EC2 emulator through the official SDK v3 client: the service owner
 * lists (filters, pages), rejects and accepts; no one else can; a rejected endpoint no longer
 * blocks deleting the service.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AcceptVpcEndpointConnectionsCommand,
  CreateVpcEndpointCommand,
  CreateVpcEndpointServiceConfigurationCommand,
  DeleteVpcEndpointServiceConfigurationsCommand,
  DescribeVpcEndpointConnectionsCommand,
  DescribeVpcEndpointsCommand,
  EC2Client,
  ModifyVpcEndpointServicePermissionsCommand,
  RejectVpcEndpointConnectionsCommand,
} from '@aws-sdk/client-ec2';
import type { Identity } from './emulator.ts';
import { isolateAwsSdk } from './provider.ts';
import { startAwsEmulators } from './start.ts';
import type { AwsEmulators } from './start.ts';

isolateAwsSdk();

const OWNER = '111111111111';
const HUB = '222222222222';
const FOREIGN = '333333333333';
const REGION = 'us-east-1';

function ec2(e: AwsEmulators, id: Identity): EC2Client {
  return new EC2Client({ region: REGION, endpoint: e.url, credentials: id, maxAttempts: 1 });
}

function code(name: string): (err: Error) => boolean {
  return (err) => err.name === name;
}

describe('EC2 emulator: VPC endpoint connections', () => {
  let e: AwsEmulators;
  let owner: Identity;
  let hub: Identity;
  let foreign: Identity;
  before(async () => {
    e = await startAwsEmulators();
    owner = e.aws.addAccount(OWNER);
    hub = e.aws.addAccount(HUB);
    foreign = e.aws.addAccount(FOREIGN);
  });
  after(async () => {
    await e.stop();
  });

  /** A service of OWNER (acceptance as given) that `consumers` are allowed on, and one endpoint per consumer. */
  async function serviceWithEndpoints(acceptanceRequired: boolean, consumers: Identity[]): Promise<{ serviceId: string; endpoints: string[] }> {
    const vpc = e.network.addVpc(OWNER, REGION);
    const lb = e.network.addLoadBalancer(OWNER, REGION, `lb-${e.network.loadBalancers.size}`, [e.network.addSubnet(vpc.id, { azId: 'use1-az1' }).id]);
    const created = await ec2(e, owner).send(
      new CreateVpcEndpointServiceConfigurationCommand({ NetworkLoadBalancerArns: [lb.arn], AcceptanceRequired: acceptanceRequired }),
    );
    const serviceId = created.ServiceConfiguration?.ServiceId ?? '';
    const serviceName = created.ServiceConfiguration?.ServiceName ?? '';
    await ec2(e, owner).send(
      new ModifyVpcEndpointServicePermissionsCommand({ ServiceId: serviceId, AddAllowedPrincipals: consumers.map((c) => `arn:aws:iam::${c.account}:root`) }),
    );
    const endpoints: string[] = [];
    for (const c of consumers) {
      const v = e.network.addVpc(c.account, REGION);
      const s = e.network.addSubnet(v.id, { azId: 'use1-az1' });
      const ep = await ec2(e, c).send(new CreateVpcEndpointCommand({ VpcEndpointType: 'Interface', VpcId: v.id, ServiceName: serviceName, SubnetIds: [s.id] }));
      endpoints.push(ep.VpcEndpoint?.VpcEndpointId ?? '');
    }
    return { serviceId, endpoints };
  }

  test('DescribeVpcEndpointConnections: the owner sees every account’s connection, filtered and paged; others see none', async () => {
    const { serviceId, endpoints } = await serviceWithEndpoints(false, [hub, foreign]);
    const [hubEp, foreignEp] = endpoints;
    const all = await ec2(e, owner).send(new DescribeVpcEndpointConnectionsCommand({ Filters: [{ Name: 'service-id', Values: [serviceId] }] }));
    assert.deepEqual(
      all.VpcEndpointConnections?.map((c) => [c.VpcEndpointId, c.VpcEndpointOwner, c.VpcEndpointState, c.ServiceId]).sort(),
      [
        [hubEp, HUB, 'pending', serviceId],
        [foreignEp, FOREIGN, 'pending', serviceId],
      ].sort(),
    );
    assert.equal(all.VpcEndpointConnections?.[0]?.NetworkLoadBalancerArns?.length, 1);
    const byOwner = await ec2(e, owner).send(
      new DescribeVpcEndpointConnectionsCommand({
        Filters: [
          { Name: 'service-id', Values: [serviceId] },
          { Name: 'vpc-endpoint-owner', Values: [FOREIGN] },
        ],
      }),
    );
    assert.deepEqual(
      byOwner.VpcEndpointConnections?.map((c) => c.VpcEndpointId),
      [foreignEp],
    );
    const byId = await ec2(e, owner).send(new DescribeVpcEndpointConnectionsCommand({ Filters: [{ Name: 'vpc-endpoint-id', Values: [hubEp!] }] }));
    assert.deepEqual(
      byId.VpcEndpointConnections?.map((c) => c.VpcEndpointOwner),
      [HUB],
    );
    const byState = await ec2(e, owner).send(new DescribeVpcEndpointConnectionsCommand({ Filters: [{ Name: 'vpc-endpoint-state', Values: ['available'] }] }));
    assert.deepEqual(byState.VpcEndpointConnections, []);
    await assert.rejects(
      ec2(e, owner).send(new DescribeVpcEndpointConnectionsCommand({ Filters: [{ Name: 'vpc-id', Values: ['x'] }] })),
      code('InvalidParameterValue'),
    );
    await assert.rejects(ec2(e, owner).send(new DescribeVpcEndpointConnectionsCommand({ MaxResults: 4 })), code('InvalidParameterValue'));
    // The consumers own endpoints, not the service: they see no connections.
    const asHub = await ec2(e, hub).send(new DescribeVpcEndpointConnectionsCommand({}));
    assert.deepEqual(asHub.VpcEndpointConnections, []);
  });

  test('DescribeVpcEndpointConnections pages with MaxResults and NextToken', async () => {
    const consumers = [1, 2, 3, 4, 5, 6].map((n) => e.aws.addAccount(`44444444444${n}`));
    const { serviceId, endpoints } = await serviceWithEndpoints(true, consumers);
    const seen: string[] = [];
    let token: string | undefined;
    for (let i = 0; i < 5; i++) {
      const res = await ec2(e, owner).send(
        new DescribeVpcEndpointConnectionsCommand({
          Filters: [{ Name: 'service-id', Values: [serviceId] }],
          MaxResults: 5,
          ...(token === undefined ? {} : { NextToken: token }),
        }),
      );
      assert.ok((res.VpcEndpointConnections?.length ?? 0) <= 5);
      seen.push(...(res.VpcEndpointConnections ?? []).map((c) => c.VpcEndpointId ?? ''));
      token = res.NextToken;
      if (token === undefined) break;
    }
    assert.deepEqual(seen.sort(), [...endpoints].sort());
  });

  test('RejectVpcEndpointConnections: owner only, per-item failures, rejected endpoints no longer block deleting the service', async () => {
    const { serviceId, endpoints } = await serviceWithEndpoints(false, [hub, foreign]);
    const [hubEp, foreignEp] = endpoints;
    await assert.rejects(
      ec2(e, foreign).send(new RejectVpcEndpointConnectionsCommand({ ServiceId: serviceId, VpcEndpointIds: [foreignEp!] })),
      code('InvalidVpcEndpointServiceId.NotFound'),
    );
    await assert.rejects(ec2(e, owner).send(new RejectVpcEndpointConnectionsCommand({ ServiceId: serviceId, VpcEndpointIds: [] })), code('MissingParameter'));
    const blocked = await ec2(e, owner).send(new DeleteVpcEndpointServiceConfigurationsCommand({ ServiceIds: [serviceId] }));
    assert.equal(blocked.Unsuccessful?.[0]?.Error?.Code, 'ExistingVpcEndpointConnections');

    const res = await ec2(e, owner).send(
      new RejectVpcEndpointConnectionsCommand({ ServiceId: serviceId, VpcEndpointIds: [foreignEp!, 'vpce-00000000000000000'] }),
    );
    assert.deepEqual(
      res.Unsuccessful?.map((u) => [u.ResourceId, u.Error?.Code]),
      [['vpce-00000000000000000', 'InvalidVpcEndpoint.NotFound']],
    );
    const mine = await ec2(e, foreign).send(new DescribeVpcEndpointsCommand({ VpcEndpointIds: [foreignEp!] }));
    assert.equal(mine.VpcEndpoints?.[0]?.State, 'rejected');
    // Rejecting again changes nothing and fails nothing.
    const again = await ec2(e, owner).send(new RejectVpcEndpointConnectionsCommand({ ServiceId: serviceId, VpcEndpointIds: [foreignEp!] }));
    assert.deepEqual(again.Unsuccessful, []);

    const stillBlocked = await ec2(e, owner).send(new DeleteVpcEndpointServiceConfigurationsCommand({ ServiceIds: [serviceId] }));
    assert.equal(stillBlocked.Unsuccessful?.[0]?.Error?.Code, 'ExistingVpcEndpointConnections', 'the hub endpoint still holds on');
    await ec2(e, owner).send(new RejectVpcEndpointConnectionsCommand({ ServiceId: serviceId, VpcEndpointIds: [hubEp!] }));
    const deleted = await ec2(e, owner).send(new DeleteVpcEndpointServiceConfigurationsCommand({ ServiceIds: [serviceId] }));
    assert.deepEqual(deleted.Unsuccessful, []);
    assert.equal(
      e.ec2.endpointServices(OWNER).some((s) => s.id === serviceId),
      false,
    );
  });

  test('AcceptVpcEndpointConnections: pendingAcceptance → pending → available; other states fail per item', async () => {
    const { serviceId, endpoints } = await serviceWithEndpoints(true, [foreign]);
    const [ep] = endpoints;
    const waiting = await ec2(e, owner).send(
      new DescribeVpcEndpointConnectionsCommand({
        Filters: [
          { Name: 'vpc-endpoint-state', Values: ['pendingAcceptance'] },
          { Name: 'service-id', Values: [serviceId] },
        ],
      }),
    );
    assert.deepEqual(
      waiting.VpcEndpointConnections?.map((c) => c.VpcEndpointId),
      [ep],
    );
    const ok = await ec2(e, owner).send(new AcceptVpcEndpointConnectionsCommand({ ServiceId: serviceId, VpcEndpointIds: [ep!] }));
    assert.deepEqual(ok.Unsuccessful, []);
    const twice = await ec2(e, owner).send(new AcceptVpcEndpointConnectionsCommand({ ServiceId: serviceId, VpcEndpointIds: [ep!] }));
    assert.equal(twice.Unsuccessful?.[0]?.Error?.Code, 'InvalidState');
    let state: string | undefined;
    for (let i = 0; i < 3 && state !== 'available'; i++)
      state = (await ec2(e, foreign).send(new DescribeVpcEndpointsCommand({ VpcEndpointIds: [ep!] }))).VpcEndpoints?.[0]?.State;
    assert.equal(state, 'available');
  });
});
