/** --dns-workers with the native UDP engine: every worker binds its own SO_REUSEPORT socket. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { Registry } from 'prom-client';
import { DnsServer } from '../../src/dns/server/server.ts';
import { loadNativeUdp } from '../../src/dns/server/native/udp-native.ts';
import { silentLogger } from '../../src/log.ts';
import { dig, digAvailable } from '../support/dig.ts';
import { sampleZone } from './sample-zone.ts';

/** An A query for `name` with id `id`. */
function aQuery(id: number, name = 'www.example.test'): Buffer {
  const labels = name.split('.').flatMap((l) => [l.length, ...Buffer.from(l)]);
  const head = Buffer.alloc(12);
  head.writeUInt16BE(id, 0);
  head.writeUInt16BE(0x0100, 2);
  head.writeUInt16BE(1, 4);
  return Buffer.concat([head, Buffer.from([...labels, 0, 0, 1, 0, 1])]);
}

/** One query from `sock`; resolves with the reply, or undefined after a second. */
function exchange(sock: Socket, port: number, id: number, name?: string): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      sock.off('message', on);
      resolve(undefined);
    }, 1000);
    const on = (m: Buffer): void => {
      if (m.readUInt16BE(0) !== id) return;
      clearTimeout(timer);
      sock.off('message', on);
      resolve(m);
    };
    sock.on('message', on);
    sock.send(aQuery(id, name), port, '127.0.0.1');
  });
}

/** The answer count of one query, or -1 without a reply. */
async function ask(sock: Socket, port: number, id: number): Promise<number> {
  return (await exchange(sock, port, id))?.readUInt16BE(6) ?? -1;
}

/** The rcode of one A query for `name`, or -1 without a reply. */
async function rcodeOf(sock: Socket, port: number, id: number, name: string): Promise<number> {
  const reply = await exchange(sock, port, id, name);
  return reply === undefined ? -1 : reply.readUInt16BE(2) & 0x0f;
}

const skip = loadNativeUdp() === undefined ? 'native addon not built' : false;

test('two native workers both receive UDP queries from different source ports; TCP still works', { skip, timeout: 60_000 }, async () => {
  const metrics = new Registry();
  const server = new DnsServer({ listen: ['127.0.0.1:0'], workers: 2, udpEngine: 'native', logger: silentLogger(), metrics });
  server.zoneChanged(sampleZone());
  // The kernel picks a socket by hashing the 4-tuple: 16 source ports all landing on one of two
  // workers has a chance of 2^-15.
  const socks = Array.from({ length: 16 }, () => createSocket('udp4'));
  try {
    const port = (await server.start()).addresses[0]?.udp.port ?? 0;
    await Promise.all(socks.map((s) => new Promise<void>((r) => s.bind({ address: '127.0.0.1', port: 0 }, () => r()))));
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(socks.map((s, k) => ask(s, port, round * 100 + k)));
      assert.deepEqual(
        answers,
        socks.map(() => 2),
      );
    }
    if (await digAvailable()) assert.equal((await dig(port, ['+tcp', 'www.example.test', 'A'])).answer.length, 2);
    // Workers ship their counters once a second.
    let perWorker: number[] = [];
    for (let i = 0; i < 50 && !(perWorker.length === 2 && perWorker.every((n) => n > 0)); i++) {
      await new Promise((r) => setTimeout(r, 100));
      perWorker = server.workerQueries();
    }
    assert.equal(perWorker.length, 2);
    assert.ok(
      perWorker.every((n) => n > 0),
      `queries per worker: ${perWorker.join(', ')}`,
    );
    assert.ok(perWorker.reduce((a, b) => a + b, 0) >= 48);
    assert.match(await metrics.metrics(), /hostwarden_dns_queries_total\{rcode="NOERROR",qtype="A",transport="udp"\} [1-9]/);
  } finally {
    for (const s of socks) s.close();
    await server.stop();
  }
});

test('workers answer a zone given before start from the first query on (never REFUSED while it loads)', { skip, timeout: 60_000 }, async () => {
  // Big enough that loading it takes a while in each worker.
  const zone = sampleZone();
  for (let i = 0; i < 20_000; i++) zone.rrsets.push({ name: `h${i}.example.test`, type: 'A', ttl: 300, rdata: [`10.0.${(i >> 8) & 255}.${i & 255}`] });
  const server = new DnsServer({ listen: ['127.0.0.1:0'], workers: 2, udpEngine: 'native', logger: silentLogger() });
  server.zoneChanged(zone);
  const socks = Array.from({ length: 16 }, () => createSocket('udp4'));
  try {
    await Promise.all(socks.map((s) => new Promise<void>((r) => s.bind({ address: '127.0.0.1', port: 0 }, () => r()))));
    const port = (await server.start()).addresses[0]?.udp.port ?? 0;
    const rcodes = await Promise.all(socks.map((s, k) => rcodeOf(s, port, 500 + k, 'h19999.example.test')));
    assert.deepEqual(
      rcodes,
      socks.map(() => 0),
      'NOERROR from every worker',
    );
  } finally {
    for (const s of socks) s.close();
    await server.stop();
  }
});

test('a zone change reaches every worker past its packet cache: no stale answer on the next query', { skip, timeout: 60_000 }, async () => {
  const server = new DnsServer({ listen: ['127.0.0.1:0'], workers: 2, udpEngine: 'native', logger: silentLogger() });
  server.zoneChanged(sampleZone());
  const socks = Array.from({ length: 16 }, () => createSocket('udp4'));
  try {
    await Promise.all(socks.map((s) => new Promise<void>((r) => s.bind({ address: '127.0.0.1', port: 0 }, () => r()))));
    const port = (await server.start()).addresses[0]?.udp.port ?? 0;
    // Twice from every socket: the second round is answered from each worker's packet cache.
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all(socks.map((s, k) => ask(s, port, 700 + round * 100 + k)));
      assert.deepEqual(
        answers,
        socks.map(() => 2),
      );
    }
    const zone = sampleZone('example.test', 2);
    zone.rrsets = zone.rrsets.filter((r) => r.name !== 'www.example.test');
    zone.rrsets.push({ name: 'www.example.test', type: 'A', ttl: 60, rdata: ['192.0.2.9'] });
    await server.zoneChanged(zone);
    const answers = await Promise.all(socks.map((s, k) => ask(s, port, 900 + k)));
    assert.deepEqual(
      answers,
      socks.map(() => 1),
      'the new content from every worker',
    );
  } finally {
    for (const s of socks) s.close();
    await server.stop();
  }
});
