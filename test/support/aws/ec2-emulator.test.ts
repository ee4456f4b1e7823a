/**
 * The EC2 and ELBv2 emulators through the official SDK v3 clients: every PrivateLink operation,
 * its scoping by account and region, its state machine and its AWS error codes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CreateTagsCommand,
  CreateVpcEndpointCommand,
  CreateVpcEndpointServiceConfigurationCommand,
  DeleteTagsCommand,
  DeleteVpcEndpointServiceConfigurationsCommand,
  DeleteVpcEndpointsCommand,
  DescribeNetworkInterfacesCommand,
  DescribeSubnetsCommand,
  DescribeVpcEndpointServiceConfigurationsCommand,
  DescribeVpcEndpointServicePermissionsCommand,
  DescribeVpcEndpointServicesCommand,
  DescribeVpcEndpointsCommand,
  DescribeVpcsCommand,
  EC2Client,
  ModifyVpcEndpointServiceConfigurationCommand,
  ModifyVpcEndpointServicePermissionsCommand,
} from '@aws-sdk/client-ec2';
import { DescribeLoadBalancersCommand, ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import type { Identity } from './emulator.ts';
import { isolateAwsSdk } from './provider.ts';
import { startAwsEmulators } from './start.ts';
import type { AwsEmulators } from './start.ts';

isolateAwsSdk();

const HUB = '222222222222';
const USER = '333333333333';

function ec2(e: AwsEmulators, id: Identity, region = 'us-east-1'): EC2Client {
  return new EC2Client({ region, endpoint: e.url, credentials: id, maxAttempts: 1 });
}

function elb(e: AwsEmulators, id: Identity, region = 'us-east-1'): ElasticLoadBalancingV2Client {
  return new ElasticLoadBalancingV2Client({ region, endpoint: e.url, credentials: id, maxAttempts: 1 });
}

function code(name: string): (err: Error) => boolean {
  return (err) => err.name === name;
}

describe('EC2 and ELBv2 emulators', () => {
  let e: AwsEmulators;
  let hub: Identity;
  let user: Identity;
  before(async () => {
    e = await startAwsEmulators();
    hub = e.aws.addAccount(HUB);
    user = e.aws.addAccount(USER);
  });
  after(async () => {
    await e.stop();
  });

  test('DescribeVpcs and DescribeSubnets see only the caller account and region; zone names follow the account mapping', async () => {
    const vpc = e.network.addVpc(HUB, 'us-east-1', { tags: [{ key: 'Name', value: 'hub' }] });
    const a = e.network.addSubnet(vpc.id, { azId: 'use1-az1' });
    const b = e.network.addSubnet(vpc.id, { azId: 'use1-az2' });
    e.network.addVpc(USER, 'us-east-1');
    e.network.addVpc(HUB, 'us-west-2');
    const client = ec2(e, hub);
    const vpcs = await client.send(new DescribeVpcsCommand({}));
    assert.deepEqual(
      vpcs.Vpcs?.map((v) => v.VpcId),
      [vpc.id],
    );
    assert.equal(vpcs.Vpcs?.[0]?.OwnerId, HUB);
    assert.equal(vpcs.Vpcs?.[0]?.CidrBlock, vpc.cidr);
    assert.deepEqual(vpcs.Vpcs?.[0]?.Tags, [{ Key: 'Name', Value: 'hub' }]);
    const byTag = await client.send(new DescribeVpcsCommand({ Filters: [{ Name: 'tag:Name', Values: ['hub'] }] }));
    assert.equal(byTag.Vpcs?.length, 1);
    const none = await client.send(new DescribeVpcsCommand({ Filters: [{ Name: 'tag:Name', Values: ['other'] }] }));
    assert.deepEqual(none.Vpcs, []);
    await assert.rejects(client.send(new DescribeVpcsCommand({ VpcIds: ['vpc-00000000000000000'] })), code('InvalidVpcID.NotFound'));

    e.network.setAzNames(HUB, 'us-east-1', { 'use1-az1': 'us-east-1c', 'use1-az2': 'us-east-1a' });
    const subnets = await client.send(new DescribeSubnetsCommand({ Filters: [{ Name: 'vpc-id', Values: [vpc.id] }] }));
    assert.deepEqual(
      subnets.Subnets?.map((s) => [s.SubnetId, s.AvailabilityZone, s.AvailabilityZoneId, s.VpcId]),
      [
        [a.id, 'us-east-1c', 'use1-az1', vpc.id],
        [b.id, 'us-east-1a', 'use1-az2', vpc.id],
      ],
    );
    const byAz = await client.send(new DescribeSubnetsCommand({ Filters: [{ Name: 'availability-zone', Values: ['us-east-1a'] }] }));
    assert.deepEqual(
      byAz.Subnets?.map((s) => s.SubnetId),
      [b.id],
    );
    await assert.rejects(client.send(new DescribeSubnetsCommand({ SubnetIds: ['subnet-0000000000000000a'] })), code('InvalidSubnetID.NotFound'));
    await assert.rejects(client.send(new DescribeSubnetsCommand({ Filters: [{ Name: 'no-such-filter', Values: ['x'] }] })), code('InvalidParameterValue'));
    e.network.setAzNames(HUB, 'us-east-1', {});
  });

  test('DescribeLoadBalancers by name and ARN, provisioning then active, LoadBalancerNotFound', async () => {
    const vpc = e.network.addVpc(USER, 'us-east-1');
    const s1 = e.network.addSubnet(vpc.id, { azId: 'use1-az1' });
    const s2 = e.network.addSubnet(vpc.id, { azId: 'use1-az2' });
    const lb = e.elbv2.addNetworkLoadBalancer(USER, 'us-east-1', 'infra1-int', [s1.id, s2.id], { provisioningDescribes: 1 });
    const client = elb(e, user);
    const first = await client.send(new DescribeLoadBalancersCommand({ Names: ['infra1-int'] }));
    const got = first.LoadBalancers?.[0];
    assert.equal(got?.LoadBalancerArn, lb.arn);
    assert.equal(got?.State?.Code, 'provisioning');
    assert.equal(got?.Type, 'network');
    assert.equal(got?.Scheme, 'internal');
    assert.equal(got?.VpcId, vpc.id);
    assert.equal(got?.DNSName, lb.dnsName);
    assert.equal(got?.CanonicalHostedZoneId, 'Z26RNL4JYFTOTI');
    assert.deepEqual(
      got?.AvailabilityZones?.map((z) => [z.ZoneName, z.SubnetId]),
      [
        ['us-east-1a', s1.id],
        ['us-east-1b', s2.id],
      ],
    );
    const second = await client.send(new DescribeLoadBalancersCommand({ LoadBalancerArns: [lb.arn] }));
    assert.equal(second.LoadBalancers?.[0]?.State?.Code, 'active');
    await assert.rejects(client.send(new DescribeLoadBalancersCommand({ Names: ['missing-int'] })), code('LoadBalancerNotFoundException'));
    // Another account does not see it.
    await assert.rejects(elb(e, hub).send(new DescribeLoadBalancersCommand({ Names: ['infra1-int'] })), code('LoadBalancerNotFoundException'));
  });

  test('endpoint service: create, describe by id and tag, modify load balancers and acceptance, permissions', async () => {
    const vpc = e.network.addVpc(USER, 'us-east-1');
    const s1 = e.network.addSubnet(vpc.id, { azId: 'use1-az1' });
    const s3 = e.network.addSubnet(vpc.id, { azId: 'use1-az3' });
    const lb = e.elbv2.addNetworkLoadBalancer(USER, 'us-east-1', 'infra2-int', [s1.id]);
    const lb2 = e.elbv2.addNetworkLoadBalancer(USER, 'us-east-1', 'infra2-ext', [s3.id]);
    const client = ec2(e, user);
    const created = await client.send(
      new CreateVpcEndpointServiceConfigurationCommand({
        NetworkLoadBalancerArns: [lb.arn],
        AcceptanceRequired: false,
        TagSpecifications: [{ ResourceType: 'vpc-endpoint-service', Tags: [{ Key: 'hive.openshift.io/private-link-access-for', Value: 'infra2' }] }],
      }),
    );
    const conf = created.ServiceConfiguration;
    const id = conf?.ServiceId ?? '';
    assert.match(id, /^vpce-svc-[0-9a-f]{17}$/);
    assert.equal(conf?.ServiceName, `com.amazonaws.vpce.us-east-1.${id}`);
    assert.equal(conf?.AcceptanceRequired, false);
    assert.deepEqual(conf?.AvailabilityZones, ['us-east-1a']);
    assert.deepEqual(conf?.NetworkLoadBalancerArns, [lb.arn]);
    assert.deepEqual(conf?.ServiceType, [{ ServiceType: 'Interface' }]);
    assert.deepEqual(conf?.Tags, [{ Key: 'hive.openshift.io/private-link-access-for', Value: 'infra2' }]);

    const byTag = await client.send(
      new DescribeVpcEndpointServiceConfigurationsCommand({ Filters: [{ Name: 'tag:hive.openshift.io/private-link-access-for', Values: ['infra2'] }] }),
    );
    assert.deepEqual(
      byTag.ServiceConfigurations?.map((s) => s.ServiceId),
      [id],
    );
    const byKey = await client.send(
      new DescribeVpcEndpointServiceConfigurationsCommand({ Filters: [{ Name: 'tag-key', Values: ['hive.openshift.io/private-link-access-for'] }] }),
    );
    assert.equal(byKey.ServiceConfigurations?.length, 1);
    await assert.rejects(
      client.send(new DescribeVpcEndpointServiceConfigurationsCommand({ ServiceIds: ['vpce-svc-00000000000000000'] })),
      code('InvalidVpcEndpointServiceId.NotFound'),
    );
    await assert.rejects(
      client.send(
        new CreateVpcEndpointServiceConfigurationCommand({
          NetworkLoadBalancerArns: ['arn:aws:elasticloadbalancing:us-east-1:333333333333:loadbalancer/net/x/1'],
        }),
      ),
      code('InvalidParameter'),
    );

    await client.send(
      new ModifyVpcEndpointServiceConfigurationCommand({
        ServiceId: id,
        AddNetworkLoadBalancerArns: [lb2.arn],
        RemoveNetworkLoadBalancerArns: [lb.arn],
        AcceptanceRequired: true,
      }),
    );
    const [after1] = (await client.send(new DescribeVpcEndpointServiceConfigurationsCommand({ ServiceIds: [id] }))).ServiceConfigurations ?? [];
    assert.deepEqual(after1?.NetworkLoadBalancerArns, [lb2.arn]);
    assert.deepEqual(after1?.AvailabilityZones, ['us-east-1c']);
    assert.equal(after1?.AcceptanceRequired, true);
    await assert.rejects(
      client.send(new ModifyVpcEndpointServiceConfigurationCommand({ ServiceId: id, RemoveNetworkLoadBalancerArns: [lb2.arn] })),
      code('InvalidParameter'),
    );

    const added = await client.send(
      new ModifyVpcEndpointServicePermissionsCommand({ ServiceId: id, AddAllowedPrincipals: [hub.arn, 'arn:aws:iam::444444444444:root'] }),
    );
    assert.equal(added.ReturnValue, true);
    assert.deepEqual(
      added.AddedPrincipals?.map((p) => [p.Principal, p.PrincipalType]),
      [
        [hub.arn, 'User'],
        ['arn:aws:iam::444444444444:root', 'Account'],
      ],
    );
    await client.send(new ModifyVpcEndpointServicePermissionsCommand({ ServiceId: id, RemoveAllowedPrincipals: ['arn:aws:iam::444444444444:root'] }));
    const perms = await client.send(new DescribeVpcEndpointServicePermissionsCommand({ ServiceId: id }));
    assert.deepEqual(
      perms.AllowedPrincipals?.map((p) => p.Principal),
      [hub.arn],
    );
    await assert.rejects(ec2(e, hub).send(new DescribeVpcEndpointServicePermissionsCommand({ ServiceId: id })), code('InvalidVpcEndpointServiceId.NotFound'));
    assert.deepEqual(e.ec2.endpointServices(USER).find((s) => s.id === id)?.allowedPrincipals, [hub.arn]);
  });

  test('endpoint: visible only when allowed, zones in the caller mapping, ENIs per subnet, pending then available, delete rules', async () => {
    const uv = e.network.addVpc(USER, 'us-east-1');
    const us1 = e.network.addSubnet(uv.id, { azId: 'use1-az1' });
    const us2 = e.network.addSubnet(uv.id, { azId: 'use1-az2' });
    const lb = e.elbv2.addNetworkLoadBalancer(USER, 'us-east-1', 'infra3-int', [us1.id, us2.id]);
    const userEc2 = ec2(e, user);
    const hubEc2 = ec2(e, hub);
    const svc = (await userEc2.send(new CreateVpcEndpointServiceConfigurationCommand({ NetworkLoadBalancerArns: [lb.arn], AcceptanceRequired: false })))
      .ServiceConfiguration;
    const svcName = svc?.ServiceName ?? '';
    const svcId = svc?.ServiceId ?? '';
    const hv = e.network.addVpc(HUB, 'us-east-1');
    const h1 = e.network.addSubnet(hv.id, { azId: 'use1-az1' });
    const h2 = e.network.addSubnet(hv.id, { azId: 'use1-az2' });
    const h4 = e.network.addSubnet(hv.id, { azId: 'use1-az4' });

    await assert.rejects(hubEc2.send(new DescribeVpcEndpointServicesCommand({ ServiceNames: [svcName] })), code('InvalidServiceName'));
    await assert.rejects(
      hubEc2.send(new CreateVpcEndpointCommand({ VpcEndpointType: 'Interface', VpcId: hv.id, ServiceName: svcName, SubnetIds: [h1.id] })),
      code('InvalidServiceName'),
    );
    await userEc2.send(new ModifyVpcEndpointServicePermissionsCommand({ ServiceId: svcId, AddAllowedPrincipals: [hub.arn] }));

    e.network.setAzNames(HUB, 'us-east-1', { 'use1-az1': 'us-east-1b', 'use1-az2': 'us-east-1d' });
    const detail = (await hubEc2.send(new DescribeVpcEndpointServicesCommand({ ServiceNames: [svcName] }))).ServiceDetails?.[0];
    assert.deepEqual(detail?.AvailabilityZones, ['us-east-1b', 'us-east-1d']);
    assert.equal(detail?.Owner, USER);
    e.network.setAzNames(HUB, 'us-east-1', {});

    await assert.rejects(
      hubEc2.send(new CreateVpcEndpointCommand({ VpcEndpointType: 'Interface', VpcId: hv.id, ServiceName: svcName, SubnetIds: [h1.id, h4.id] })),
      code('InvalidParameter'),
    );
    await assert.rejects(
      hubEc2.send(new CreateVpcEndpointCommand({ VpcEndpointType: 'Interface', VpcId: uv.id, ServiceName: svcName, SubnetIds: [h1.id] })),
      code('InvalidVpcID.NotFound'),
    );
    const created = await hubEc2.send(
      new CreateVpcEndpointCommand({
        VpcEndpointType: 'Interface',
        VpcId: hv.id,
        ServiceName: svcName,
        SubnetIds: [h1.id, h2.id],
        PrivateDnsEnabled: false,
        TagSpecifications: [{ ResourceType: 'vpc-endpoint', Tags: [{ Key: 'hive.openshift.io/private-link-access-for', Value: 'infra3' }] }],
      }),
    );
    const ep = created.VpcEndpoint;
    const epId = ep?.VpcEndpointId ?? '';
    assert.match(epId, /^vpce-[0-9a-f]{17}$/);
    assert.equal(ep?.State, 'pending');
    assert.equal(ep?.VpcEndpointType, 'Interface');
    assert.deepEqual(ep?.SubnetIds, [h1.id, h2.id]);
    assert.equal(ep?.NetworkInterfaceIds?.length, 2);
    assert.equal(ep?.DnsEntries?.[0]?.HostedZoneId, 'Z7HUB22UULQXV');
    assert.match(ep?.DnsEntries?.[0]?.DnsName ?? '', new RegExp(`^${epId}-[0-9a-f]+\\.${svcId}\\.us-east-1\\.vpce\\.amazonaws\\.com$`));
    assert.equal(ep?.DnsEntries?.length, 3);
    assert.ok(ep?.CreationTimestamp instanceof Date);

    const d1 = await hubEc2.send(new DescribeVpcEndpointsCommand({ Filters: [{ Name: 'tag:hive.openshift.io/private-link-access-for', Values: ['infra3'] }] }));
    assert.deepEqual(
      d1.VpcEndpoints?.map((x) => [x.VpcEndpointId, x.State]),
      [[epId, 'pending']],
    );
    const d2 = await hubEc2.send(new DescribeVpcEndpointsCommand({ VpcEndpointIds: [epId] }));
    assert.equal(d2.VpcEndpoints?.[0]?.State, 'available');
    const byState = await hubEc2.send(
      new DescribeVpcEndpointsCommand({
        Filters: [
          { Name: 'vpc-endpoint-state', Values: ['available'] },
          { Name: 'service-name', Values: [svcName] },
          { Name: 'vpc-id', Values: [hv.id] },
        ],
      }),
    );
    assert.equal(byState.VpcEndpoints?.length, 1);
    await assert.rejects(hubEc2.send(new DescribeVpcEndpointsCommand({ VpcEndpointIds: ['vpce-00000000000000000'] })), code('InvalidVpcEndpointId.NotFound'));

    const enis = await hubEc2.send(new DescribeNetworkInterfacesCommand({ NetworkInterfaceIds: ep?.NetworkInterfaceIds ?? [] }));
    const ips = enis.NetworkInterfaces?.map((n) => [n.SubnetId, n.PrivateIpAddress, n.InterfaceType]);
    assert.deepEqual(ips, [
      [h1.id, `${h1.cidr.split('.').slice(0, 3).join('.')}.4`, 'vpc_endpoint'],
      [h2.id, `${h2.cidr.split('.').slice(0, 3).join('.')}.4`, 'vpc_endpoint'],
    ]);
    await assert.rejects(
      hubEc2.send(new DescribeNetworkInterfacesCommand({ NetworkInterfaceIds: ['eni-00000000000000000'] })),
      code('InvalidNetworkInterfaceID.NotFound'),
    );

    await hubEc2.send(new CreateTagsCommand({ Resources: [epId], Tags: [{ Key: 'extra', Value: '1' }] }));
    await hubEc2.send(new DeleteTagsCommand({ Resources: [epId], Tags: [{ Key: 'hive.openshift.io/private-link-access-for' }] }));
    assert.deepEqual(e.ec2.endpoints(HUB).find((x) => x.id === epId)?.tags, [{ key: 'extra', value: '1' }]);
    await assert.rejects(
      hubEc2.send(new CreateTagsCommand({ Resources: ['vpce-00000000000000000'], Tags: [{ Key: 'a', Value: 'b' }] })),
      code('InvalidVpcEndpointId.NotFound'),
    );

    const refused = await userEc2.send(new DeleteVpcEndpointServiceConfigurationsCommand({ ServiceIds: [svcId, 'vpce-svc-00000000000000000'] }));
    assert.deepEqual(
      refused.Unsuccessful?.map((u) => [u.ResourceId, u.Error?.Code]),
      [
        [svcId, 'ExistingVpcEndpointConnections'],
        ['vpce-svc-00000000000000000', 'InvalidVpcEndpointService.NotFound'],
      ],
    );
    const del = await hubEc2.send(new DeleteVpcEndpointsCommand({ VpcEndpointIds: [epId, 'vpce-00000000000000000'] }));
    assert.deepEqual(
      del.Unsuccessful?.map((u) => [u.ResourceId, u.Error?.Code]),
      [['vpce-00000000000000000', 'InvalidVpcEndpoint.NotFound']],
    );
    assert.equal(
      e.ec2.endpoints(HUB).some((x) => x.id === epId),
      false,
    );
    assert.equal(e.ec2.networkInterfaces(HUB).length, 0);
    const gone = await userEc2.send(new DeleteVpcEndpointServiceConfigurationsCommand({ ServiceIds: [svcId] }));
    assert.deepEqual(gone.Unsuccessful, []);
    assert.equal(
      e.ec2.endpointServices(USER).some((s) => s.id === svcId),
      false,
    );
  });

  test('paging with MaxResults/NextToken; a retried create with the same ClientToken returns the same resource', async () => {
    const vpc = e.network.addVpc('777777777777', 'eu-west-1');
    for (let i = 0; i < 5; i++) e.network.addSubnet(vpc.id, { azId: `euw1-az${(i % 3) + 1}` });
    const me = e.aws.addAccount('777777777777');
    const client = ec2(e, me, 'eu-west-1');
    const seen: string[] = [];
    let token: string | undefined;
    for (let i = 0; i < 10; i++) {
      const res = await client.send(new DescribeSubnetsCommand({ MaxResults: 2, ...(token === undefined ? {} : { NextToken: token }) }));
      seen.push(...(res.Subnets ?? []).map((s) => s.SubnetId ?? ''));
      token = res.NextToken;
      if (token === undefined) break;
    }
    assert.deepEqual(
      seen,
      e.ec2.subnets('777777777777').map((s) => s.id),
    );
    assert.equal(seen.length, 5);

    const lb = e.elbv2.addNetworkLoadBalancer('777777777777', 'eu-west-1', 'token-int', [seen[0] ?? '']);
    const once = await client.send(new CreateVpcEndpointServiceConfigurationCommand({ NetworkLoadBalancerArns: [lb.arn], ClientToken: 'tok-1' }));
    const twice = await client.send(new CreateVpcEndpointServiceConfigurationCommand({ NetworkLoadBalancerArns: [lb.arn], ClientToken: 'tok-1' }));
    assert.equal(twice.ServiceConfiguration?.ServiceId, once.ServiceConfiguration?.ServiceId);
    assert.equal(once.ServiceConfiguration?.AcceptanceRequired, true);
    assert.equal(once.ServiceConfiguration?.AvailabilityZones?.[0], 'eu-west-1a');
    assert.equal(e.ec2.endpointServices('777777777777').length, 1);

    await client.send(
      new CreateTagsCommand({
        Resources: [vpc.id],
        Tags: [
          { Key: 'a', Value: '1' },
          { Key: 'b', Value: '2' },
        ],
      }),
    );
    await client.send(
      new DeleteTagsCommand({
        Resources: [vpc.id],
        Tags: [
          { Key: 'a', Value: 'other' },
          { Key: 'b', Value: '2' },
        ],
      }),
    );
    assert.deepEqual(e.ec2.vpcs('777777777777')[0]?.tags, [{ key: 'a', value: '1' }]);
  });

  test('knobs: an endpoint can end failed; setEndpointState rejects one; faults by operation name', async () => {
    const uv = e.network.addVpc(USER, 'us-east-1');
    const us = e.network.addSubnet(uv.id, { azId: 'use1-az1' });
    const lb = e.elbv2.addNetworkLoadBalancer(USER, 'us-east-1', 'infra4-int', [us.id]);
    const svc = e.ec2.endpointServices(USER).length;
    const userEc2 = ec2(e, user);
    const created = await userEc2.send(new CreateVpcEndpointServiceConfigurationCommand({ NetworkLoadBalancerArns: [lb.arn], AcceptanceRequired: false }));
    assert.equal(e.ec2.endpointServices(USER).length, svc + 1);
    const hv = e.network.addVpc(HUB, 'us-east-1');
    const hs = e.network.addSubnet(hv.id, { azId: 'use1-az1' });
    await userEc2.send(new ModifyVpcEndpointServicePermissionsCommand({ ServiceId: created.ServiceConfiguration?.ServiceId, AddAllowedPrincipals: ['*'] }));
    const hubEc2 = ec2(e, hub);
    e.ec2.knobs.outcome = 'failed';
    e.ec2.knobs.pendingDescribes = 0;
    const ep = (
      await hubEc2.send(
        new CreateVpcEndpointCommand({
          VpcEndpointType: 'Interface',
          VpcId: hv.id,
          ServiceName: created.ServiceConfiguration?.ServiceName,
          SubnetIds: [hs.id],
        }),
      )
    ).VpcEndpoint;
    e.ec2.knobs.outcome = 'available';
    e.ec2.knobs.pendingDescribes = 1;
    const failed = await hubEc2.send(new DescribeVpcEndpointsCommand({ VpcEndpointIds: [ep?.VpcEndpointId ?? ''] }));
    assert.equal(failed.VpcEndpoints?.[0]?.State, 'failed');
    e.ec2.setEndpointState(ep?.VpcEndpointId ?? '', 'rejected');
    const rejected = await hubEc2.send(new DescribeVpcEndpointsCommand({ VpcEndpointIds: [ep?.VpcEndpointId ?? ''] }));
    assert.equal(rejected.VpcEndpoints?.[0]?.State, 'rejected');
    e.ec2.knobs.keepDeleted = true;
    await hubEc2.send(new DeleteVpcEndpointsCommand({ VpcEndpointIds: [ep?.VpcEndpointId ?? ''] }));
    e.ec2.knobs.keepDeleted = false;
    const deleted = await hubEc2.send(new DescribeVpcEndpointsCommand({ VpcEndpointIds: [ep?.VpcEndpointId ?? ''] }));
    assert.deepEqual(
      deleted.VpcEndpoints?.map((x) => [x.State, x.NetworkInterfaceIds]),
      [['deleted', []]],
    );
    const again = await hubEc2.send(new DeleteVpcEndpointsCommand({ VpcEndpointIds: [ep?.VpcEndpointId ?? ''] }));
    assert.deepEqual(again.Unsuccessful, []);

    e.aws.fail({ code: 'RequestLimitExceeded', operations: ['DescribeVpcEndpoints'], count: 1, status: 503 });
    await assert.rejects(hubEc2.send(new DescribeVpcEndpointsCommand({})), code('RequestLimitExceeded'));
    e.aws.fail({ code: 'Throttling', operations: ['DescribeLoadBalancers'], count: 1 });
    await assert.rejects(elb(e, user).send(new DescribeLoadBalancersCommand({})), code('Throttling'));
    assert.ok(e.aws.count('ec2', 'DescribeVpcEndpoints') >= 1);

    // The answer is lost but the service exists: a re-run must find it by tag, not make another.
    e.aws.fail({ code: 'InternalError', status: 500, operations: ['CreateVpcEndpointServiceConfiguration'], count: 1, afterApplying: true });
    const before = e.ec2.endpointServices(USER).length;
    await assert.rejects(userEc2.send(new CreateVpcEndpointServiceConfigurationCommand({ NetworkLoadBalancerArns: [lb.arn] })), code('InternalError'));
    assert.equal(e.ec2.endpointServices(USER).length, before + 1);
  });
});
