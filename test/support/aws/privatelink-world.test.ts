/**
 * The seeded PrivateLink world end to end through the SDK, the way the controller uses it: the
 * user account publishes its NLB as an endpoint service for the hub's identity, the hub (also as
 * an assumed role) connects an endpoint in an inventory VPC, then a private zone with an alias to
 * the endpoint is shared with another account's VPC; finally everything is torn down.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CreateVpcEndpointCommand,
  CreateVpcEndpointServiceConfigurationCommand,
  DeleteVpcEndpointServiceConfigurationsCommand,
  DeleteVpcEndpointsCommand,
  DescribeVpcEndpointServicesCommand,
  DescribeVpcEndpointsCommand,
  EC2Client,
  ModifyVpcEndpointServicePermissionsCommand,
} from '@aws-sdk/client-ec2';
import { DescribeLoadBalancersCommand, ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import {
  AssociateVPCWithHostedZoneCommand,
  ChangeResourceRecordSetsCommand,
  CreateHostedZoneCommand,
  CreateVPCAssociationAuthorizationCommand,
  DeleteHostedZoneCommand,
  DeleteVPCAssociationAuthorizationCommand,
  Route53Client,
} from '@aws-sdk/client-route-53';
import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import type { Identity } from './emulator.ts';
import { seedPrivateLinkWorld } from './privatelink-world.ts';
import type { PrivateLinkWorld } from './privatelink-world.ts';
import { isolateAwsSdk } from './provider.ts';
import { startAwsEmulators } from './start.ts';
import type { AwsEmulators } from './start.ts';

isolateAwsSdk();

type Creds = Pick<Identity, 'accessKeyId' | 'secretAccessKey'> & { sessionToken?: string };

describe('PrivateLink world', () => {
  let e: AwsEmulators;
  let w: PrivateLinkWorld;
  const ec2 = (id: Creds, region?: string): EC2Client => new EC2Client({ region: region ?? w.region, endpoint: e.url, credentials: id, maxAttempts: 1 });
  const r53 = (id: Creds): Route53Client => new Route53Client({ region: 'us-east-1', endpoint: e.url, credentials: id, maxAttempts: 1 });
  before(async () => {
    e = await startAwsEmulators();
    w = seedPrivateLinkWorld(e, { hubAzNames: { 'use1-az1': 'us-east-1b', 'use1-az2': 'us-east-1a' } });
  });
  after(async () => {
    await e.stop();
  });

  test('the seed: accounts, inventory in the hub names, the NLB', async () => {
    assert.deepEqual(
      w.inventory().map((v) => [v.region, v.subnets.map((s) => s.availabilityZone)]),
      [
        ['us-east-1', ['us-east-1a', 'us-east-1b']],
        ['us-east-1', ['us-east-1b', 'us-east-1c']],
        ['us-west-2', ['us-west-2a', 'us-west-2b']],
      ],
    );
    const me = await new STSClient({ region: w.region, endpoint: e.url, credentials: w.hub, maxAttempts: 1 }).send(new GetCallerIdentityCommand({}));
    assert.deepEqual([me.Account, me.Arn], [w.hub.account, 'arn:aws:iam::222222222222:user/hive']);
    const lbs = await new ElasticLoadBalancingV2Client({ region: w.region, endpoint: e.url, credentials: w.user, maxAttempts: 1 }).send(
      new DescribeLoadBalancersCommand({ Names: ['mycluster-x7k2p-int'] }),
    );
    assert.equal(lbs.LoadBalancers?.[0]?.State?.Code, 'active');
    assert.equal(e.ec2.vpcs(w.hub.account).length, 4);
    assert.equal(e.ec2.subnets(w.user.account).length, 4);
  });

  test('service, endpoint as an assumed hub role, private zone shared cross-account, teardown', async () => {
    const svc = (
      await ec2(w.user).send(new CreateVpcEndpointServiceConfigurationCommand({ NetworkLoadBalancerArns: [w.nlb?.arn ?? ''], AcceptanceRequired: false }))
    ).ServiceConfiguration;
    const role = `arn:aws:iam::${w.hub.account}:role/privatelink`;
    e.sts.addRole({ arn: role, trusted: [w.hub.arn] });
    const assumed = await new STSClient({ region: w.region, endpoint: e.url, credentials: w.hub, maxAttempts: 1 }).send(
      new AssumeRoleCommand({ RoleArn: role, RoleSessionName: 'hive' }),
    );
    const session: Creds = {
      accessKeyId: assumed.Credentials?.AccessKeyId ?? '',
      secretAccessKey: assumed.Credentials?.SecretAccessKey ?? '',
      sessionToken: assumed.Credentials?.SessionToken ?? '',
    };
    await assert.rejects(
      ec2(session).send(new DescribeVpcEndpointServicesCommand({ ServiceNames: [svc?.ServiceName ?? ''] })),
      (err: Error) => err.name === 'InvalidServiceName',
    );
    await ec2(w.user).send(new ModifyVpcEndpointServicePermissionsCommand({ ServiceId: svc?.ServiceId, AddAllowedPrincipals: [role] }));
    // The user names its zones a and b; the hub calls the same zone ids b and a.
    const detail = await ec2(session).send(new DescribeVpcEndpointServicesCommand({ ServiceNames: [svc?.ServiceName ?? ''] }));
    assert.deepEqual(detail.ServiceDetails?.[0]?.AvailabilityZones, ['us-east-1a', 'us-east-1b']);
    // VPC a holds the hub's zones a and b: both are the service's.
    const created = await ec2(session).send(
      new CreateVpcEndpointCommand({
        VpcEndpointType: 'Interface',
        VpcId: w.hubVpcs.a.id,
        ServiceName: svc?.ServiceName,
        SubnetIds: [w.hubSubnets.a1.id, w.hubSubnets.a2.id],
      }),
    );
    const endpointId = created.VpcEndpoint?.VpcEndpointId ?? '';
    const dns = created.VpcEndpoint?.DnsEntries?.[0];
    await ec2(session).send(new DescribeVpcEndpointsCommand({ VpcEndpointIds: [endpointId] }));
    assert.equal((await ec2(session).send(new DescribeVpcEndpointsCommand({ VpcEndpointIds: [endpointId] }))).VpcEndpoints?.[0]?.State, 'available');
    // A subnet in the hub's zone c (use1-az3) is not in the service.
    await assert.rejects(
      ec2(session).send(
        new CreateVpcEndpointCommand({ VpcEndpointType: 'Interface', VpcId: w.hubVpcs.b.id, ServiceName: svc?.ServiceName, SubnetIds: [w.hubSubnets.b3.id] }),
      ),
      (err: Error) => err.name === 'InvalidParameter',
    );

    const hubR53 = r53(session);
    const zone = await hubR53.send(
      new CreateHostedZoneCommand({ Name: 'api.mycluster.example.com', CallerReference: 'world-1', VPC: { VPCId: w.hubVpcs.a.id, VPCRegion: 'us-east-1' } }),
    );
    const zoneId = (zone.HostedZone?.Id ?? '').replace('/hostedzone/', '');
    await hubR53.send(
      new ChangeResourceRecordSetsCommand({
        HostedZoneId: zoneId,
        ChangeBatch: {
          Changes: [
            {
              Action: 'UPSERT',
              ResourceRecordSet: {
                Name: 'api.mycluster.example.com',
                Type: 'A',
                AliasTarget: { HostedZoneId: dns?.HostedZoneId, DNSName: dns?.DnsName, EvaluateTargetHealth: false },
              },
            },
          ],
        },
      }),
    );
    await hubR53.send(new CreateVPCAssociationAuthorizationCommand({ HostedZoneId: zoneId, VPC: { VPCId: w.otherVpc.id, VPCRegion: 'us-east-2' } }));
    await r53(w.other).send(new AssociateVPCWithHostedZoneCommand({ HostedZoneId: zoneId, VPC: { VPCId: w.otherVpc.id, VPCRegion: 'us-east-2' } }));
    await hubR53.send(new DeleteVPCAssociationAuthorizationCommand({ HostedZoneId: zoneId, VPC: { VPCId: w.otherVpc.id, VPCRegion: 'us-east-2' } }));
    assert.deepEqual(
      e.route53.zonesOf(w.hub.account).map((z) => [z.name, z.vpcs.map((v) => v.vpcId)]),
      [['api.mycluster.example.com.', [w.hubVpcs.a.id, w.otherVpc.id]]],
    );
    assert.deepEqual(
      e.route53.recordsOf(zoneId).map((r) => [r.type, r.alias?.dnsName]),
      [['A', `${dns?.DnsName ?? ''}.`]],
    );
    assert.deepEqual(e.route53.authorizationsOf(zoneId), []);

    // Teardown in the controller's order; a zone still shared with several VPCs can go once empty.
    await hubR53.send(
      new ChangeResourceRecordSetsCommand({
        HostedZoneId: zoneId,
        ChangeBatch: {
          Changes: [
            {
              Action: 'DELETE',
              ResourceRecordSet: {
                Name: 'api.mycluster.example.com',
                Type: 'A',
                AliasTarget: { HostedZoneId: dns?.HostedZoneId, DNSName: dns?.DnsName, EvaluateTargetHealth: false },
              },
            },
          ],
        },
      }),
    );
    await hubR53.send(new DeleteHostedZoneCommand({ Id: zoneId }));
    await ec2(session).send(new DeleteVpcEndpointsCommand({ VpcEndpointIds: [endpointId] }));
    const gone = await ec2(w.user).send(new DeleteVpcEndpointServiceConfigurationsCommand({ ServiceIds: [svc?.ServiceId ?? ''] }));
    assert.deepEqual(gone.Unsuccessful, []);
    assert.deepEqual(
      [e.route53.zonesOf(w.hub.account), e.ec2.endpoints(w.hub.account), e.ec2.networkInterfaces(w.hub.account), e.ec2.endpointServices(w.user.account)],
      [[], [], [], []],
    );
  });
});
