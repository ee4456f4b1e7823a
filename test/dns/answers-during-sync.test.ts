/**
 * Issue 16, item 2: a sync must not stall DNS answers. The real process serves a 20k-endpoint
 * DNSEndpoint while a UDP prober asks every 2 ms; the manifest then changes (a parse, a plan, a
 * zone-file write and a new zone for the DNS server) and an interval sync follows. Before the
 * DNS thread, answers stopped for 0.3–2 s at this size.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { startOnLargeZone, waitForAnswer } from '../support/large-zone.ts';
import { largeDnsEndpoint } from '../support/manifests.ts';
import { startProber } from '../support/udp-prober.ts';

const ZONE = 'example.org';
const ENDPOINTS = 20_000;
/**
 * The benchmark's goal is 50 ms (npm run bench:dns-under-sync). This bound is ten times that, so
 * that a 2-core CI machine running other tests cannot fail it by scheduling alone, while a sync on
 * the answering thread (0.3 s and more at this size, seconds on a loaded machine) still fails it.
 */
const MAX_GAP_MS = 500;

test('DNS keeps answering while a 20k-endpoint manifest is parsed, planned and written', { timeout: 240_000 }, async () => {
  const run = await startOnLargeZone(ZONE, ENDPOINTS, 2000);
  const changed = largeDnsEndpoint('big', ZONE, ENDPOINTS, true);
  try {
    const running = run.hw;
    const port = running.dnsPort;
    const syncs = (): number => running.logs.filter((l) => l['msg'] === 'all records are up to date').length;
    const probe = await startProber(port, `host-1.${ZONE}`);
    await writeFile(run.file, changed);
    await waitForAnswer(port, `host-0.${ZONE}`, '192.0.2.200', 120_000);
    // And at least one interval sync that finds nothing to change.
    const before = syncs();
    for (let i = 0; i < 200 && syncs() === before; i++) await new Promise((r) => setTimeout(r, 50));
    const stats = await probe.stop();
    assert.ok(syncs() > before, 'an interval sync ran while probing');
    assert.ok(stats.answered > 100, `only ${stats.answered} of ${stats.sent} probes answered`);
    assert.ok(stats.largestGapMs < MAX_GAP_MS, `no answer for ${stats.largestGapMs.toFixed(0)} ms (p99 ${stats.p99Ms.toFixed(1)} ms)`);
  } finally {
    await run.stop();
  }
});
