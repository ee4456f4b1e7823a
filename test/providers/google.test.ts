/**
 * The google provider driving the official @google-cloud/dns SDK against the Cloud DNS emulator
 * over HTTPS. The SDK offers no way to trust a custom CA per client, and Node reads
 * NODE_EXTRA_CA_CERTS only at start-up, so this file re-runs itself in a child process that
 * trusts the emulator's throw-away certificate — the same setting a user with a private CA uses.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { OAuth2Client } from 'google-auth-library';
import { FlagValues } from '../../src/config/config.ts';
import type { FlagValue } from '../../src/config/parse.ts';
import { DomainFilter } from '../../src/endpoint/domain-filter.ts';
import { newEndpoint } from '../../src/endpoint/endpoint.ts';
import type { Endpoint, EndpointInit } from '../../src/endpoint/endpoint.ts';
import { ConfigError, ProviderError } from '../../src/errors.ts';
import { silentLogger } from '../../src/log.ts';
import { SdkGoogleDnsApi } from '../../src/provider/google/client.ts';
import { GoogleProvider } from '../../src/provider/google/google.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';
import { runCli } from '../support/cli.ts';
import { FakeSource } from '../support/fakes.ts';
import { CloudDnsEmulator } from '../support/google/cloud-dns-emulator.ts';
import { suiteTrustingEmulator } from '../support/google/child-suite.ts';
import { loadSelfSignedCert } from '../support/tls.ts';
import { loadBalancerService } from '../support/manifests.ts';
import { testController } from '../support/controller.ts';

const CHILD_ENV = 'HOSTWARDEN_TEST_GOOGLE_TLS_DIR';
const PROJECT = 'hw-test-project';
const TOKEN = 'static-test-token';
await suiteTrustingEmulator({
  name: 'google provider against the Cloud DNS emulator (in a child process trusting its certificate)',
  envVar: CHILD_ENV,
  file: fileURLToPath(import.meta.url),
  timeoutMs: 170_000,
  suite: childSuite,
});

const ep = (init: Partial<EndpointInit> & Pick<EndpointInit, 'dnsName'>): Endpoint => newEndpoint({ recordType: 'A', targets: ['192.0.2.1'], ...init });
const flags = (values: Record<string, FlagValue>): FlagValues => new FlagValues(new Map(Object.entries(values)));
const noSleep = (): Promise<void> => Promise.resolve();
const cfgOf = (f: FlagValues, domainFilters: string[] = []) => ({ flags: f, domainFilters, excludeDomains: [] });

function staticToken(): OAuth2Client {
  const client = new OAuth2Client();
  client.setCredentials({ access_token: TOKEN, expiry_date: Date.now() + 3_600_000 });
  return client;
}

function childSuite(dir: string): void {
  describe('google provider against the Cloud DNS emulator', () => {
    let emu: CloudDnsEmulator;
    let cleanup: () => Promise<void> = () => Promise.resolve();

    before(async () => {
      const cert = await loadSelfSignedCert(dir);
      emu = await CloudDnsEmulator.start({ project: PROJECT, cert, pageSize: 4, token: TOKEN });
      emu.addZone('example-org', 'example.org', 'public');
      emu.addZone('internal', 'internal.example', 'private');
      emu.addZone('sub', 'sub.example.org', 'public');
      emu.addZone('unrelated-1', 'unrelated-1.test', 'public');
      emu.addZone('unrelated-2', 'unrelated-2.test', 'public');
      cleanup = () => emu.stop();
    });
    after(() => cleanup());

    const api = (): SdkGoogleDnsApi => new SdkGoogleDnsApi({ project: PROJECT, keyFile: '', apiEndpoint: emu.endpoint, authClient: staticToken() });
    const provider = (visibility = '', batchChangeSize = 1000): GoogleProvider =>
      new GoogleProvider({ api: api(), logger: silentLogger(), zoneVisibility: visibility, batchChangeSize, batchChangeIntervalMs: 0, sleep: noSleep });

    test('zones are filtered by visibility and listed across pages; the domain filter is the zone names', async () => {
      const pub = provider('public');
      const lists = emu.calls.zoneLists;
      await pub.records();
      assert.equal(emu.calls.zoneLists - lists, 2, 'five zones, four per page');
      assert.ok(pub.domainFilter().match('x.unrelated-1.test'));
      assert.ok(pub.domainFilter().match('www.example.org'));
      assert.ok(!pub.domainFilter().match('db.internal.example'));
      const priv = provider('private');
      await priv.records();
      assert.ok(priv.domainFilter().match('db.internal.example'));
      assert.ok(!priv.domainFilter().match('www.example.org'));
    });

    test('record listings are read across pages (4 rrsets per page)', async () => {
      for (let i = 0; i < 9; i++) emu.put('internal', { name: `host${i}.internal.example.`, type: 'A', ttl: 60, rrdatas: [`10.0.0.${i}`] });
      const before = emu.calls.rrsetLists;
      const records = await provider('private').records();
      assert.equal(records.filter((r) => r.dnsName.startsWith('host')).length, 9);
      // 9 A + SOA + NS = 11 rrsets: 3 pages.
      assert.equal(emu.calls.rrsetLists - before, 3);
      assert.ok(records.some((r) => r.dnsName === 'internal.example' && r.recordType === 'NS'));
    });

    test('Cloud DNS rules reach the caller as permanent errors naming zone and record', async () => {
      const p = provider('public');
      await p.records();
      await p.applyChanges({ create: [ep({ dnsName: 'dup.example.org' })], updateOld: [], updateNew: [], delete: [] });
      await assert.rejects(p.applyChanges({ create: [ep({ dnsName: 'dup.example.org' })], updateOld: [], updateNew: [], delete: [] }), (err: unknown) => {
        assert.ok(err instanceof ProviderError);
        assert.equal(err.transient, false);
        assert.equal(err.zone, 'example.org');
        assert.match(err.message, /dup\.example\.org A.*HTTP 409 alreadyExists/);
        return true;
      });
      const fresh = provider('public');
      await fresh.records();
      await assert.rejects(
        fresh.applyChanges({ create: [], updateOld: [], updateNew: [], delete: [ep({ dnsName: 'missing.example.org' })] }),
        /HTTP 404 notFound/,
      );
      // A stale view (the rrset changed behind our back) is refused with 412 and nothing applied.
      emu.put('example-org', { name: 'dup.example.org.', type: 'A', ttl: 300, rrdatas: ['192.0.2.99'] });
      await assert.rejects(
        p.applyChanges({ create: [ep({ dnsName: 'new.example.org' })], updateOld: [], updateNew: [], delete: [ep({ dnsName: 'dup.example.org' })] }),
        /HTTP 412 conditionNotMet/,
      );
      assert.equal(emu.get('example-org', 'new.example.org.', 'A'), undefined, 'the change was all or nothing');
    });

    test('a full sync through Controller and TXTRegistry: create, update, delete, ownership, conflicts, throttling', { timeout: 60_000 }, async () => {
      // An unowned record another tool made: never touched, and its name accepts no new records.
      emu.put('sub', { name: 'legacy.sub.example.org.', type: 'A', ttl: 300, rrdatas: ['198.51.100.1'] });
      const p = provider('public', 3);
      const registry = new TXTRegistry(p, { ownerId: 'hw', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger: silentLogger() });
      const source = new FakeSource([
        ep({ dnsName: 'www.sub.example.org', targets: ['192.0.2.10'], labels: { resource: 'service/default/www' } }),
        ep({ dnsName: 'api.sub.example.org', recordType: 'CNAME', targets: ['www.sub.example.org'], labels: { resource: 'ingress/default/api' } }),
        ep({ dnsName: 'v6.example.org', recordType: 'AAAA', targets: ['2001:db8::1'], recordTTL: 60, labels: { resource: 'service/default/v6' } }),
        ep({ dnsName: 'legacy.sub.example.org', targets: ['192.0.2.66'], labels: { resource: 'service/default/legacy' } }),
      ]);
      const controller = testController(source, registry, { domainFilter: new DomainFilter({ include: ['example.org'] }) });

      const changesBefore = emu.calls.changes;
      const first = await controller.runOnce();
      assert.equal(first.changes.create.length, 3, 'legacy is blocked by the unowned record');
      assert.deepEqual(emu.get('sub', 'www.sub.example.org.', 'A')?.rrdatas, ['192.0.2.10']);
      assert.deepEqual(emu.get('sub', 'api.sub.example.org.', 'CNAME')?.rrdatas, ['www.sub.example.org.']);
      assert.equal(emu.get('example-org', 'v6.example.org.', 'AAAA')?.ttl, 60);
      assert.deepEqual(emu.get('sub', 'a-www.sub.example.org.', 'TXT')?.rrdatas, [
        '"heritage=external-dns,external-dns/owner=hw,external-dns/resource=service/default/www"',
      ]);
      assert.ok(emu.get('example-org', 'aaaa-v6.example.org.', 'TXT') !== undefined);
      assert.ok(emu.get('sub', 'cname-api.sub.example.org.', 'TXT') !== undefined);
      assert.deepEqual(emu.get('sub', 'legacy.sub.example.org.', 'A')?.rrdatas, ['198.51.100.1'], 'unowned record left alone');
      assert.equal(emu.get('sub', 'a-legacy.sub.example.org.', 'TXT'), undefined);
      // Batches of at most 3 rrsets per zone, a record and its TXT record kept apart only by name.
      assert.ok(emu.changeLog.slice(-(emu.calls.changes - changesBefore)).every((c) => c.additions.length + c.deletions.length <= 3));

      const second = await controller.runOnce();
      assert.equal(second.applied, false, 'nothing to do on a second sync');

      // Update under throttling: the change request is refused once with 429 and retried.
      source.desired = source.desired.map((d) => (d.dnsName === 'www.sub.example.org' ? { ...d, targets: ['192.0.2.20'] } : d));
      emu.throttle(1, 'changes');
      const throttledBefore = emu.calls.throttled;
      await controller.runOnce();
      assert.equal(emu.calls.throttled - throttledBefore, 1);
      assert.deepEqual(emu.get('sub', 'www.sub.example.org.', 'A')?.rrdatas, ['192.0.2.20']);

      // Delete: the record and its ownership record go; the unowned record stays.
      source.desired = source.desired.filter((d) => d.dnsName !== 'api.sub.example.org');
      await controller.runOnce();
      assert.equal(emu.get('sub', 'api.sub.example.org.', 'CNAME'), undefined);
      assert.equal(emu.get('sub', 'cname-api.sub.example.org.', 'TXT'), undefined);
      assert.ok(emu.get('sub', 'legacy.sub.example.org.', 'A') !== undefined);
      assert.equal((await controller.runOnce()).applied, false);
    });

    test('a wildcard and its a-*.apps ownership TXT: written, read back, updated, deleted; an external-dns zone is owned', async () => {
      const p = provider('public');
      const registry = new TXTRegistry(p, { ownerId: 'hw', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger: silentLogger() });
      const wildcard = (name: string, target: string): Endpoint =>
        ep({ dnsName: name, targets: [target], recordTTL: 300, labels: { resource: 'ingress/default/apps' } });
      const value = '"heritage=external-dns,external-dns/owner=hw,external-dns/resource=ingress/default/apps"';
      // What external-dns left in the zone for *.old.example.org.
      emu.put('example-org', { name: '*.old.example.org.', type: 'A', ttl: 300, rrdatas: ['192.0.2.30'] });
      emu.put('example-org', { name: 'a-*.old.example.org.', type: 'TXT', ttl: 300, rrdatas: [value] });
      const source = new FakeSource([wildcard('*.apps.example.org', '192.0.2.20'), wildcard('*.old.example.org', '192.0.2.31')]);
      const controller = testController(source, registry, { domainFilter: new DomainFilter({ include: ['apps.example.org', 'old.example.org'] }) });
      assert.equal((await controller.runOnce()).applied, true);
      assert.deepEqual(emu.get('example-org', '*.apps.example.org.', 'A')?.rrdatas, ['192.0.2.20']);
      assert.deepEqual(emu.get('example-org', 'a-*.apps.example.org.', 'TXT')?.rrdatas, [value]);
      assert.deepEqual(emu.get('example-org', '*.old.example.org.', 'A')?.rrdatas, ['192.0.2.31'], 'the external-dns wildcard is owned and updated');
      assert.deepEqual(emu.get('example-org', 'a-*.old.example.org.', 'TXT')?.rrdatas, [value], 'its TXT unchanged');
      assert.equal((await controller.runOnce()).applied, false, 'read back and owned: nothing to do');
      source.desired = [wildcard('*.apps.example.org', '192.0.2.21')];
      await controller.runOnce();
      assert.deepEqual(emu.get('example-org', '*.apps.example.org.', 'A')?.rrdatas, ['192.0.2.21']);
      assert.equal(emu.get('example-org', '*.old.example.org.', 'A'), undefined);
      assert.equal(emu.get('example-org', 'a-*.old.example.org.', 'TXT'), undefined);
      source.desired = [];
      await controller.runOnce();
      assert.equal(emu.get('example-org', '*.apps.example.org.', 'A'), undefined);
      assert.equal(emu.get('example-org', 'a-*.apps.example.org.', 'TXT'), undefined);
    });

    test('fromConfig reads the flags, lists zones and rejects bad values naming the flag', async () => {
      const base = {
        'google-project': PROJECT,
        'google-api-endpoint': emu.endpoint,
        'google-batch-change-size': 1000,
        'google-batch-change-interval': 0,
        'google-zone-visibility': 'private',
      };
      const p = await GoogleProvider.fromConfig(cfgOf(flags(base)), { logger: silentLogger(), authClient: staticToken() });
      assert.ok(p.domainFilter().match('x.internal.example'));
      assert.ok(!p.domainFilter().match('x.example.org'));
      await assert.rejects(
        GoogleProvider.fromConfig(cfgOf(flags({ ...base, 'google-batch-change-size': 0 })), { logger: silentLogger() }),
        (err: unknown) => err instanceof ConfigError && err.flag === '--google-batch-change-size',
      );
      await assert.rejects(
        GoogleProvider.fromConfig(cfgOf(flags({ ...base, 'google-api-endpoint': 'https://x/' })), { logger: silentLogger() }),
        (err: unknown) => err instanceof ConfigError && err.flag === '--google-api-endpoint',
      );
      // A wrong token is a permanent error that points at the credentials.
      const bad = new OAuth2Client();
      bad.setCredentials({ access_token: 'wrong', expiry_date: Date.now() + 3_600_000 });
      await assert.rejects(
        GoogleProvider.fromConfig(cfgOf(flags(base)), { logger: silentLogger(), authClient: bad }),
        (err: unknown) => err instanceof ProviderError && !err.transient && /HTTP 401/.test(err.message),
      );
    });

    test('--zone-id-filter keeps zones by numeric id or resource name suffix; records never land in the others', async () => {
      const base = { 'google-project': PROJECT, 'google-api-endpoint': emu.endpoint, 'google-batch-change-interval': 0 };
      const deps = { logger: silentLogger(), authClient: staticToken() };
      const byId = await GoogleProvider.fromConfig(cfgOf(flags({ ...base, 'zone-id-filter': [emu.zoneId('sub')] })), deps);
      assert.ok(byId.domainFilter().match('x.sub.example.org'));
      assert.ok(!byId.domainFilter().match('x.example.org'), 'the parent zone is not selected');
      assert.ok(!byId.domainFilter().match('x.unrelated-1.test'));
      const changeCount = emu.changeLog.length;
      await assert.rejects(
        byId.applyChanges({ create: [ep({ dnsName: 'excluded.example.org' })], updateOld: [], updateNew: [], delete: [] }),
        (err: unknown) => err instanceof ProviderError && /no managed zone contains/.test(err.message),
      );
      assert.equal(emu.changeLog.length, changeCount, 'nothing was sent to the excluded zone');
      assert.equal(emu.get('example-org', 'excluded.example.org.', 'A'), undefined);
      const byName = await GoogleProvider.fromConfig(cfgOf(flags({ ...base, 'zone-id-filter': ['unrelated-2', 'internal'] })), deps);
      assert.ok(byName.domainFilter().match('a.unrelated-2.test'));
      assert.ok(byName.domainFilter().match('a.internal.example'));
      assert.ok(!byName.domainFilter().match('a.unrelated-1.test'));
      assert.ok(!byName.domainFilter().match('a.example.org'));
      // The domain filter still applies on top of the id filter, as upstream's AND.
      const both = await GoogleProvider.fromConfig(cfgOf(flags({ ...base, 'zone-id-filter': ['unrelated-2', 'internal'] }), ['internal.example']), deps);
      assert.ok(both.domainFilter().match('a.internal.example'));
      assert.ok(!both.domainFilter().match('a.unrelated-2.test'));
    });

    test('hostwarden run --once --provider google with an external_account key file (workload identity federation)', { timeout: 120_000 }, async () => {
      emu.addZone('cli', 'cli.test', 'public');
      emu.put('cli', { name: 'theirs.cli.test.', type: 'A', ttl: 300, rrdatas: ['203.0.113.1'] });
      const work = await mkdtemp(join(tmpdir(), 'hw-google-cli-'));
      try {
        const manifests = join(work, 'manifests');
        await mkdir(manifests);
        await writeFile(join(work, 'subject-token'), 'test-subject-token');
        const keyFile = join(work, 'credentials.json');
        await writeFile(
          keyFile,
          JSON.stringify({
            type: 'external_account',
            audience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/pool/providers/test',
            subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
            token_url: emu.tokenUrl,
            credential_source: { file: join(work, 'subject-token') },
          }),
        );
        await writeFile(join(manifests, 'web.yaml'), loadBalancerService('web', 'web.cli.test,theirs.cli.test', '192.0.2.10'));
        const env: Record<string, string> = { NODE_EXTRA_CA_CERTS: process.env['NODE_EXTRA_CA_CERTS'] ?? '', METADATA_SERVER_DETECTION: 'none' };
        const run = () =>
          runCli(
            [
              'run',
              '--once',
              '--provider',
              'google',
              '--google-project',
              PROJECT,
              '--google-api-endpoint',
              emu.endpoint,
              '--google-key-file',
              keyFile,
              '--google-batch-change-interval',
              '0s',
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
            { env, timeoutMs: 60_000 },
          );
        const tokens = emu.calls.tokens;
        const first = await run();
        assert.equal(first.code, 0, first.stderr);
        assert.ok(emu.calls.tokens > tokens, 'the subject token was exchanged for an access token');
        assert.deepEqual(emu.get('cli', 'web.cli.test.', 'A')?.rrdatas, ['192.0.2.10']);
        assert.deepEqual(emu.get('cli', 'a-web.cli.test.', 'TXT')?.rrdatas, [
          '"heritage=external-dns,external-dns/owner=hw-cli,external-dns/resource=service/default/web"',
        ]);
        assert.deepEqual(emu.get('cli', 'theirs.cli.test.', 'A')?.rrdatas, ['203.0.113.1']);
        await rm(join(manifests, 'web.yaml'));
        const second = await run();
        assert.equal(second.code, 0, second.stderr);
        assert.equal(emu.get('cli', 'web.cli.test.', 'A'), undefined);
        assert.equal(emu.get('cli', 'a-web.cli.test.', 'TXT'), undefined);
        assert.ok(emu.get('cli', 'theirs.cli.test.', 'A') !== undefined);
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    });
  });
}
