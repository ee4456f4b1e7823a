/**
 * Route53 private hosted zones in the emulator, through the official SDK: ownership by account,
 * CreateHostedZone rules, ListHostedZonesByName paging, cross-account VPC association with
 * authorizations, the last-VPC and not-empty refusals, tags and alias records.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AssociateVPCWithHostedZoneCommand,
  ChangeResourceRecordSetsCommand,
  ChangeTagsForResourceCommand,
  CreateHostedZoneCommand,
  CreateVPCAssociationAuthorizationCommand,
  DeleteHostedZoneCommand,
  DeleteVPCAssociationAuthorizationCommand,
  DisassociateVPCFromHostedZoneCommand,
  GetHostedZoneCommand,
  ListHostedZonesByNameCommand,
  ListHostedZonesCommand,
  ListResourceRecordSetsCommand,
  ListTagsForResourceCommand,
  ListVPCAssociationAuthorizationsCommand,
  Route53Client,
} from '@aws-sdk/client-route-53';
import type { Identity } from './emulator.ts';
import { isolateAwsSdk } from './provider.ts';
import { startAwsEmulators } from './start.ts';
import type { AwsEmulators } from './start.ts';

isolateAwsSdk();

const HUB = '555555555555';
const OTHER = '666666666666';

function r53(e: AwsEmulators, id: Identity): Route53Client {
  return new Route53Client({ region: 'us-east-1', endpoint: e.url, credentials: id, maxAttempts: 1 });
}

function code(name: string): (err: Error) => boolean {
  return (err) => err.name === name;
}

const bare = (id: string | undefined): string => (id ?? '').replace('/hostedzone/', '');

describe('Route53 private hosted zones', () => {
  let e: AwsEmulators;
  let hub: Identity;
  let other: Identity;
  before(async () => {
    e = await startAwsEmulators();
    hub = e.aws.addAccount(HUB);
    other = e.aws.addAccount(OTHER);
  });
  after(async () => {
    await e.stop();
  });

  test('create needs a caller VPC; caller reference reuse and same-name conflicts are refused; zones are per account', async () => {
    const vpc = e.network.addVpc(HUB, 'us-east-1');
    const foreign = e.network.addVpc(OTHER, 'us-east-1');
    const client = r53(e, hub);
    const created = await client.send(
      new CreateHostedZoneCommand({
        Name: 'api.c1.example.com',
        CallerReference: 'ref-1',
        HostedZoneConfig: { PrivateZone: true, Comment: 'c1' },
        VPC: { VPCId: vpc.id, VPCRegion: 'us-east-1' },
      }),
    );
    assert.equal(created.HostedZone?.Name, 'api.c1.example.com.');
    assert.equal(created.HostedZone?.Config?.PrivateZone, true);
    assert.equal(created.HostedZone?.Config?.Comment, 'c1');
    assert.deepEqual(created.VPC, { VPCId: vpc.id, VPCRegion: 'us-east-1' });
    assert.equal(created.ChangeInfo?.Status, 'INSYNC');
    const id = bare(created.HostedZone?.Id);

    await assert.rejects(
      client.send(new CreateHostedZoneCommand({ Name: 'x.example.com', CallerReference: 'ref-1', VPC: { VPCId: vpc.id, VPCRegion: 'us-east-1' } })),
      code('HostedZoneAlreadyExists'),
    );
    await assert.rejects(
      client.send(
        new CreateHostedZoneCommand({
          Name: 'api.c1.example.com',
          CallerReference: 'ref-2',
          HostedZoneConfig: { PrivateZone: true },
          VPC: { VPCId: vpc.id, VPCRegion: 'us-east-1' },
        }),
      ),
      code('ConflictingDomainExists'),
    );
    await assert.rejects(
      client.send(
        new CreateHostedZoneCommand({
          Name: 'y.example.com',
          CallerReference: 'ref-3',
          HostedZoneConfig: { PrivateZone: true },
          VPC: { VPCId: foreign.id, VPCRegion: 'us-east-1' },
        }),
      ),
      code('InvalidVPCId'),
    );
    await assert.rejects(
      client.send(new CreateHostedZoneCommand({ Name: 'y.example.com', CallerReference: 'ref-4', VPC: { VPCId: vpc.id, VPCRegion: 'us-west-2' } })),
      code('InvalidVPCId'),
    );

    const got = await client.send(new GetHostedZoneCommand({ Id: id }));
    assert.deepEqual(got.VPCs, [{ VPCId: vpc.id, VPCRegion: 'us-east-1' }]);
    const mine = await client.send(new ListHostedZonesCommand({}));
    assert.deepEqual(
      mine.HostedZones?.map((z) => bare(z.Id)),
      [id],
    );
    const theirs = await r53(e, other).send(new ListHostedZonesCommand({}));
    assert.equal(
      theirs.HostedZones?.some((z) => bare(z.Id) === id),
      false,
    );
    await assert.rejects(r53(e, other).send(new GetHostedZoneCommand({ Id: id })), code('AccessDenied'));
    assert.deepEqual(
      e.route53.zonesOf(HUB).map((z) => z.id),
      [id],
    );
    // The root identity keeps its own zones, as before accounts existed.
    assert.equal(e.route53.zonesOf('111122223333').length, 0);
  });

  test('ListHostedZonesByName: reversed-label order, exact start, paging with NextDNSName and NextHostedZoneId', async () => {
    const vpcs = [e.network.addVpc(OTHER, 'us-east-1'), e.network.addVpc(OTHER, 'us-east-1')];
    const client = r53(e, other);
    for (const [i, name] of ['b.example.org', 'a.example.org', 'example.net', 'a.example.org'].entries()) {
      await client.send(
        new CreateHostedZoneCommand({ Name: name, CallerReference: `by-name-${i}`, VPC: { VPCId: vpcs[i === 3 ? 1 : 0]?.id, VPCRegion: 'us-east-1' } }),
      );
    }
    const all = await client.send(new ListHostedZonesByNameCommand({}));
    assert.deepEqual(
      all.HostedZones?.map((z) => z.Name),
      ['example.net.', 'a.example.org.', 'a.example.org.', 'b.example.org.'],
    );
    const from = await client.send(new ListHostedZonesByNameCommand({ DNSName: 'a.example.org', MaxItems: 1 }));
    assert.deepEqual(
      from.HostedZones?.map((z) => z.Name),
      ['a.example.org.'],
    );
    assert.equal(from.IsTruncated, true);
    assert.equal(from.NextDNSName, 'a.example.org.');
    const next = await client.send(new ListHostedZonesByNameCommand({ DNSName: from.NextDNSName, HostedZoneId: from.NextHostedZoneId, MaxItems: 1 }));
    assert.deepEqual(
      next.HostedZones?.map((z) => z.Name),
      ['a.example.org.'],
    );
    assert.notEqual(next.HostedZones?.[0]?.Id, from.HostedZones?.[0]?.Id);
    assert.equal(next.NextDNSName, 'b.example.org.');
  });

  test('cross-account association needs an authorization; disassociation never removes the last VPC', async () => {
    const hubVpc = e.network.addVpc(HUB, 'us-east-1');
    const hubVpc2 = e.network.addVpc(HUB, 'us-west-2');
    const otherVpc = e.network.addVpc(OTHER, 'us-east-2');
    const hubR53 = r53(e, hub);
    const otherR53 = r53(e, other);
    const zone = await hubR53.send(
      new CreateHostedZoneCommand({ Name: 'api.c2.example.com', CallerReference: 'assoc-1', VPC: { VPCId: hubVpc.id, VPCRegion: 'us-east-1' } }),
    );
    const id = bare(zone.HostedZone?.Id);

    await hubR53.send(new AssociateVPCWithHostedZoneCommand({ HostedZoneId: id, VPC: { VPCId: hubVpc2.id, VPCRegion: 'us-west-2' } }));
    await assert.rejects(
      hubR53.send(new AssociateVPCWithHostedZoneCommand({ HostedZoneId: id, VPC: { VPCId: otherVpc.id, VPCRegion: 'us-east-2' } })),
      code('InvalidVPCId'),
    );
    await assert.rejects(
      otherR53.send(new AssociateVPCWithHostedZoneCommand({ HostedZoneId: id, VPC: { VPCId: otherVpc.id, VPCRegion: 'us-east-2' } })),
      code('NotAuthorizedException'),
    );
    await assert.rejects(
      otherR53.send(new CreateVPCAssociationAuthorizationCommand({ HostedZoneId: id, VPC: { VPCId: otherVpc.id, VPCRegion: 'us-east-2' } })),
      code('AccessDenied'),
    );
    const auth = await hubR53.send(new CreateVPCAssociationAuthorizationCommand({ HostedZoneId: id, VPC: { VPCId: otherVpc.id, VPCRegion: 'us-east-2' } }));
    assert.equal(auth.HostedZoneId, id);
    assert.deepEqual(auth.VPC, { VPCId: otherVpc.id, VPCRegion: 'us-east-2' });
    const listed = await hubR53.send(new ListVPCAssociationAuthorizationsCommand({ HostedZoneId: id }));
    assert.deepEqual(listed.VPCs, [{ VPCId: otherVpc.id, VPCRegion: 'us-east-2' }]);
    await otherR53.send(new AssociateVPCWithHostedZoneCommand({ HostedZoneId: id, VPC: { VPCId: otherVpc.id, VPCRegion: 'us-east-2' } }));
    await hubR53.send(new DeleteVPCAssociationAuthorizationCommand({ HostedZoneId: id, VPC: { VPCId: otherVpc.id, VPCRegion: 'us-east-2' } }));
    await assert.rejects(
      hubR53.send(new DeleteVPCAssociationAuthorizationCommand({ HostedZoneId: id, VPC: { VPCId: otherVpc.id, VPCRegion: 'us-east-2' } })),
      code('VPCAssociationAuthorizationNotFound'),
    );
    assert.deepEqual((await hubR53.send(new ListVPCAssociationAuthorizationsCommand({ HostedZoneId: id }))).VPCs, []);
    assert.deepEqual(
      e.route53.zones.get(id)?.vpcs.map((v) => v.vpcId),
      [hubVpc.id, hubVpc2.id, otherVpc.id],
    );

    // The VPC owner may disassociate its VPC; the zone owner may remove any but the last.
    await otherR53.send(new DisassociateVPCFromHostedZoneCommand({ HostedZoneId: id, VPC: { VPCId: otherVpc.id, VPCRegion: 'us-east-2' } }));
    await assert.rejects(
      hubR53.send(new DisassociateVPCFromHostedZoneCommand({ HostedZoneId: id, VPC: { VPCId: otherVpc.id, VPCRegion: 'us-east-2' } })),
      code('VPCAssociationNotFound'),
    );
    await hubR53.send(new DisassociateVPCFromHostedZoneCommand({ HostedZoneId: id, VPC: { VPCId: hubVpc2.id, VPCRegion: 'us-west-2' } }));
    await assert.rejects(
      hubR53.send(new DisassociateVPCFromHostedZoneCommand({ HostedZoneId: id, VPC: { VPCId: hubVpc.id, VPCRegion: 'us-east-1' } })),
      code('LastVPCAssociation'),
    );
  });

  test('alias records, tags, and DeleteHostedZone only when just SOA and NS remain', async () => {
    const vpc = e.network.addVpc(HUB, 'us-east-1');
    const client = r53(e, hub);
    const zone = await client.send(
      new CreateHostedZoneCommand({ Name: 'api.c3.example.com', CallerReference: 'del-1', VPC: { VPCId: vpc.id, VPCRegion: 'us-east-1' } }),
    );
    const id = bare(zone.HostedZone?.Id);
    const alias = {
      Name: 'api.c3.example.com.',
      Type: 'A' as const,
      AliasTarget: { HostedZoneId: 'Z7HUB22UULQXV', DNSName: 'vpce-1.vpce-svc-1.us-east-1.vpce.amazonaws.com.', EvaluateTargetHealth: false },
    };
    await client.send(new ChangeResourceRecordSetsCommand({ HostedZoneId: id, ChangeBatch: { Changes: [{ Action: 'UPSERT', ResourceRecordSet: alias }] } }));
    const sets = await client.send(new ListResourceRecordSetsCommand({ HostedZoneId: id }));
    assert.deepEqual(sets.ResourceRecordSets?.find((r) => r.Type === 'A')?.AliasTarget, alias.AliasTarget);
    await assert.rejects(r53(e, other).send(new ListResourceRecordSetsCommand({ HostedZoneId: id })), code('AccessDenied'));

    await client.send(
      new ChangeTagsForResourceCommand({
        ResourceType: 'hostedzone',
        ResourceId: id,
        AddTags: [
          { Key: 'owner', Value: 'c3' },
          { Key: 'tmp', Value: 'x' },
        ],
      }),
    );
    await client.send(new ChangeTagsForResourceCommand({ ResourceType: 'hostedzone', ResourceId: id, RemoveTagKeys: ['tmp'] }));
    const tags = await client.send(new ListTagsForResourceCommand({ ResourceType: 'hostedzone', ResourceId: id }));
    assert.deepEqual(tags.ResourceTagSet?.Tags, [{ Key: 'owner', Value: 'c3' }]);

    await assert.rejects(client.send(new DeleteHostedZoneCommand({ Id: id })), code('HostedZoneNotEmpty'));
    await client.send(new ChangeResourceRecordSetsCommand({ HostedZoneId: id, ChangeBatch: { Changes: [{ Action: 'DELETE', ResourceRecordSet: alias }] } }));
    const deleted = await client.send(new DeleteHostedZoneCommand({ Id: id }));
    assert.equal(deleted.ChangeInfo?.Status, 'INSYNC');
    await assert.rejects(client.send(new GetHostedZoneCommand({ Id: id })), code('NoSuchHostedZone'));
    await assert.rejects(client.send(new DeleteHostedZoneCommand({ Id: id })), code('NoSuchHostedZone'));
  });
});
