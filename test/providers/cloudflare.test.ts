/**
 * The cloudflare provider end to end against the Cloudflare API v4 emulator (test/support/cloudflare):
 * `hostwarden run --once --provider cloudflare` over a manifests directory for a mixed record set,
 * a live takeover of a zone external-dns left behind and the credentials from the environment; the
 * in-process Controller + TXT registry for what needs the cache between syncs (proxied toggling
 * without flapping, 429s in the middle of a sync).
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FlagValues } from '../../src/config/config.ts';
import { FLAGS } from '../../src/config/flags.ts';
import { parseArgs } from '../../src/config/parse.ts';
import { newEndpoint } from '../../src/endpoint/endpoint.ts';
import type { Endpoint, EndpointInit } from '../../src/endpoint/endpoint.ts';
import { silentLogger } from '../../src/log.ts';
import { CloudflareProvider } from '../../src/provider/cloudflare/cloudflare.ts';
import { CLOUDFLARE_FLAGS } from '../../src/provider/cloudflare/flags.ts';
import { ZONE_FILTER_FLAGS } from '../../src/provider/zone-filter.ts';
import { TRANSLATE_FLAGS } from '../../src/source/translate/flags.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';
import { runCli } from '../support/cli.ts';
import type { CliResult } from '../support/cli.ts';
import { startCloudflareEmulator } from '../support/cloudflare/emulator.ts';
import type { CfRecord, CloudflareEmulator } from '../support/cloudflare/emulator.ts';
import { testController } from '../support/controller.ts';
import { FakeSource } from '../support/fakes.ts';
import { dnsEndpointManifest } from '../support/manifests.ts';

const PROXIED = 'external-dns.alpha.kubernetes.io/cloudflare-proxied';
const ALL_TYPES = ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'SRV', 'CAA', 'NS'] as const;
const owned = (owner: string, resource: string): string => `"heritage=external-dns,external-dns/owner=${owner},external-dns/resource=${resource}"`;

/** Write calls (anything but GET) among the emulator's counted calls. */
function writes(emu: CloudflareEmulator): Record<string, number> {
  return Object.fromEntries(Object.entries(emu.calls.byRoute()).filter(([route]) => !route.startsWith('GET ')));
}

function find(emu: CloudflareEmulator, zoneId: string, name: string, type: string): CfRecord[] {
  return emu.records(zoneId).filter((r) => r.name === name && r.type === type);
}

function contents(emu: CloudflareEmulator, zoneId: string, name: string, type: string): string[] {
  return find(emu, zoneId, name, type)
    .map((r) => r.content)
    .sort();
}

/** A DNSEndpoint manifest; `proxied` becomes the cloudflare-proxied property. */
function dnsEndpoint(name: string, endpoints: { dnsName: string; recordType: string; targets: string[]; recordTTL?: number; proxied?: boolean }[]): string {
  return dnsEndpointManifest(
    name,
    endpoints.map(({ proxied, ...e }) => (proxied === undefined ? e : { ...e, providerSpecific: [{ name: PROXIED, value: String(proxied) }] })),
  );
}

interface CliRun {
  dir: string;
  manifests: string;
  run(extraArgs?: string[], env?: Record<string, string>): Promise<CliResult>;
}

/** A manifests directory and `hostwarden run --once --provider cloudflare` against the emulator. */
async function cliRun(emu: CloudflareEmulator, domain: string, owner: string): Promise<CliRun> {
  const dir = await mkdtemp(join(tmpdir(), 'hw-cloudflare-'));
  const manifests = join(dir, 'manifests');
  await mkdir(manifests);
  const run = (extraArgs: string[] = [], env: Record<string, string> = { CF_API_TOKEN: emu.token }): Promise<CliResult> =>
    runCli(
      [
        'run',
        '--once',
        '--provider',
        'cloudflare',
        '--manifests-dir',
        manifests,
        '--domain-filter',
        domain,
        '--txt-owner-id',
        owner,
        '--managed-record-types',
        ALL_TYPES.join(','),
        '--batch-change-interval',
        '0s',
        '--metrics-address',
        '',
        '--log-format',
        'json',
        ...extraArgs,
      ],
      { env: { CLOUDFLARE_BASE_URL: emu.baseURL, ...env }, timeoutMs: 60_000 },
    );
  return { dir, manifests, run };
}

/** The provider as the CLI builds it (flags + environment), for the in-process controller. */
function providerFromFlags(emu: CloudflareEmulator, domains: string[], args: string[] = []): Promise<CloudflareProvider> {
  const flags = new FlagValues(
    parseArgs(['--batch-change-interval', '0s', ...args], {}, [...FLAGS, ...TRANSLATE_FLAGS, ...CLOUDFLARE_FLAGS, ...ZONE_FILTER_FLAGS]).values,
  );
  return CloudflareProvider.fromConfig(
    { flags, domainFilters: domains, excludeDomains: [] },
    { logger: silentLogger(), env: { CF_API_TOKEN: emu.token, CLOUDFLARE_BASE_URL: emu.baseURL } },
  );
}

function registryOf(provider: CloudflareProvider, owner: string): TXTRegistry {
  return new TXTRegistry(provider, { ownerId: owner, managedRecordTypes: [...ALL_TYPES], excludeRecordTypes: [], logger: silentLogger() });
}

const ep = (init: Partial<EndpointInit> & Pick<EndpointInit, 'dnsName'>): Endpoint => newEndpoint({ recordType: 'A', targets: ['192.0.2.1'], ...init });

describe('cloudflare provider against the Cloudflare API emulator', () => {
  let emu: CloudflareEmulator;
  const dirs: string[] = [];
  before(async () => {
    emu = await startCloudflareEmulator();
  });
  after(async () => {
    await emu.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  test(
    'hostwarden run --once: a mixed set with wildcards and ownership records; an unowned record left alone; a second sync writes nothing',
    { timeout: 120_000 },
    async () => {
      const zone = emu.addZone('example.com');
      const other = emu.addZone('example.net');
      // Another tool's records: one in the way of a desired name, one nobody asks for.
      const theirs = emu.addRecord(zone, { name: 'legacy.example.com', type: 'A', content: '198.51.100.1', ttl: 120 });
      const manual = emu.addRecord(zone, { name: 'manual.example.com', type: 'TXT', content: 'set by hand', ttl: 1 });
      const cli = await cliRun(emu, 'example.com', 'hw');
      dirs.push(cli.dir);
      await writeFile(
        join(cli.manifests, 'records.yaml'),
        dnsEndpoint('mixed', [
          { dnsName: 'www.example.com', recordType: 'A', targets: ['192.0.2.10', '192.0.2.11'], recordTTL: 300 },
          { dnsName: 'v6.example.com', recordType: 'AAAA', targets: ['2001:db8::10'] },
          { dnsName: 'app.example.com', recordType: 'CNAME', targets: ['www.example.com'], proxied: true },
          { dnsName: '*.apps.example.com', recordType: 'A', targets: ['192.0.2.20'], recordTTL: 120 },
          { dnsName: 'note.example.com', recordType: 'TXT', targets: ['v=spf1 -all'] },
          // MX and CAA below the apex: external-dns names an apex record's ownership TXT `mx-example.com`,
          // outside the zone, so an apex record would be written without one (as upstream does).
          { dnsName: 'shop.example.com', recordType: 'MX', targets: ['10 mail.example.com'] },
          { dnsName: 'mail.example.com', recordType: 'A', targets: ['192.0.2.25'] },
          { dnsName: '_sip._tcp.example.com', recordType: 'SRV', targets: ['10 5 5060 sip.example.com'] },
          { dnsName: 'secure.example.com', recordType: 'CAA', targets: ['0 issue "letsencrypt.org"'] },
          { dnsName: 'sub.example.com', recordType: 'NS', targets: ['ns1.example.net', 'ns2.example.net'] },
          { dnsName: 'legacy.example.com', recordType: 'A', targets: ['192.0.2.66'] },
          // Outside --domain-filter: never written although the account has the zone.
          { dnsName: 'www.example.net', recordType: 'A', targets: ['192.0.2.99'] },
        ]),
      );
      // A Service asking for a proxied record with external-dns's annotation (its TTL annotation is then moot).
      await writeFile(
        join(cli.manifests, 'shop.yaml'),
        [
          'apiVersion: v1',
          'kind: Service',
          'metadata:',
          '  name: shop',
          '  namespace: default',
          '  annotations:',
          '    external-dns.alpha.kubernetes.io/hostname: shop.example.com',
          '    external-dns.alpha.kubernetes.io/ttl: "600"',
          `    ${PROXIED}: "true"`,
          'spec:',
          '  type: LoadBalancer',
          'status:',
          '  loadBalancer:',
          '    ingress:',
          '      - ip: 192.0.2.60',
          '',
        ].join('\n'),
      );
      // The wildcard's ownership record keeps the registry's default name, `a-*.apps…`: Cloudflare
      // takes a `*` that is not the leading label as a literal character.
      const first = await cli.run([]);
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(contents(emu, zone, 'www.example.com', 'A'), ['192.0.2.10', '192.0.2.11']);
      assert.ok(find(emu, zone, 'www.example.com', 'A').every((r) => r.ttl === 300 && !r.proxied));
      assert.deepEqual(contents(emu, zone, 'v6.example.com', 'AAAA'), ['2001:db8::10']);
      assert.deepEqual(contents(emu, zone, '*.apps.example.com', 'A'), ['192.0.2.20']);
      assert.deepEqual(contents(emu, zone, 'note.example.com', 'TXT'), ['v=spf1 -all']);
      assert.deepEqual(contents(emu, zone, 'mail.example.com', 'A'), ['192.0.2.25']);
      assert.deepEqual(
        find(emu, zone, 'shop.example.com', 'MX').map((r) => [r.priority, r.content]),
        [[10, 'mail.example.com']],
      );
      assert.deepEqual(find(emu, zone, '_sip._tcp.example.com', 'SRV')[0]?.data, { priority: 10, weight: 5, port: 5060, target: 'sip.example.com' });
      assert.deepEqual(find(emu, zone, 'secure.example.com', 'CAA')[0]?.data, { flags: 0, tag: 'issue', value: 'letsencrypt.org' });
      assert.deepEqual(contents(emu, zone, 'sub.example.com', 'NS'), ['ns1.example.net', 'ns2.example.net']);
      const app = find(emu, zone, 'app.example.com', 'CNAME');
      assert.deepEqual(
        app.map((r) => [r.content, r.proxied, r.ttl]),
        [['www.example.com', true, 1]],
        'proxied with TTL 1',
      );
      assert.deepEqual(
        find(emu, zone, 'shop.example.com', 'A').map((r) => [r.content, r.proxied, r.ttl]),
        [['192.0.2.60', true, 1]],
        'the annotation proxies the record, with TTL 1',
      );
      // Ownership records in external-dns's TXT format, never proxied.
      assert.deepEqual(contents(emu, zone, 'a-www.example.com', 'TXT'), [owned('hw', 'crd/default/mixed')]);
      assert.deepEqual(contents(emu, zone, 'cname-app.example.com', 'TXT'), [owned('hw', 'crd/default/mixed')]);
      assert.ok(emu.records(zone).every((r) => r.type !== 'TXT' || !r.proxied));
      assert.deepEqual(contents(emu, zone, 'a-*.apps.example.com', 'TXT'), [owned('hw', 'crd/default/mixed')], 'the wildcard has its ownership record');
      for (const t of ['mx', 'srv', 'caa', 'ns', 'txt', 'aaaa'])
        assert.ok(
          emu.records(zone).some((r) => r.type === 'TXT' && r.name.startsWith(`${t}-`)),
          `${t} ownership`,
        );
      // The unowned records: same id, same value, never touched; the desired name they block is not written.
      assert.deepEqual(find(emu, zone, 'legacy.example.com', 'A'), [theirs]);
      assert.deepEqual(find(emu, zone, 'manual.example.com', 'TXT'), [manual]);
      assert.deepEqual(contents(emu, zone, 'a-legacy.example.com', 'TXT'), []);
      assert.deepEqual(emu.records(other), []);

      emu.calls.reset();
      const second = await cli.run([]);
      assert.equal(second.code, 0, second.stderr);
      assert.deepEqual(writes(emu), {}, 'a second sync makes no write call');
      assert.ok(emu.calls.get('GET /zones/:id/dns_records') >= 1);
    },
  );

  test('proxied toggling: on → proxied with TTL 1, off → back; the sync after each writes nothing (no flapping)', async () => {
    const zone = emu.addZone('toggle.test');
    const provider = await providerFromFlags(emu, ['toggle.test']);
    const web = (proxied: boolean): Endpoint =>
      ep({
        dnsName: 'web.toggle.test',
        targets: ['192.0.2.30'],
        recordTTL: 300,
        labels: { resource: 'service/default/web' },
        providerSpecific: [{ name: PROXIED, value: String(proxied) }],
      });
    const source = new FakeSource([web(false), ep({ dnsName: 'static.toggle.test', targets: ['192.0.2.31'], labels: { resource: 'service/default/static' } })]);
    const controller = testController(source, registryOf(provider, 'hw'));
    assert.equal((await controller.runOnce()).applied, true);
    assert.deepEqual(
      find(emu, zone, 'web.toggle.test', 'A').map((r) => [r.proxied, r.ttl]),
      [[false, 300]],
    );
    for (const proxied of [true, false, true]) {
      source.desired = [web(proxied), ...source.desired.slice(1)];
      emu.calls.reset();
      assert.equal((await controller.runOnce()).applied, true, `toggle to ${proxied}`);
      assert.deepEqual(
        find(emu, zone, 'web.toggle.test', 'A').map((r) => [r.proxied, r.ttl]),
        [[proxied, proxied ? 1 : 300]],
      );
      assert.ok(
        find(emu, zone, 'a-web.toggle.test', 'TXT').every((r) => !r.proxied),
        'the ownership record is never proxied',
      );
      const writesOfToggle = Object.values(writes(emu)).reduce((a, b) => a + b, 0);
      assert.equal(writesOfToggle, 1, `one batch for the toggle: ${JSON.stringify(emu.calls.byRoute())}`);
      emu.calls.reset();
      const again = await controller.runOnce();
      assert.equal(again.applied, false, `no change planned after the toggle to ${proxied}`);
      assert.deepEqual(emu.calls.byRoute(), {}, 'the cache answers: no call at all');
    }
    // A new process reads the toggled state back from Cloudflare and plans nothing either.
    const fresh = testController(source, registryOf(await providerFromFlags(emu, ['toggle.test']), 'hw'));
    emu.calls.reset();
    assert.equal((await fresh.runOnce()).applied, false);
    assert.deepEqual(writes(emu), {});
  });

  test(
    '429s in the middle of a sync (a one-shot refusal with Retry-After, then the rate limit): the sync completes with the right state',
    { timeout: 60_000 },
    async () => {
      const zone = emu.addZone('busy.test');
      const provider = await providerFromFlags(emu, ['busy.test']);
      const services = (n: number, ip: string): Endpoint[] =>
        Array.from({ length: n }, (_, i) =>
          ep({ dnsName: `svc-${i}.busy.test`, targets: [i === 0 ? ip : `10.0.${i >> 8}.${i & 255}`], labels: { resource: `service/default/svc-${i}` } }),
        );
      // 250 Services: 500 records, three batches of at most 200.
      const source = new FakeSource(services(250, '10.0.0.0'));
      const controller = testController(source, registryOf(provider, 'hw'));
      emu.calls.reset();
      emu.failNext('POST /zones/:id/dns_records/batch', 429, 971, 'Please wait and consider throttling your request speed', { retryAfterSeconds: 1 });
      await controller.runOnce();
      assert.equal(emu.calls.get('POST /zones/:id/dns_records/batch'), 4, '3 batches, the first one twice');
      assert.equal(emu.records(zone).filter((r) => r.type === 'A').length, 250);
      assert.equal(emu.records(zone).filter((r) => r.type === 'TXT').length, 250);
      assert.equal(emu.batches.filter((b) => b.zoneId === zone).length, 3);

      // Now the account's limit: one request per 2 s window, while a sync deletes 100 Services and
      // changes one (two batches): the second batch is refused with Retry-After and sent again.
      source.desired = services(150, '192.0.2.150');
      emu.setRateLimit(1, 2000);
      emu.calls.reset();
      try {
        await controller.runOnce();
        assert.ok(emu.calls.throttled >= 1, `throttled ${emu.calls.throttled} times: ${JSON.stringify(emu.calls.byRoute())}`);
      } finally {
        emu.setRateLimit(1200, 5 * 60_000);
      }
      assert.deepEqual(contents(emu, zone, 'svc-0.busy.test', 'A'), ['192.0.2.150']);
      assert.equal(emu.records(zone).filter((r) => r.type === 'A').length, 150);
      assert.equal(emu.records(zone).filter((r) => r.type === 'TXT').length, 150);
      emu.calls.reset();
      assert.equal((await controller.runOnce()).applied, false);
      assert.deepEqual(emu.calls.byRoute(), {});
    },
  );

  test('--batch-change-size above the Free limit: a Free zone still gets batches of 200, none refused', async () => {
    const zone = emu.addZone('free-batch.test');
    const provider = await providerFromFlags(emu, ['free-batch.test'], ['--batch-change-size', '1000']);
    const source = new FakeSource(
      Array.from({ length: 300 }, (_, i) =>
        ep({ dnsName: `h${i}.free-batch.test`, targets: [`10.1.${i >> 8}.${i & 255}`], labels: { resource: `service/default/h${i}` } }),
      ),
    );
    emu.calls.reset();
    await testController(source, registryOf(provider, 'hw')).runOnce();
    assert.deepEqual(
      emu.batches.filter((b) => b.zoneId === zone).map((b) => b.posts.length),
      [200, 200, 200],
    );
    assert.deepEqual(writes(emu), { 'POST /zones/:id/dns_records/batch': 3 }, 'no batch refused, no call per record');
    assert.equal(emu.records(zone).length, 600);
  });

  test(
    'live takeover: a zone as external-dns left it (new- and old-format ownership records) is owned, and the first sync changes nothing',
    { timeout: 120_000 },
    async () => {
      const zone = emu.addZone('takeover.test');
      const value = (resource: string): string => owned('edns', resource);
      const seed = (name: string, type: string, content: string, extra: Record<string, unknown> = {}): void => {
        emu.addRecord(zone, { name, type, content, ttl: 1, ...extra } as Parameters<CloudflareEmulator['addRecord']>[1]);
      };
      // web and v6 with both formats (external-dns < 0.16 wrote both), api a proxied CNAME with the new
      // format only (Cloudflare refuses a TXT beside a CNAME), and a record of another owner.
      seed('web.takeover.test', 'A', '192.0.2.40', { ttl: 300 });
      seed('a-web.takeover.test', 'TXT', value('service/default/web'));
      seed('web.takeover.test', 'TXT', value('service/default/web'));
      seed('api.takeover.test', 'CNAME', 'web.takeover.test', { proxied: true });
      seed('cname-api.takeover.test', 'TXT', value('ingress/default/api'));
      seed('v6.takeover.test', 'AAAA', '2001:db8::40');
      seed('aaaa-v6.takeover.test', 'TXT', value('service/default/v6'));
      seed('v6.takeover.test', 'TXT', value('service/default/v6'));
      seed('else.takeover.test', 'A', '198.51.100.40');
      seed('a-else.takeover.test', 'TXT', owned('someone-else', 'service/default/else'));
      const before = emu.records(zone);
      const cli = await cliRun(emu, 'takeover.test', 'edns');
      dirs.push(cli.dir);
      await writeFile(
        join(cli.manifests, 'records.yaml'),
        dnsEndpoint('takeover', [
          { dnsName: 'web.takeover.test', recordType: 'A', targets: ['192.0.2.40'], recordTTL: 300 },
          { dnsName: 'api.takeover.test', recordType: 'CNAME', targets: ['web.takeover.test'], proxied: true },
          { dnsName: 'v6.takeover.test', recordType: 'AAAA', targets: ['2001:db8::40'] },
        ]),
      );
      emu.calls.reset();
      const first = await cli.run();
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(writes(emu), {}, `the first sync writes nothing; calls: ${JSON.stringify(emu.calls.byRoute())}`);
      assert.deepEqual(emu.records(zone), before);
    },
  );

  test('credentials: CF_API_TOKEN=file:… works; a bad token is a clear error that never shows the token', { timeout: 120_000 }, async () => {
    const zone = emu.addZone('creds.test');
    const cli = await cliRun(emu, 'creds.test', 'hw');
    dirs.push(cli.dir);
    await writeFile(join(cli.manifests, 'records.yaml'), dnsEndpoint('creds', [{ dnsName: 'www.creds.test', recordType: 'A', targets: ['192.0.2.50'] }]));
    const tokenFile = join(cli.dir, 'cf-token');
    await writeFile(tokenFile, `  ${emu.token}\n`);
    const viaFile = await cli.run([], { CF_API_TOKEN: `file:${tokenFile}` });
    assert.equal(viaFile.code, 0, viaFile.stderr);
    assert.deepEqual(contents(emu, zone, 'www.creds.test', 'A'), ['192.0.2.50']);
    assert.ok(!`${viaFile.stdout}${viaFile.stderr}`.includes(emu.token), 'the token is never printed');

    // CF_API_TOKEN_FILE (Hostwarden's addition) names the file directly.
    await writeFile(join(cli.manifests, 'records.yaml'), dnsEndpoint('creds', [{ dnsName: 'www.creds.test', recordType: 'A', targets: ['192.0.2.51'] }]));
    const viaTokenFile = await cli.run([], { CF_API_TOKEN_FILE: tokenFile });
    assert.equal(viaTokenFile.code, 0, viaTokenFile.stderr);
    assert.deepEqual(contents(emu, zone, 'www.creds.test', 'A'), ['192.0.2.51']);

    const badToken = 'cfbad-0123456789abcdef0123456789abcdef';
    const bad = await cli.run([], { CF_API_TOKEN: badToken });
    assert.notEqual(bad.code, 0);
    const out = `${bad.stdout}${bad.stderr}`;
    assert.ok(!out.includes(badToken), 'the bad token is never printed');
    assert.match(out, /cloudflare/i);
    assert.match(out, /Cloudflare answered 401: 9109 Invalid access token/, out.slice(-2000));

    const missing = await cli.run([], {});
    assert.notEqual(missing.code, 0);
    assert.match(`${missing.stdout}${missing.stderr}`, /set either CF_API_TOKEN or both CF_API_KEY and CF_API_EMAIL/);
    const noFile = await cli.run([], { CF_API_TOKEN: `file:${join(cli.dir, 'absent')}` });
    assert.notEqual(noFile.code, 0);
    assert.match(`${noFile.stdout}${noFile.stderr}`, /CF_API_TOKEN.*absent.*ENOENT/);
  });
});
