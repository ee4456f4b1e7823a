import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, EndpointInit } from '../../endpoint/endpoint.ts';
import { ConfigError, ProviderError } from '../../errors.ts';
import { silentLogger } from '../../log.ts';
import { emptyChanges } from '../../plan/changes.ts';
import type { Changes } from '../../plan/changes.ts';
import { EmbeddedProvider } from './embedded.ts';

async function withProvider(fn: (p: EmbeddedProvider, dir: string) => Promise<void>, zones = ['example.org', 'sub.example.org']): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'hostwarden-embedded-'));
  const p = await EmbeddedProvider.open({ dataDir: dir, zones, logger: silentLogger() });
  try {
    await fn(p, dir);
  } finally {
    await p.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const ep = (init: Partial<EndpointInit> & Pick<EndpointInit, 'dnsName'>): Endpoint => newEndpoint({ recordType: 'A', targets: ['192.0.2.1'], ...init });
const changes = (c: Partial<Changes>): Changes => ({ ...emptyChanges(), ...c });
const summary = (eps: Endpoint[]) => eps.map((e) => `${e.dnsName} ${e.recordType} ${e.recordTTL} ${e.targets.join(',')}`).sort();

describe('EmbeddedProvider', () => {
  test('apply and records round trip, apex NS hidden', () =>
    withProvider(async (p, dir) => {
      assert.deepEqual(await p.records(), []);
      await p.applyChanges(
        changes({
          create: [
            ep({ dnsName: 'www.example.org', targets: ['192.0.2.1', '192.0.2.2'], recordTTL: 60 }),
            ep({ dnsName: 'a-www.example.org', recordType: 'TXT', targets: ['"heritage=external-dns,external-dns/owner=default"'] }),
            ep({ dnsName: 'app.sub.example.org', recordType: 'CNAME', targets: ['LB.Example.net.'] }),
          ],
        }),
      );
      assert.deepEqual(summary(await p.records()), [
        'a-www.example.org TXT 300 heritage=external-dns,external-dns/owner=default',
        'app.sub.example.org CNAME 300 lb.example.net',
        'www.example.org A 60 192.0.2.1,192.0.2.2',
      ]);
      // The CNAME went to the most specific zone's file.
      assert.match(await readFile(join(dir, 'sub.example.org.zone'), 'utf8'), /app\.sub\.example\.org\. 300 IN CNAME lb\.example\.net\./);
      await p.applyChanges(
        changes({
          updateOld: [ep({ dnsName: 'www.example.org', targets: ['192.0.2.1', '192.0.2.2'] })],
          updateNew: [ep({ dnsName: 'www.example.org', targets: ['192.0.2.9'] })],
          delete: [ep({ dnsName: 'app.sub.example.org', recordType: 'CNAME', targets: ['lb.example.net'] })],
        }),
      );
      assert.deepEqual(summary(await p.records()), [
        'a-www.example.org TXT 300 heritage=external-dns,external-dns/owner=default',
        'www.example.org A 300 192.0.2.9',
      ]);
    }));

  test('one serial increment per zone per batch, and a reopened provider sees everything', () =>
    withProvider(async (p, dir) => {
      const before = p.store.content('example.org').soa.serial;
      await p.applyChanges(changes({ create: Array.from({ length: 5 }, (_, i) => ep({ dnsName: `h${i}.example.org` })) }));
      assert.equal(p.store.content('example.org').soa.serial, before + 1);
      // One process per directory: the first provider frees it before the second opens it.
      await p.close();
      const again = await EmbeddedProvider.open({ dataDir: dir, zones: ['example.org', 'sub.example.org'], logger: silentLogger() });
      assert.equal(again.store.content('example.org').soa.serial, before + 1);
      assert.equal((await again.records()).length, 5);
      await again.close();
    }));

  const rejects = async (p: EmbeddedProvider, c: Changes, code: string, message: RegExp): Promise<void> => {
    await assert.rejects(p.applyChanges(c), (err: unknown) => {
      assert.ok(err instanceof ProviderError, String(err));
      assert.equal(err.code, code);
      assert.equal(err.transient, false);
      assert.match(err.message, message);
      return true;
    });
  };

  test('errors name the record and reject the whole batch', () =>
    withProvider(async (p) => {
      await p.applyChanges(changes({ create: [ep({ dnsName: 'www.example.org' })] }));
      const serial = p.store.content('example.org').soa.serial;
      await rejects(
        p,
        changes({ create: [ep({ dnsName: 'new.example.org' }), ep({ dnsName: 'www.example.org' })] }),
        'PROVIDER_RECORD_EXISTS',
        /cannot create www\.example\.org A: record already exists/,
      );
      await rejects(
        p,
        changes({ delete: [ep({ dnsName: 'gone.example.org' })] }),
        'PROVIDER_RECORD_NOT_FOUND',
        /cannot delete gone\.example\.org A: record not found/,
      );
      await rejects(
        p,
        changes({ updateOld: [ep({ dnsName: 'gone.example.org' })], updateNew: [ep({ dnsName: 'gone.example.org' })] }),
        'PROVIDER_RECORD_NOT_FOUND',
        /cannot update gone\.example\.org A/,
      );
      await rejects(
        p,
        changes({ create: [ep({ dnsName: 'www.example.com' })] }),
        'PROVIDER_INVALID_CHANGE',
        /www\.example\.com A: the name is not in any zone/,
      );
      await rejects(
        p,
        changes({ create: [ep({ dnsName: 'bad.example.org', targets: ['not-an-ip'] })] }),
        'PROVIDER_INVALID_CHANGE',
        /bad\.example\.org A.*not an IPv4 address/,
      );
      await rejects(
        p,
        changes({ create: [ep({ dnsName: 'x.example.org' }), ep({ dnsName: 'x.example.org' })] }),
        'PROVIDER_INVALID_CHANGE',
        /x\.example\.org A appears more than once/,
      );
      await rejects(
        p,
        changes({ create: [ep({ dnsName: 'www.example.org', recordType: 'CNAME', targets: ['x.example.net'] })] }),
        'PROVIDER_RECORD_CONFLICT',
        /CNAME at www\.example\.org conflicts/,
      );
      await rejects(
        p,
        changes({ create: [ep({ dnsName: 'w.example.org', setIdentifier: 'eu' })] }),
        'PROVIDER_INVALID_CHANGE',
        /w\.example\.org A \[eu\].*set identifier/,
      );
      await rejects(
        p,
        changes({ create: [ep({ dnsName: 'example.org', recordType: 'NS', targets: ['ns9.example.net'] })] }),
        'PROVIDER_INVALID_CHANGE',
        /apex NS/,
      );
      assert.equal(p.store.content('example.org').soa.serial, serial);
      assert.deepEqual(summary(await p.records()), ['www.example.org A 300 192.0.2.1']);
    }));

  test('records with targets the validator would refuse can still be deleted', () =>
    withProvider(async (p, dir) => {
      await p.close();
      const file = join(dir, 'example.org.zone');
      await writeFile(file, `${await readFile(file, 'utf8')}nomail.example.org. 300 IN MX 0 .\n`);
      const again = await EmbeddedProvider.open({ dataDir: dir, zones: ['example.org'], logger: silentLogger() });
      const [nullMx] = await again.records();
      assert.deepEqual(nullMx?.targets, ['0 .']);
      await again.applyChanges(changes({ delete: [nullMx as Endpoint] }));
      assert.deepEqual(await again.records(), []);
      await again.close();
    }));

  test('a batch may delete one type and create another at the same name', () =>
    withProvider(async (p) => {
      await p.applyChanges(changes({ create: [ep({ dnsName: 'www.example.org' })] }));
      await p.applyChanges(
        changes({
          delete: [ep({ dnsName: 'www.example.org' })],
          create: [ep({ dnsName: 'www.example.org', recordType: 'CNAME', targets: ['lb.example.net'] })],
        }),
      );
      assert.deepEqual(summary(await p.records()), ['www.example.org CNAME 300 lb.example.net']);
    }));

  test('adjustEndpoints drops set identifiers and apex NS, keeps the rest', () =>
    withProvider(async (p) => {
      const kept = ep({ dnsName: 'www.example.org' });
      const sub = ep({ dnsName: 'deleg.example.org', recordType: 'NS', targets: ['ns.other.net'] });
      const out = await p.adjustEndpoints([
        kept,
        ep({ dnsName: 'eu.example.org', setIdentifier: 'eu' }),
        ep({ dnsName: 'example.org.', recordType: 'NS', targets: ['x.net'] }),
        sub,
      ]);
      assert.deepEqual(out, [kept, sub]);
      // Zone files hold no provider-specific properties, so desired ones are removed (no update every sync).
      const alias = ep({ dnsName: 'a.example.org', recordType: 'CNAME', targets: ['lb.example.net'], providerSpecific: [{ name: 'alias', value: 'true' }] });
      assert.deepEqual(await p.adjustEndpoints([alias]), [{ ...alias, providerSpecific: [] }]);
    }));

  test('listener gets the zone after the change is durable', () =>
    withProvider(async (p, dir) => {
      const seen: string[] = [];
      p.store.addListener({ zoneChanged: (z) => void seen.push(`${z.origin}:${z.rrsets.length}`) });
      seen.length = 0;
      await p.applyChanges(changes({ create: [ep({ dnsName: 'www.example.org' })] }));
      assert.deepEqual(seen, ['example.org:2']);
      assert.match(await readFile(join(dir, 'example.org.zone'), 'utf8'), /www\.example\.org\. 300 IN A 192\.0\.2\.1/);
    }));

  test('domainFilter is the zones', () =>
    withProvider(async (p) => {
      assert.ok(p.domainFilter().match('a.sub.example.org'));
      assert.ok(!p.domainFilter().match('example.com'));
    }));

  test('fromConfig needs a zone', async () => {
    await assert.rejects(EmbeddedProvider.open({ dataDir: '/nonexistent', zones: [], logger: silentLogger() }), ConfigError);
    await assert.rejects(EmbeddedProvider.open({ dataDir: '/nonexistent', zones: ['bad zone!'], logger: silentLogger() }), /invalid zone "bad zone!"/);
  });
});
