/**
 * The transfer client's network edges against scripted servers on 127.0.0.1: RCODE errors named,
 * SERVFAIL transient, a connection closed mid-stream, a silent server (timeout), the byte bound,
 * and querySoa's bounded retries and TCP fallback on truncation.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { querySoa, transferZone } from '../../src/dns/transfer/client.ts';
import { TransferError } from '../../src/dns/transfer/errors.ts';
import { RCODE_NOTAUTH, RCODE_SERVFAIL } from '../../src/dns/wire.ts';
import { message, soa } from '../support/transfer-messages.ts';

const Z = 'example.test';

/** A TCP server that answers each query with `reply(id)`'s frames, then does what `end` says. */
async function tcpServer(reply: (id: number) => Buffer[], end: 'keep' | 'close' = 'keep'): Promise<{ server: Server; port: number }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.once('data', (chunk) => {
      for (const m of reply(chunk.readUInt16BE(2))) s.write(Buffer.concat([Buffer.from([m.length >> 8, m.length & 255]), m]));
      if (end === 'close') s.end();
    });
  });
  server.on('close', () => sockets.forEach((s) => s.destroy()));
  await new Promise<void>((r) => server.listen({ host: '127.0.0.1', port: 0 }, r));
  const addr = server.address();
  return { server, port: typeof addr === 'object' && addr !== null ? addr.port : 0 };
}

function rejectsWith(p: Promise<unknown>, check: (e: TransferError) => void): Promise<void> {
  return assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof TransferError, String(err));
    check(err);
    return true;
  });
}

describe('transfer client against scripted servers', () => {
  const servers: Server[] = [];
  after(() => servers.forEach((s) => s.close()));
  const start = async (reply: (id: number) => Buffer[], end: 'keep' | 'close' = 'keep'): Promise<{ host: string; port: number }> => {
    const { server, port } = await tcpServer(reply, end);
    servers.push(server);
    return { host: '127.0.0.1', port };
  };
  const LIMITS = { timeoutMs: 2000, maxBytes: 1 << 20 };

  test('an RCODE other than NOERROR is named; SERVFAIL is transient, NOTAUTH is not', async () => {
    const notauth = await start((id) => [message([], { id, rcode: RCODE_NOTAUTH })]);
    await rejectsWith(transferZone(notauth, Z, LIMITS), (e) => {
      assert.equal(e.rcode, 'NOTAUTH');
      assert.equal(e.transient, false);
      assert.match(e.message, /^example\.test: AXFR from 127\.0\.0\.1:\d+: the server answered NOTAUTH$/);
    });
    const servfail = await start((id) => [message([], { id, rcode: RCODE_SERVFAIL })]);
    await rejectsWith(transferZone(servfail, Z, LIMITS), (e) => {
      assert.equal(e.rcode, 'SERVFAIL');
      assert.equal(e.transient, true);
    });
  });

  test('a stream cut before its closing SOA is a transient transport error', async () => {
    const cut = await start((id) => [message([soa(3), ['a.example.test', 'A', '192.0.2.1']], { id })], 'close');
    await rejectsWith(transferZone(cut, Z, LIMITS), (e) => {
      assert.equal(e.reason, 'transport');
      assert.equal(e.code, 'DNS_TRANSPORT_FAILED');
      assert.equal(e.transient, true);
    });
  });

  test('a server that never finishes times out', async () => {
    const silent = await start(() => []);
    await rejectsWith(transferZone(silent, Z, { timeoutMs: 200, maxBytes: 1 << 20 }), (e) => {
      assert.equal(e.reason, 'timeout');
      assert.equal(e.transient, true);
    });
  });

  test('maxBytes counts every message of the answer', async () => {
    const big = Array.from({ length: 200 }, (_, i): [string, string, string] => [`h${i}.example.test`, 'TXT', 'y'.repeat(200)]);
    const srv = await start((id) => [message([soa(3), ...big.slice(0, 100)], { id }), message([...big.slice(100), soa(3)], { id })]);
    const ok = await transferZone(srv, Z, LIMITS);
    assert.equal(ok.content.rrsets.length, 200);
    await rejectsWith(transferZone(srv, Z, { timeoutMs: 2000, maxBytes: ok.stats.bytes - 1 }), (e) => assert.equal(e.reason, 'too-large'));
  });

  test('an answer with a wrong message ID is refused', async () => {
    const wrong = await start((id) => [message([soa(3), soa(3)], { id: (id + 1) & 0xffff })]);
    await rejectsWith(transferZone(wrong, Z, LIMITS), (e) => assert.equal(e.reason, 'malformed'));
  });

  test('querySoa retries a lost UDP answer, and asks over TCP when the answer is truncated', async () => {
    const tcp = await start((id) => [message([soa(42)], { id })]);
    const udp = createSocket('udp4');
    let seen = 0;
    udp.on('message', (q, rinfo) => {
      seen++;
      if (seen === 1) return; // lost
      const reply = seen === 2 ? message([soa(41)], { id: q.readUInt16BE(0) }) : Buffer.from(message([], { id: q.readUInt16BE(0) }));
      if (seen === 3) reply.writeUInt16BE(reply.readUInt16BE(2) | 0x0200, 2); // TC
      udp.send(reply, rinfo.port, rinfo.address);
    });
    await new Promise<void>((r) => udp.bind({ address: '127.0.0.1', port: tcp.port }, r));
    try {
      const target = { host: '127.0.0.1', port: tcp.port };
      assert.equal((await querySoa(target, Z, { timeoutMs: 200, retries: 1 })).serial, 41);
      assert.equal((await querySoa(target, Z, { timeoutMs: 200, retries: 0 })).serial, 42);
      seen = 0;
      await rejectsWith(querySoa(target, Z, { timeoutMs: 100, retries: 0 }), (e) => assert.equal(e.reason, 'timeout'));
    } finally {
      udp.close();
    }
  });
});
