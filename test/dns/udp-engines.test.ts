/**
 * The two UDP engines (--dns-udp-engine native and dgram) answer the same key queries, the native
 * one survives random datagrams over a real socket, and in CI the native addon must have been built.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { Registry } from 'prom-client';
import { ConfigError } from '../../src/errors.ts';
import { DnsServer } from '../../src/dns/server/server.ts';
import { loadNativeUdp } from '../../src/dns/server/native/udp-native.ts';
import { silentLogger } from '../../src/log.ts';
import { dig, digAvailable } from '../support/dig.ts';
import { packet, rng } from './fuzz-packets.ts';
import { sampleZone } from './sample-zone.ts';

const built = loadNativeUdp() !== undefined;

function ipv6Loopback(): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createSocket('udp6');
    s.once('error', () => resolve(false));
    s.bind({ address: '::1', port: 0 }, () => s.close(() => resolve(true)));
  });
}

function aQuery(id: number, name: string): Buffer {
  const labels = name.split('.').flatMap((l) => [Buffer.from([l.length]), Buffer.from(l)]);
  const head = Buffer.alloc(12);
  head.writeUInt16BE(id, 0);
  head.writeUInt16BE(0x0100, 2);
  head.writeUInt16BE(1, 4);
  return Buffer.concat([head, ...labels, Buffer.from([0, 0, 1, 0, 1])]);
}

test(
  'in CI the native UDP addon is built, so CI never silently tests only the fallback',
  { skip: process.env.CI === 'true' ? false : 'only in CI (CI=true)' },
  () => {
    assert.ok(built, 'build/native/hostwarden_udp.node is missing: npm ci should have built it (bin/build-native.ts)');
  },
);

test('--dns-udp-engine: a bad value and a missing or broken addon are errors naming the flag (auto falls back); dgram never loads it', () => {
  const deps = { logger: silentLogger() };
  assert.throws(
    () => DnsServer.fromConfig({ dnsListen: ['127.0.0.1:0'], dnsUdpEngine: 'fast' }, deps),
    (e) => e instanceof ConfigError && e.flag === '--dns-udp-engine',
  );
  const missing = { listen: ['127.0.0.1:0'], logger: silentLogger(), loadNativeUdp: () => undefined };
  assert.throws(
    () => new DnsServer({ ...missing, udpEngine: 'native' }),
    (e) => e instanceof ConfigError && e.flag === '--dns-udp-engine',
  );
  assert.equal(new DnsServer({ ...missing, udpEngine: 'auto' }).udpEngine, 'dgram');
  let loaded = false;
  const dgram = new DnsServer({
    listen: ['127.0.0.1:0'],
    logger: silentLogger(),
    udpEngine: 'dgram',
    loadNativeUdp: () => {
      loaded = true;
      return undefined;
    },
  });
  assert.equal(dgram.udpEngine, 'dgram');
  assert.equal(loaded, false);
  assert.equal(DnsServer.fromConfig({ dnsListen: ['127.0.0.1:0'] }, deps).udpEngine, built ? 'native' : 'dgram');
  const broken = {
    listen: ['127.0.0.1:0'],
    logger: silentLogger(),
    loadNativeUdp: (): never => {
      throw new Error('invalid ELF header');
    },
  };
  assert.equal(new DnsServer({ ...broken, udpEngine: 'auto' }).udpEngine, 'dgram');
  assert.throws(
    () => new DnsServer({ ...broken, udpEngine: 'native' }),
    (e) => e instanceof ConfigError && e.flag === '--dns-udp-engine' && /invalid ELF header/.test(e.message),
  );
});

for (const engine of ['native', 'dgram'] as const) {
  describe(`UDP engine ${engine}`, async () => {
    const hasDig = await digAvailable();
    const hasV6 = await ipv6Loopback();
    const skip = engine === 'native' && !built ? 'native addon not built (npm run build:native)' : hasDig ? false : 'dig not installed';
    const metrics = new Registry();
    let server: DnsServer | undefined;
    let port = 0;
    let port6 = 0;

    before(async () => {
      if (skip !== false) return;
      const listen = hasV6 ? ['127.0.0.1:0', '[::1]:0'] : ['127.0.0.1:0'];
      server = new DnsServer({ listen, udpEngine: engine, logger: silentLogger(), metrics });
      server.zoneChanged(sampleZone());
      const { addresses } = await server.start();
      port = addresses[0]?.udp.port ?? 0;
      port6 = addresses[1]?.udp.port ?? 0;
      assert.equal(server.udpEngine, engine);
    });

    after(async () => {
      await server?.stop();
    });

    test('A, CNAME chain, long TXT, NXDOMAIN, REFUSED', { skip }, async () => {
      const a = await dig(port, ['+notcp', 'www.example.test', 'A']);
      assert.equal(a.status, 'NOERROR');
      assert.ok(a.flags.includes('aa'));
      assert.deepEqual(a.answer.sort(), ['www.example.test. 60 IN A 192.0.2.1', 'www.example.test. 60 IN A 192.0.2.2']);
      const chain = await dig(port, ['alias2.example.test', 'A']);
      assert.deepEqual(chain.answer.slice(0, 2), [
        'alias2.example.test. 120 IN CNAME alias.example.test.',
        'alias.example.test. 120 IN CNAME www.example.test.',
      ]);
      assert.equal(chain.answer.length, 4);
      const txt = await dig(port, ['long.example.test', 'TXT']);
      assert.match(txt.answer.find((l) => l.includes('xxx')) ?? '', /"x{255}" "x{45}"$/);
      const nx = await dig(port, ['nothing.example.test', 'A']);
      assert.equal(nx.status, 'NXDOMAIN');
      assert.match(nx.authority[0] ?? '', /SOA/);
      assert.equal((await dig(port, ['www.example.org', 'A'])).status, 'REFUSED');
    });

    test('TC over UDP, then dig retries over TCP', { skip }, async () => {
      const udp = await dig(port, ['+ignore', 'big.example.test', 'TXT']);
      assert.ok(udp.flags.includes('tc'));
      const full = await dig(port, ['big.example.test', 'TXT']);
      assert.ok(full.retriedTcp);
      assert.equal(full.answer.length, 40);
    });

    test('IPv6 (::1)', { skip: skip !== false ? skip : hasV6 ? false : 'no ::1' }, async () => {
      const r = await dig(port6, ['www.example.test', 'AAAA'], '::1');
      assert.deepEqual(r.answer, ['www.example.test. 60 IN AAAA 2001:db8::1']);
    });

    test('many clients at once: every query is answered with its own ID', { skip }, async () => {
      // Several source sockets, bursts of queries: replies must go back to the right peer.
      const socks = Array.from({ length: 4 }, () => createSocket('udp4'));
      const got = new Map<number, number>();
      try {
        await Promise.all(socks.map((s) => new Promise<void>((r) => s.bind({ address: '127.0.0.1', port: 0 }, () => r()))));
        const done = new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 5000);
          socks.forEach((s, k) =>
            s.on('message', (m) => {
              got.set(m.readUInt16BE(0), k);
              if (got.size === 400) {
                clearTimeout(timer);
                resolve();
              }
            }),
          );
        });
        for (let i = 0; i < 400; i++) socks[i % 4]?.send(aQuery(i, 'www.example.test'), port, '127.0.0.1');
        await done;
        assert.equal(got.size, 400);
        for (const [id, k] of got) assert.equal(k, id % 4, `reply ${id} went to the socket that asked`);
      } finally {
        for (const s of socks) s.close();
      }
    });

    test('metrics count the queries of both engines alike', { skip }, async () => {
      const text = await metrics.metrics();
      assert.match(text, /hostwarden_dns_queries_total\{rcode="NOERROR",qtype="A",transport="udp"\} \d+/);
      assert.match(text, /hostwarden_dns_queries_total\{rcode="NXDOMAIN",qtype="A",transport="udp"\} \d+/);
      assert.match(text, /hostwarden_dns_query_duration_seconds_count [1-9]\d*/);
      assert.match(text, /hostwarden_dns_udp_replies_dropped_total 0/);
    });
  });
}

test(
  'native engine: random and mutated datagrams over UDP never stop it answering',
  { skip: built ? false : 'native addon not built', timeout: 60_000 },
  async () => {
    const server = new DnsServer({ listen: ['127.0.0.1:0'], udpEngine: 'native', logger: silentLogger() });
    server.zoneChanged(sampleZone());
    // Replies to a burst arrive together: small bursts and a large receive buffer (where the kernel
    // allows it) keep this client from dropping them.
    const sock = createSocket({ type: 'udp4', recvBufferSize: 4 << 20 });
    try {
      const port = (await server.start()).addresses[0]?.udp.port ?? 0;
      await new Promise<void>((r) => sock.bind({ address: '127.0.0.1', port: 0 }, () => r()));
      const r = rng(20261122);
      let replies = 0;
      sock.on('message', () => replies++);
      // Bounded bursts so the socket buffers never overflow; plus an oversized and an empty datagram.
      for (let burst = 0; burst < 200; burst++) {
        for (let i = 0; i < 50; i++) sock.send(packet(r), port, '127.0.0.1');
        await new Promise((res) => setTimeout(res, 5));
      }
      sock.send(Buffer.alloc(60_000, 0xff), port, '127.0.0.1');
      sock.send(Buffer.alloc(0), port, '127.0.0.1');
      const answer = await new Promise<Buffer | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), 5000);
        sock.on('message', (m) => {
          if (m.readUInt16BE(0) !== 0xbeef) return;
          clearTimeout(timer);
          resolve(m);
        });
        sock.send(aQuery(0xbeef, 'www.example.test'), port, '127.0.0.1');
      });
      assert.ok(answer !== undefined, 'the server still answers after 10k random datagrams');
      assert.equal(answer.readUInt16BE(6), 2);
      // The same seed through the Responder alone (src/dns/fuzz.test.ts) answers about 80%.
      assert.ok(replies > 5000, `only ${replies} replies to the fuzz datagrams`);
    } finally {
      sock.close();
      await server.stop();
    }
  },
);
