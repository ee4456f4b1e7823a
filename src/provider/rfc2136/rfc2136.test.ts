import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FlagValues } from '../../config/config.ts';
import { FLAGS } from '../../config/flags.ts';
import { parseArgs } from '../../config/parse.ts';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../../endpoint/endpoint.ts';
import { sign } from '../../dns/tsig.ts';
import type { TsigKey } from '../../dns/tsig.ts';
import { ConfigError, ProviderError } from '../../errors.ts';
import { silentLogger } from '../../log.ts';
import { emptyChanges } from '../../plan/changes.ts';
import type { Changes } from '../../plan/changes.ts';
import { RFC2136_FLAGS, rfc2136Settings } from './flags.ts';
import { Rfc2136Error, Rfc2136Provider } from './rfc2136.ts';
import { DnsTransportError } from './transport.ts';
import type { DnsTransport } from './transport.ts';
import { readHeader } from './update-message.ts';
import type { Logger } from '../../log.ts';
import { captureLogger } from '../../../test/registry/capture-logger.ts';

const KEY: TsigKey = { name: 'k', algorithm: 'hmac-sha256', secret: Buffer.alloc(32, 7) };
const NOW = 1_800_000_000_000;

interface Sent {
  zone: string;
  updates: number;
  size: number;
}

/** Answers every UPDATE like a server would: signed with the request MAC, rcode chosen per call. */
class FakeServer implements DnsTransport {
  readonly sent: Sent[] = [];
  constructor(private readonly answer: (call: number, zone: string) => number | Error | 'unsigned' = () => 0) {}

  exchange(request: Buffer): Promise<Buffer> {
    const h = readHeader(request);
    const zone = h?.question ?? '';
    this.sent.push({ zone, updates: request.readUInt16BE(8), size: request.length });
    const outcome = this.answer(this.sent.length, zone);
    if (outcome instanceof Error) return Promise.reject(outcome);
    const reply = Buffer.from(request.subarray(0, 12));
    reply.writeUInt16BE(0x8000 | (5 << 11) | (outcome === 'unsigned' ? 0 : outcome), 2);
    reply.writeUInt16BE(0, 4);
    reply.writeUInt16BE(0, 6);
    reply.writeUInt16BE(0, 8);
    reply.writeUInt16BE(0, 10);
    if (outcome === 'unsigned') return Promise.resolve(reply);
    // The request's MAC sits at the end of its TSIG record; the fake re-derives it by signing again.
    const unsignedRequest = Buffer.from(request);
    const mac = sign(stripTsig(unsignedRequest), KEY, NOW / 1000).mac;
    return Promise.resolve(sign(reply, KEY, NOW / 1000, mac).message);
  }

  transfer(): Promise<void> {
    return Promise.reject(new Error('not used'));
  }
}

/** The request without its TSIG record (the provider signs at the fixed test clock). */
function stripTsig(request: Buffer): Buffer {
  // The TSIG record is the only additional record; find it by re-encoding is overkill: its owner is "k".
  const marker = Buffer.from([1, 0x6b, 0, 0, 250]);
  const at = request.lastIndexOf(marker);
  const out = Buffer.from(request.subarray(0, at));
  out.writeUInt16BE(0, 10);
  return out;
}

function provider(
  server: DnsTransport,
  options: { batch?: number; minTTL?: number; key?: TsigKey | null; axfr?: boolean; logger?: Logger } = {},
): Rfc2136Provider {
  return new Rfc2136Provider({
    axfr: options.axfr ?? true,
    zones: ['example.test', 'sub.example.test', 'other.test'],
    transport: server,
    logger: options.logger ?? silentLogger(),
    clock: () => NOW,
    batchChangeSize: options.batch ?? 50,
    minTTL: options.minTTL ?? 0,
    ...(options.key === null ? {} : { key: options.key ?? KEY }),
  });
}

function ep(dnsName: string, recordType: RecordType, targets: string[], recordTTL = 0): Endpoint {
  return newEndpoint({ dnsName, recordType, targets, recordTTL });
}

function changes(part: Partial<Changes>): Changes {
  return { ...emptyChanges(), ...part };
}

describe('Rfc2136Provider.applyChanges', () => {
  test('splits changes per zone (most specific first) and into batches of batchChangeSize', async () => {
    const server = new FakeServer();
    const create = [
      ...Array.from({ length: 120 }, (_, i) => ep(`h${i}.example.test`, 'A', ['192.0.2.1'])),
      ep('x.sub.example.test', 'A', ['192.0.2.2']),
      ep('y.other.test', 'A', ['192.0.2.3']),
      ep('outside.example.org', 'A', ['192.0.2.4']),
    ];
    await provider(server, { batch: 50 }).applyChanges(changes({ create }));
    assert.deepEqual(
      server.sent.map((s) => [s.zone, s.updates]),
      [
        ['sub.example.test', 1],
        ['example.test', 50],
        ['example.test', 50],
        ['example.test', 20],
        ['other.test', 1],
      ],
    );
  });

  test('an update removes the old values and adds the new ones in the same message', async () => {
    const server = new FakeServer();
    await provider(server).applyChanges(
      changes({
        updateOld: [ep('www.example.test', 'A', ['192.0.2.1', '192.0.2.2'])],
        updateNew: [ep('www.example.test', 'A', ['192.0.2.3'])],
      }),
    );
    assert.equal(server.sent.length, 1);
    assert.equal(server.sent[0]?.updates, 3);
  });

  test('large records split batches below the 64 KiB message limit', async () => {
    const server = new FakeServer();
    const create = Array.from({ length: 40 }, (_, i) => ep(`t${i}.example.test`, 'TXT', ['z'.repeat(4000)]));
    await provider(server, { batch: 50 }).applyChanges(changes({ create }));
    assert.ok(server.sent.length >= 3);
    assert.ok(server.sent.every((s) => s.size < 65_535));
    assert.equal(
      server.sent.reduce((n, s) => n + s.updates, 0),
      40,
    );
  });

  test('a failed batch is reported after the others are applied; transient only if every failure is', async () => {
    const server = new FakeServer((call) => (call === 2 ? 2 : 0));
    const create = Array.from({ length: 30 }, (_, i) => ep(`h${i}.example.test`, 'A', ['192.0.2.1']));
    await assert.rejects(provider(server, { batch: 10 }).applyChanges(changes({ create })), (err: unknown) => {
      assert.ok(err instanceof Rfc2136Error);
      assert.equal(err.transient, true);
      assert.equal(err.code, 'PROVIDER_SERVFAIL');
      assert.equal(err.zone, 'example.test');
      assert.deepEqual(
        err.records,
        Array.from({ length: 10 }, (_, i) => `h${i + 10}.example.test A`),
      );
      return true;
    });
    assert.equal(server.sent.length, 3);

    const mixed = new FakeServer((_, zone) => (zone === 'other.test' ? 5 : 2));
    await assert.rejects(
      provider(mixed).applyChanges(changes({ create: [ep('a.example.test', 'A', ['192.0.2.1']), ep('b.other.test', 'A', ['192.0.2.1'])] })),
      (err: unknown) => {
        assert.ok(err instanceof Rfc2136Error);
        assert.equal(err.transient, false);
        assert.match(err.message, /2 of the update batches failed/);
        assert.deepEqual(err.records, ['a.example.test A', 'b.other.test A']);
        return true;
      },
    );
  });

  test('REFUSED and NOTAUTH are permanent and name the zone; network errors are transient', async () => {
    for (const [rcode, code] of [
      [5, 'PROVIDER_REFUSED'],
      [9, 'PROVIDER_NOTAUTH'],
    ] as const) {
      await assert.rejects(
        provider(new FakeServer(() => rcode)).applyChanges(changes({ create: [ep('a.other.test', 'A', ['192.0.2.1'])] })),
        (err: unknown) => {
          assert.ok(err instanceof ProviderError);
          assert.equal(err.code, code);
          assert.equal(err.transient, false);
          assert.match(err.message, /zone other\.test/);
          return true;
        },
      );
    }
    await assert.rejects(
      provider(new FakeServer(() => new DnsTransportError('timeout'))).applyChanges(changes({ create: [ep('a.other.test', 'A', ['192.0.2.1'])] })),
      (err: unknown) => {
        assert.ok(err instanceof ProviderError);
        assert.equal(err.code, 'PROVIDER_UNREACHABLE');
        assert.equal(err.transient, true);
        return true;
      },
    );
  });

  test('blind mode (axfr: false): a prerequisite failure skips that name with one warning; REFUSED is still an error', async () => {
    // Call 1: the batch's guarded create (YXRRSET); 2: "all in place?" (NXRRSET); then each half alone.
    const answers = [7, 8, 7, 8, 0];
    const server = new FakeServer((call) => answers[call - 1] ?? 0);
    const log = captureLogger();
    await provider(server, { axfr: false, logger: log.logger }).applyChanges(
      changes({ create: [ep('taken.example.test', 'A', ['192.0.2.1']), ep('fresh.example.test', 'A', ['192.0.2.2'])] }),
    );
    assert.deepEqual(
      server.sent.map((s) => s.updates),
      [2, 0, 1, 0, 1],
    );
    assert.deepEqual(
      log.warnings().filter((w) => w.includes('not creating')),
      [
        'rfc2136: not creating taken.example.test A: the name already holds this record type, a CNAME or the ownership TXT, whose owner cannot be known without a zone transfer (--rfc2136-axfr is off); nothing was changed there',
      ],
    );
    await assert.rejects(
      provider(new FakeServer(() => 5), { axfr: false }).applyChanges(changes({ create: [ep('a.other.test', 'A', ['192.0.2.1'])] })),
      (err: unknown) => err instanceof ProviderError && err.code === 'PROVIDER_REFUSED',
    );
  });

  test('blind mode sends no update or delete (they can only come from a cached view): one warning each', async () => {
    const server = new FakeServer();
    const log = captureLogger();
    await provider(server, { axfr: false, logger: log.logger }).applyChanges(
      changes({
        updateOld: [ep('web.example.test', 'A', ['192.0.2.1'])],
        updateNew: [ep('web.example.test', 'A', ['192.0.2.2'])],
        delete: [ep('gone.example.test', 'A', ['192.0.2.3'])],
      }),
    );
    assert.equal(server.sent.length, 0);
    assert.deepEqual(
      log.warnings().map((w) => w.split(':').slice(0, 2).join(':')),
      ['rfc2136: not updating web.example.test A', 'rfc2136: not deleting gone.example.test A'],
    );
  });

  test('an unsigned answer to a signed update is rejected', async () => {
    await assert.rejects(
      provider(new FakeServer(() => 'unsigned')).applyChanges(changes({ create: [ep('a.example.test', 'A', ['192.0.2.1'])] })),
      (err: unknown) => {
        assert.ok(err instanceof ProviderError);
        assert.equal(err.code, 'PROVIDER_TSIG');
        assert.match(err.message, /is not signed/);
        return true;
      },
    );
  });

  test('an invalid target fails its own batch as a permanent error', async () => {
    const server = new FakeServer();
    await assert.rejects(
      provider(server).applyChanges(changes({ create: [ep('bad.example.test', 'A', ['not-an-ip']), ep('ok.other.test', 'A', ['192.0.2.1'])] })),
      (err: unknown) => {
        assert.ok(err instanceof ProviderError);
        assert.equal(err.transient, false);
        assert.match(err.message, /bad\.example\.test/);
        return true;
      },
    );
    assert.deepEqual(
      server.sent.map((s) => s.zone),
      ['other.test'],
    );
  });
});

describe('Rfc2136Provider.adjustEndpoints', () => {
  test('raises TTLs below --rfc2136-min-ttl and leaves unset TTLs unset', async () => {
    const p = provider(new FakeServer(), { minTTL: 300 });
    const out = await p.adjustEndpoints([
      ep('a.example.test', 'A', ['192.0.2.1'], 60),
      ep('b.example.test', 'A', ['192.0.2.1']),
      ep('c.example.test', 'A', ['192.0.2.1'], 900),
    ]);
    assert.deepEqual(
      out.map((e) => e.recordTTL),
      [300, 0, 900],
    );
  });
});

describe('rfc2136 flags', () => {
  const settings = (argv: string[], env: Record<string, string> = {}): ReturnType<typeof rfc2136Settings> =>
    rfc2136Settings(new FlagValues(parseArgs(argv, env, [...FLAGS, ...RFC2136_FLAGS]).values));
  const base = ['--rfc2136-host', '127.0.0.1', '--rfc2136-zone', 'example.test'];
  const secret = Buffer.alloc(32, 1).toString('base64');

  test('defaults: port 0 (dialled as 53), batch 50, min TTL 0, load balancing disabled as external-dns; AXFR on (unlike external-dns); empty algorithm is hmac-sha256', () => {
    const s = settings([...base, '--rfc2136-tsig-keyname', 'k', '--rfc2136-tsig-secret', secret]);
    assert.equal(s.transports[0]?.port, 53);
    assert.equal(s.batchChangeSize, 50);
    assert.equal(s.minTTL, 0);
    assert.equal(s.key?.algorithm, 'hmac-sha256');
    assert.equal(s.transports[0]?.tls, undefined);
    assert.equal(s.axfr, true);
    assert.equal(s.loadBalancing, 'disabled');
    assert.equal(settings([...base, '--rfc2136-insecure', '--rfc2136-use-tls']).transports[0]?.port, 853);
  });

  test('repeated --rfc2136-host, --rfc2136-load-balancing-strategy, --rfc2136-axfr and its deprecated spelling', () => {
    const s = settings([
      '--rfc2136-host',
      'ns1',
      '--rfc2136-host',
      'ns2',
      '--rfc2136-port',
      '5353',
      '--rfc2136-zone',
      'example.test',
      '--rfc2136-insecure',
      '--rfc2136-load-balancing-strategy',
      'round-robin',
      '--rfc2136-axfr',
    ]);
    assert.deepEqual(
      s.transports.map((t) => `${t.host}:${t.port}`),
      ['ns1:5353', 'ns2:5353'],
    );
    assert.equal(s.loadBalancing, 'round-robin');
    assert.equal(s.axfr, true);
    assert.equal(settings([...base, '--rfc2136-insecure', '--rfc2136-tsig-axfr']).axfr, true);
  });

  test('--no-rfc2136-axfr, --rfc2136-axfr=false and EXTERNAL_DNS_RFC2136_AXFR=false turn AXFR off; the deprecated spelling cannot', () => {
    const insecure = [...base, '--rfc2136-insecure'];
    assert.equal(settings([...insecure, '--no-rfc2136-axfr']).axfr, false);
    assert.equal(settings([...insecure, '--rfc2136-axfr=false']).axfr, false);
    assert.equal(settings(insecure, { EXTERNAL_DNS_RFC2136_AXFR: 'false' }).axfr, false);
    assert.equal(settings([...insecure, '--no-rfc2136-axfr', '--rfc2136-tsig-axfr']).axfr, true, 'either spelling asking for AXFR wins');
    assert.equal(settings([...insecure, '--rfc2136-tsig-axfr=false']).axfr, true);
    assert.equal(settings([...insecure, '--no-rfc2136-tsig-axfr']).axfr, true);
    assert.throws(() => settings([...base, '--rfc2136-insecure', '--rfc2136-load-balancing-strategy', 'least-used']), ConfigError);
  });

  test('--rfc2136-gss-tsig is refused with one line naming the alternatives; the kerberos flags alone are accepted', () => {
    assert.throws(
      () =>
        settings([
          ...base,
          '--rfc2136-gss-tsig',
          '--rfc2136-kerberos-realm',
          'EXAMPLE.TEST',
          '--rfc2136-kerberos-username',
          'u',
          '--rfc2136-kerberos-password',
          'pw',
        ]),
      (err: unknown) => err instanceof ConfigError && err.flag === '--rfc2136-gss-tsig' && /not implemented/.test(err.message) && !err.message.includes('pw'),
    );
    assert.equal(settings([...base, '--rfc2136-insecure', '--rfc2136-kerberos-realm', 'EXAMPLE.TEST']).key, undefined);
  });

  test('external-dns spellings of algorithms, env variables, durations', () => {
    const s = settings(
      [
        ...base,
        '--rfc2136-tsig-keyname',
        'k.',
        '--rfc2136-tsig-secret-alg',
        'hmac-md5.sig-alg.reg.int.',
        '--rfc2136-min-ttl',
        '5m',
        '--rfc2136-zone',
        'other.test',
      ],
      { EXTERNAL_DNS_RFC2136_TSIG_SECRET: secret },
    );
    assert.equal(s.key?.algorithm, 'hmac-md5');
    assert.equal(s.key?.name, 'k');
    assert.equal(s.minTTL, 300);
    assert.deepEqual(s.zones, ['example.test', 'other.test']);
    assert.equal(settings([...base, '--rfc2136-insecure']).key, undefined);
    assert.deepEqual(settings([...base, '--rfc2136-insecure', '--rfc2136-use-tls', '--rfc2136-skip-tls-verify']).transports[0]?.tls, {
      rejectUnauthorized: false,
    });
  });

  test('bad values name the flag', () => {
    const flagOf = (argv: string[]): string | undefined => {
      try {
        settings(argv);
      } catch (err) {
        assert.ok(err instanceof ConfigError);
        return err.flag;
      }
      return undefined;
    };
    assert.equal(flagOf(['--rfc2136-zone', 'example.test', '--rfc2136-insecure']), '--rfc2136-host');
    assert.equal(flagOf(['--rfc2136-host', 'h', '--rfc2136-insecure']), '--rfc2136-zone');
    assert.equal(flagOf(base), '--rfc2136-tsig-keyname');
    assert.equal(flagOf([...base, '--rfc2136-tsig-keyname', 'k']), '--rfc2136-tsig-secret');
    assert.equal(flagOf([...base, '--rfc2136-tsig-keyname', 'k', '--rfc2136-tsig-secret', 'not base64!']), '--rfc2136-tsig-secret');
    assert.equal(
      flagOf([...base, '--rfc2136-tsig-keyname', 'k', '--rfc2136-tsig-secret', secret, '--rfc2136-tsig-secret-alg', 'hmac-sha3']),
      '--rfc2136-tsig-secret-alg',
    );
    assert.equal(flagOf([...base, '--rfc2136-insecure', '--rfc2136-batch-change-size', '0']), '--rfc2136-batch-change-size');
    assert.equal(flagOf([...base, '--rfc2136-insecure', '--rfc2136-port', '70000']), '--rfc2136-port');
    assert.equal(flagOf([...base, '--rfc2136-insecure', '--rfc2136-use-tls', '--rfc2136-tls-ca', '/nonexistent/ca.pem']), '--rfc2136-tls-ca');
  });
});
