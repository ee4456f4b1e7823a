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
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createSocket } from 'node:dgram';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import dnsPacket from 'dns-packet';
import { startHostwarden } from '../../test/support/hostwarden-process.ts';
import type { RunningHostwarden } from '../../test/support/hostwarden-process.ts';
import { largeDnsEndpoint } from '../../test/support/manifests.ts';
import { aQuery, startProber } from '../../test/support/udp-prober.ts';
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

/** The first A address in the reply to `name`, or undefined (no reply within 500 ms, or none). */
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
      const a = dnsPacket.decode(m).answers?.find((r) => r.type === 'A');
      resolve(a !== undefined && 'data' in a ? String(a.data) : undefined);
    });
    s.send(aQuery(7, name), port, '127.0.0.1');
  });
}

async function waitForAnswer(port: number, name: string, ip: string, limitMs: number): Promise<number> {
  const start = performance.now();
  while (performance.now() - start < limitMs) {
    if ((await answerOf(port, name)) === ip) return performance.now() - start;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${name} did not answer ${ip} within ${limitMs} ms`);
}

function row(size: number, phase: string, s: ProbeStats, extra: string): string {
  const ms = (v: number): string => `${v.toFixed(1)} ms`;
  return `${String(size).padStart(6)}  ${phase.padEnd(15)} largest gap ${ms(s.largestGapMs).padStart(10)}  p50 ${ms(s.p50Ms).padStart(8)}  p99 ${ms(s.p99Ms).padStart(9)}  max ${ms(s.maxMs).padStart(9)}  answered ${s.answered}/${s.sent}  prober's own largest send gap ${ms(s.largestSendGapMs)}  ${extra}  ${s.largestGapMs < GOAL_MS ? 'goal met' : 'goal NOT met'}`;
}

async function runSize(size: number, intervalMs: number, extra: string[]): Promise<string[]> {
  const root = await mkdtemp(join(tmpdir(), 'hw-under-sync-'));
  const manifests = join(root, 'manifests');
  await mkdir(manifests);
  const file = join(manifests, 'big.yaml');
  await writeFile(file, largeDnsEndpoint('big', ZONE, size));
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
        `${intervalMs}ms`,
        '--min-event-sync-interval',
        '0s',
        '--log-level',
        'debug',
        ...extra,
      ],
      { timeoutMs: 120_000 },
    );
    const running = hw;
    await running.waitForLog((l) => l['msg'] === 'changes committed to zone files', 300_000);
    await waitForAnswer(running.dnsPort, `host-1.${ZONE}`, '10.0.0.1', 60_000);
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
    await writeFile(file, changed);
    const visible = await waitForAnswer(running.dnsPort, `host-0.${ZONE}`, '192.0.2.200', 120_000);
    await new Promise((r) => setTimeout(r, 1000));
    rows.push(row(size, 'one change', await probe.stop(), `(change answered after ${Math.round(visible)} ms)`));
    return rows;
  } finally {
    await hw?.stop();
    await rm(root, { recursive: true, force: true });
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
