import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FlagValues } from '../../config/config.ts';
import type { FlagValue } from '../../config/parse.ts';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, EndpointInit } from '../../endpoint/endpoint.ts';
import { ConfigError, InvalidEndpointError, ProviderError } from '../../errors.ts';
import { silentLogger } from '../../log.ts';
import { AzureProvider } from './azure.ts';
import type { AzureCondition, AzureDnsApi, AzureZoneKind, AzureZoneRef } from './client.ts';
import { PUBLIC_TYPES, endpointToRecordSet, recordSetToEndpoint, relativeName, splitTxt } from './convert.ts';
import type { AzureRecordSetModel } from './convert.ts';
import { readAzureSettings } from './settings.ts';

const ep = (init: Partial<EndpointInit> & Pick<EndpointInit, 'dnsName'>): Endpoint => newEndpoint({ recordType: 'A', targets: ['192.0.2.1'], ...init });
const none = { create: [], updateOld: [], updateNew: [], delete: [] };
const flags = (values: Record<string, FlagValue>): FlagValues => new FlagValues(new Map(Object.entries(values)));

class FakeApi implements AzureDnsApi {
  readonly kind: AzureZoneKind = 'public';
  zones: AzureZoneRef[] = [{ name: 'example.com', resourceGroup: 'rg' }];
  sets: AzureRecordSetModel[] = [];
  writes: string[] = [];
  zoneLists = 0;
  listZones(): Promise<AzureZoneRef[]> {
    this.zoneLists++;
    return Promise.resolve(this.zones);
  }
  listRecordSets(): Promise<AzureRecordSetModel[]> {
    return Promise.resolve(this.sets);
  }
  putRecordSet(_zone: AzureZoneRef, relative: string, type: string, _set: AzureRecordSetModel, c: AzureCondition): Promise<void> {
    this.writes.push(`put ${relative} ${type} ${JSON.stringify(c)}`);
    return Promise.resolve();
  }
  deleteRecordSet(_zone: AzureZoneRef, relative: string, type: string, c: AzureCondition): Promise<void> {
    this.writes.push(`delete ${relative} ${type} ${JSON.stringify(c)}`);
    return Promise.resolve();
  }
}

describe('azure conversions', () => {
  test('TXT values split at 255 bytes without cutting a character', () => {
    assert.deepEqual(splitTxt('short'), ['short']);
    assert.deepEqual(splitTxt('').length, 1);
    const parts = splitTxt('é'.repeat(200));
    assert.ok(parts.every((p) => Buffer.byteLength(p) <= 255));
    assert.equal(parts.join(''), 'é'.repeat(200));
  });

  test('relative names and record sets both ways', () => {
    assert.equal(relativeName('example.com', 'example.com'), '@');
    assert.equal(relativeName('*.a.example.com', 'example.com'), '*.a');
    const set = endpointToRecordSet(ep({ dnsName: 'm.example.com', recordType: 'MX', targets: ['10 mx.example.com.'] }), 300);
    assert.deepEqual(set, { ttl: 300, mxRecords: [{ preference: 10, exchange: 'mx.example.com' }] });
    const back = recordSetToEndpoint({ ...set, name: 'm', type: 'Microsoft.Network/dnszones/MX' }, 'example.com', PUBLIC_TYPES);
    assert.deepEqual(back?.targets, ['10 mx.example.com']);
    assert.deepEqual(endpointToRecordSet(ep({ dnsName: 't.example.com', recordType: 'TXT', targets: ['"quoted"'] }), 300).txtRecords, [{ value: ['quoted'] }]);
    assert.equal(recordSetToEndpoint({ name: '@', type: 'Microsoft.Network/dnszones/SOA', ttl: 1 }, 'example.com', PUBLIC_TYPES), undefined);
    assert.throws(() => endpointToRecordSet(ep({ dnsName: 'c.example.com', recordType: 'CNAME', targets: ['a', 'b'] }), 300), InvalidEndpointError);
  });
});

describe('AzureProvider', () => {
  test('deletes first, then updates with If-Match, then creates with If-None-Match; a replaced set is not deleted', async () => {
    const api = new FakeApi();
    api.sets = [
      { name: 'old', type: 'Microsoft.Network/dnszones/A', etag: 'e1', ttl: 300, aRecords: [{ ipv4Address: '192.0.2.1' }] },
      { name: 'upd', type: 'Microsoft.Network/dnszones/A', etag: 'e2', ttl: 300, aRecords: [{ ipv4Address: '192.0.2.1' }] },
      { name: 'gone', type: 'Microsoft.Network/dnszones/TXT', etag: 'e3', ttl: 300, txtRecords: [{ value: ['y'] }] },
    ];
    const p = new AzureProvider({ api, logger: silentLogger() });
    await p.records();
    await p.applyChanges({
      create: [ep({ dnsName: 'new.example.com' }), ep({ dnsName: 'gone.example.com', recordType: 'TXT', targets: ['x'] })],
      updateOld: [ep({ dnsName: 'upd.example.com' })],
      updateNew: [ep({ dnsName: 'upd.example.com', targets: ['192.0.2.2'] })],
      delete: [ep({ dnsName: 'old.example.com' }), ep({ dnsName: 'gone.example.com', recordType: 'TXT', targets: ['y'] })],
    });
    assert.deepEqual(api.writes, [
      'delete old A {"ifMatch":"e1"}',
      'put upd A {"ifMatch":"e2"}',
      'put gone TXT {"ifMatch":"e3"}',
      'put new A {"ifNoneMatch":"*"}',
    ]);
  });

  test('the zone list is cached for --azure-zones-cache-duration', async () => {
    const api = new FakeApi();
    let now = 0;
    const p = new AzureProvider({ api, logger: silentLogger(), zonesCacheMs: 1000, now: () => now });
    await p.records();
    await p.records();
    assert.equal(api.zoneLists, 1);
    now = 1500;
    await p.records();
    assert.equal(api.zoneLists, 2);
    const uncached = new AzureProvider({ api, logger: silentLogger() });
    await uncached.records();
    await uncached.records();
    assert.equal(api.zoneLists, 4);
  });

  test('zones unrelated to --domain-filter are not read', async () => {
    const api = new FakeApi();
    api.zones.push({ name: 'other.net', resourceGroup: 'rg' });
    const p = new AzureProvider({ api, logger: silentLogger(), domains: ['app.example.com'] });
    await p.records();
    assert.ok(p.domainFilter().match('app.example.com'));
    assert.ok(!p.domainFilter().match('x.other.net'));
  });

  test('names outside every zone are a permanent error naming them', async () => {
    const p = new AzureProvider({ api: new FakeApi(), logger: silentLogger() });
    await p.records();
    await assert.rejects(
      p.applyChanges({ ...none, create: [ep({ dnsName: 'x.nowhere.test' })] }),
      (err: unknown) => err instanceof ProviderError && !err.transient && /x\.nowhere\.test/.test(err.message),
    );
  });
});

describe('azure settings', () => {
  test('azure.json selects the login; flags win; the default file may be missing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hw-azure-settings-'));
    try {
      const file = join(dir, 'azure.json');
      await writeFile(
        file,
        JSON.stringify({
          subscriptionId: 'sub',
          resourceGroup: 'rg',
          useManagedIdentityExtension: true,
          userAssignedIdentityID: 'uai',
          cloud: 'AzureChinaCloud',
        }),
      );
      const s = await readAzureSettings(flags({ 'azure-config-file': file, 'azure-resource-group': 'other' }));
      assert.deepEqual(s.auth, { kind: 'managed-identity', clientId: 'uai' });
      assert.equal(s.resourceGroup, 'other');
      assert.equal(s.endpoint, 'https://management.chinacloudapi.cn');
      const overridden = await readAzureSettings(flags({ 'azure-config-file': file, 'azure-user-assigned-identity-client-id': 'flag-uai' }));
      assert.deepEqual(overridden.auth, { kind: 'managed-identity', clientId: 'flag-uai' });
      await writeFile(file, JSON.stringify({ subscriptionId: 'sub', tenantId: 't', aadClientId: 'c', aadClientSecret: 's' }));
      assert.equal((await readAzureSettings(flags({ 'azure-config-file': file }))).auth.kind, 'secret');
      await writeFile(file, JSON.stringify({ subscriptionId: 'sub', useWorkloadIdentityExtension: true }));
      assert.equal((await readAzureSettings(flags({ 'azure-config-file': file }))).auth.kind, 'workload-identity');
      await writeFile(file, JSON.stringify({ subscriptionId: 'sub', useManagedIdentityExtension: 'yes' }));
      await assert.rejects(
        readAzureSettings(flags({ 'azure-config-file': file })),
        (err: unknown) => err instanceof ConfigError && err.flag === '--azure-config-file',
      );
      await writeFile(file, JSON.stringify({ subscriptionId: 'sub', cloud: 'Mars' }));
      await assert.rejects(readAzureSettings(flags({ 'azure-config-file': file })), /unknown cloud/);
      // The default path, when absent, is fine with the default credential chain.
      const d = await readAzureSettings(flags({ 'azure-config-file': '/etc/kubernetes/azure.json', 'azure-subscription-id': 'sub' }));
      assert.equal(d.auth.kind, 'default');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
