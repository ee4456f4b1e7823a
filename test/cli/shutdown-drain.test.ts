/**
 * Graceful shutdown of `hostwarden run` with the embedded DNS server, against the real process:
 * on SIGTERM /readyz turns 503 at once while queries keep getting correct answers for the whole
 * --shutdown-drain; then the process stops its listeners and exits 0. A query is sent every few
 * milliseconds from a connected UDP socket, so an ICMP port-unreachable (a closed listener) shows
 * as an error, and every query sent before the drain ends must be answered with the record.
 */
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { dig, digAvailable } from '../support/dig.ts';
import { startHostwarden } from '../support/hostwarden-process.ts';
import type { RunningHostwarden } from '../support/hostwarden-process.ts';
import { loadBalancerService } from '../support/manifests.ts';
import { aQuery } from '../support/udp-prober.ts';

const DRAIN_MS = 2000;
const NAME = 'web.example.org';

function httpGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path, agent: false, timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: body.trim() }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 2 s')));
    req.on('error', reject);
  });
}

interface Query {
  sentAt: number;
  answer?: string;
}

/** One A query every `everyMs` on a connected socket; answers matched by ID; errors (ICMP) recorded. */
async function queryContinuously(port: number, everyMs: number, maxMs: number) {
  const sock = createSocket('udp4');
  await new Promise<void>((r) => sock.connect(port, '127.0.0.1', () => r()));
  const queries = new Map<number, Query>();
  const errors: { at: number; message: string }[] = [];
  const at = 12 + (aQuery(0, NAME).length - 12) + 12;
  sock.on('message', (m) => {
    const q = queries.get(m.readUInt16BE(0));
    if (q !== undefined) q.answer = m.readUInt16BE(6) > 0 && m.length >= at + 4 ? [...m.subarray(at, at + 4)].join('.') : `rcode ${m[3]! & 15}, no answer`;
  });
  sock.on('error', (err) => errors.push({ at: performance.now(), message: err.message }));
  const start = performance.now();
  let id = 0;
  const timer = setInterval(() => {
    if (performance.now() - start > maxMs) return stop();
    id = (id + 1) & 0xffff;
    queries.set(id, { sentAt: performance.now() });
    sock.send(aQuery(id, NAME), (err) => err && errors.push({ at: performance.now(), message: err.message }));
  }, everyMs);
  let closed = false;
  const stop = (): void => {
    clearInterval(timer);
    if (!closed) sock.close();
    closed = true;
  };
  return {
    queries,
    errors,
    stop: async () => {
      clearInterval(timer);
      await new Promise((r) => setTimeout(r, 300));
      stop();
    },
  };
}

describe('SIGTERM drains the embedded DNS server', { skip: !(await digAvailable()) && 'dig is not installed (apt-get install bind9-dnsutils)' }, () => {
  let root: string | undefined;
  let hw: RunningHostwarden | undefined;
  after(async () => {
    await hw?.stop('SIGKILL');
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });

  // The DNS thread (default), and worker processes.
  for (const mode of [[], ['--dns-workers', '1']]) {
    test(
      `${mode.length === 0 ? 'thread' : 'workers'}: /readyz fails at once, queries are answered correctly for the whole drain, then the process exits 0`,
      { timeout: 120_000 },
      async () => {
        root = await mkdtemp(join(tmpdir(), 'hw-drain-'));
        const manifests = join(root, 'manifests');
        await mkdir(manifests);
        await writeFile(join(manifests, 'web.yaml'), loadBalancerService('web', NAME, '192.0.2.10'));
        hw = await startHostwarden([
          '--manifests-dir',
          manifests,
          '--embedded-data-dir',
          join(root, 'data'),
          '--embedded-zone',
          'example.org',
          '--shutdown-drain',
          `${DRAIN_MS}ms`,
          ...mode,
        ]);
        const { dnsPort, metricsPort } = hw;
        let ready = { status: 0, body: '' };
        for (let i = 0; i < 300 && ready.status !== 200; i++) {
          ready = await httpGet(metricsPort, '/readyz');
          if (ready.status !== 200) await new Promise((r) => setTimeout(r, 100));
        }
        assert.equal(ready.status, 200, `ready: ${ready.body}`);
        assert.deepEqual(
          (await dig(dnsPort, [NAME, 'A', '+norec'])).answer.map((a) => a.split(' ').at(-1)),
          ['192.0.2.10'],
        );

        const load = await queryContinuously(dnsPort, 5, 30_000);
        await new Promise((r) => setTimeout(r, 200));
        const exited = new Promise<number | null>((resolve) => hw?.child.once('exit', (code) => resolve(code)));
        const signalAt = performance.now();
        hw.child.kill('SIGTERM');

        try {
          await drainChecks(hw, load, signalAt, exited);
        } finally {
          await load.stop();
        }
        hw = undefined;
        await rm(root, { recursive: true, force: true });
        root = undefined;
      },
    );
  }
});

type Load = Awaited<ReturnType<typeof queryContinuously>>;

async function drainChecks(hw: RunningHostwarden, load: Load, signalAt: number, exited: Promise<number | null>): Promise<void> {
  const { dnsPort, metricsPort } = hw;
  // At once: /readyz is 503 with the reason as soon as the process has taken the signal (kill()
  // returns before the child runs its handler, so a request may still beat it by a moment).
  let first = await httpGet(metricsPort, '/readyz');
  for (let i = 0; i < 100 && first.status === 200; i++) first = await httpGet(metricsPort, '/readyz');
  const firstAfterMs = performance.now() - signalAt;
  assert.equal(first.status, 503);
  assert.match(first.body, /shutting down/);
  assert.ok(firstAfterMs < DRAIN_MS / 4, `/readyz failed only ${Math.round(firstAfterMs)} ms after SIGTERM`);
  // Still answering over TCP in the middle of the drain.
  await new Promise((r) => setTimeout(r, DRAIN_MS / 2 - firstAfterMs));
  assert.deepEqual(
    (await dig(dnsPort, [NAME, 'A', '+norec', '+tcp'])).answer.map((a) => a.split(' ').at(-1)),
    ['192.0.2.10'],
  );
  assert.equal((await httpGet(metricsPort, '/readyz')).status, 503, 'still not ready while draining');

  const code = await exited;
  const exitAfterMs = performance.now() - signalAt;
  await load.stop();
  assert.equal(code, 0);
  assert.ok(exitAfterMs >= DRAIN_MS, `exited after ${Math.round(exitAfterMs)} ms, before the ${DRAIN_MS} ms drain`);

  // Every query sent before the drain ended (less a margin for its own round trip) got the record.
  const drainEnd = signalAt + DRAIN_MS - 50;
  const during = [...load.queries.values()].filter((q) => q.sentAt < drainEnd);
  const inDrain = during.filter((q) => q.sentAt >= signalAt);
  assert.ok(inDrain.length > 50, `only ${inDrain.length} queries sent during the drain`);
  const wrong = during.filter((q) => q.answer !== '192.0.2.10');
  assert.deepEqual(
    wrong.slice(0, 5).map((q) => ({ msAfterSignal: Math.round(q.sentAt - signalAt), answer: q.answer ?? 'none' })),
    [],
    `${wrong.length} of ${during.length} queries before the drain ended were not answered with the record`,
  );
  assert.deepEqual(
    load.errors.filter((e) => e.at < drainEnd),
    [],
    'no ICMP refusal before the drain ended',
  );
}
