/**
 * aws-route53 DNSRecords as Gardener's provider-aws handles them, through the test API server and
 * the AWS emulator (SigV4 signatures verified): the `dns.gardener.cloud/ip-stack` annotation's
 * A / AAAA / both alias records for a load balancer, a keyless workload identity Secret (`token`
 * + `roleARN`, or + `config`) exchanged through STS AssumeRoleWithWebIdentity so Route53 is
 * called as the assumed role, refusals of a bad token or an untrusted role, and a DNSRecord with
 * no conditions whose record exists being deleted at the provider.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { backendTypes } from '../../src/dnsrecord/backend-types.ts';
import type { DNSRecordController } from '../../src/dnsrecord/controller.ts';
import { FINALIZER, IP_STACK_ANNOTATION } from '../../src/dnsrecord/types.ts';
import { startAwsEmulators } from '../support/aws/start.ts';
import type { AwsEmulators } from '../support/aws/start.ts';
import type { EmulatedZone } from '../support/aws/route53-emulator.ts';
import { TestTokenIssuer } from '../support/aws/sts-web-identity.ts';
import { create, createSecret, dnsRecord, get, patch, remove, settled, startController, startEnv, waitFor } from './harness.ts';
import type { Env } from './harness.ts';

const ROLE = 'arn:aws:iam::111122223333:role/gardener-dns';
const OTHER_ROLE = 'arn:aws:iam::111122223333:role/other';
const ISSUER = 'https://issuer.gardener.example';
const AUDIENCE = 'gardener';
const SUBJECT = 'gardener.cloud:workloadidentity:garden-dev:dns:0d1c2b3a';
const LB = 'k8s-istio-abc-123.elb.eu-central-1.amazonaws.com';

describe('dnsrecord-controller, aws-route53 as provider-aws', () => {
  let env: Env;
  let emu: AwsEmulators;
  let controller: DNSRecordController;
  let zone: EmulatedZone;
  const issuer = new TestTokenIssuer(ISSUER);
  const backends = (): ReturnType<typeof backendTypes> =>
    backendTypes(['aws-route53'], { aws: { region: 'eu-central-1', endpointUrl: emu.url, retries: 0 }, rfc2136TimeoutMs: 2000 });

  before(async () => {
    env = await startEnv();
    emu = await startAwsEmulators();
    emu.aws.verifySignatures = true;
    zone = emu.route53.createZone('shoot.example.com');
    emu.sts.addOidcProvider(issuer.provider([AUDIENCE], '111122223333'));
    emu.sts.addRole({ arn: ROLE, webIdentity: { issuer: ISSUER, audience: AUDIENCE, subject: 'gardener.cloud:workloadidentity:garden-dev:dns:*' } });
    emu.sts.addRole({ arn: OTHER_ROLE, webIdentity: { issuer: ISSUER, audience: AUDIENCE, subject: 'someone-else' } });
    const root = emu.aws.rootIdentity;
    await createSecret(env.client, 'keys', { accessKeyID: root.accessKeyId, secretAccessKey: root.secretAccessKey });
    await createSecret(env.client, 'wi', { token: issuer.token({ sub: SUBJECT, aud: AUDIENCE }), roleARN: ROLE });
    await createSecret(env.client, 'wi-config', {
      token: issuer.token({ sub: SUBJECT, aud: [AUDIENCE, 'other'] }),
      config: `apiVersion: aws.provider.extensions.gardener.cloud/v1alpha1\nkind: WorkloadIdentityConfig\nroleARN: ${ROLE}\n`,
    });
    await createSecret(env.client, 'wi-expired', { token: issuer.token({ sub: SUBJECT, aud: AUDIENCE, expiresInS: -60 }), roleARN: ROLE });
    await createSecret(env.client, 'wi-untrusted', { token: issuer.token({ sub: SUBJECT, aud: AUDIENCE }), roleARN: OTHER_ROLE });
    const forged = new TestTokenIssuer(ISSUER);
    await createSecret(env.client, 'wi-forged', { token: forged.token({ sub: SUBJECT, aud: AUDIENCE }), roleARN: ROLE });
    controller = startController(env, { backends: backends() });
  });

  after(async () => {
    await controller?.stop();
    await emu?.stop();
    await env?.stop();
  });

  const lbRecord = (name: string, dnsName: string, stack: string | undefined, secret = 'keys'): ReturnType<typeof dnsRecord> =>
    dnsRecord(
      name,
      { type: 'aws-route53', name: dnsName, recordType: 'CNAME', values: [LB], secretRef: { name: secret } },
      stack === undefined ? undefined : { [IP_STACK_ANNOTATION]: stack },
    );

  test('dual-stack: an A and an AAAA alias to the load balancer, in its hosted zone', async () => {
    await create(env.client, lbRecord('ingress', '*.ingress.shoot.example.com', 'dual-stack'));
    await settled(env.client, 'ingress', 'Create', 'Succeeded');
    for (const type of ['A', 'AAAA']) {
      const rs = emu.route53.find(zone, '*.ingress.shoot.example.com', type);
      assert.deepEqual(rs?.alias, { hostedZoneId: 'Z3F0SRJ5LGBH90', dnsName: `${LB}.`, evaluateTargetHealth: true }, type);
      assert.equal(rs?.ttl, undefined);
    }
    assert.equal(emu.route53.find(zone, '*.ingress.shoot.example.com', 'CNAME'), undefined);
  });

  test('ipv6: only the AAAA alias; no annotation or ipv4: only the A alias', async () => {
    await create(env.client, lbRecord('v6', 'v6.shoot.example.com', 'ipv6'));
    await create(env.client, lbRecord('v4', 'v4.shoot.example.com', 'ipv4'));
    await create(env.client, lbRecord('plain', 'plain.shoot.example.com', undefined));
    for (const name of ['v6', 'v4', 'plain']) await settled(env.client, name, 'Create', 'Succeeded');
    assert.ok(emu.route53.find(zone, 'v6.shoot.example.com', 'AAAA')?.alias !== undefined);
    assert.equal(emu.route53.find(zone, 'v6.shoot.example.com', 'A'), undefined);
    for (const name of ['v4', 'plain']) {
      assert.ok(emu.route53.find(zone, `${name}.shoot.example.com`, 'A')?.alias !== undefined);
      assert.equal(emu.route53.find(zone, `${name}.shoot.example.com`, 'AAAA'), undefined);
    }
  });

  test('deleting reads the sets at the name: both aliases go even after the annotation changed', async () => {
    await patch(env.client, 'ingress', { metadata: { annotations: { [IP_STACK_ANNOTATION]: null } } });
    await remove(env.client, 'ingress');
    await waitFor('ingress gone', async () => ((await get(env.client, 'ingress')) === undefined ? true : undefined));
    assert.equal(emu.route53.find(zone, '*.ingress.shoot.example.com', 'A'), undefined);
    assert.equal(emu.route53.find(zone, '*.ingress.shoot.example.com', 'AAAA'), undefined);
  });

  test('a load balancer record whose zone was deleted at the provider is deleted cleanly', async () => {
    const doomed = emu.route53.createZone('doomed.example.net');
    await create(env.client, lbRecord('doomed', 'www.doomed.example.net', 'dual-stack'));
    await settled(env.client, 'doomed', 'Create', 'Succeeded');
    emu.route53.zones.delete(doomed.id);
    await remove(env.client, 'doomed');
    await waitFor('doomed gone', async () => ((await get(env.client, 'doomed')) === undefined ? true : undefined));
  });

  test('workload identity: a keyless Secret (token + roleARN); Route53 is called signed as the assumed role', async () => {
    emu.aws.resetCounts();
    await create(env.client, lbRecord('wi', 'api.shoot.example.com', 'dual-stack', 'wi'));
    await settled(env.client, 'wi', 'Create', 'Succeeded');
    assert.ok(emu.sts.webIdentityCalls.some((c) => c.roleArn === ROLE && c.subject === SUBJECT && c.error === undefined));
    const route53 = emu.aws.log.filter((l) => l.service === 'route53');
    assert.ok(route53.length > 0);
    for (const call of route53) assert.match(call.principal, /^arn:aws:sts::111122223333:assumed-role\/gardener-dns\/hostwarden-dnsrecord$/);
    assert.equal(emu.aws.count('sts', 'AssumeRole'), 0);
    assert.ok(emu.route53.find(zone, 'api.shoot.example.com', 'AAAA')?.alias !== undefined);
  });

  test('workload identity with the role in a WorkloadIdentityConfig (config key)', async () => {
    await create(env.client, dnsRecord('wi-config', { type: 'aws-route53', name: 'cfg.shoot.example.com', secretRef: { name: 'wi-config' } }));
    await settled(env.client, 'wi-config', 'Create', 'Succeeded');
    assert.deepEqual(emu.route53.find(zone, 'cfg.shoot.example.com', 'A')?.values, ['192.0.2.10']);
  });

  test('an expired or forged token, or a role that does not trust the subject, is refused by STS and nothing is written', async () => {
    // Codes as provider-aws's KnownCodes would find them in the message: only AccessDenied has one.
    const cases = [
      ['expired', 'wi-expired', 'ExpiredTokenException', undefined],
      ['forged', 'wi-forged', 'InvalidIdentityToken', undefined],
      ['untrusted', 'wi-untrusted', 'AccessDenied', ['ERR_INFRA_UNAUTHORIZED']],
    ] as const;
    for (const [name, secret] of cases)
      await create(env.client, dnsRecord(name, { type: 'aws-route53', name: `${name}.shoot.example.com`, secretRef: { name: secret } }));
    for (const [name, , code, codes] of cases) {
      const rec = await settled(env.client, name, 'Create', 'Error');
      assert.match(rec.status?.lastError?.description ?? '', new RegExp(code), name);
      assert.deepEqual(rec.status?.lastError?.codes, codes, name);
      assert.ok(emu.sts.webIdentityCalls.some((c) => c.error === code));
      assert.equal(emu.route53.find(zone, `${name}.shoot.example.com`, 'A'), undefined);
    }
  });

  test('a DNSRecord with no conditions whose record exists is deleted at the provider', async () => {
    // Its Create's status write was lost: the finalizer is on, the record set exists, no conditions.
    await controller.stop();
    emu.route53.put(zone, { name: 'lost.shoot.example.com.', type: 'A', ttl: 120, values: ['192.0.2.10'] });
    const rec = dnsRecord('lost', { type: 'aws-route53', name: 'lost.shoot.example.com', secretRef: { name: 'keys' } });
    rec.metadata.finalizers = [FINALIZER];
    await create(env.client, rec);
    await remove(env.client, 'lost');
    controller = startController(env, { backends: backends() });
    await waitFor('lost gone', async () => ((await get(env.client, 'lost')) === undefined ? true : undefined));
    assert.equal(emu.route53.find(zone, 'lost.shoot.example.com', 'A'), undefined);
  });
});
