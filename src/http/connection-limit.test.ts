/**
 * The connection guard against real listeners on 127.0.0.1: floods of idle connections beyond the
 * cap, connections that never start TLS or never send a request, and a normal client that must
 * still be answered. Timeouts are short here; the defaults are seconds.
 */
import { idleConnections } from '../../test/support/idle-connections.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { get as httpGet } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { Registry } from 'prom-client';
import { selfSignedCertificate } from './tls.ts';
import { silentLogger } from '../log.ts';
import { opensslUnavailable } from '../../test/support/tls.ts';
import { connectionLimits, httpServerOptions } from './connection-limit.ts';
import { HttpsServer } from './https-server.ts';
import { OpsServer } from './ops-server.ts';
import type { OpsServerOptions } from './ops-server.ts';

const skipTls = (await opensslUnavailable()) ?? false;

function httpStatus(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpGet({ host: '127.0.0.1', port, path, agent: false, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
  });
}

function httpsStatus(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path, rejectUnauthorized: false, agent: false, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
    req.end();
  });
}

/** Milliseconds until the peer closes `socket`, or Infinity after `limitMs`. */
function closedWithin(socket: Socket, limitMs: number): Promise<number> {
  const started = Date.now();
  socket.resume();
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(Number.POSITIVE_INFINITY), limitMs);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
}

async function until(pred: () => boolean, limitMs: number): Promise<boolean> {
  for (let waited = 0; waited < limitMs && !pred(); waited += 20) await new Promise((r) => setTimeout(r, 20));
  return pred();
}

async function opsServer(limits: OpsServerOptions['limits']): Promise<{ ops: OpsServer; port: number }> {
  const ops = new OpsServer({
    host: '127.0.0.1',
    port: 0,
    metrics: new Registry(),
    logger: silentLogger(),
    health: () => ({ ok: true, detail: 'ok' }),
    limits,
  });
  return { ops, port: (await ops.start()).port };
}

describe('connection limits on the metrics server: a flood of idle connections', () => {
  test('300 idle connections beyond a cap of 32: open connections stay at the cap and a normal client is answered', async () => {
    // Long timeouts: the flood stays open, so only eviction can make room.
    const { ops, port } = await opsServer({ maxConnections: 32, headersTimeoutMs: 60_000, idleTimeoutMs: 60_000 });
    const flood = await idleConnections(port, 300);
    try {
      assert.ok(await until(() => flood.closed() >= 300 - 32, 2000), `closed by the server: ${flood.closed()}`);
      assert.equal(ops.connections, 32);
      for (let i = 0; i < 5; i++) assert.deepEqual(await httpStatus(port, '/healthz'), { status: 200, body: 'ok\n' });
      assert.deepEqual(await httpStatus(port, '/readyz'), { status: 200, body: 'ok\n' });
      assert.ok(ops.connections <= 32, `open: ${ops.connections}`);
      // The first client displaced the longest-idle flood connection; later ones took the place it left.
      assert.ok(await until(() => flood.closed() >= 300 - 32 + 1, 2000), `closed by the server: ${flood.closed()}`);
      assert.ok(flood.closed() <= 300 - 32 + 6, `closed by the server: ${flood.closed()}`);
      assert.equal(flood.sockets.slice(-20).filter((sock) => sock.destroyed).length, 0, 'the newest flood connections were closed before older ones');
    } finally {
      for (const sock of flood.sockets) sock.destroy();
      await ops.stop();
    }
  });
});

describe('connection limits on the metrics server: timeouts', () => {
  let ops: OpsServer;
  let port: number;

  before(async () => {
    ({ ops, port } = await opsServer({ maxConnections: 32, headersTimeoutMs: 400, idleTimeoutMs: 400 }));
  });
  after(async () => {
    await ops.stop();
  });

  test('a connection that never sends a request is closed after the headers timeout', async () => {
    const s = connect(port, '127.0.0.1');
    s.on('error', () => undefined);
    const ms = await closedWithin(s, 3000);
    assert.ok(ms >= 300 && ms < 3000, `closed after ${ms} ms`);
  });

  test('a kept-alive connection with no further request is closed after the idle timeout', async () => {
    const s = connect(port, '127.0.0.1');
    s.on('error', () => undefined);
    let answer = '';
    s.on('data', (c: Buffer) => (answer += c.toString()));
    await new Promise<void>((resolve) => s.on('connect', () => resolve()));
    s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const ms = await closedWithin(s, 3000);
    assert.match(answer, /^HTTP\/1\.1 200/);
    assert.ok(ms < 3000, `closed after ${ms} ms`);
  });
});

describe('connection limits when every connection is busy', () => {
  test('a new connection is refused rather than evicting one with a request in flight', async () => {
    const { createServer } = await import('node:http');
    const { ConnectionGuard } = await import('./connection-limit.ts');
    const limits = connectionLimits({ maxConnections: 2, headersTimeoutMs: 2000, idleTimeoutMs: 2000 });
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const server = createServer(httpServerOptions(limits), (_req, res) => void held.then(() => res.end('done')));
    const guard = new ConnectionGuard(server, limits, silentLogger());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const slow = [httpStatus(port, '/a'), httpStatus(port, '/b')];
      assert.ok(await until(() => guard.size === 2, 2000));
      await new Promise((r) => setTimeout(r, 50));
      const third = connect(port, '127.0.0.1');
      third.on('error', () => undefined);
      assert.ok((await closedWithin(third, 2000)) < 2000, 'the third connection was not refused');
      assert.equal(guard.counts.refused, 1);
      release();
      assert.deepEqual(
        (await Promise.all(slow)).map((r) => r.body),
        ['done', 'done'],
      );
    } finally {
      release();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('connection limits on an HTTPS webhook', { skip: skipTls }, () => {
  let server: HttpsServer;
  let port: number;

  before(async () => {
    server = new HttpsServer({
      tls: await selfSignedCertificate(['127.0.0.1']),
      logger: silentLogger(),
      name: 'test webhook',
      limits: { maxConnections: 16, handshakeTimeoutMs: 300, headersTimeoutMs: 2000, idleTimeoutMs: 2000 },
      handle: async (_req, res) => void res.writeHead(204).end(),
    });
    port = (await server.start('127.0.0.1', 0)).port;
  });
  after(async () => {
    await server.stop();
  });

  test('a connection that never starts TLS is closed within the handshake timeout, not 120 s', async () => {
    const s = connect(port, '127.0.0.1');
    s.on('error', () => undefined);
    const ms = await closedWithin(s, 5000);
    assert.ok(ms >= 200 && ms < 2000, `closed after ${ms} ms`);
  });

  test('a connection that stops halfway through the handshake is closed too', async () => {
    const s = connect(port, '127.0.0.1');
    s.on('error', () => undefined);
    await new Promise<void>((resolve) => s.on('connect', () => resolve()));
    // The first bytes of a TLS record header (handshake, TLS 1.0 record version), then nothing.
    s.write(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x40, 0x01]));
    const ms = await closedWithin(s, 5000);
    assert.ok(ms < 2000, `closed after ${ms} ms`);
  });

  test('200 connections that never start TLS, beyond a cap of 16: a normal client is answered', async () => {
    const flood = await idleConnections(port, 200);
    try {
      for (let i = 0; i < 3; i++) assert.equal(await httpsStatus(port, '/healthz'), 200);
      assert.equal(await httpsStatus(port, '/review'), 204);
      assert.ok(server.connections <= 16, `open: ${server.connections}`);
    } finally {
      for (const s of flood.sockets) s.destroy();
    }
  });
});
