/**
 * The azure-dns and azure-private-dns types against the ARM emulator (HTTPS, trusted in-process
 * through the SDK pipeline's TLS settings): a client-secret login from the Secret in both key
 * namings, zone ids `<resourceGroup>/<zone>` over the whole subscription, the zone found once and
 * then read from status, a value change, deletion, and a missing Secret key named in lastError.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { backendTypes } from '../../src/dnsrecord/backend-types.ts';
import type { DNSRecordController } from '../../src/dnsrecord/controller.ts';
import { ERR_CONFIGURATION_PROBLEM, ERR_INFRA_RATE_LIMITS_EXCEEDED, OPERATION_ANNOTATION } from '../../src/dnsrecord/types.ts';
import { SdkAzureDnsApi } from '../../src/provider/azure/client.ts';
import { ArmDnsEmulator } from '../support/azure/arm-dns-emulator.ts';
import { makeSelfSignedCert, opensslUnavailable } from '../support/tls.ts';
import type { SelfSignedCert } from '../support/tls.ts';
import { NS, create, createSecret, dnsRecord, get, patch, remove, settled, startController, startEnv, waitFor } from './harness.ts';
import type { Env } from './harness.ts';

const SUB = '00000000-0000-0000-0000-0000000000aa';
const skip = (await opensslUnavailable()) ?? false;

describe('dnsrecord-controller, azure-dns and azure-private-dns types', { skip }, () => {
  let env: Env;
  let cert: SelfSignedCert;
  let emu: ArmDnsEmulator;
  let controller: DNSRecordController;

  before(async () => {
    env = await startEnv();
    cert = await makeSelfSignedCert();
    emu = await ArmDnsEmulator.start({ subscriptionId: SUB, cert, clientId: 'sp-client', clientSecret: 'sp-secret' });
    emu.addZone('public', 'dns-rg', 'example.com');
    emu.addZone('public', 'team-rg', 'dev.example.com');
    emu.addZone('public', 'dns-rg', 'badexample.com');
    emu.addZone('private', 'net-rg', 'corp.internal');
    await createSecret(env.client, 'gardener-naming', { subscriptionID: SUB, tenantID: 'tenant-1', clientID: 'sp-client', clientSecret: 'sp-secret' });
    await createSecret(env.client, 'sdk-naming', {
      AZURE_SUBSCRIPTION_ID: SUB,
      AZURE_TENANT_ID: 'tenant-1',
      AZURE_CLIENT_ID: 'sp-client',
      AZURE_CLIENT_SECRET: 'sp-secret',
    });
    await createSecret(env.client, 'wrong', { subscriptionID: SUB, tenantID: 'tenant-1', clientID: 'sp-client', clientSecret: 'not-it' });
    await createSecret(env.client, 'half', { subscriptionID: SUB, tenantID: 'tenant-1', clientID: 'sp-client' });
    const azure = { endpoint: emu.url, authorityHost: emu.url, http: { tlsOptions: { ca: cert.cert }, retryOptions: { maxRetries: 0 } } };
    const backends = backendTypes(['azure-dns', 'azure-private-dns'], {
      aws: { region: 'us-east-1', endpointUrl: '', retries: 0 },
      rfc2136TimeoutMs: 2000,
      azure,
    });
    controller = startController(env, { backends });
  });

  after(async () => {
    await controller?.stop();
    await emu?.stop();
    await cert?.cleanup();
    await env?.stop();
  });

  test('Gardener key naming: the longest zone across resource groups, status.zone <resourceGroup>/<zone>', async () => {
    await create(
      env.client,
      dnsRecord('api', { type: 'azure-dns', name: 'api.dev.example.com', secretRef: { name: 'gardener-naming' }, values: ['192.0.2.1'] }),
    );
    const rec = await settled(env.client, 'api', 'Create', 'Succeeded');
    assert.equal(rec.status?.zone, 'team-rg/dev.example.com');
    assert.deepEqual(emu.get('public', 'dev.example.com', 'api', 'A')?.properties, { TTL: 120, ARecords: [{ ipv4Address: '192.0.2.1' }] });
    assert.ok(emu.calls.tokens >= 1, 'logged in with the client secret');
  });

  test('the second reconcile lists no zones; a value change replaces the record set', async () => {
    const lists = emu.calls.zoneLists;
    await patch(env.client, 'api', { metadata: { annotations: { [OPERATION_ANNOTATION]: 'reconcile' } }, spec: { values: ['192.0.2.2', '192.0.2.3'] } });
    await settled(env.client, 'api', 'Reconcile', 'Succeeded');
    assert.deepEqual(emu.get('public', 'dev.example.com', 'api', 'A')?.properties['ARecords'], [{ ipv4Address: '192.0.2.2' }, { ipv4Address: '192.0.2.3' }]);
    assert.equal(emu.calls.zoneLists, lists);
  });

  test('private zones with the SDK key naming: a TXT record split at 255 bytes, and a CNAME at the apex of another zone', async () => {
    const long = 'v='.padEnd(300, 'x');
    await create(
      env.client,
      dnsRecord('txt', { type: 'azure-private-dns', name: '_acme.corp.internal', recordType: 'TXT', values: [long], secretRef: { name: 'sdk-naming' } }),
    );
    const rec = await settled(env.client, 'txt', 'Create', 'Succeeded');
    assert.equal(rec.status?.zone, 'net-rg/corp.internal');
    assert.deepEqual(emu.get('private', 'corp.internal', '_acme', 'TXT')?.properties, {
      ttl: 120,
      txtRecords: [{ value: [long.slice(0, 255), long.slice(255)] }],
    });
    await create(
      env.client,
      dnsRecord('bad', { type: 'azure-dns', name: 'www.badexample.com', recordType: 'CNAME', values: ['lb.example.net'], secretRef: { name: 'sdk-naming' } }),
    );
    assert.equal((await settled(env.client, 'bad', 'Create', 'Succeeded')).status?.zone, 'dns-rg/badexample.com');
    assert.deepEqual(emu.get('public', 'badexample.com', 'www', 'CNAME')?.properties['CNAMERecord'], { cname: 'lb.example.net' });
  });

  test('a missing Secret key is named, with the Secret, under ERR_CONFIGURATION_PROBLEM', async () => {
    await create(env.client, dnsRecord('half', { type: 'azure-dns', name: 'half.example.com', secretRef: { name: 'half' } }));
    const rec = await settled(env.client, 'half', 'Create', 'Error');
    assert.deepEqual(rec.status?.lastError?.codes, [ERR_CONFIGURATION_PROBLEM]);
    assert.match(rec.status?.lastError?.description ?? '', new RegExp(`secret ${NS}/half has no key "clientSecret" or "AZURE_CLIENT_SECRET"`));
  });

  test('a rejected login is reported in lastOperation; throttling is ERR_INFRA_RATE_LIMITS_EXCEEDED and retried', async () => {
    await create(env.client, dnsRecord('wrong', { type: 'azure-dns', name: 'wrong.example.com', secretRef: { name: 'wrong' } }));
    const rejected = await settled(env.client, 'wrong', 'Create', 'Error');
    assert.match(rejected.status?.lastOperation?.description ?? '', /invalid_client|AADSTS7000215/);
    await remove(env.client, 'wrong');
    emu.throttle(2);
    await create(env.client, dnsRecord('slow', { type: 'azure-dns', name: 'slow.example.com', secretRef: { name: 'gardener-naming' } }));
    const throttled = await settled(env.client, 'slow', 'Create', 'Error');
    assert.deepEqual(throttled.status?.lastError?.codes, [ERR_INFRA_RATE_LIMITS_EXCEEDED]);
    await settled(env.client, 'slow', 'Create', 'Succeeded');
    assert.deepEqual(emu.get('public', 'example.com', 'slow', 'A')?.properties['ARecords'], [{ ipv4Address: '192.0.2.10' }]);
  });

  test('delete removes the record set, then the finalizer; a record set already gone is success', async () => {
    await remove(env.client, 'api');
    await remove(env.client, 'txt');
    // Someone else removed it first.
    const other = new SdkAzureDnsApi({
      kind: 'public',
      credential: { getToken: () => Promise.resolve({ token: 'arm-test-token', expiresOnTimestamp: Date.now() + 60_000 }) },
      subscriptionId: SUB,
      resourceGroup: '',
      endpoint: emu.url,
      http: { tlsOptions: { ca: cert.cert } },
    });
    await other.deleteRecordSet({ resourceGroup: 'dns-rg', name: 'badexample.com' }, 'www', 'CNAME', {});
    assert.equal(emu.get('public', 'badexample.com', 'www', 'CNAME'), undefined);
    await remove(env.client, 'bad');
    await remove(env.client, 'half');
    await remove(env.client, 'slow');
    for (const name of ['api', 'txt', 'bad', 'half', 'slow', 'wrong']) {
      await waitFor(`${name} gone`, async () => ((await get(env.client, name)) === undefined ? true : undefined));
    }
    assert.equal(emu.get('public', 'dev.example.com', 'api', 'A'), undefined);
    assert.equal(emu.get('private', 'corp.internal', '_acme', 'TXT'), undefined);
  });
});
