/**
 * The emulator itself, through the official SDK clients: signed requests are accepted and
 * unsigned or unknown ones refused, STS identities and GetChange answer as AWS does, and a
 * profile from a shared credentials file reaches the provider.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ChangeResourceRecordSetsCommand, GetChangeCommand, Route53Client } from '@aws-sdk/client-route-53';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { newEndpoint } from '../../src/endpoint/endpoint.ts';
import { awsProvider, isolateAwsSdk } from '../support/aws/provider.ts';
import { startAwsEmulators } from '../support/aws/start.ts';
import type { AwsEmulators } from '../support/aws/start.ts';

isolateAwsSdk();

describe('AWS emulator', () => {
  let e: AwsEmulators;
  let creds: { accessKeyId: string; secretAccessKey: string };
  before(async () => {
    e = await startAwsEmulators();
    creds = { accessKeyId: e.aws.rootIdentity.accessKeyId, secretAccessKey: e.aws.rootIdentity.secretAccessKey };
  });
  after(async () => {
    await e.stop();
  });

  test('GetCallerIdentity answers for the signing key; an unknown key is refused', async () => {
    const sts = new STSClient({ region: 'us-east-1', endpoint: e.url, credentials: creds, maxAttempts: 1 });
    const me = await sts.send(new GetCallerIdentityCommand({}));
    assert.equal(me.Arn, e.aws.rootIdentity.arn);
    assert.equal(me.Account, '111122223333');
    const stranger = new STSClient({ region: 'us-east-1', endpoint: e.url, credentials: { accessKeyId: 'AKIDUNKNOWN', secretAccessKey: 'x' }, maxAttempts: 1 });
    await assert.rejects(stranger.send(new GetCallerIdentityCommand({})), (err: Error) => err.name === 'InvalidClientTokenId');
  });

  test('an unsigned request is refused', async () => {
    const res = await fetch(`${e.url}/2013-04-01/hostedzone`);
    assert.equal(res.status, 403);
    assert.match(await res.text(), /MissingAuthenticationToken/);
  });

  test('ChangeResourceRecordSets returns a change that GetChange knows; errors parse as SDK exceptions', async () => {
    const zone = e.route53.createZone('emu.test');
    const r53 = new Route53Client({ region: 'us-east-1', endpoint: e.url, credentials: creds, maxAttempts: 1 });
    const out = await r53.send(
      new ChangeResourceRecordSetsCommand({
        HostedZoneId: zone.id,
        ChangeBatch: {
          Changes: [{ Action: 'CREATE', ResourceRecordSet: { Name: 'a.emu.test', Type: 'A', TTL: 60, ResourceRecords: [{ Value: '192.0.2.1' }] } }],
        },
      }),
    );
    assert.equal(out.ChangeInfo?.Status, 'INSYNC');
    const change = await r53.send(new GetChangeCommand({ Id: out.ChangeInfo?.Id }));
    assert.equal(change.ChangeInfo?.Status, 'INSYNC');
    await assert.rejects(
      r53.send(
        new ChangeResourceRecordSetsCommand({
          HostedZoneId: zone.id,
          ChangeBatch: {
            Changes: [{ Action: 'DELETE', ResourceRecordSet: { Name: 'a.emu.test', Type: 'A', TTL: 61, ResourceRecords: [{ Value: '192.0.2.1' }] } }],
          },
        }),
      ),
      (err: Error) => err.name === 'InvalidChangeBatch' && /do not match the current values/.test(err.message),
    );
    e.aws.fail({ code: 'PriorRequestNotComplete', operations: ['GetChange'], count: 1 });
    await assert.rejects(r53.send(new GetChangeCommand({ Id: out.ChangeInfo?.Id })), (err: Error) => err.name === 'PriorRequestNotComplete');
  });

  test('repeated --aws-profile: the zones of every profile, each change sent with the profile that owns the zone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hw-aws-profiles-'));
    try {
      const teamA = e.aws.addAccount('333333333333');
      const teamB = e.aws.addAccount('444444444444');
      const zoneA = e.route53.createZone('team-a.test', { account: teamA.account });
      const zoneB = e.route53.createZone('team-b.test', { account: teamB.account });
      const file = join(dir, 'credentials');
      await writeFile(
        file,
        `[a]\naws_access_key_id = ${teamA.accessKeyId}\naws_secret_access_key = ${teamA.secretAccessKey}\n\n` +
          `[b]\naws_access_key_id = ${teamB.accessKeyId}\naws_secret_access_key = ${teamB.secretAccessKey}\n`,
      );
      const provider = await awsProvider(e, {
        'aws-access-key-id': '',
        'aws-secret-access-key': '',
        'aws-shared-credentials-file': file,
        'aws-profile': ['a', 'b'],
      });
      assert.ok(provider.domainFilter().match('x.team-a.test'));
      assert.ok(provider.domainFilter().match('x.team-b.test'));
      assert.ok(!provider.domainFilter().match('x.emu.test'), 'the root account is not one of the profiles');
      e.aws.resetCounts();
      const a = (dnsName: string, ip: string) => newEndpoint({ dnsName, recordType: 'A', targets: [ip], recordTTL: 60 });
      await provider.applyChanges({ create: [a('www.team-a.test', '192.0.2.1'), a('www.team-b.test', '192.0.2.2')], updateOld: [], updateNew: [], delete: [] });
      // The emulator refuses another account's zone (AccessDenied), so each change went with its own profile.
      assert.deepEqual(e.route53.find(zoneA, 'www.team-a.test', 'A')?.values, ['192.0.2.1']);
      assert.deepEqual(e.route53.find(zoneB, 'www.team-b.test', 'A')?.values, ['192.0.2.2']);
      const records = await provider.records();
      assert.ok(records.some((r) => r.dnsName === 'www.team-a.test') && records.some((r) => r.dnsName === 'www.team-b.test'));
      assert.ok(e.aws.log.some((l) => l.principal === teamA.arn) && e.aws.log.some((l) => l.principal === teamB.arn));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a profile from a shared credentials file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hw-aws-cred-'));
    try {
      const file = join(dir, 'credentials');
      await writeFile(
        file,
        `[default]\naws_access_key_id = AKIDWRONG\naws_secret_access_key = nope\n\n[dns]\naws_access_key_id = ${creds.accessKeyId}\naws_secret_access_key = ${creds.secretAccessKey}\n`,
      );
      e.aws.resetCounts();
      const provider = await awsProvider(e, {
        'aws-access-key-id': '',
        'aws-secret-access-key': '',
        'aws-shared-credentials-file': file,
        'aws-profile': 'dns',
      });
      assert.ok(provider.domainFilter().match('x.emu.test'));
      assert.ok(e.aws.log.every((l) => l.principal === e.aws.rootIdentity.arn));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
