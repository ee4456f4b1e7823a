/**
 * Issue 16, item 2: a sync must not stall DNS answers. The real process serves a 20k-endpoint
 * DNSEndpoint while a UDP prober asks every 2 ms; the manifest then changes (a parse, a plan, a
 * zone-file write and a new zone for the DNS server) and an interval sync follows. Before the
 * DNS thread, answers stopped for 0.3–2 s at this size.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHostwarden } from '../support/hostwarden-process.ts';
import type { RunningHostwarden } from '../support/hostwarden-process.ts';
import { largeDnsEndpoint } from '../support/manifests.ts';
import { aQuery, startProber } from '../support/udp-prober.ts';

const ZONE = 'example.org';
const ENDPOINTS = 20_000;
/**
 * The benchmark's goal is 50 ms (npm run bench:dns-under-sync). This bound is ten times that, so
 * that a 2-core CI machine running other tests cannot fail it by scheduling alone, while a sync on
 * the answering thread (0.3 s and more at this size, seconds on a loaded machine) still fails it.
 */
const MAX_GAP_MS = 500;

/** The IPv4 address in the answer to an A query for `name`, or undefined. */
function answerOf(port: number, name: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const s = createSocket('udp4');
    const timer = setTimeout(() => {
      s.close();
      resolve(undefined);
    }, 500);
    s.on('message', (m) => {
      clearTimeout(timer);
      s.close();
      // The question is echoed; the first answer follows it: pointer, type, class, TTL, length, address.
      const at = 12 + (aQuery(0, name).length - 12) + 12;
      resolve(m.readUInt16BE(6) > 0 && m.length >= at + 4 ? [...m.subarray(at, at + 4)].join('.') : undefined);
    });
    s.send(aQuery(1, name), port, '127.0.0.1');
  });
}

async function waitForAnswer(port: number, name: string, ip: string, limitMs: number): Promise<void> {
  const start = performance.now();
  while (performance.now() - start < limitMs) {
    if ((await answerOf(port, name)) === ip) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`${name} did not answer ${ip} within ${limitMs} ms`);
}

test('DNS keeps answering while a 20k-endpoint manifest is parsed, planned and written', { timeout: 240_000 }, async () => {
  const root = await mkdtemp(join(tmpdir(), 'hw-answers-sync-'));
  const manifests = join(root, 'manifests');
  await mkdir(manifests);
  const file = join(manifests, 'big.yaml');
  await writeFile(file, largeDnsEndpoint('big', ZONE, ENDPOINTS));
  const changed = largeDnsEndpoint('big', ZONE, ENDPOINTS, true);
  let hw: RunningHostwarden | undefined;
  try {
    hw = await startHostwarden(
      [
        '--manifests-dir',
        manifests,
        '--embedded-data-dir',
        join(root, 'data'),
        '--embedded-zone',
        ZONE,
        '--interval',
        '2s',
        '--min-event-sync-interval',
        '0s',
        '--log-level',
        'debug',
      ],
      { timeoutMs: 120_000 },
    );
    const port = hw.dnsPort;
    await hw.waitForLog((l) => l['msg'] === 'changes committed to zone files', 180_000);
    await waitForAnswer(port, `host-1.${ZONE}`, '10.0.0.1', 30_000);

    const running = hw;
    const syncs = (): number => running.logs.filter((l) => l['msg'] === 'all records are up to date').length;
    const probe = await startProber(port, `host-1.${ZONE}`);
    await writeFile(file, changed);
    await waitForAnswer(port, `host-0.${ZONE}`, '192.0.2.200', 120_000);
    // And at least one interval sync that finds nothing to change.
    const before = syncs();
    for (let i = 0; i < 200 && syncs() === before; i++) await new Promise((r) => setTimeout(r, 50));
    const stats = await probe.stop();
    assert.ok(syncs() > before, 'an interval sync ran while probing');
    assert.ok(stats.answered > 100, `only ${stats.answered} of ${stats.sent} probes answered`);
    assert.ok(stats.largestGapMs < MAX_GAP_MS, `no answer for ${stats.largestGapMs.toFixed(0)} ms (p99 ${stats.p99Ms.toFixed(1)} ms)`);
  } finally {
    await hw?.stop();
    await rm(root, { recursive: true, force: true });
  }
});
