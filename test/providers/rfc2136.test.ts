/**
 * The rfc2136 provider against a real BIND 9 primary: signed updates, zone transfers, errors and
 * batching, verified with Debian's dig.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { newEndpoint } from '../../src/endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../../src/endpoint/endpoint.ts';
import { ProviderError } from '../../src/errors.ts';
import { silentLogger } from '../../src/log.ts';
import { emptyChanges } from '../../src/plan/changes.ts';
import type { Changes } from '../../src/plan/changes.ts';
import { Rfc2136Provider } from '../../src/provider/rfc2136/rfc2136.ts';
import type { Rfc2136Server } from '../../src/provider/rfc2136/rfc2136.ts';
import { NetworkTransport } from '../../src/provider/rfc2136/transport.ts';
import type { DnsTransport } from '../../src/provider/rfc2136/transport.ts';
import type { TsigAlgorithm, TsigKey } from '../../src/dns/tsig.ts';
import { freePort, namedAvailable, startBind } from '../support/bind.ts';
import type { BindServer } from '../support/bind.ts';
import { runCli } from '../support/cli.ts';
import type { CliResult } from '../support/cli.ts';
import { dig } from '../support/dig.ts';
import { bindZone, KEY_NAME } from '../support/bind-rfc2136.ts';
import { loadBalancerService } from '../support/manifests.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';
import { testController } from '../support/controller.ts';
import { FakeSource } from '../support/fakes.ts';
import { makeCaSignedCerts } from '../support/tls.ts';
import { FlagValues } from '../../src/config/config.ts';
import { FLAGS } from '../../src/config/flags.ts';
import { parseArgs } from '../../src/config/parse.ts';
import { RFC2136_FLAGS } from '../../src/provider/rfc2136/flags.ts';
import { TLS_CLIENT_FLAGS } from '../../src/provider/tls-client.ts';

const skip = !(await namedAvailable()) && 'named is not installed (apt-get install bind9 bind9-dnsutils)';

function key(algorithm: TsigAlgorithm, secret: Buffer): TsigKey {
  return { name: KEY_NAME, algorithm, secret };
}

function provider(
  port: number,
  options: { key?: TsigKey; zones?: string[]; batch?: number; transport?: DnsTransport; timeoutMs?: number; minTTL?: number } = {},
): Rfc2136Provider {
  return new Rfc2136Provider({
    zones: options.zones ?? ['example.test'],
    transport: options.transport ?? new NetworkTransport({ host: '127.0.0.1', port, timeoutMs: options.timeoutMs ?? 3000 }),
    ...(options.key === undefined ? {} : { key: options.key }),
    batchChangeSize: options.batch ?? 50,
    minTTL: options.minTTL ?? 0,
    logger: silentLogger(),
    server: `127.0.0.1:${port}`,
  });
}

function ep(dnsName: string, recordType: RecordType, targets: string[], recordTTL = 0): Endpoint {
  return newEndpoint({ dnsName, recordType, targets, recordTTL });
}

function changes(part: Partial<Changes>): Changes {
  return { ...emptyChanges(), ...part };
}

async function answers(port: number, name: string, type: string): Promise<{ status: string; values: string[] }> {
  const r = await dig(port, [name, type, '+norec']);
  return { status: r.status, values: r.answer.map((l) => l.split(' ').slice(4).join(' ')).sort() };
}

function find(records: Endpoint[], name: string, type: string): Endpoint | undefined {
  return records.find((r) => r.dnsName === name && r.recordType === type);
}

describe('rfc2136 provider against BIND 9', { skip }, () => {
  const secret = randomBytes(32);
  let bind: BindServer;

  before(async () => {
    bind = await startBind({
      zones: [bindZone('example.test')],
      tsigKey: { name: KEY_NAME, algorithm: 'hmac-sha256', secret: secret.toString('base64') },
      extraOptions: `allow-update { key "${KEY_NAME}"; };`,
    });
  });
  after(async () => {
    await bind?.stop();
  });

  test('creates, updates and deletes A, AAAA, CNAME and TXT records, as dig sees them', async () => {
    const p = provider(bind.port, { key: key('hmac-sha256', secret) });
    const long = `v=${'x'.repeat(400)}`;
    await p.applyChanges(
      changes({
        create: [
          ep('www.example.test', 'A', ['192.0.2.1', '192.0.2.2'], 120),
          ep('v6.example.test', 'AAAA', ['2001:db8::1']),
          ep('alias.example.test', 'CNAME', ['www.example.test']),
          ep('txt.example.test', 'TXT', ['"heritage=external-dns,external-dns/owner=default"']),
          ep('long.example.test', 'TXT', [long]),
        ],
      }),
    );
    assert.deepEqual(await answers(bind.port, 'www.example.test', 'A'), { status: 'NOERROR', values: ['192.0.2.1', '192.0.2.2'] });
    assert.deepEqual((await answers(bind.port, 'v6.example.test', 'AAAA')).values, ['2001:db8::1']);
    assert.deepEqual((await answers(bind.port, 'alias.example.test', 'CNAME')).values, ['www.example.test.']);
    assert.deepEqual((await answers(bind.port, 'txt.example.test', 'TXT')).values, ['"heritage=external-dns,external-dns/owner=default"']);
    const longAnswer = (await answers(bind.port, 'long.example.test', 'TXT')).values[0] ?? '';
    // dig prints the 255-byte character-strings separately.
    assert.equal(longAnswer.split('" "').join('').replace(/^"|"$/g, ''), long);

    const listed = await p.records();
    assert.deepEqual(find(listed, 'www.example.test', 'A')?.targets.sort(), ['192.0.2.1', '192.0.2.2']);
    assert.equal(find(listed, 'www.example.test', 'A')?.recordTTL, 120);
    assert.deepEqual(find(listed, 'v6.example.test', 'AAAA')?.targets, ['2001:db8::1']);
    assert.deepEqual(find(listed, 'alias.example.test', 'CNAME')?.targets, ['www.example.test']);
    assert.deepEqual(find(listed, 'txt.example.test', 'TXT')?.targets, ['heritage=external-dns,external-dns/owner=default']);
    assert.deepEqual(find(listed, 'long.example.test', 'TXT')?.targets, [long]);
    assert.equal(find(listed, 'example.test', 'NS'), undefined, 'the apex NS set is not listed');

    const oldA = find(listed, 'www.example.test', 'A') as Endpoint;
    await p.applyChanges(
      changes({
        updateOld: [oldA],
        updateNew: [ep('www.example.test', 'A', ['192.0.2.3'], 60)],
        delete: [find(listed, 'alias.example.test', 'CNAME') as Endpoint, find(listed, 'long.example.test', 'TXT') as Endpoint],
      }),
    );
    const www = await dig(bind.port, ['www.example.test', 'A', '+norec']);
    assert.deepEqual(www.answer, ['www.example.test. 60 IN A 192.0.2.3']);
    assert.equal((await answers(bind.port, 'alias.example.test', 'CNAME')).status, 'NXDOMAIN');
    assert.equal((await answers(bind.port, 'long.example.test', 'TXT')).status, 'NXDOMAIN');
  });

  test('a wildcard and its a-*.apps ownership TXT: sent, served by BIND, transferred back, updated and deleted', async () => {
    const p = provider(bind.port, { key: key('hmac-sha256', secret) });
    const value = '"heritage=external-dns,external-dns/owner=hw,external-dns/resource=ingress/default/apps"';
    const source = new FakeSource([
      newEndpoint({ dnsName: '*.apps.example.test', recordType: 'A', targets: ['192.0.2.40'], labels: { resource: 'ingress/default/apps' } }),
    ]);
    const registry = new TXTRegistry(p, { ownerId: 'hw', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger: silentLogger() });
    const controller = testController(source, registry);
    assert.equal((await controller.runOnce()).applied, true);
    assert.deepEqual(await answers(bind.port, 'a-*.apps.example.test', 'TXT'), { status: 'NOERROR', values: [value] });
    assert.deepEqual(await answers(bind.port, 'x.apps.example.test', 'A'), { status: 'NOERROR', values: ['192.0.2.40'] });
    assert.deepEqual((await answers(bind.port, 'x.apps.example.test', 'TXT')).values, [], 'the TXT is no wildcard');
    const listed = await p.records();
    assert.deepEqual(find(listed, 'a-*.apps.example.test', 'TXT')?.targets, [value.slice(1, -1)]);
    assert.deepEqual(find(listed, '*.apps.example.test', 'A')?.targets, ['192.0.2.40']);
    assert.equal((await controller.runOnce()).applied, false, 'transferred back and owned: nothing to do');

    source.desired = [newEndpoint({ dnsName: '*.apps.example.test', recordType: 'A', targets: ['192.0.2.41'], labels: { resource: 'ingress/default/apps' } })];
    assert.equal((await controller.runOnce()).applied, true);
    assert.deepEqual((await answers(bind.port, 'y.apps.example.test', 'A')).values, ['192.0.2.41']);
    source.desired = [];
    await controller.runOnce();
    assert.equal((await answers(bind.port, 'a-*.apps.example.test', 'TXT')).status, 'NXDOMAIN');
    assert.equal((await answers(bind.port, 'y.apps.example.test', 'A')).status, 'NXDOMAIN');
  });

  test('a wildcard external-dns wrote over RFC2136 (wildcard + a-*. TXT) is owned and updated', async () => {
    const p = provider(bind.port, { key: key('hmac-sha256', secret) });
    const value = '"heritage=external-dns,external-dns/owner=hw,external-dns/resource=service/default/legacy"';
    // The two records external-dns sends for a wildcard (its wire names, its TXT value).
    await p.applyChanges(changes({ create: [ep('*.legacy.example.test', 'A', ['192.0.2.50'], 300), ep('a-*.legacy.example.test', 'TXT', [value], 300)] }));
    const registry = new TXTRegistry(p, { ownerId: 'hw', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger: silentLogger() });
    assert.equal(find(await registry.records(), '*.legacy.example.test', 'A')?.labels.owner, 'hw');
    const desired = newEndpoint({
      dnsName: '*.legacy.example.test',
      recordType: 'A',
      targets: ['192.0.2.51'],
      recordTTL: 300,
      labels: { resource: 'service/default/legacy' },
    });
    const controller = testController(new FakeSource([desired]), registry);
    assert.equal((await controller.runOnce()).applied, true);
    assert.deepEqual((await answers(bind.port, 'z.legacy.example.test', 'A')).values, ['192.0.2.51']);
    assert.deepEqual((await answers(bind.port, 'a-*.legacy.example.test', 'TXT')).values, [value], 'the TXT external-dns reads, unchanged');
    await p.applyChanges(changes({ delete: [ep('*.legacy.example.test', 'A', ['192.0.2.51'], 300), ep('a-*.legacy.example.test', 'TXT', [value], 300)] }));
  });

  test('a wrong TSIG secret is a clear permanent error and changes nothing', async () => {
    const p = provider(bind.port, { key: key('hmac-sha256', randomBytes(32)) });
    await assert.rejects(p.applyChanges(changes({ create: [ep('bad.example.test', 'A', ['192.0.2.9'])] })), (err: unknown) => {
      assert.ok(err instanceof ProviderError);
      assert.equal(err.transient, false);
      assert.equal(err.code, 'PROVIDER_TSIG');
      assert.equal(err.zone, 'example.test');
      assert.match(err.message, /rejected the TSIG key "test-key" for zone example\.test/);
      assert.match(err.message, /bad\.example\.test A/);
      return true;
    });
    assert.equal((await answers(bind.port, 'bad.example.test', 'A')).status, 'NXDOMAIN');
    await assert.rejects(
      p.records(),
      (err: unknown) => err instanceof ProviderError && !err.transient && /example\.test/.test(err.message) && /BADSIG|NOTAUTH/.test(err.message),
    );
  });

  test('unsigned updates are REFUSED, surfaced with the zone name', async () => {
    const p = provider(bind.port);
    await assert.rejects(p.applyChanges(changes({ create: [ep('unsigned.example.test', 'A', ['192.0.2.9'])] })), (err: unknown) => {
      assert.ok(err instanceof ProviderError);
      assert.equal(err.code, 'PROVIDER_REFUSED');
      assert.equal(err.transient, false);
      assert.match(err.message, /REFUSED to an update of zone example\.test/);
      return true;
    });
  });

  test('a failed batch does not block the others: a zone BIND does not serve fails alone', async () => {
    const p = provider(bind.port, { key: key('hmac-sha256', secret), zones: ['example.test', 'other.test'] });
    await assert.rejects(
      p.applyChanges(
        changes({
          create: [ep('x.other.test', 'A', ['192.0.2.7']), ep('ok.example.test', 'A', ['192.0.2.8'])],
        }),
      ),
      (err: unknown) => {
        assert.ok(err instanceof ProviderError);
        assert.equal(err.zone, 'other.test');
        assert.equal(err.transient, false);
        assert.match(err.message, /NOTAUTH/);
        assert.match(err.message, /x\.other\.test A/);
        return true;
      },
    );
    assert.deepEqual((await answers(bind.port, 'ok.example.test', 'A')).values, ['192.0.2.8']);
  });

  test('300 changes travel in batches of --rfc2136-batch-change-size', async () => {
    const inner = new NetworkTransport({ host: '127.0.0.1', port: bind.port, timeoutMs: 5000 });
    let updates = 0;
    const counting: DnsTransport = {
      exchange: (req) => {
        updates++;
        return inner.exchange(req);
      },
      transfer: (req, on) => inner.transfer(req, on),
    };
    const p = provider(bind.port, { key: key('hmac-sha256', secret), transport: counting, batch: 50 });
    const create = Array.from({ length: 300 }, (_, i) => ep(`host${i}.bulk.example.test`, 'A', [`198.51.100.${i % 250}`]));
    await p.applyChanges(changes({ create }));
    assert.equal(updates, 6);
    const listed = (await p.records()).filter((r) => r.dnsName.endsWith('.bulk.example.test'));
    assert.equal(listed.length, 300);
    assert.deepEqual((await answers(bind.port, 'host299.bulk.example.test', 'A')).values, ['198.51.100.49']);
    await p.applyChanges(changes({ delete: listed }));
    assert.equal((await p.records()).filter((r) => r.dnsName.endsWith('.bulk.example.test')).length, 0);
    assert.equal(updates, 12);
  });

  test('--rfc2136-min-ttl raises low TTLs and is the TTL of records that set none', async () => {
    const p = provider(bind.port, { key: key('hmac-sha256', secret), minTTL: 600 });
    await p.applyChanges(changes({ create: [ep('minttl.example.test', 'A', ['192.0.2.4'], 30), ep('nottl.example.test', 'A', ['192.0.2.5'])] }));
    const listed = await p.records();
    assert.equal(find(listed, 'minttl.example.test', 'A')?.recordTTL, 600);
    assert.equal(find(listed, 'nottl.example.test', 'A')?.recordTTL, 600);
    const adjusted = await p.adjustEndpoints([ep('minttl.example.test', 'A', ['192.0.2.4'], 30)]);
    assert.equal(adjusted[0]?.recordTTL, 600);
  });
});

describe('rfc2136 TSIG algorithms against BIND 9', { skip }, () => {
  for (const algorithm of ['hmac-sha512', 'hmac-sha1', 'hmac-md5'] as const) {
    test(algorithm, async () => {
      const secret = randomBytes(32);
      const bind = await startBind({
        zones: [bindZone('example.test')],
        tsigKey: { name: KEY_NAME, algorithm, secret: secret.toString('base64') },
        extraOptions: `allow-update { key "${KEY_NAME}"; };`,
      });
      try {
        const p = provider(bind.port, { key: key(algorithm, secret) });
        await p.applyChanges(changes({ create: [ep('alg.example.test', 'TXT', [algorithm])] }));
        assert.deepEqual(find(await p.records(), 'alg.example.test', 'TXT')?.targets, [algorithm]);
      } finally {
        await bind.stop();
      }
    });
  }
});

describe('several --rfc2136-host servers (two BIND 9 primaries and a closed port)', { skip }, () => {
  const secret = randomBytes(32);
  const tsig = key('hmac-sha256', secret);
  let a: BindServer;
  let b: BindServer;
  let closed: number;

  before(async () => {
    const opts = {
      zones: [bindZone('example.test')],
      tsigKey: { name: KEY_NAME, algorithm: 'hmac-sha256', secret: secret.toString('base64') },
      extraOptions: `allow-update { key "${KEY_NAME}"; };`,
    };
    [a, b] = await Promise.all([startBind(opts), startBind(opts)]);
    closed = await freePort();
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  const server = (port: number): Rfc2136Server => ({
    transport: new NetworkTransport({ host: '127.0.0.1', port, timeoutMs: 1500 }),
    name: `127.0.0.1:${port}`,
  });
  const pool = (ports: number[], loadBalancing: 'disabled' | 'round-robin'): Rfc2136Provider =>
    new Rfc2136Provider({ zones: ['example.test'], servers: ports.map(server), loadBalancing, key: tsig, logger: silentLogger() });
  const has = async (port: number, name: string): Promise<boolean> => (await answers(port, name, 'A')).status === 'NOERROR';

  test('disabled (the default): a failed server is skipped and the next one kept for later operations', async () => {
    const p = pool([closed, a.port, b.port], 'disabled');
    await p.applyChanges(changes({ create: [ep('d1.example.test', 'A', ['192.0.2.1'])] }));
    await p.applyChanges(changes({ create: [ep('d2.example.test', 'A', ['192.0.2.2'])] }));
    assert.ok((await has(a.port, 'd1.example.test')) && (await has(a.port, 'd2.example.test')), 'both updates reached the first server that answers');
    assert.ok(!(await has(b.port, 'd1.example.test')) && !(await has(b.port, 'd2.example.test')));
    // Zone transfers rotate on their own: the first one fails over from the closed port too.
    assert.deepEqual(find(await p.records(), 'd2.example.test', 'A')?.targets, ['192.0.2.2']);
  });

  test('round-robin: each update goes to the next server', async () => {
    const p = pool([a.port, b.port], 'round-robin');
    for (const n of [1, 2, 3]) await p.applyChanges(changes({ create: [ep(`rr${n}.example.test`, 'A', [`192.0.2.${n}`])] }));
    assert.deepEqual(
      await Promise.all(['rr1', 'rr2', 'rr3'].map(async (n) => [await has(a.port, `${n}.example.test`), await has(b.port, `${n}.example.test`)])),
      [
        [true, false],
        [false, true],
        [true, false],
      ],
    );
  });

  test('every server failing: the last error, transient, naming the zone', async () => {
    const other = await freePort();
    const p = pool([closed, other], 'disabled');
    await assert.rejects(
      p.applyChanges(changes({ create: [ep('none.example.test', 'A', ['192.0.2.9'])] })),
      (err: unknown) => err instanceof ProviderError && err.transient && err.zone === 'example.test' && err.message.includes(String(other)),
    );
  });

  test('axfr: false (--no-rfc2136-axfr) reads no record; creates are still sent', async () => {
    const p = new Rfc2136Provider({ zones: ['example.test'], servers: [server(a.port)], axfr: false, key: tsig, logger: silentLogger() });
    assert.deepEqual(await p.records(), []);
    await p.applyChanges(changes({ create: [ep('noaxfr.example.test', 'A', ['192.0.2.50'])] }));
    assert.ok(await has(a.port, 'noaxfr.example.test'));
  });
});

describe('rfc2136 with the server down', () => {
  test('updates and transfers fail with a transient error naming the zone', async () => {
    const port = await freePort();
    const p = provider(port, { key: key('hmac-sha256', randomBytes(32)), timeoutMs: 1000 });
    await assert.rejects(p.applyChanges(changes({ create: [ep('down.example.test', 'A', ['192.0.2.1'])] })), (err: unknown) => {
      assert.ok(err instanceof ProviderError);
      assert.equal(err.transient, true);
      assert.equal(err.zone, 'example.test');
      assert.match(err.message, /down\.example\.test A/);
      return true;
    });
    await assert.rejects(p.records(), (err: unknown) => err instanceof ProviderError && err.transient && err.zone === 'example.test');
  });
});

describe('hostwarden run --once --provider rfc2136 (manifests → BIND)', { skip }, () => {
  const secret = randomBytes(32);
  let bind: BindServer;
  let dir: string;

  before(async () => {
    bind = await startBind({
      zones: [bindZone('example.test')],
      tsigKey: { name: KEY_NAME, algorithm: 'hmac-sha512', secret: secret.toString('base64') },
      extraOptions: `allow-update { key "${KEY_NAME}"; };`,
    });
    dir = await mkdtemp(join(tmpdir(), 'hw-rfc2136-run-'));
  });
  after(async () => {
    await bind?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  const run = (axfr = '--rfc2136-tsig-axfr'): Promise<CliResult> =>
    runCli(
      [
        'run',
        '--once',
        '--provider',
        'rfc2136',
        '--manifests-dir',
        dir,
        '--domain-filter',
        'example.test',
        '--txt-owner-id',
        'hw-test',
        '--metrics-address',
        '',
        '--log-format',
        'json',
        '--rfc2136-host',
        '127.0.0.1',
        '--rfc2136-port',
        String(bind.port),
        '--rfc2136-zone',
        'example.test',
        '--rfc2136-tsig-keyname',
        KEY_NAME,
        '--rfc2136-tsig-secret-alg',
        'hmac-sha512',
        ...(axfr === '' ? [] : [axfr]),
      ],
      { env: { EXTERNAL_DNS_RFC2136_TSIG_SECRET: secret.toString('base64') } },
    );

  test('creates the records and their ownership TXT, leaves unowned records alone, and deletes what it owns', async () => {
    // Somebody else's record at a name the manifests ask for: it must survive every sync.
    await provider(bind.port, { key: key('hmac-sha512', secret) }).applyChanges(changes({ create: [ep('theirs.example.test', 'A', ['203.0.113.1'])] }));
    await writeFile(join(dir, 'web.yaml'), loadBalancerService('web', 'web.example.test,theirs.example.test', '192.0.2.10'));
    const first = await run();
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual((await answers(bind.port, 'web.example.test', 'A')).values, ['192.0.2.10']);
    const owner = (await answers(bind.port, 'a-web.example.test', 'TXT')).values.join(' ');
    assert.match(owner, /heritage=external-dns,external-dns\/owner=hw-test,external-dns\/resource=service\/default\/web/);
    assert.deepEqual((await answers(bind.port, 'theirs.example.test', 'A')).values, ['203.0.113.1']);

    const second = await run();
    assert.equal(second.code, 0, second.stderr);
    assert.doesNotMatch(second.stderr, /rfc2136 update applied/, 'a second sync has nothing to change');

    await rm(join(dir, 'web.yaml'));
    const third = await run();
    assert.equal(third.code, 0, third.stderr);
    assert.equal((await answers(bind.port, 'web.example.test', 'A')).status, 'NXDOMAIN');
    assert.equal((await answers(bind.port, 'a-web.example.test', 'TXT')).status, 'NXDOMAIN');
    assert.deepEqual((await answers(bind.port, 'theirs.example.test', 'A')).values, ['203.0.113.1']);
  });

  test('--no-rfc2136-axfr (external-dns default) reads no record: a warning, creates only, nothing deleted; without the flag AXFR is on', async () => {
    await writeFile(join(dir, 'web.yaml'), loadBalancerService('web', 'noaxfr.example.test', '192.0.2.11'));
    const first = await run('--no-rfc2136-axfr');
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /--rfc2136-axfr is off/);
    assert.deepEqual((await answers(bind.port, 'noaxfr.example.test', 'A')).values, ['192.0.2.11']);
    await rm(join(dir, 'web.yaml'));
    const second = await run('--no-rfc2136-axfr');
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual((await answers(bind.port, 'noaxfr.example.test', 'A')).values, ['192.0.2.11'], 'never deleted without AXFR');
    // Without any AXFR flag (Hostwarden's default) the owned record is read and deleted.
    const third = await run('');
    assert.equal(third.code, 0, third.stderr);
    assert.doesNotMatch(third.stderr, /--rfc2136-axfr is off/);
    assert.equal((await answers(bind.port, 'noaxfr.example.test', 'A')).status, 'NXDOMAIN');
  });
});

describe('rfc2136 over DNS over TLS (--rfc2136-use-tls) against BIND 9', { skip }, () => {
  test('updates and transfers over TLS; an unverifiable certificate is a permanent error', async () => {
    const secret = randomBytes(32);
    const tlsPort = await freePort();
    const bind = await startBind({
      zones: [bindZone('example.test')],
      tsigKey: { name: KEY_NAME, algorithm: 'hmac-sha256', secret: secret.toString('base64') },
      // BIND makes up a self-signed certificate for "tls ephemeral".
      extraOptions: `allow-update { key "${KEY_NAME}"; }; listen-on port ${tlsPort} tls ephemeral { 127.0.0.1; };`,
    });
    try {
      const tls = (rejectUnauthorized: boolean): NetworkTransport =>
        new NetworkTransport({ host: '127.0.0.1', port: tlsPort, timeoutMs: 3000, tls: { rejectUnauthorized } });
      const p = provider(tlsPort, { key: key('hmac-sha256', secret), transport: tls(false) });
      await p.applyChanges(changes({ create: [ep('tls.example.test', 'A', ['192.0.2.53'])] }));
      assert.deepEqual(find(await p.records(), 'tls.example.test', 'A')?.targets, ['192.0.2.53']);
      assert.deepEqual((await answers(bind.port, 'tls.example.test', 'A')).values, ['192.0.2.53']);

      const strict = provider(tlsPort, { key: key('hmac-sha256', secret), transport: tls(true) });
      await assert.rejects(strict.records(), (err: unknown) => err instanceof ProviderError && !err.transient && /certificate/i.test(err.message));
    } finally {
      await bind.stop();
    }
  });
});

describe("rfc2136 over mutual TLS with external-dns's --tls-ca, --tls-client-cert, --tls-client-cert-key (BIND 9 with ca-file)", { skip }, () => {
  test('from the flags: the client certificate is presented; without it BIND refuses the connection', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hw-rfc2136-mtls-'));
    const secret = randomBytes(32);
    const tlsPort = await freePort();
    let bind: BindServer | undefined;
    try {
      await makeCaSignedCerts(dir);
      bind = await startBind({
        zones: [bindZone('example.test')],
        tsigKey: { name: KEY_NAME, algorithm: 'hmac-sha256', secret: secret.toString('base64') },
        extraConfig: `tls mtls { key-file "${join(dir, 'server.key')}"; cert-file "${join(dir, 'server.crt')}"; ca-file "${join(dir, 'ca.crt')}"; };\n`,
        extraOptions: `allow-update { key "${KEY_NAME}"; }; listen-on port ${tlsPort} tls mtls { 127.0.0.1; };`,
      });
      const fromFlags = (extra: string[]): Rfc2136Provider => {
        const argv = [
          ...['--rfc2136-host', '127.0.0.1', '--rfc2136-port', String(tlsPort), '--rfc2136-zone', 'example.test', '--rfc2136-axfr'],
          ...['--rfc2136-tsig-keyname', KEY_NAME, '--rfc2136-tsig-secret', secret.toString('base64'), '--rfc2136-use-tls', '--rfc2136-timeout', '3s'],
          ...extra,
        ];
        const flags = new FlagValues(parseArgs(argv, {}, [...FLAGS, ...RFC2136_FLAGS, ...TLS_CLIENT_FLAGS]).values);
        return Rfc2136Provider.fromConfig({ flags, domainFilters: [], excludeDomains: [] }, { logger: silentLogger() });
      };
      const p = fromFlags(['--tls-ca', join(dir, 'ca.crt'), '--tls-client-cert', join(dir, 'client.crt'), '--tls-client-cert-key', join(dir, 'client.key')]);
      await p.applyChanges(changes({ create: [ep('mtls.example.test', 'A', ['192.0.2.54'])] }));
      assert.deepEqual(find(await p.records(), 'mtls.example.test', 'A')?.targets, ['192.0.2.54']);
      assert.deepEqual((await answers(bind.port, 'mtls.example.test', 'A')).values, ['192.0.2.54']);
      const anonymous = fromFlags(['--tls-ca', join(dir, 'ca.crt')]);
      await assert.rejects(anonymous.records(), ProviderError);
    } finally {
      await bind?.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
