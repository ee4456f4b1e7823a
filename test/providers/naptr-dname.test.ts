/**
 * NAPTR and DNAME end to end against real servers: the embedded provider and DNS server (checked
 * against BIND 9 serving the same zone), PowerDNS through its HTTP API, and BIND through RFC 2136
 * updates and zone transfers. Each syncs the same endpoints through the TXT registry twice (the
 * second sync must change nothing), then reads the records back with dig and removes them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DnsServer } from '../../src/dns/server/server.ts';
import { FlagValues } from '../../src/config/config.ts';
import type { Endpoint } from '../../src/endpoint/endpoint.ts';
import { silentLogger } from '../../src/log.ts';
import { EmbeddedProvider } from '../../src/provider/embedded/embedded.ts';
import { PdnsProvider } from '../../src/provider/pdns/pdns.ts';
import type { Provider } from '../../src/provider/provider.ts';
import { Rfc2136Provider } from '../../src/provider/rfc2136/rfc2136.ts';
import { NetworkTransport } from '../../src/provider/rfc2136/transport.ts';
import { namedAvailable, startBind } from '../support/bind.ts';
import type { BindServer } from '../support/bind.ts';
import { bindZone, KEY_NAME } from '../support/bind-rfc2136.ts';
import { dig, digAvailable } from '../support/dig.ts';
import { DNAME_TARGET, NAPTR_TARGETS, OWNER, desiredFor, find, scenario } from '../support/naptr-dname-scenario.ts';
import { pdnsUnavailable, startPdns } from '../support/pdns.ts';
import type { PdnsServer } from '../support/pdns.ts';

const ZONE = 'example.test';
const hasBind = (await namedAvailable()) && (await digAvailable());
const pdnsSkip = await pdnsUnavailable();

async function values(port: number, name: string, type: string): Promise<string[]> {
  const r = await dig(port, [name, type, '+norec']);
  return r.answer
    .filter((l) => l.split(' ')[3] === type)
    .map((l) => l.split(' ').slice(4).join(' '))
    .sort();
}

/** What dig prints for the scenario's records, as BIND and PowerDNS print them. */
const DIG_NAPTR = [...NAPTR_TARGETS].sort();
const DIG_DNAME = [`${DNAME_TARGET}.`];

/** Syncs the scenario, checks what the provider then lists, re-syncs (no change), and returns the listing. */
async function syncAndList(provider: Provider): Promise<Endpoint[]> {
  const s = scenario(provider, ZONE);
  const desired = desiredFor(ZONE);
  const first = await s.sync(desired);
  assert.deepEqual(first?.create.map((e) => `${e.dnsName} ${e.recordType}`).sort(), [`_sip._udp.${ZONE} NAPTR`, `old.${ZONE} DNAME`, `www.${ZONE} A`]);
  const raw = await provider.records();
  // Ownership records named as external-dns names them (the type as a prefix of the first label).
  for (const name of [`naptr-_sip._udp.${ZONE}`, `dname-old.${ZONE}`, `a-www.${ZONE}`]) assert.ok(find(raw, name, 'TXT') !== undefined, name);
  const listed = await s.registry.records();
  const naptr = find(listed, `_sip._udp.${ZONE}`, 'NAPTR');
  assert.deepEqual([...(naptr?.targets ?? [])].sort(), [...NAPTR_TARGETS].sort());
  assert.equal(naptr?.labels['owner'], OWNER);
  assert.deepEqual(find(listed, `old.${ZONE}`, 'DNAME')?.targets, [DNAME_TARGET]);
  assert.equal(find(listed, `old.${ZONE}`, 'DNAME')?.labels['owner'], OWNER);
  assert.equal(await s.sync(desired), undefined, 'a second sync changes nothing');
  return provider.records();
}

async function removeAll(provider: Provider): Promise<void> {
  const s = scenario(provider, ZONE);
  const removed = await s.sync([]);
  assert.equal(removed?.delete.length, 3);
  const left = await provider.records();
  assert.equal(find(left, `_sip._udp.${ZONE}`, 'NAPTR'), undefined);
  assert.equal(find(left, `naptr-_sip._udp.${ZONE}`, 'TXT'), undefined);
  assert.equal(find(left, `old.${ZONE}`, 'DNAME'), undefined);
}

describe(
  'embedded provider and DNS server: NAPTR and DNAME answer as BIND answers the same zone',
  { skip: hasBind ? false : 'named or dig not installed' },
  () => {
    let dir: string;
    let provider: EmbeddedProvider;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'hw-naptr-'));
      provider = await EmbeddedProvider.open({ dataDir: dir, zones: [ZONE], logger: silentLogger(), nameserverAddresses: ['192.0.2.53'] });
    });
    after(async () => {
      await provider?.close();
      await rm(dir, { recursive: true, force: true });
    });

    test('sync, zone file (named-checkzone), answers (dig against both servers), removal', async () => {
      await syncAndList(provider);
      const check = spawnSync('named-checkzone', ['-k', 'fail', ZONE, provider.store.filePath(ZONE)], { encoding: 'utf8', timeout: 10_000 });
      assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
      const content = provider.store.content(ZONE);
      const server = new DnsServer({ listen: ['127.0.0.1:0'], logger: silentLogger() });
      let bind: BindServer | undefined;
      try {
        server.zoneChanged(content);
        const port = (await server.start()).addresses[0]?.udp.port ?? 0;
        bind = await startBind({ zones: [content] });
        assert.deepEqual(await values(port, `_sip._udp.${ZONE}`, 'NAPTR'), DIG_NAPTR);
        assert.deepEqual(await values(port, `old.${ZONE}`, 'DNAME'), DIG_DNAME);
        for (const [name, type] of [
          [`_sip._udp.${ZONE}`, 'NAPTR'],
          [`old.${ZONE}`, 'DNAME'],
          [`old.${ZONE}`, 'ANY'],
          [`_SIP._UDP.${ZONE}`, 'NAPTR'],
          [`old.${ZONE}`, 'A'],
          [`_sip._udp.${ZONE}`, 'A'],
          // Below the DNAME owner: the DNAME plus a CNAME synthesised for the query name (RFC 6672).
          [`x.old.${ZONE}`, 'A'],
          [`A.b.Old.${ZONE}`, 'TXT'],
          [`x.old.${ZONE}`, 'DNAME'],
        ] as const) {
          const ours = await dig(port, [name, type, '+norec']);
          const theirs = await dig(bind.port, [name, type, '+norec']);
          // Names compared without case: BIND echoes the query's spelling in owners and in the synthesised
          // CNAME target, Hostwarden writes them in lower case (RFC 4343 allows either).
          const summary = (r: typeof ours): string =>
            `${r.status} ${r.answer
              .map((l) => l.toLowerCase())
              .sort()
              .join(' | ')} // ${r.authority.length}`;
          assert.equal(summary(ours), summary(theirs), `${name} ${type}`);
        }
      } finally {
        await server.stop();
        await bind?.stop();
      }
      await removeAll(provider);
    });
  },
);

describe('pdns provider: NAPTR and DNAME through the PowerDNS API', { skip: pdnsSkip ?? false }, () => {
  let server: PdnsServer;
  let provider: PdnsProvider;
  before(async () => {
    server = await startPdns();
    await server.createZone(ZONE);
    const flags = new FlagValues(new Map(Object.entries({ 'pdns-server': server.apiUrl, 'pdns-api-key': server.apiKey, 'pdns-server-id': 'localhost' })));
    provider = await PdnsProvider.fromConfig({ flags, domainFilters: [], excludeDomains: [] }, { logger: silentLogger(), sleep: () => Promise.resolve() });
  });
  after(async () => {
    await server?.stop();
  });

  test('sync, read back, PowerDNS answers them, removal', async () => {
    await syncAndList(provider);
    assert.deepEqual(await values(server.dnsPort, `_sip._udp.${ZONE}`, 'NAPTR'), DIG_NAPTR);
    assert.deepEqual(await values(server.dnsPort, `old.${ZONE}`, 'DNAME'), DIG_DNAME);
    assert.match((await dig(server.dnsPort, [`naptr-_sip._udp.${ZONE}`, 'TXT', '+short'])).raw, new RegExp(`external-dns/owner=${OWNER}`));
    await removeAll(provider);
  });
});

describe(
  'rfc2136 provider: NAPTR and DNAME through dynamic updates and zone transfers (BIND 9)',
  { skip: hasBind ? false : 'named or dig not installed' },
  () => {
    const secret = randomBytes(32);
    let bind: BindServer;
    before(async () => {
      bind = await startBind({
        zones: [bindZone(ZONE)],
        tsigKey: { name: KEY_NAME, algorithm: 'hmac-sha256', secret: secret.toString('base64') },
        extraOptions: `allow-update { key "${KEY_NAME}"; };`,
      });
    });
    after(async () => {
      await bind?.stop();
    });

    test('sync, read back by AXFR, BIND answers them, removal', async () => {
      const provider = new Rfc2136Provider({
        zones: [ZONE],
        transport: new NetworkTransport({ host: '127.0.0.1', port: bind.port, timeoutMs: 3000 }),
        key: { name: KEY_NAME, algorithm: 'hmac-sha256', secret },
        batchChangeSize: 50,
        minTTL: 0,
        logger: silentLogger(),
        server: `127.0.0.1:${bind.port}`,
      });
      await syncAndList(provider);
      assert.deepEqual(await values(bind.port, `_sip._udp.${ZONE}`, 'NAPTR'), DIG_NAPTR);
      assert.deepEqual(await values(bind.port, `old.${ZONE}`, 'DNAME'), DIG_DNAME);
      // BIND itself synthesises the CNAME below the DNAME (RFC 6672).
      const below = await dig(bind.port, [`x.old.${ZONE}`, 'A', '+norec']);
      assert.ok(
        below.answer.some((l) => l.endsWith(`CNAME x.${DNAME_TARGET}.`)),
        below.raw,
      );
      await removeAll(provider);
    });
  },
);
