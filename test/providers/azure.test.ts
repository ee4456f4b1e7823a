/**
 * The azure and azure-private-dns providers driving the official ARM SDKs (and @azure/identity
 * for a client-secret login) against the ARM emulator over HTTPS. The SDK pipeline takes TLS
 * settings per client, so the emulator's throw-away certificate is trusted in-process.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TokenCredential } from '@azure/identity';
import { FlagValues } from '../../src/config/config.ts';
import type { FlagValue } from '../../src/config/parse.ts';
import { DomainFilter } from '../../src/endpoint/domain-filter.ts';
import { newEndpoint } from '../../src/endpoint/endpoint.ts';
import type { Endpoint, EndpointInit } from '../../src/endpoint/endpoint.ts';
import { ConfigError, ProviderError } from '../../src/errors.ts';
import { silentLogger } from '../../src/log.ts';
import { AzureProvider } from '../../src/provider/azure/azure.ts';
import type { AzureProviderOptions } from '../../src/provider/azure/azure.ts';
import { SdkAzureDnsApi } from '../../src/provider/azure/client.ts';
import type { AzureHttpOptions, AzureZoneKind } from '../../src/provider/azure/client.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';
import { ArmDnsEmulator } from '../support/azure/arm-dns-emulator.ts';
import { runCli } from '../support/cli.ts';
import { FakeSource } from '../support/fakes.ts';
import { makeSelfSignedCert, opensslUnavailable } from '../support/tls.ts';
import type { SelfSignedCert } from '../support/tls.ts';
import { loadBalancerService } from '../support/manifests.ts';
import { testController } from '../support/controller.ts';
import { captureLogger } from '../registry/capture-logger.ts';

const SUB = '00000000-0000-0000-0000-000000000001';
const TOKEN = 'arm-static-token';
const skip = await opensslUnavailable();

const ep = (init: Partial<EndpointInit> & Pick<EndpointInit, 'dnsName'>): Endpoint => newEndpoint({ recordType: 'A', targets: ['192.0.2.1'], ...init });
const flags = (values: Record<string, FlagValue>): FlagValues => new FlagValues(new Map(Object.entries(values)));
const staticToken = (token = TOKEN): TokenCredential => ({ getToken: () => Promise.resolve({ token, expiresOnTimestamp: Date.now() + 3_600_000 }) });
const cfgOf = (f: FlagValues, domainFilters: string[] = []) => ({ flags: f, domainFilters, excludeDomains: [] });
const find = (records: Endpoint[], name: string, type: string): Endpoint | undefined => records.find((r) => r.dnsName === name && r.recordType === type);

describe('azure providers against the ARM emulator', { skip: skip ?? false }, () => {
  let cert: SelfSignedCert;
  let emu: ArmDnsEmulator;
  let http: AzureHttpOptions;

  before(async () => {
    cert = await makeSelfSignedCert();
    emu = await ArmDnsEmulator.start({ subscriptionId: SUB, cert, pageSize: 2, token: TOKEN });
    emu.addZone('public', 'dns-rg', 'example.com');
    emu.addZone('public', 'dns-rg', 'other.com');
    emu.addZone('public', 'elsewhere-rg', 'foreign.com');
    emu.addZone('private', 'dns-rg', 'corp.internal');
    http = { tlsOptions: { ca: cert.cert }, retryOptions: { maxRetries: 3, retryDelayInMs: 1, maxRetryDelayInMs: 5 } };
  });
  after(async () => {
    await emu?.stop();
    await cert?.cleanup();
  });

  const provider = (kind: AzureZoneKind, resourceGroup = 'dns-rg', filters: Partial<AzureProviderOptions> = {}): AzureProvider =>
    new AzureProvider({
      api: new SdkAzureDnsApi({ kind, credential: staticToken(), subscriptionId: SUB, resourceGroup, endpoint: emu.url, http }),
      logger: silentLogger(),
      ...filters,
    });

  test('zones: public and private kept apart, resource group honoured, listings paginated', async () => {
    const pub = provider('public');
    await pub.records();
    assert.ok(pub.domainFilter().match('www.example.com'));
    assert.ok(pub.domainFilter().match('other.com'));
    assert.ok(!pub.domainFilter().match('x.foreign.com'), 'zone of another resource group');
    assert.ok(!pub.domainFilter().match('db.corp.internal'));
    const all = provider('public', '');
    await all.records();
    assert.ok(all.domainFilter().match('x.foreign.com'), 'no resource group: the whole subscription');
    const priv = provider('private');
    await priv.records();
    assert.ok(priv.domainFilter().match('db.corp.internal'));
    assert.ok(!priv.domainFilter().match('www.example.com'));

    for (let i = 0; i < 5; i++)
      emu.put('private', 'corp.internal', { name: `host${i}`, type: 'A', properties: { ttl: 60, aRecords: [{ ipv4Address: `10.0.0.${i}` }] } });
    const lists = emu.calls.recordSetLists;
    const records = await priv.records();
    assert.equal(records.filter((r) => r.dnsName.startsWith('host')).length, 5);
    assert.equal(find(records, 'host3.corp.internal', 'A')?.recordTTL, 60);
    // SOA + 5 A = 6 record sets, 2 per page.
    assert.equal(emu.calls.recordSetLists - lists, 3);
  });

  test('--zone-id-filter keeps zones whose ARM id ends with a value; writes never reach the other zones', async () => {
    const byId = provider('public', '', { zoneIds: ['/dnszones/other.com', 'foreign.com'] });
    await byId.records();
    assert.ok(byId.domainFilter().match('x.other.com'));
    assert.ok(byId.domainFilter().match('x.foreign.com'));
    assert.ok(!byId.domainFilter().match('www.example.com'), 'excluded by id');
    const puts = emu.calls.puts;
    await assert.rejects(
      byId.applyChanges({ create: [ep({ dnsName: 'excluded.example.com' })], updateOld: [], updateNew: [], delete: [] }),
      (err: unknown) => err instanceof ProviderError && /no Azure DNS zone contains/.test(err.message),
    );
    assert.equal(emu.calls.puts, puts, 'no PUT reached the excluded zone');
    // The domain filter and the id filter both have to match (external-dns's AND).
    const both = provider('public', '', { zoneIds: ['other.com', 'foreign.com'], domains: ['other.com'] });
    await both.records();
    assert.ok(both.domainFilter().match('x.other.com'));
    assert.ok(!both.domainFilter().match('x.foreign.com'));
  });

  test('--zone-name-filter adds zones by name whatever the other filters say, and their records obey --domain-filter', async () => {
    emu.addZone('public', 'names-rg', 'names.example');
    emu.put('public', 'names.example', { name: 'app.team', type: 'A', properties: { TTL: 60, ARecords: [{ ipv4Address: '192.0.2.7' }] } });
    emu.put('public', 'names.example', { name: 'www2', type: 'A', properties: { TTL: 60, ARecords: [{ ipv4Address: '192.0.2.8' }] } });
    const p = provider('public', '', {
      domains: ['team.names.example'],
      zoneIds: ['foreign.com'],
      zoneNames: ['names.example'],
      recordFilter: new DomainFilter({ include: ['team.names.example'] }),
    });
    const records = await p.records();
    assert.ok(p.domainFilter().match('x.names.example'), 'zone chosen by name although the id filter leaves it out');
    assert.ok(!p.domainFilter().match('x.other.com'));
    assert.ok(!p.domainFilter().match('x.foreign.com'), 'the id filter alone does not pass a zone outside --domain-filter');
    assert.ok(find(records, 'app.team.names.example', 'A') !== undefined);
    assert.equal(find(records, 'www2.names.example', 'A'), undefined, 'outside --domain-filter');
  });

  test('record types, TXT split at 255 bytes and joined again, apex and wildcard names', async () => {
    const p = provider('public');
    await p.records();
    const long = 'v='.padEnd(600, 'x');
    await p.applyChanges({
      create: [
        ep({ dnsName: 'txt.example.com', recordType: 'TXT', targets: [`"${long}"`, 'short'] }),
        ep({ dnsName: 'example.com', targets: ['192.0.2.5'], recordTTL: 120 }),
        ep({ dnsName: '*.apps.example.com', recordType: 'AAAA', targets: ['2001:db8::1'] }),
        ep({ dnsName: 'mail.example.com', recordType: 'MX', targets: ['10 mx.example.com.'] }),
        ep({ dnsName: 'alias.example.com', recordType: 'CNAME', targets: ['www.example.com'] }),
      ],
      updateOld: [],
      updateNew: [],
      delete: [],
    });
    const stored = emu.get('public', 'example.com', 'txt', 'TXT')?.properties['TXTRecords'] as { value: string[] }[];
    assert.deepEqual(stored.map((r) => r.value.map((v) => v.length)).sort(), [[255, 255, 90], [5]].sort());
    assert.deepEqual(emu.get('public', 'example.com', '@', 'A')?.properties['ARecords'], [{ ipv4Address: '192.0.2.5' }]);
    assert.deepEqual(emu.get('public', 'example.com', 'alias', 'CNAME')?.properties['CNAMERecord'], { cname: 'www.example.com' });
    const records = await p.records();
    assert.deepEqual(find(records, 'txt.example.com', 'TXT')?.targets.sort(), [long, 'short'].sort());
    assert.equal(find(records, 'example.com', 'A')?.recordTTL, 120);
    assert.deepEqual(find(records, '*.apps.example.com', 'AAAA')?.targets, ['2001:db8::1']);
    assert.deepEqual(find(records, 'mail.example.com', 'MX')?.targets, ['10 mx.example.com']);
    assert.deepEqual(find(records, 'alias.example.com', 'CNAME')?.targets, ['www.example.com']);
    assert.deepEqual(find(records, 'example.com', 'NS')?.targets.length, 2);
  });

  test('writes are conditional: a record set changed behind our back is refused (412), permanently', async () => {
    const p = provider('public');
    const records = await p.records();
    const old = find(records, 'example.com', 'A') as Endpoint;
    emu.put('public', 'example.com', { name: '@', type: 'A', properties: { TTL: 120, ARecords: [{ ipv4Address: '198.51.100.9' }] } });
    await assert.rejects(p.applyChanges({ create: [], updateOld: [old], updateNew: [{ ...old, targets: ['192.0.2.6'] }], delete: [] }), (err: unknown) => {
      assert.ok(err instanceof ProviderError);
      assert.equal(err.provider, 'azure');
      assert.equal(err.zone, 'example.com');
      assert.equal(err.transient, false);
      assert.match(err.message, /update example\.com A.*HTTP 412 PreconditionFailed/);
      return true;
    });
    assert.deepEqual(emu.get('public', 'example.com', '@', 'A')?.properties['ARecords'], [{ ipv4Address: '198.51.100.9' }]);
    // Creating over an existing record set is refused too (If-None-Match: *).
    await assert.rejects(p.applyChanges({ create: [ep({ dnsName: 'example.com' })], updateOld: [], updateNew: [], delete: [] }), /HTTP 412/);
  });

  for (const kind of ['public', 'private'] as const) {
    const zone = kind === 'public' ? 'other.com' : 'corp.internal';
    test(`${kind}: a full sync through Controller and TXTRegistry with throttling mid-sync`, { timeout: 60_000 }, async () => {
      const unowned = kind === 'public' ? { TTL: 300, ARecords: [{ ipv4Address: '198.51.100.1' }] } : { ttl: 300, aRecords: [{ ipv4Address: '198.51.100.1' }] };
      emu.put(kind, zone, { name: 'legacy', type: 'A', properties: unowned });
      const p = provider(kind);
      const registry = new TXTRegistry(p, { ownerId: 'hw', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger: silentLogger() });
      const source = new FakeSource([
        ep({ dnsName: `www.${zone}`, targets: ['192.0.2.10'], labels: { resource: 'service/default/www' } }),
        ep({ dnsName: `api.${zone}`, recordType: 'CNAME', targets: [`www.${zone}`], labels: { resource: 'ingress/default/api' } }),
        ep({ dnsName: `legacy.${zone}`, targets: ['192.0.2.66'], labels: { resource: 'service/default/legacy' } }),
      ]);
      const controller = testController(source, registry, { domainFilter: new DomainFilter({ include: [zone] }) });
      const privateField: Record<string, string> = { ARecords: 'aRecords', CNAMERecord: 'cnameRecord', TXTRecords: 'txtRecords' };
      const field = (name: string, type: string, f: string): unknown =>
        emu.get(kind, zone, name, type)?.properties[kind === 'public' ? f : (privateField[f] ?? f)];

      const first = await controller.runOnce();
      assert.equal(first.changes.create.length, 2, 'legacy is blocked by the unowned record');
      assert.deepEqual(field('www', 'A', 'ARecords'), [{ ipv4Address: '192.0.2.10' }]);
      assert.deepEqual(field('api', 'CNAME', 'CNAMERecord'), { cname: `www.${zone}` });
      assert.deepEqual(field('a-www', 'TXT', 'TXTRecords'), [
        { value: ['heritage=external-dns,external-dns/owner=hw,external-dns/resource=service/default/www'] },
      ]);
      assert.ok(field('cname-api', 'TXT', 'TXTRecords') !== undefined);
      assert.deepEqual(field('legacy', 'A', 'ARecords'), [{ ipv4Address: '198.51.100.1' }], 'unowned record left alone');
      assert.equal((await controller.runOnce()).applied, false, 'nothing to do on a second sync');

      // Update while ARM throttles: two 429s are retried inside the SDK (Retry-After: 0).
      source.desired = source.desired.map((d) => (d.dnsName === `www.${zone}` ? { ...d, targets: ['192.0.2.20'] } : d));
      emu.throttle(2);
      await controller.runOnce();
      assert.deepEqual(field('www', 'A', 'ARecords'), [{ ipv4Address: '192.0.2.20' }]);

      // Throttled beyond the SDK's retries: a transient error, and the next sync converges.
      source.desired = source.desired.filter((d) => d.dnsName !== `api.${zone}`);
      emu.throttle(100);
      await assert.rejects(controller.runOnce(), (err: unknown) => err instanceof ProviderError && err.transient && /HTTP 429/.test(err.message));
      emu.throttle(0);
      await controller.runOnce();
      assert.equal(emu.get(kind, zone, 'api', 'CNAME'), undefined);
      assert.equal(emu.get(kind, zone, 'cname-api', 'TXT'), undefined);
      assert.ok(emu.get(kind, zone, 'legacy', 'A') !== undefined);
      assert.equal((await controller.runOnce()).applied, false);
    });
  }

  test('wildcards: Azure refuses a-*.web (400), so the registry skips the wildcard naming --txt-wildcard-replacement; with it, a-wildcard.web is written, read, updated, deleted', async () => {
    const p = provider('public');
    await p.records();
    await assert.rejects(
      p.applyChanges({ create: [ep({ dnsName: 'a-*.web.example.com', recordType: 'TXT', targets: ['"x"'] })], updateOld: [], updateNew: [], delete: [] }),
      (err: unknown) => err instanceof ProviderError && /relative name 'a-\*\.web' is invalid/.test(err.message),
    );
    const wildcard = (name: string, target: string): Endpoint =>
      ep({ dnsName: name, targets: [target], recordTTL: 300, labels: { resource: 'ingress/default/apps' } });
    const filter = { domainFilter: new DomainFilter({ include: ['web.example.com', 'old.example.com'] }) };
    const log = captureLogger();
    const plain = new TXTRegistry(p, { ownerId: 'hw', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger: log.logger });
    await testController(new FakeSource([wildcard('*.web.example.com', '192.0.2.20'), wildcard('ok.web.example.com', '192.0.2.22')]), plain, filter).runOnce();
    assert.ok(emu.get('public', 'example.com', 'ok.web', 'A') !== undefined);
    assert.equal(emu.get('public', 'example.com', '*.web', 'A'), undefined, 'no record without its ownership TXT');
    assert.ok(
      log
        .lines()
        .some((l) => l.level === 50 && l.msg.includes('Azure DNS accepts "*" only as the whole first label') && l.msg.includes('--txt-wildcard-replacement')),
      JSON.stringify(log.lines().filter((l) => l.level >= 40)),
    );

    // What external-dns users on Azure run with: --txt-wildcard-replacement, here left by external-dns for *.old.
    const value = 'heritage=external-dns,external-dns/owner=hw,external-dns/resource=ingress/default/apps';
    emu.put('public', 'example.com', { name: '*.old', type: 'A', properties: { TTL: 300, ARecords: [{ ipv4Address: '192.0.2.30' }] } });
    emu.put('public', 'example.com', { name: 'a-wildcard.old', type: 'TXT', properties: { TTL: 300, TXTRecords: [{ value: [value] }] } });
    const replaced = new TXTRegistry(p, {
      ownerId: 'hw',
      managedRecordTypes: ['A', 'AAAA', 'CNAME'],
      excludeRecordTypes: [],
      logger: silentLogger(),
      wildcardReplacement: 'wildcard',
    });
    const source = new FakeSource([wildcard('*.web.example.com', '192.0.2.20'), wildcard('*.old.example.com', '192.0.2.31')]);
    const controller = testController(source, replaced, filter);
    await controller.runOnce();
    const field = (name: string, type: string, f: string): unknown => emu.get('public', 'example.com', name, type)?.properties[f];
    assert.deepEqual(field('*.web', 'A', 'ARecords'), [{ ipv4Address: '192.0.2.20' }]);
    assert.deepEqual(field('a-wildcard.web', 'TXT', 'TXTRecords'), [{ value: [value] }]);
    assert.deepEqual(field('*.old', 'A', 'ARecords'), [{ ipv4Address: '192.0.2.31' }], 'the external-dns wildcard is owned and updated');
    assert.deepEqual(field('a-wildcard.old', 'TXT', 'TXTRecords'), [{ value: [value] }]);
    assert.equal((await controller.runOnce()).applied, false, 'read back and owned: nothing to do');
    source.desired = [];
    await controller.runOnce();
    for (const [name, type] of [
      ['*.web', 'A'],
      ['a-wildcard.web', 'TXT'],
      ['*.old', 'A'],
      ['a-wildcard.old', 'TXT'],
      ['ok.web', 'A'],
      ['a-ok.web', 'TXT'],
    ] as const) {
      assert.equal(emu.get('public', 'example.com', name, type), undefined, `${name} ${type}`);
    }
  });

  test('fromConfig: azure.json with a client secret logs in through the authority and lists zones', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hw-azure-'));
    try {
      const file = join(dir, 'azure.json');
      const config = {
        tenantId: 'tenant-1',
        subscriptionId: SUB,
        resourceGroup: 'dns-rg',
        aadClientId: 'test-client',
        aadClientSecret: 'test-secret',
        activeDirectoryAuthorityHost: emu.url,
        resourceManagerEndpoint: emu.url,
      };
      await writeFile(file, JSON.stringify(config));
      const tokens = emu.calls.tokens;
      const p = await AzureProvider.fromConfig(cfgOf(flags({ 'azure-config-file': file, 'azure-zones-cache-duration': 0, 'azure-maxretries-count': 1 })), {
        kind: 'private',
        logger: silentLogger(),
        http: { tlsOptions: { ca: cert.cert } },
      });
      assert.equal(p.name, 'azure-private-dns');
      assert.ok(p.domainFilter().match('db.corp.internal'));
      assert.ok(emu.calls.tokens > tokens, 'a token was fetched with the client secret');

      await writeFile(file, JSON.stringify({ ...config, aadClientSecret: 'wrong' }));
      await assert.rejects(
        AzureProvider.fromConfig(cfgOf(flags({ 'azure-config-file': file, 'azure-maxretries-count': 0 })), {
          kind: 'public',
          logger: silentLogger(),
          http: { tlsOptions: { ca: cert.cert } },
        }),
        /invalid_client|Invalid client secret|AADSTS7000215/,
      );

      // The flags win over the file; bad values name the flag.
      await writeFile(file, JSON.stringify({ ...config, resourceGroup: 'nope' }));
      const q = await AzureProvider.fromConfig(cfgOf(flags({ 'azure-config-file': file, 'azure-resource-group': 'elsewhere-rg' })), {
        kind: 'public',
        logger: silentLogger(),
        credential: staticToken(),
        http: { tlsOptions: { ca: cert.cert } },
      });
      assert.ok(q.domainFilter().match('foreign.com'));
      const isConfig = (flag: string) => (err: unknown) => err instanceof ConfigError && err.flag === flag;
      await assert.rejects(
        AzureProvider.fromConfig(cfgOf(flags({ 'azure-config-file': join(dir, 'missing.json') })), { kind: 'public', logger: silentLogger() }),
        isConfig('--azure-config-file'),
      );
      await writeFile(file, '{not json');
      await assert.rejects(
        AzureProvider.fromConfig(cfgOf(flags({ 'azure-config-file': file })), { kind: 'public', logger: silentLogger() }),
        isConfig('--azure-config-file'),
      );
      await writeFile(file, JSON.stringify({ tenantId: 't' }));
      await assert.rejects(
        AzureProvider.fromConfig(cfgOf(flags({ 'azure-config-file': file })), { kind: 'public', logger: silentLogger() }),
        isConfig('--azure-subscription-id'),
      );
      await writeFile(file, JSON.stringify({ subscriptionId: SUB, aadClientId: 'x' }));
      await assert.rejects(
        AzureProvider.fromConfig(cfgOf(flags({ 'azure-config-file': file })), { kind: 'public', logger: silentLogger() }),
        isConfig('--azure-config-file'),
      );
      await assert.rejects(
        AzureProvider.fromConfig(cfgOf(flags({ 'azure-config-file': file, 'azure-subscription-id': SUB, 'azure-endpoint': 'http://127.0.0.1:1' })), {
          kind: 'public',
          logger: silentLogger(),
        }),
        isConfig('--azure-endpoint'),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('hostwarden run --once --provider azure, then azure-dns: manifests to Azure DNS through the CLI wiring', { timeout: 120_000 }, async () => {
    emu.addZone('public', 'dns-rg', 'cli.test');
    emu.put('public', 'cli.test', { name: 'theirs', type: 'A', properties: { TTL: 300, ARecords: [{ ipv4Address: '203.0.113.1' }] } });
    const dir = await mkdtemp(join(tmpdir(), 'hw-azure-cli-'));
    try {
      const manifests = join(dir, 'manifests');
      await mkdir(manifests);
      const file = join(dir, 'azure.json');
      await writeFile(
        file,
        JSON.stringify({
          tenantId: 'tenant-1',
          subscriptionId: SUB,
          resourceGroup: 'dns-rg',
          aadClientId: 'test-client',
          aadClientSecret: 'test-secret',
          activeDirectoryAuthorityHost: emu.url,
        }),
      );
      await writeFile(join(manifests, 'web.yaml'), loadBalancerService('web', 'web.cli.test,theirs.cli.test', '192.0.2.10'));
      const run = (provider = 'azure') =>
        runCli(
          [
            'run',
            '--once',
            '--provider',
            provider,
            '--azure-config-file',
            file,
            '--azure-endpoint',
            emu.url,
            '--manifests-dir',
            manifests,
            '--domain-filter',
            'cli.test',
            '--txt-owner-id',
            'hw-cli',
            '--metrics-address',
            '',
            '--log-format',
            'json',
          ],
          {
            env: { NODE_EXTRA_CA_CERTS: cert.certFile },
            timeoutMs: 60_000,
          },
        );
      const first = await run();
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(emu.get('public', 'cli.test', 'web', 'A')?.properties['ARecords'], [{ ipv4Address: '192.0.2.10' }]);
      assert.deepEqual(emu.get('public', 'cli.test', 'a-web', 'TXT')?.properties['TXTRecords'], [
        { value: ['heritage=external-dns,external-dns/owner=hw-cli,external-dns/resource=service/default/web'] },
      ]);
      assert.deepEqual(emu.get('public', 'cli.test', 'theirs', 'A')?.properties['ARecords'], [{ ipv4Address: '203.0.113.1' }]);
      await rm(join(manifests, 'web.yaml'));
      // azure-dns: external-dns's other name for the azure provider.
      const second = await run('azure-dns');
      assert.equal(second.code, 0, second.stderr);
      assert.equal(emu.get('public', 'cli.test', 'web', 'A'), undefined);
      assert.equal(emu.get('public', 'cli.test', 'a-web', 'TXT'), undefined);
      assert.ok(emu.get('public', 'cli.test', 'theirs', 'A') !== undefined);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
