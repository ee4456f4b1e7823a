/**
 * Issue 16, item 4 (DNS TCP): slow clients must not hold every TCP slot. The real process runs
 * with short limits set by flags: a flood of connections that never complete a message fills the
 * cap, and a normal client is still answered (the connection idle longest is closed for it); a
 * client trickling a byte at a time is closed after the idle timeout although it keeps sending.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHostwarden } from '../support/hostwarden-process.ts';
import type { RunningHostwarden } from '../support/hostwarden-process.ts';
import { loadBalancerService } from '../support/manifests.ts';
import { aQuery } from '../support/udp-prober.ts';

const CAP = 20;

function open(port: number): Promise<{ socket: Socket; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('error', () => {});
    const closed = new Promise<number>((r) => socket.on('close', () => r(performance.now())));
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

/** One framed query on a new connection; resolves with the reply's answer count, or -1 after `ms`. */
async function tcpQuery(port: number, name: string, ms = 5000): Promise<number> {
  const { socket } = await open(port);
  const q = aQuery(7, name);
  const framed = Buffer.concat([Buffer.from([q.length >> 8, q.length & 255]), q]);
  return new Promise((resolve) => {
    let got = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(-1);
    }, ms);
    socket.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (got.length >= 2 && got.length >= 2 + got.readUInt16BE(0)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(got.readUInt16BE(2 + 6));
      }
    });
    socket.write(framed);
  });
}

async function serve(root: string, idleTimeout: string): Promise<RunningHostwarden> {
  const manifests = join(root, 'manifests');
  await mkdir(manifests, { recursive: true });
  await writeFile(join(manifests, 'web.yaml'), loadBalancerService('web', 'www.example.org', '192.0.2.1'));
  const hw = await startHostwarden([
    '--manifests-dir',
    manifests,
    '--embedded-data-dir',
    join(root, 'data'),
    '--embedded-zone',
    'example.org',
    '--dns-tcp-max-connections',
    String(CAP),
    '--dns-tcp-idle-timeout',
    idleTimeout,
  ]);
  await hw.waitForLog((l) => l['msg'] === 'changes committed to zone files');
  return hw;
}

async function metric(hw: RunningHostwarden, reason: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${hw.metricsPort}/metrics`)).text();
  return Number(new RegExp(`hostwarden_dns_tcp_connections_closed_total\\{reason="${reason}"\\} (\\d+)`).exec(text)?.[1] ?? NaN);
}

describe('DNS TCP connection limits (real process)', () => {
  let root = '';
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'hw-dns-tcp-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test('a flood of slow connections up to the cap: a normal client is answered, the oldest slow one closed', { timeout: 120_000 }, async () => {
    // A long idle timeout, so that only eviction can make room.
    const hw = await serve(join(root, 'evict'), '60s');
    const slow: { socket: Socket; closed: Promise<number> }[] = [];
    try {
      for (let i = 0; i < CAP; i++) {
        const c = await open(hw.dnsPort);
        c.socket.write(Buffer.from([0]));
        slow.push(c);
      }
      // The server has seen every connection once one more query over TCP goes through.
      assert.equal(await tcpQuery(hw.dnsPort, 'www.example.org'), 1, 'a normal client is answered at the cap');
      assert.equal(await tcpQuery(hw.dnsPort, 'www.example.org'), 1, 'and again');
      const first = slow[0];
      assert.ok(first !== undefined);
      const closedFirst = await Promise.race([first.closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5000))]);
      assert.ok(closedFirst, 'the connection idle longest was closed for the new one');
      assert.equal(slow[CAP - 1]?.socket.destroyed, false, 'the newest slow connection is still open');
      assert.ok((await metric(hw, 'evicted')) >= 1);
    } finally {
      for (const c of slow) c.socket.destroy();
      await hw.stop();
    }
  });

  test('a client trickling one byte at a time is closed after the idle timeout (per message, not per byte)', { timeout: 120_000 }, async () => {
    const hw = await serve(join(root, 'trickle'), '1s');
    const q = aQuery(9, 'www.example.org');
    const bytes = Buffer.concat([Buffer.from([q.length >> 8, q.length & 255]), q]);
    const { socket, closed } = await open(hw.dnsPort);
    const start = performance.now();
    let sent = 0;
    // A byte every 150 ms: the whole query would take ~5 s; bounded by the message's length.
    const timer = setInterval(() => {
      if (sent < bytes.length - 1 && !socket.destroyed) socket.write(bytes.subarray(sent, ++sent));
    }, 150);
    try {
      const closedAt = await Promise.race([closed, new Promise<number>((r) => setTimeout(() => r(NaN), 10_000))]);
      const after = closedAt - start;
      assert.ok(after >= 900 && after < 5000, `closed after ${Math.round(after)} ms, ${sent} bytes sent`);
      assert.ok(sent >= 4, 'the client kept sending until it was closed');
      assert.ok((await metric(hw, 'timeout')) >= 1);
      // A normal client is not affected.
      assert.equal(await tcpQuery(hw.dnsPort, 'www.example.org'), 1);
    } finally {
      clearInterval(timer);
      socket.destroy();
      await hw.stop();
    }
  });
});
