/**
 * The native packet cache (udp.c): real sockets on 127.0.0.1, a real Responder. What it answers
 * must be byte for byte what JS would have answered, and a zone change must show on the next query.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { Registry } from 'prom-client';
import { mutated, rng, validQuery } from '../../../../test/dns/fuzz-packets.ts';
import { udpExchange } from '../../../../test/support/udp.ts';
import { sampleZone } from '../../../../test/dns/sample-zone.ts';
import { silentLogger } from '../../../log.ts';
import { sign } from '../../tsig.ts';
import type { TsigKey } from '../../tsig.ts';
import { DnsMetrics, QueryCounters } from '../metrics.ts';
import { Responder } from '../responder.ts';
import { NativeUdpSocket, loadNativeUdp, packetCacheOptions } from './udp-native.ts';
import type { NativeUdpAddon } from './udp-native.ts';

const addon = loadNativeUdp();
const skip = addon === undefined ? 'native addon not built (npm run build:native)' : false;
const KEY: TsigKey = { name: 'k.', algorithm: 'hmac-sha256', secret: Buffer.from('secret-secret-secret') };

/** A query for `name` (case as given) and `qtype`, RD set; `opt` appends an OPT record with that rdata. */
function query(id: number, name: string, qtype = 1, opt?: Buffer): Buffer {
  const labels = name.split('.').flatMap((l) => [l.length, ...Buffer.from(l)]);
  const head = Buffer.alloc(12);
  head.writeUInt16BE(id, 0);
  head.writeUInt16BE(0x0100, 2);
  head.writeUInt16BE(1, 4);
  head.writeUInt16BE(opt === undefined ? 0 : 1, 10);
  const question = Buffer.from([...labels, 0, qtype >> 8, qtype & 255, 0, 1]);
  if (opt === undefined) return Buffer.concat([head, question]);
  const rr = Buffer.alloc(11);
  rr.writeUInt16BE(41, 1);
  rr.writeUInt16BE(1232, 3);
  rr.writeUInt16BE(opt.length, 9);
  return Buffer.concat([head, question, rr, opt]);
}

/** An EDNS cookie option (RFC 7873): 8 bytes of client cookie. */
const COOKIE = Buffer.from([0, 10, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8]);

describe('native packet cache', { skip }, () => {
  const a = addon as NativeUdpAddon;
  let responder: Responder;
  let counters: QueryCounters;
  let sock: NativeUdpSocket;
  /** A reference answer from the Responder alone (what JS writes), for byte comparison. */
  const reference = (msg: Buffer): Buffer | undefined => {
    const r = responder.handle(msg, 'udp', '127.0.0.1');
    return Array.isArray(r) ? r[0] : r;
  };
  const ask = async (msg: Buffer): Promise<Buffer> => {
    const reply = await udpExchange(sock.port, msg);
    assert.ok(reply !== undefined, 'a reply');
    return reply;
  };

  beforeEach(() => {
    responder = new Responder({ logger: silentLogger(), tsigKeys: [KEY] });
    responder.setZone(sampleZone());
    counters = new QueryCounters();
    sock = new NativeUdpSocket(a, { host: '127.0.0.1', port: 0, reusePort: false, responder, counters, packetCache: packetCacheOptions(1024) });
  });
  afterEach(() => sock.close());

  test('a repeated query is answered from the cache with its own ID and name case (0x20)', async () => {
    const first = await ask(query(1, 'www.example.test'));
    assert.equal(sock.stats().cacheHits, 0);
    assert.equal(sock.stats().cacheEntries, 1);
    const mixed = query(0xbeef, 'wWw.ExAmPle.TEST');
    const second = await ask(mixed);
    assert.equal(sock.stats().cacheHits, 1);
    assert.equal(second.readUInt16BE(0), 0xbeef);
    assert.deepEqual(second, reference(mixed), 'byte for byte what JS answers');
    assert.equal(second.subarray(12, 12 + 18).toString('latin1'), mixed.subarray(12, 12 + 18).toString('latin1'));
    assert.equal(second.readUInt16BE(6), first.readUInt16BE(6));
    // NXDOMAIN answers from the zone are cached too.
    await ask(query(2, 'nothere.example.test'));
    const nx = await ask(query(3, 'NotHere.example.test'));
    assert.equal(nx.readUInt16BE(2) & 0xf, 3);
    assert.equal(sock.stats().cacheHits, 2);
  });

  test('a zone change is answered on the very next query, never from the cache', async () => {
    await ask(query(1, 'www.example.test'));
    assert.equal((await ask(query(2, 'www.example.test'))).readUInt16BE(6), 2);
    assert.equal(sock.stats().cacheHits, 1);
    const zone = sampleZone();
    zone.rrsets = zone.rrsets.filter((r) => !r.name.startsWith('www.'));
    zone.rrsets.push({ name: 'www.example.test', type: 'A', ttl: 60, rdata: ['192.0.2.9'] });
    responder.setZone(zone);
    assert.equal(sock.stats().cacheEntries, 0);
    const after = await ask(query(3, 'www.example.test'));
    assert.equal(after.readUInt16BE(6), 1);
    assert.deepEqual([...after.subarray(after.length - 4)], [192, 0, 2, 9]);
    responder.removeZone('example.test');
    assert.equal((await ask(query(4, 'www.example.test'))).readUInt16BE(2) & 0xf, 5, 'REFUSED once the zone is gone');
    assert.equal(sock.stats().cacheHits, 1);
  });

  test('TSIG, EDNS options, AXFR/IXFR, ANY, truncated and REFUSED answers are never cached', async () => {
    const signed = sign(query(1, 'www.example.test'), KEY, Date.now() / 1000).message;
    const never = [
      signed,
      query(2, 'www.example.test', 1, COOKIE),
      query(3, 'example.test', 252),
      query(4, 'example.test', 251),
      query(5, 'www.example.test', 255),
      query(6, 'big.example.test', 16),
      query(7, 'www.example.org'),
    ];
    for (const msg of never) {
      for (let k = 0; k < 2; k++) {
        const reply = await ask(msg);
        assert.equal(reply.readUInt16BE(0), msg.readUInt16BE(0));
      }
    }
    assert.equal(sock.stats().cacheHits, 0);
    assert.equal(sock.stats().cacheEntries, 0);
    // EDNS without options is cached (the OPT record is part of the key).
    const plainOpt = query(8, 'www.example.test', 1, Buffer.alloc(0));
    await ask(plainOpt);
    assert.deepEqual(await ask(plainOpt), reference(plainOpt));
    assert.equal(sock.stats().cacheHits, 1);
  });

  test('hits are counted in the query metrics by rcode and qtype, like JS answers', async () => {
    for (let i = 0; i < 5; i++) await ask(query(10 + i, 'www.example.test'));
    for (let i = 0; i < 3; i++) await ask(query(20 + i, 'nothere.example.test', 28));
    assert.equal(sock.stats().cacheHits, 6);
    sock.takeHits();
    const snapshot = counters.snapshot();
    const counts = new Map(snapshot.queries);
    assert.equal(counts.get(counters.slotOf(0, 1, false)), 5);
    assert.equal(counts.get(counters.slotOf(3, 28, false)), 3);
    assert.equal(snapshot.packetCacheHits, 6);
    assert.equal(snapshot.packetCacheMisses, 2);
    const registry = new Registry();
    const metrics = new DnsMetrics(registry);
    metrics.merge(snapshot);
    const text = await registry.metrics();
    assert.match(text, /hostwarden_dns_queries_total\{rcode="NOERROR",qtype="A",transport="udp"\} 5/);
    assert.match(text, /hostwarden_dns_queries_total\{rcode="NXDOMAIN",qtype="AAAA",transport="udp"\} 3/);
    assert.match(text, /hostwarden_dns_packet_cache_queries_total\{result="hit"\} 6/);
    assert.match(text, /hostwarden_dns_packet_cache_queries_total\{result="miss"\} 2/);
  });

  test('fuzz: 2,000 random and mutated queries, each sent again with a new ID and flipped case: every reply is what JS answers', async () => {
    const r = rng(20261126);
    const client = createSocket('udp4');
    await new Promise<void>((res) => client.bind({ address: '127.0.0.1', port: 0 }, () => res()));
    const replies: Buffer[] = [];
    client.on('message', (m) => replies.push(m));
    /** Sends one message and waits (bounded) for its single reply. */
    const exchange = async (msg: Buffer): Promise<Buffer | undefined> => {
      replies.length = 0;
      client.send(msg, sock.port, '127.0.0.1');
      for (let i = 0; i < 200 && replies.length === 0; i++) await new Promise((res) => setImmediate(res));
      for (let i = 0; i < 50 && replies.length === 0; i++) await new Promise((res) => setTimeout(res, 2));
      return replies[0];
    };
    const failures: string[] = [];
    try {
      for (let i = 0; i < 2000 && failures.length < 5; i++) {
        const first = r(4) === 0 ? mutated(r) : validQuery(r);
        const again = Buffer.from(first);
        if (again.length >= 2) again.writeUInt16BE(r(65536), 0);
        for (let k = 12; k < again.length; k++) if (r(2) === 0 && /[a-zA-Z]/.test(String.fromCharCode(again[k] ?? 0))) again[k] = (again[k] ?? 0) ^ 0x20;
        for (const msg of [first, again]) {
          const want = reference(msg);
          if (want === undefined || msg.length === 0) continue;
          const got = await exchange(msg);
          if (got === undefined || !got.equals(want)) failures.push(`${msg.toString('hex')}: got ${got?.toString('hex')}, want ${want.toString('hex')}`);
        }
      }
    } finally {
      client.close();
    }
    assert.deepEqual(failures, []);
    assert.ok(sock.stats().cacheHits > 200, `${sock.stats().cacheHits} hits`);
  });

  test('an addon built before the packet cache (no cache()) still serves, without one', async () => {
    sock.close();
    const { cache: _cache, flush: _flush, ...older } = a;
    sock = new NativeUdpSocket(older as NativeUdpAddon, {
      host: '127.0.0.1',
      port: 0,
      reusePort: false,
      responder,
      counters,
      packetCache: packetCacheOptions(1024),
    });
    for (let i = 0; i < 3; i++) assert.equal((await ask(query(i, 'www.example.test'))).readUInt16BE(6), 2);
    assert.equal(sock.stats().cacheHits, 0);
  });

  test('packet cache size 0 leaves every answer to JS', async () => {
    sock.close();
    sock = new NativeUdpSocket(a, { host: '127.0.0.1', port: 0, reusePort: false, responder, counters, packetCache: packetCacheOptions(0) });
    for (let i = 0; i < 3; i++) await ask(query(i, 'www.example.test'));
    assert.equal(sock.stats().cacheHits, 0);
    assert.equal(sock.stats().cacheEntries, 0);
  });
});
