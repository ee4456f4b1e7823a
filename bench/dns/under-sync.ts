/**
 * DNS answers while the sync loop works (issue 16, item 2). Runs `bin/hostwarden run` on one
 * DNSEndpoint of N A records (10k and 50k by default), probes the DNS server over UDP every 2 ms
 * from this process, and prints the largest time without an answer and the p99 latency:
 *   1. during interval syncs with nothing to change (--interval, 3 intervals);
 *   2. during a change: the manifest is rewritten with one record changed, and the window lasts
 *      until the new record is answered, plus one second.
 * Goal (a benchmark, not a test): the largest gap stays under 50 ms.
 *
 *   npm run bench:dns-under-sync
 *   node --import tsx bench/dns/under-sync.ts --sizes 10000,50000 --interval 3s [--hostwarden-arg --dns-workers --hostwarden-arg 1]
 */
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { startOnLargeZone, waitForAnswer } from '../../test/support/large-zone.ts';
import { largeDnsEndpoint } from '../../test/support/manifests.ts';
import { startProber } from '../../test/support/udp-prober.ts';
import type { ProbeStats } from '../../test/support/udp-prober.ts';

const ZONE = 'example.org';
const GOAL_MS = 50;

function arg(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
}

function extraArgs(): string[] {
  const out: string[] = [];
  process.argv.forEach((a, i) => {
    if (a === '--hostwarden-arg') out.push(process.argv[i + 1] ?? '');
  });
  return out;
}

/** One result row: the largest gap between answers, latency percentiles, and whether the goal is met. */
function row(size: number, phase: string, s: ProbeStats, extra: string): string {
  const ms = (v: number): string => `${v.toFixed(1)} ms`;
  return `${String(size).padStart(6)}  ${phase.padEnd(15)} largest gap ${ms(s.largestGapMs).padStart(10)}  p50 ${ms(s.p50Ms).padStart(8)}  p99 ${ms(s.p99Ms).padStart(9)}  max ${ms(s.maxMs).padStart(9)}  answered ${s.answered}/${s.sent}  prober's own largest send gap ${ms(s.largestSendGapMs)}  ${extra}  ${s.largestGapMs < GOAL_MS ? 'goal met' : 'goal NOT met'}`;
}

async function runSize(size: number, intervalMs: number, extra: string[]): Promise<string[]> {
  const run = await startOnLargeZone(ZONE, size, intervalMs, extra);
  try {
    const running = run.hw;
    const rows: string[] = [];
    const syncs = (): number => running.logs.filter((l) => l['msg'] === 'all records are up to date').length;

    // 1. Interval syncs that find nothing to change.
    const before = syncs();
    let probe = await startProber(running.dnsPort, `host-1.${ZONE}`);
    await new Promise((r) => setTimeout(r, intervalMs * 3 + 500));
    rows.push(row(size, 'interval syncs', await probe.stop(), `(${syncs() - before} syncs)`));

    // 2. One record changes: parse, plan, write the zone file, hand the zone to the DNS server.
    // Made before probing: building 50k entries' YAML here would stall the prober, not the server.
    const changed = largeDnsEndpoint('big', ZONE, size, true);
    probe = await startProber(running.dnsPort, `host-1.${ZONE}`);
    await new Promise((r) => setTimeout(r, 200));
    await writeFile(run.file, changed);
    const visible = await waitForAnswer(running.dnsPort, `host-0.${ZONE}`, '192.0.2.200', 120_000);
    await new Promise((r) => setTimeout(r, 1000));
    rows.push(row(size, 'one change', await probe.stop(), `(change answered after ${Math.round(visible)} ms)`));
    return rows;
  } finally {
    await run.stop();
  }
}

async function main(): Promise<void> {
  const sizes = arg('--sizes', '10000,50000').split(',').map(Number);
  const interval = arg('--interval', '3s');
  const intervalMs = Number(interval.replace(/m?s$/, '')) * (interval.endsWith('ms') ? 1 : 1000);
  const extra = extraArgs();
  console.log(
    `DNS answers during syncs: one UDP query every 2 ms; --interval ${interval}${extra.length > 0 ? `; extra: ${extra.join(' ')}` : ''}; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const size of sizes) {
    for (const line of await runSize(size, intervalMs, extra)) console.log(line);
  }
  console.log(
    `goal: largest gap < ${GOAL_MS} ms; load at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

await main();
