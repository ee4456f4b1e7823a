import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import type { Socket as UdpSocket } from 'node:dgram';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { DnsTransportError, NetworkTransport, UDP_LIMIT } from './transport.ts';

/** A UDP and a TCP listener on the same port of 127.0.0.1; records which protocol each request used. */
async function fakeServer(
  udpReply: (req: Buffer) => Buffer | undefined,
  tcpReplies: (req: Buffer) => Buffer[],
): Promise<{ port: number; seen: string[]; close: () => Promise<void> }> {
  const seen: string[] = [];
  for (let attempt = 0; attempt < 20; attempt++) {
    const udp: UdpSocket = createSocket('udp4');
    const port = await new Promise<number>((resolve) => udp.bind(0, '127.0.0.1', () => resolve(udp.address().port)));
    const tcp: Server = createServer((sock) => {
      let buf = Buffer.alloc(0);
      sock.on('data', (d: Buffer) => {
        buf = Buffer.concat([buf, d]);
        if (buf.length < 2 || buf.length < 2 + buf.readUInt16BE(0)) return;
        const req = buf.subarray(2, 2 + buf.readUInt16BE(0));
        seen.push(`tcp:${req.length}`);
        for (const r of tcpReplies(req)) {
          const len = Buffer.alloc(2);
          len.writeUInt16BE(r.length);
          // Split each frame in two writes, as a real network may.
          sock.write(Buffer.concat([len, r.subarray(0, 3)]));
          sock.write(r.subarray(3));
        }
      });
      sock.on('error', () => undefined);
    });
    const ok = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!ok) {
      udp.close();
      continue;
    }
    udp.on('message', (msg, rinfo) => {
      seen.push(`udp:${msg.length}`);
      const r = udpReply(msg);
      if (r !== undefined) udp.send(r, rinfo.port, rinfo.address);
    });
    const close = async (): Promise<void> => {
      udp.close();
      await new Promise<void>((r) => tcp.close(() => r()));
    };
    return { port, seen, close };
  }
  throw new Error('no free port');
}

function request(size: number, id = 0x4242): Buffer {
  const b = Buffer.alloc(size);
  b.writeUInt16BE(id, 0);
  return b;
}

function reply(req: Buffer, flags: number, extra = 0): Buffer {
  const r = Buffer.alloc(12 + extra);
  req.copy(r, 0, 0, 2);
  r.writeUInt16BE(0x8000 | flags, 2);
  return r;
}

describe('NetworkTransport', () => {
  test('small requests use UDP; a truncated answer is retried over TCP', async () => {
    const srv = await fakeServer(
      (req) => reply(req, 0x0200),
      (req) => [reply(req, 0, 100)],
    );
    try {
      const t = new NetworkTransport({ host: '127.0.0.1', port: srv.port, timeoutMs: 2000 });
      const answer = await t.exchange(request(40));
      assert.equal(answer.length, 112);
      assert.deepEqual(srv.seen, ['udp:40', 'tcp:40']);
    } finally {
      await srv.close();
    }
  });

  test('requests larger than a UDP datagram go straight to TCP', async () => {
    const srv = await fakeServer(
      () => undefined,
      (req) => [reply(req, 0)],
    );
    try {
      const t = new NetworkTransport({ host: '127.0.0.1', port: srv.port, timeoutMs: 2000 });
      await t.exchange(request(UDP_LIMIT + 1));
      assert.deepEqual(srv.seen, [`tcp:${UDP_LIMIT + 1}`]);
    } finally {
      await srv.close();
    }
  });

  test('UDP answers with another ID are ignored; silence is a transient timeout', async () => {
    const srv = await fakeServer(
      (req) => reply(request(12, req.readUInt16BE(0) ^ 1), 0),
      () => [],
    );
    try {
      const t = new NetworkTransport({ host: '127.0.0.1', port: srv.port, timeoutMs: 300 });
      await assert.rejects(t.exchange(request(20)), (err: unknown) => err instanceof DnsTransportError && err.transient && /timeout/.test(err.message));
    } finally {
      await srv.close();
    }
  });

  test('transfers stream frames until the consumer says done, across split reads', async () => {
    const srv = await fakeServer(
      () => undefined,
      (req) => [reply(req, 0, 1), reply(req, 0, 2), reply(req, 0, 3)],
    );
    try {
      const t = new NetworkTransport({ host: '127.0.0.1', port: srv.port, timeoutMs: 2000 });
      const sizes: number[] = [];
      await t.transfer(request(30), (m) => {
        sizes.push(m.length);
        return sizes.length === 3;
      });
      assert.deepEqual(sizes, [13, 14, 15]);
      // A transfer that never completes is an error, not a short zone.
      await assert.rejects(
        t.transfer(request(30), () => false),
        (err: unknown) => err instanceof DnsTransportError,
      );
    } finally {
      await srv.close();
    }
  });
});
