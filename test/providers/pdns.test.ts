/**
 * The pdns provider against a real PowerDNS Authoritative server (SQLite backend): changes go
 * through the HTTP API, and what PowerDNS then answers on its own DNS port is checked with dig.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FlagValues } from '../../src/config/config.ts';
import type { FlagValue } from '../../src/config/parse.ts';
import { AllDomainFilters, DomainFilter } from '../../src/endpoint/domain-filter.ts';
import { newEndpoint, sameTargets } from '../../src/endpoint/endpoint.ts';
import type { Endpoint, EndpointInit } from '../../src/endpoint/endpoint.ts';
import { ProviderError } from '../../src/errors.ts';
import { silentLogger } from '../../src/log.ts';
import { calculatePlan } from '../../src/plan/plan.ts';
import { PdnsProvider } from '../../src/provider/pdns/pdns.ts';
import { hasChanges } from '../../src/plan/changes.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';
import { freePort } from '../support/bind.ts';
import { dig } from '../support/dig.ts';
import { pdnsUnavailable, startPdns } from '../support/pdns.ts';
import type { PdnsServer } from '../support/pdns.ts';
import { testController } from '../support/controller.ts';
import { FakeSource } from '../support/fakes.ts';
import { captureLogger } from '../registry/capture-logger.ts';
import type { Logger } from '../../src/log.ts';

const execFileAsync = promisify(execFile);
const ZONE = 'example.test';
const OTHER = 'other.test';
const skip = await pdnsUnavailable();
const noSleep = (): Promise<void> => Promise.resolve();

const ep = (init: Partial<EndpointInit> & Pick<EndpointInit, 'dnsName'>): Endpoint => newEndpoint({ recordType: 'A', targets: ['192.0.2.1'], ...init });
const flags = (values: Record<string, FlagValue>): FlagValues => new FlagValues(new Map(Object.entries(values)));
const noChanges = { create: [], updateOld: [], updateNew: [], delete: [] };
const cfgOf = (f: FlagValues, domainFilters: string[] = []) => ({ flags: f, domainFilters, excludeDomains: [] });

function find(records: Endpoint[], name: string, type: string): Endpoint | undefined {
  return records.find((r) => r.dnsName === name && r.recordType === type);
}

describe('pdns provider against PowerDNS', { skip: skip ?? false }, () => {
  let server: PdnsServer;
  let provider: PdnsProvider;

  before(async () => {
    server = await startPdns();
    await server.createZone(ZONE);
    await server.createZone(OTHER);
    provider = await PdnsProvider.fromConfig(cfgOf(flags({ 'pdns-server': server.apiUrl, 'pdns-api-key': server.apiKey, 'pdns-server-id': 'localhost' })), {
      logger: silentLogger(),
      sleep: noSleep,
    });
  });
  after(async () => {
    await server?.stop();
  });

  test('the zones PowerDNS serves become the domain filter', () => {
    const filter = provider.domainFilter();
    assert.ok(filter.match(`www.${ZONE}`));
    assert.ok(filter.match(OTHER));
    assert.ok(!filter.match('example.org'));
  });

  test('create A, AAAA, CNAME and TXT (long, quoted) in two zones; records() and dig agree', async () => {
    const long = 'v='.padEnd(600, 'x');
    const quoted = 'say "hi" \\ bye';
    await provider.applyChanges({
      ...noChanges,
      create: [
        ep({ dnsName: `www.${ZONE}`, targets: ['192.0.2.10', '192.0.2.11'], recordTTL: 120 }),
        ep({ dnsName: `www.${ZONE}`, recordType: 'AAAA', targets: ['2001:db8::1'] }),
        ep({ dnsName: `alias.${ZONE}`, recordType: 'CNAME', targets: [`www.${ZONE}`] }),
        ep({ dnsName: `txt.${ZONE}`, recordType: 'TXT', targets: [`"${long}"`, quoted] }),
        ep({ dnsName: `*.apps.${OTHER}`, targets: ['198.51.100.7'] }),
      ],
    });
    const records = await provider.records();
    const a = find(records, `www.${ZONE}`, 'A');
    assert.ok(a !== undefined && sameTargets('A', a.targets, ['192.0.2.10', '192.0.2.11']));
    assert.equal(a.recordTTL, 120);
    assert.equal(find(records, `www.${ZONE}`, 'AAAA')?.recordTTL, 300);
    assert.deepEqual(find(records, `alias.${ZONE}`, 'CNAME')?.targets, [`www.${ZONE}`]);
    assert.deepEqual(find(records, `txt.${ZONE}`, 'TXT')?.targets.sort(), [long, quoted].sort());
    assert.deepEqual(find(records, `*.apps.${OTHER}`, 'A')?.targets, ['198.51.100.7']);

    assert.deepEqual((await dig(server.dnsPort, [`www.${ZONE}`, 'A', '+short'])).raw.trim().split('\n').sort(), ['192.0.2.10', '192.0.2.11']);
    assert.equal((await dig(server.dnsPort, [`www.${ZONE}`, 'AAAA', '+short'])).raw.trim(), '2001:db8::1');
    assert.deepEqual((await dig(server.dnsPort, [`alias.${ZONE}`, 'CNAME'])).answer, [`alias.${ZONE}. 300 IN CNAME www.${ZONE}.`]);
    assert.equal((await dig(server.dnsPort, [`x.apps.${OTHER}`, 'A', '+short'])).raw.trim(), '198.51.100.7');
    const txt = await dig(server.dnsPort, [`txt.${ZONE}`, 'TXT']);
    // dig prints each character-string quoted: the 600-byte value arrives as three strings.
    assert.ok(
      txt.answer.some((l) => l.includes(`"${long.slice(0, 255)}" "${long.slice(255, 510)}" "${long.slice(510)}"`)),
      txt.raw,
    );
    assert.ok(
      txt.answer.some((l) => l.includes('"say \\"hi\\" \\\\ bye"')),
      txt.raw,
    );
  });

  test('update replaces the whole rrset; delete removes it; other records stay', async () => {
    const records = await provider.records();
    const oldA = find(records, `www.${ZONE}`, 'A') as Endpoint;
    const oldCname = find(records, `alias.${ZONE}`, 'CNAME') as Endpoint;
    await provider.applyChanges({
      create: [],
      updateOld: [oldA],
      updateNew: [ep({ dnsName: `www.${ZONE}`, targets: ['203.0.113.5'], recordTTL: 60 })],
      delete: [oldCname],
    });
    const after = await provider.records();
    assert.deepEqual(find(after, `www.${ZONE}`, 'A')?.targets, ['203.0.113.5']);
    assert.equal(find(after, `www.${ZONE}`, 'A')?.recordTTL, 60);
    assert.equal(find(after, `alias.${ZONE}`, 'CNAME'), undefined);
    assert.ok(find(after, `www.${ZONE}`, 'AAAA') !== undefined);
    assert.equal((await dig(server.dnsPort, [`www.${ZONE}`, 'A', '+short'])).raw.trim(), '203.0.113.5');
    assert.equal((await dig(server.dnsPort, [`alias.${ZONE}`, 'CNAME'])).answer.length, 0);
  });

  test('ownership records through the TXT registry: create, second sync idempotent, delete', async () => {
    const registry = new TXTRegistry(provider, {
      ownerId: 'hw-test',
      managedRecordTypes: ['A', 'AAAA', 'CNAME'],
      excludeRecordTypes: [],
      logger: silentLogger(),
    });
    const sync = async (desired: Endpoint[]): Promise<boolean> => {
      const { changes } = calculatePlan({
        current: await registry.records(),
        desired,
        ownerId: registry.ownerId,
        policy: 'sync',
        managedRecordTypes: ['A', 'AAAA', 'CNAME'],
        excludeRecordTypes: [],
        domainFilter: new AllDomainFilters([new DomainFilter({ include: [OTHER] }), provider.domainFilter()]),
      });
      if (!hasChanges(changes)) return false;
      await registry.applyChanges(changes);
      return true;
    };
    const desired = [
      ep({ dnsName: `api.${OTHER}`, targets: ['192.0.2.50'], labels: { resource: 'service/default/api' } }),
      ep({ dnsName: `web.${OTHER}`, recordType: 'CNAME', targets: [`api.${OTHER}`], labels: { resource: 'ingress/default/web' } }),
    ];
    assert.equal(await sync(desired), true);
    const txt = await dig(server.dnsPort, [`a-api.${OTHER}`, 'TXT', '+short']);
    assert.equal(txt.raw.trim(), '"heritage=external-dns,external-dns/owner=hw-test,external-dns/resource=service/default/api"');
    const owned = await registry.records();
    assert.equal(find(owned, `api.${OTHER}`, 'A')?.labels['owner'], 'hw-test');
    assert.equal(await sync(desired), false, 'a second sync changes nothing');
    assert.equal(await sync([]), true);
    const left = await provider.records();
    assert.equal(find(left, `api.${OTHER}`, 'A'), undefined);
    assert.equal(find(left, `a-api.${OTHER}`, 'TXT'), undefined);
    assert.ok(find(left, `*.apps.${OTHER}`, 'A') !== undefined, 'unowned record left alone');
  });

  const wildRegistry = (options: { wildcardReplacement?: string; logger?: Logger } = {}): TXTRegistry =>
    new TXTRegistry(provider, { ownerId: 'hw', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger: silentLogger(), ...options });
  const wildcard = (name: string, target: string): Endpoint =>
    ep({ dnsName: name, targets: [target], recordTTL: 300, labels: { resource: 'ingress/default/wild' } });

  test('PowerDNS refuses a-*.wild (its API takes * only as the first label): the wildcard is skipped with an error naming --txt-wildcard-replacement, the rest syncs', async () => {
    const direct = await server.api('PATCH', `zones/${ZONE}.`, {
      rrsets: [{ name: `a-*.wild.${ZONE}.`, type: 'TXT', ttl: 300, changetype: 'REPLACE', records: [{ content: '"x"', disabled: false }] }],
    });
    assert.equal(direct.status, 422, 'the API rule the provider follows');
    const log = captureLogger();
    const source = new FakeSource([wildcard(`*.wild.${ZONE}`, '192.0.2.60'), wildcard(`ok.wild.${ZONE}`, '192.0.2.62')]);
    const controller = testController(source, wildRegistry({ logger: log.logger }), { domainFilter: new DomainFilter({ include: [`wild.${ZONE}`] }) });
    await controller.runOnce();
    const records = await provider.records();
    assert.ok(find(records, `ok.wild.${ZONE}`, 'A') !== undefined && find(records, `a-ok.wild.${ZONE}`, 'TXT') !== undefined);
    assert.equal(find(records, `*.wild.${ZONE}`, 'A'), undefined, 'no record without its ownership TXT');
    assert.ok(
      log
        .lines()
        .some(
          (l) => l.level === 50 && l.msg.includes('PowerDNS API accepts "*" only as the whole first label') && l.msg.includes('--txt-wildcard-replacement'),
        ),
    );
    source.desired = [];
    await controller.runOnce();
    assert.equal(find(await provider.records(), `ok.wild.${ZONE}`, 'A'), undefined);
  });

  test('with --txt-wildcard-replacement the wildcard and a-wildcard.wild are written, answered, read back, updated, deleted', async () => {
    const source = new FakeSource([wildcard(`*.wild.${ZONE}`, '192.0.2.60')]);
    const controller = testController(source, wildRegistry({ wildcardReplacement: 'wildcard' }), {
      domainFilter: new DomainFilter({ include: [`wild.${ZONE}`] }),
    });
    assert.equal((await controller.runOnce()).applied, true);
    const value = '"heritage=external-dns,external-dns/owner=hw,external-dns/resource=ingress/default/wild"';
    assert.equal((await dig(server.dnsPort, [`a-wildcard.wild.${ZONE}`, 'TXT', '+short'])).raw.trim(), value);
    assert.equal((await dig(server.dnsPort, [`x.wild.${ZONE}`, 'A', '+short'])).raw.trim(), '192.0.2.60');
    assert.equal((await controller.runOnce()).applied, false, 'read back and owned: nothing to do');
    source.desired = [wildcard(`*.wild.${ZONE}`, '192.0.2.61')];
    assert.equal((await controller.runOnce()).applied, true);
    assert.equal((await dig(server.dnsPort, [`y.wild.${ZONE}`, 'A', '+short'])).raw.trim(), '192.0.2.61');
    source.desired = [];
    await controller.runOnce();
    const left = await provider.records();
    assert.equal(find(left, `*.wild.${ZONE}`, 'A'), undefined);
    assert.equal(find(left, `a-wildcard.wild.${ZONE}`, 'TXT'), undefined);
  });

  test('an a-*. TXT PowerDNS holds from outside its API (pdnsutil, SQL) is read back and owns the wildcard, which is updated', async () => {
    const value = '"heritage=external-dns,external-dns/owner=hw,external-dns/resource=ingress/default/wild"';
    const created = await server.api('PATCH', `zones/${ZONE}.`, {
      rrsets: [{ name: `*.sql.${ZONE}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.70', disabled: false }] }],
    });
    assert.equal(created.status, 204);
    const sql = `INSERT INTO records (domain_id, name, type, content, ttl, prio, disabled, auth) SELECT id, 'a-*.sql.${ZONE}', 'TXT', '${value}', 300, 0, 0, 1 FROM domains WHERE name = '${ZONE}';`;
    await execFileAsync('sqlite3', [join(server.dir, 'pdns.sqlite3'), sql]);
    const log = captureLogger();
    const registry = wildRegistry({ logger: log.logger });
    assert.deepEqual(find(await provider.records(), `a-*.sql.${ZONE}`, 'TXT')?.targets, [value.slice(1, -1)]);
    assert.equal(find(await registry.records(), `*.sql.${ZONE}`, 'A')?.labels.owner, 'hw');
    const source = new FakeSource([wildcard(`*.sql.${ZONE}`, '192.0.2.71')]);
    const controller = testController(source, registry, { domainFilter: new DomainFilter({ include: [`sql.${ZONE}`] }) });
    assert.equal((await controller.runOnce()).applied, true);
    assert.equal((await dig(server.dnsPort, [`z.sql.${ZONE}`, 'A', '+short'])).raw.trim(), '192.0.2.71');
    assert.equal((await dig(server.dnsPort, [`a-*.sql.${ZONE}`, 'TXT', '+short'])).raw.trim(), value, 'the TXT, unchanged');
    // PowerDNS's API refuses even to delete that TXT: the record goes, the TXT stays, with a warning.
    source.desired = [];
    await controller.runOnce();
    assert.equal(find(await provider.records(), `*.sql.${ZONE}`, 'A'), undefined);
    assert.ok(find(await provider.records(), `a-*.sql.${ZONE}`, 'TXT') !== undefined);
    assert.ok(log.lines().some((l) => l.level === 40 && l.msg.includes('ownership TXT record left unchanged')));
    await execFileAsync('sqlite3', [join(server.dir, 'pdns.sqlite3'), `DELETE FROM records WHERE name = 'a-*.sql.${ZONE}';`]);
  });

  test('a zone PowerDNS rejects does not block the other zone; the error names zone and record', async () => {
    // A CNAME next to an existing A record is refused by PowerDNS (422).
    await assert.rejects(
      provider.applyChanges({
        ...noChanges,
        create: [
          ep({ dnsName: `www.${ZONE}`, recordType: 'CNAME', targets: [`elsewhere.${OTHER}`] }),
          ep({ dnsName: `fine.${OTHER}`, targets: ['192.0.2.99'] }),
        ],
      }),
      (err: unknown) => {
        assert.ok(err instanceof ProviderError);
        assert.equal(err.provider, 'pdns');
        assert.equal(err.zone, ZONE);
        assert.equal(err.transient, false);
        assert.match(err.message, new RegExp(`www\\.${ZONE} CNAME`));
        assert.match(err.message, /HTTP 422/);
        return true;
      },
    );
    assert.ok(find(await provider.records(), `fine.${OTHER}`, 'A') !== undefined);
  });

  test('a wrong API key is a permanent error that says so', async () => {
    await assert.rejects(
      PdnsProvider.fromConfig(cfgOf(flags({ 'pdns-server': server.apiUrl, 'pdns-api-key': 'wrong' })), { logger: silentLogger(), sleep: noSleep }),
      (err: unknown) => err instanceof ProviderError && !err.transient && err.code === 'PROVIDER_UNAUTHORIZED' && /HTTP 401.*--pdns-api-key/.test(err.message),
    );
  });

  test('a server that is down is a transient error (after bounded start-up retries)', async () => {
    const port = await freePort();
    let sleeps = 0;
    await assert.rejects(
      PdnsProvider.fromConfig(cfgOf(flags({ 'pdns-server': `http://127.0.0.1:${port}`, 'pdns-api-key': 'x' })), {
        logger: silentLogger(),
        sleep: () => {
          sleeps++;
          return Promise.resolve();
        },
      }),
      (err: unknown) => err instanceof ProviderError && err.transient && /cannot reach PowerDNS/.test(err.message),
    );
    assert.equal(sleeps, 4);
    // A running provider whose server goes away: records() fails transiently too.
    const gone = new PdnsProvider({
      api: new (await import('../../src/provider/pdns/client.ts')).PdnsClient({
        server: `http://127.0.0.1:${port}`,
        apiKey: 'x',
        serverId: 'localhost',
        timeoutMs: 2000,
      }),
      logger: silentLogger(),
    });
    await assert.rejects(gone.records(), (err: unknown) => err instanceof ProviderError && err.transient);
  });
});
