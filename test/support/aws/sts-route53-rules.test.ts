/**
 * The emulator's STS AssumeRoleWithWebIdentity, Route53 alias rules and SigV4 checks through the
 * official SDK v3 clients, with the error codes AWS documents.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ChangeResourceRecordSetsCommand, ListHostedZonesCommand, Route53Client } from '@aws-sdk/client-route-53';
import type { ResourceRecordSet } from '@aws-sdk/client-route-53';
import { AssumeRoleWithWebIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { isolateAwsSdk } from './provider.ts';
import { startAwsEmulators } from './start.ts';
import type { AwsEmulators } from './start.ts';
import { TestTokenIssuer } from './sts-web-identity.ts';

isolateAwsSdk();

const ROLE = 'arn:aws:iam::111122223333:role/dns';
const ISSUER = 'https://issuer.example';

describe('AWS emulator: web identity, alias rules, signatures', () => {
  let e: AwsEmulators;
  const issuer = new TestTokenIssuer(ISSUER);
  let sts: STSClient;
  let route53: Route53Client;
  let zoneId = '';

  before(async () => {
    e = await startAwsEmulators();
    e.aws.verifySignatures = true;
    e.sts.addOidcProvider(issuer.provider(['aud-1']));
    e.sts.addRole({ arn: ROLE, webIdentity: { issuer: ISSUER, audience: 'aud-1', subject: 'sub-1' } });
    zoneId = e.route53.createZone('example.org').id;
    sts = new STSClient({ region: 'us-west-2', endpoint: e.url, maxAttempts: 1 });
    route53 = new Route53Client({ region: 'us-west-2', endpoint: e.url, credentials: e.aws.rootIdentity, maxAttempts: 1 });
  });

  after(async () => {
    sts?.destroy();
    route53?.destroy();
    await e?.stop();
  });

  const assume = (token: string, role = ROLE): Promise<unknown> =>
    sts.send(new AssumeRoleWithWebIdentityCommand({ RoleArn: role, RoleSessionName: 'session-1', WebIdentityToken: token }));
  const refused = async (p: Promise<unknown>, name: string): Promise<void> => {
    await assert.rejects(p, (err: Error) => {
      assert.equal(err.name, name);
      return true;
    });
  };

  test('a trusted token is exchanged, unsigned, for session credentials of the role', async () => {
    const out = (await assume(issuer.token({ sub: 'sub-1', aud: 'aud-1' }))) as {
      Credentials?: { AccessKeyId?: string };
      AssumedRoleUser?: { Arn?: string };
      SubjectFromWebIdentityToken?: string;
    };
    assert.equal(out.AssumedRoleUser?.Arn, 'arn:aws:sts::111122223333:assumed-role/dns/session-1');
    assert.equal(out.SubjectFromWebIdentityToken, 'sub-1');
    assert.match(out.Credentials?.AccessKeyId ?? '', /^ASIA/);
  });

  // On the wire the code is InvalidIdentityToken; the SDK names its modelled error class with Exception.
  test("STS's documented refusals", async () => {
    await refused(assume('not-a-jwt'), 'InvalidIdentityTokenException');
    await refused(assume(new TestTokenIssuer(ISSUER).token({ sub: 'sub-1', aud: 'aud-1' })), 'InvalidIdentityTokenException');
    await refused(assume(issuer.token({ sub: 'sub-1', aud: 'aud-1', iss: 'https://elsewhere' })), 'InvalidIdentityTokenException');
    await refused(assume(issuer.token({ sub: 'sub-1', aud: 'aud-2' })), 'InvalidIdentityTokenException');
    await refused(assume(issuer.token({ sub: 'sub-1', aud: 'aud-1', expiresInS: -1 })), 'ExpiredTokenException');
    await refused(assume(issuer.token({ sub: 'sub-2', aud: 'aud-1' })), 'AccessDenied');
    await refused(assume(issuer.token({ sub: 'sub-1', aud: 'aud-1' }), 'arn:aws:iam::111122223333:role/unknown'), 'AccessDenied');
    assert.deepEqual(
      e.sts.webIdentityCalls.slice(-7).map((c) => c.error),
      ['InvalidIdentityToken', 'InvalidIdentityToken', 'InvalidIdentityToken', 'InvalidIdentityToken', 'ExpiredTokenException', 'AccessDenied', 'AccessDenied'],
    );
  });

  test('a request signed with the wrong secret is refused with SignatureDoesNotMatch', async () => {
    const wrong = new Route53Client({
      region: 'us-west-2',
      endpoint: e.url,
      credentials: { accessKeyId: e.aws.rootIdentity.accessKeyId, secretAccessKey: 'not-the-secret' },
      maxAttempts: 1,
    });
    await refused(wrong.send(new ListHostedZonesCommand({})), 'SignatureDoesNotMatch');
    wrong.destroy();
    await route53.send(new ListHostedZonesCommand({}));
  });

  const change = (rs: ResourceRecordSet): Promise<unknown> =>
    route53.send(new ChangeResourceRecordSetsCommand({ HostedZoneId: zoneId, ChangeBatch: { Changes: [{ Action: 'UPSERT', ResourceRecordSet: rs }] } }));
  const alias = (DNSName: string, HostedZoneId: string) => ({ DNSName, HostedZoneId, EvaluateTargetHealth: true });

  test('alias records: A and AAAA to a load balancer in its zone; Route53 refuses the rest', async () => {
    const nlb = 'a-1.elb.eu-central-1.amazonaws.com';
    await change({ Name: 'a.example.org', Type: 'A', AliasTarget: alias(nlb, 'Z3F0SRJ5LGBH90') });
    await change({ Name: 'a.example.org', Type: 'AAAA', AliasTarget: alias(nlb, 'Z3F0SRJ5LGBH90') });
    await change({ Name: 'cf.example.org', Type: 'AAAA', AliasTarget: alias('d1.cloudfront.net', 'Z2FDTNDATAQYW2') });
    const invalid = async (rs: ResourceRecordSet, message: RegExp): Promise<void> => {
      await assert.rejects(change(rs), (err: Error) => {
        assert.equal(err.name, 'InvalidChangeBatch');
        assert.match(err.message, message);
        return true;
      });
    };
    await invalid({ Name: 'b.example.org', Type: 'CNAME', AliasTarget: alias(nlb, 'Z3F0SRJ5LGBH90') }, /does not lie within the target zone/);
    await invalid({ Name: 'b.example.org', Type: 'A', AliasTarget: alias(nlb, 'Z215JYRZR1TBD5') }, /does not lie within the target zone/);
    await invalid({ Name: 'b.example.org', Type: 'A', TTL: 60, AliasTarget: alias(nlb, 'Z3F0SRJ5LGBH90') }, /Expected exactly one of \[AliasTarget/);
    await invalid({ Name: 'b.example.org', Type: 'TXT', AliasTarget: alias('d1.cloudfront.net', 'Z2FDTNDATAQYW2') }, /does not lie within the target zone/);
  });
});
