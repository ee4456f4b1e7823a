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
