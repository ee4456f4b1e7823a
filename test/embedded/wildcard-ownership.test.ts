/**
 * Wildcard records and their ownership TXT `a-*.apps.<zone>` (external-dns's name) in the embedded
 * provider: written to the zone file, served by the DNS server exactly as BIND serves the same file
 * (the `*` inside a label is data, RFC 4592; only the `*` label synthesises), updated, deleted, and
 * a zone file external-dns and BIND left behind is read, owned and updated.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DnsServer } from '../../src/dns/server/server.ts';
import { newEndpoint } from '../../src/endpoint/endpoint.ts';
import type { Endpoint } from '../../src/endpoint/endpoint.ts';
import { silentLogger } from '../../src/log.ts';
import { EmbeddedProvider } from '../../src/provider/embedded/embedded.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';
import { namedAvailable, startBind } from '../support/bind.ts';
import { dig, digAvailable } from '../support/dig.ts';
import { testController } from '../support/controller.ts';
import { FakeSource } from '../support/fakes.ts';

const ZONE = 'example.org';
const OWNED = '"heritage=external-dns,external-dns/owner=hw,external-dns/resource=ingress/default/apps"';
const wildcard = (target: string): Endpoint =>
  newEndpoint({ dnsName: `*.apps.${ZONE}`, recordType: 'A', targets: [target], recordTTL: 300, labels: { resource: 'ingress/default/apps' } });

async function open(dir: string): Promise<EmbeddedProvider> {
  return EmbeddedProvider.open({ dataDir: dir, zones: [ZONE], logger: silentLogger(), nameserverAddresses: ['192.0.2.53'] });
}

function registryOf(provider: EmbeddedProvider): TXTRegistry {
  return new TXTRegistry(provider, { ownerId: 'hw', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger: silentLogger() });
}

/** What a resolver sees: rcode, AA and the sorted answer. */
async function ask(port: number, name: string, type: string): Promise<string> {
  const r = await dig(port, [name, type]);
  return `${r.status} aa=${r.flags.includes('aa')} ${r.answer.sort().join(' | ')}`;
}

const QUESTIONS: [string, string][] = [
  [`a-*.apps.${ZONE}`, 'TXT'],
  [`a-*.apps.${ZONE}`, 'A'],
  [`x.apps.${ZONE}`, 'A'],
  [`x.apps.${ZONE}`, 'TXT'],
  [`*.apps.${ZONE}`, 'A'],
  [`b-*.apps.${ZONE}`, 'TXT'],
  [`apps.${ZONE}`, 'A'],
];

describe('embedded provider: wildcard ownership', async () => {
  const skipDig = (await digAvailable()) ? false : 'dig not installed';
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hw-wild-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('synced, served like BIND serves the same file, updated and deleted', { skip: skipDig }, async () => {
    const data = join(dir, 'sync');
    const provider = await open(data);
    const server = new DnsServer({ listen: ['127.0.0.1:0'], logger: silentLogger() });
    provider.store.addListener(server);
    const port = (await server.start()).addresses[0]?.udp.port ?? 0;
    try {
      const source = new FakeSource([wildcard('192.0.2.20')]);
      const controller = testController(source, registryOf(provider));
      assert.equal((await controller.runOnce()).applied, true);
      const file = await readFile(provider.store.filePath(ZONE), 'utf8');
      assert.match(file, /^\*\.apps\.example\.org\.\s+300\s+IN\s+A\s+192\.0\.2\.20$/m);
      assert.match(
        file,
        /^a-\*\.apps\.example\.org\.\s+300\s+IN\s+TXT\s+"heritage=external-dns,external-dns\/owner=hw,external-dns\/resource=ingress\/default\/apps"$/m,
      );
      if (spawnSync('named-checkzone', ['-v'], { timeout: 10_000 }).error === undefined) {
        const check = spawnSync('named-checkzone', ['-k', 'fail', ZONE, provider.store.filePath(ZONE)], { encoding: 'utf8', timeout: 10_000 });
        assert.equal(check.status, 0, check.stdout + check.stderr);
      }

      assert.equal(await ask(port, `a-*.apps.${ZONE}`, 'TXT'), `NOERROR aa=true a-*.apps.${ZONE}. 300 IN TXT ${OWNED}`);
      assert.equal(await ask(port, `x.apps.${ZONE}`, 'A'), `NOERROR aa=true x.apps.${ZONE}. 300 IN A 192.0.2.20`, 'the * label still synthesises');
      assert.equal(await ask(port, `x.apps.${ZONE}`, 'TXT'), 'NOERROR aa=true ', 'the TXT is not a wildcard: no TXT synthesised');
      assert.equal(await ask(port, `a-*.apps.${ZONE}`, 'A'), 'NOERROR aa=true ', 'an existing name is not synthesised (RFC 4592)');

      if (await namedAvailable()) {
        const bind = await startBind({ zones: [provider.store.content(ZONE)] });
        try {
          for (const [name, type] of QUESTIONS) assert.equal(await ask(port, name, type), await ask(bind.port, name, type), `${name} ${type}`);
        } finally {
          await bind.stop();
        }
      }

      assert.equal((await controller.runOnce()).applied, false, 'read back and owned: nothing to do');
      source.desired = [wildcard('192.0.2.21')];
      assert.equal((await controller.runOnce()).applied, true);
      assert.equal(await ask(port, `y.apps.${ZONE}`, 'A'), `NOERROR aa=true y.apps.${ZONE}. 300 IN A 192.0.2.21`);
      source.desired = [];
      await controller.runOnce();
      assert.equal((await dig(port, [`a-*.apps.${ZONE}`, 'TXT'])).status, 'NXDOMAIN');
      assert.equal((await dig(port, [`y.apps.${ZONE}`, 'A'])).status, 'NXDOMAIN');
    } finally {
      await server.stop();
      await provider.close();
    }
  });

  test('a zone file external-dns wrote through BIND (wildcard + a-*. TXT) is read, owned and updated', async () => {
    const data = join(dir, 'takeover');
    await mkdir(data, { recursive: true });
    const seed = await open(data);
    const path = seed.store.filePath(ZONE);
    await seed.close();
    // As named-compilezone prints a zone external-dns filled over RFC2136: absolute names, `*` unescaped.
    await writeFile(
      path,
      [
        `${ZONE}. 300 IN SOA ns1.${ZONE}. hostmaster.${ZONE}. 7 3600 600 86400 300`,
        `${ZONE}. 300 IN NS ns1.${ZONE}.`,
        `*.apps.${ZONE}. 300 IN A 192.0.2.30`,
        `a-*.apps.${ZONE}. 300 IN TXT ${OWNED}`,
        '',
      ].join('\n'),
    );
    const provider = await open(data);
    try {
      const registry = registryOf(provider);
      const owned = (await registry.records()).find((r) => r.dnsName === `*.apps.${ZONE}` && r.recordType === 'A');
      assert.equal(owned?.labels.owner, 'hw');
      const controller = testController(new FakeSource([wildcard('192.0.2.31')]), registry);
      assert.equal((await controller.runOnce()).applied, true);
      const file = await readFile(path, 'utf8');
      assert.match(file, /^\*\.apps\.example\.org\.\s+300\s+IN\s+A\s+192\.0\.2\.31$/m);
      assert.match(
        file,
        new RegExp(`^a-\\*\\.apps\\.example\\.org\\.\\s+300\\s+IN\\s+TXT\\s+${OWNED.replaceAll('/', '\\/')}$`, 'm'),
        'the TXT external-dns reads, unchanged',
      );
    } finally {
      await provider.close();
    }
  });
});
