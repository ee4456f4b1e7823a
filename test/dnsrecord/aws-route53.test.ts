/**
 * The aws-route53 type against the Route53/STS emulator: both Secret key namings, assume-role with
 * an external id, zone found once (label boundary, longest match) and then read from status,
 * alias records for load balancer CNAMEs, deletion, throttling reported and retried, and a missing
 * Secret key named in lastError.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { backendTypes } from '../../src/dnsrecord/backend-types.ts';
import type { DNSRecordController } from '../../src/dnsrecord/controller.ts';
import { ERR_CONFIGURATION_PROBLEM, ERR_INFRA_RATE_LIMITS_EXCEEDED, OPERATION_ANNOTATION } from '../../src/dnsrecord/types.ts';
import { startAwsEmulators } from '../support/aws/start.ts';
import type { AwsEmulators } from '../support/aws/start.ts';
import type { EmulatedZone } from '../support/aws/route53-emulator.ts';
import { NS, create, createSecret, dnsRecord, get, patch, remove, settled, startController, startEnv, waitFor } from './harness.ts';
import type { Env } from './harness.ts';

const ROLE = 'arn:aws:iam::111122223333:role/dns';

describe('dnsrecord-controller, aws-route53 type', () => {
  let env: Env;
  let emu: AwsEmulators;
  let controller: DNSRecordController;
  let parent: EmulatedZone;
  let dev: EmulatedZone;

  before(async () => {
    env = await startEnv();
    emu = await startAwsEmulators();
    parent = emu.route53.createZone('example.com');
    dev = emu.route53.createZone('dev.example.com');
    emu.route53.createZone('badexample.com');
    emu.sts.addRole({ arn: ROLE, externalId: 'gardener' });
    const root = emu.aws.rootIdentity;
    await createSecret(env.client, 'gardener-naming', { accessKeyID: root.accessKeyId, secretAccessKey: root.secretAccessKey, region: 'eu-west-1' });
    await createSecret(env.client, 'sdk-naming', { AWS_ACCESS_KEY_ID: root.accessKeyId, AWS_SECRET_ACCESS_KEY: root.secretAccessKey, AWS_REGION: 'eu-west-1' });
    await createSecret(env.client, 'with-role', {
      accessKeyID: root.accessKeyId,
      secretAccessKey: root.secretAccessKey,
      AWS_ROLE_ARN: ROLE,
      externalID: 'gardener',
    });
    await createSecret(env.client, 'half', { accessKeyID: root.accessKeyId });
    controller = startController(env, {
      backends: backendTypes(['aws-route53'], { aws: { region: 'us-east-1', endpointUrl: emu.url, retries: 0 }, rfc2136TimeoutMs: 2000 }),
    });
  });

  after(async () => {
    await controller?.stop();
    await emu?.stop();
    await env?.stop();
  });

  test('Gardener key naming: the longest zone on a label boundary, status.zone set, written once', async () => {
    await create(
      env.client,
      dnsRecord('api', { type: 'aws-route53', name: 'api.dev.example.com', secretRef: { name: 'gardener-naming' }, values: ['192.0.2.1'] }),
    );
    const rec = await settled(env.client, 'api', 'Create', 'Succeeded');
    assert.equal(rec.status?.zone, dev.id);
    assert.deepEqual(emu.route53.find(dev, 'api.dev.example.com', 'A')?.values, ['192.0.2.1']);
    assert.equal(emu.route53.find(dev, 'api.dev.example.com', 'A')?.ttl, 120);
    assert.equal(emu.route53.find(parent, 'api.dev.example.com', 'A'), undefined);
  });

  test('the second reconcile lists no zones; a value change is an UPSERT', async () => {
    emu.aws.resetCounts();
    await patch(env.client, 'api', { metadata: { annotations: { [OPERATION_ANNOTATION]: 'reconcile' } }, spec: { values: ['192.0.2.2', '192.0.2.3'] } });
    await waitFor('updated', async () => (emu.route53.find(dev, 'api.dev.example.com', 'A')?.values.length === 2 ? true : undefined));
    await settled(env.client, 'api', 'Reconcile', 'Succeeded');
    assert.equal(emu.aws.count('route53', 'ListHostedZones'), 0);
    assert.ok(emu.aws.count('route53', 'ChangeResourceRecordSets') >= 1);
  });

  test('SDK key naming works too; badexample.com is not taken for example.com', async () => {
    await create(env.client, dnsRecord('bad', { type: 'aws-route53', name: 'www.badexample.com', secretRef: { name: 'sdk-naming' } }));
    const rec = await settled(env.client, 'bad', 'Create', 'Succeeded');
    const zone = [...emu.route53.zones.values()].find((z) => z.name === 'badexample.com.');
    assert.equal(rec.status?.zone, zone?.id);
  });

  test('AWS_ROLE_ARN in the Secret is assumed with the keys and its external id; a load balancer CNAME becomes an alias', async () => {
    await create(
      env.client,
      dnsRecord('lb', {
        type: 'aws-route53',
        name: 'ingress.example.com',
        recordType: 'CNAME',
        values: ['k8s-lb-123.eu-west-1.elb.amazonaws.com'],
        secretRef: { name: 'with-role' },
      }),
    );
    await settled(env.client, 'lb', 'Create', 'Succeeded');
    assert.ok(emu.sts.assumeRoleCalls.some((c) => c.roleArn === ROLE && c.externalId === 'gardener' && c.ok));
    assert.ok(emu.aws.log.some((l) => l.operation === 'ChangeResourceRecordSets' && l.principal.includes('assumed-role/dns/')));
    const alias = emu.route53.find(parent, 'ingress.example.com', 'A')?.alias;
    assert.equal(alias?.dnsName, 'k8s-lb-123.eu-west-1.elb.amazonaws.com.');
    assert.equal(alias?.hostedZoneId, 'Z32O12XQLNTSW2');
  });

  test('a missing Secret key is named, with the Secret, under ERR_CONFIGURATION_PROBLEM', async () => {
    await create(env.client, dnsRecord('half', { type: 'aws-route53', name: 'half.example.com', secretRef: { name: 'half' } }));
    const rec = await settled(env.client, 'half', 'Create', 'Error');
    assert.deepEqual(rec.status?.lastError?.codes, [ERR_CONFIGURATION_PROBLEM]);
    assert.match(rec.status?.lastError?.description ?? '', new RegExp(`secret ${NS}/half has no key "secretAccessKey" or "AWS_SECRET_ACCESS_KEY"`));
  });

  test('throttling: lastOperation Error with a clear description, then retried until it succeeds', async () => {
    emu.aws.fail({ code: 'Throttling', message: 'Rate exceeded', count: 2, operations: ['ChangeResourceRecordSets'] });
    await create(env.client, dnsRecord('slow', { type: 'aws-route53', name: 'slow.example.com', secretRef: { name: 'gardener-naming' } }));
    const failed = await settled(env.client, 'slow', 'Create', 'Error');
    assert.deepEqual(failed.status?.lastError?.codes, [ERR_INFRA_RATE_LIMITS_EXCEEDED]);
    assert.match(failed.status?.lastOperation?.description ?? '', /throttled/);
    await settled(env.client, 'slow', 'Create', 'Succeeded');
    assert.deepEqual(emu.route53.find(parent, 'slow.example.com', 'A')?.values, ['192.0.2.10']);
  });

  test('a zone deleted at the provider: deleting the DNSRecord succeeds', async () => {
    const doomed = emu.route53.createZone('doomed.example.net');
    await create(env.client, dnsRecord('doomed', { type: 'aws-route53', name: 'www.doomed.example.net', secretRef: { name: 'gardener-naming' } }));
    await settled(env.client, 'doomed', 'Create', 'Succeeded');
    emu.route53.zones.delete(doomed.id);
    await remove(env.client, 'doomed');
    await waitFor('doomed gone', async () => ((await get(env.client, 'doomed')) === undefined ? true : undefined));
  });

  test('delete removes the record set (alias too), then the finalizer; a vanished record is success', async () => {
    await remove(env.client, 'lb');
    await remove(env.client, 'api');
    parent.sets.delete([...parent.sets.keys()].find((k) => k.includes('slow.example.com')) ?? '');
    await remove(env.client, 'slow');
    for (const name of ['lb', 'api', 'slow']) await waitFor(`${name} gone`, async () => ((await get(env.client, name)) === undefined ? true : undefined));
    assert.equal(emu.route53.find(parent, 'ingress.example.com', 'A'), undefined);
    assert.equal(emu.route53.find(dev, 'api.dev.example.com', 'A'), undefined);
  });
});
