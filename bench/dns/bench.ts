/**
 * Hostwarden's DNS server against BIND 9 on the same zone and query file, in one run:
 *   node --import tsx bench/dns/bench.ts [seconds=10] [rounds=1]
 * Zone and query mix: bench-zone.ts. Rows: BIND, Hostwarden with the native UDP engine on its DNS
 * thread (the default), on the main thread (inline) and in 2 workers, and with node:dgram on the DNS
 * thread for comparison; each at maximum rate and
 * capped at 20k qps. Every server runs in its own process (Hostwarden's through serve.ts), and
 * dnsperf's per-query output (-v, for p99) goes to a file read after the run, so neither server
 * shares a CPU with the benchmark's parsing. dnsperf shares the machine with the server under
 * test, so compare the servers' figures (and their ratios), not absolute numbers across machines.
 * On a shared machine use several rounds: the servers take turns within each round, so load from
 * elsewhere falls on all of them, and the summary takes each server's median round.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { namedAvailable, startBind } from '../../test/support/bind.ts';
import { ORIGIN, benchZone, queryFile } from './bench-zone.ts';

const run = promisify(execFile);
const CAP_QPS = 20_000;

interface PerfResult {
  qps: number;
  sent: number;
  lost: number;
  avgMs: number;
  maxMs: number;
  p99Ms: number | undefined;
  p50Ms: number | undefined;
  /** Share of the machine's CPU time the hypervisor took during the run (/proc/stat steal). */
  stealPct: number | undefined;
}

/** Total and steal jiffies of all CPUs, from /proc/stat (undefined where it cannot be read). */
async function cpuTimes(): Promise<{ total: number; steal: number } | undefined> {
  const text = await readFile('/proc/stat', 'utf8').catch(() => '');
  const fields = /^cpu +(.*)$/m.exec(text)?.[1]?.trim().split(/\s+/).map(Number) ?? [];
  if (fields.length < 8) return undefined;
  return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
}

/** Runs dnsperf; with a rate cap it also runs verbose (-v) and reads every answer's latency for p99. */
async function dnsperf(port: number, queries: string, seconds: number, dir: string, rate?: number): Promise<PerfResult> {
  const args = ['-s', '127.0.0.1', '-p', String(port), '-d', queries, '-l', String(seconds), '-c', '4', '-T', '1'];
  if (rate !== undefined) args.push('-Q', String(rate), '-v');
  const outFile = join(dir, 'dnsperf.out');
  const fd = openSync(outFile, 'w');
  const before = await cpuTimes();
  const child = spawn('dnsperf', args, { stdio: ['ignore', fd, 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
  closeSync(fd);
  const after = await cpuTimes();
  const text = await readFile(outFile, 'utf8');
  const latencies: number[] = [];
  let summary = '';
  for (const line of text.split('\n')) {
    // Verbose lines look like "> NOERROR name A 0.000123"; everything else is the summary.
    if (line.startsWith('> ')) {
      const v = Number(line.slice(line.lastIndexOf(' ') + 1));
      if (Number.isFinite(v)) latencies.push(v);
    } else summary += `${line}\n`;
  }
  const num = (re: RegExp): number => Number(re.exec(summary)?.[1] ?? NaN);
  latencies.sort((a, b) => a - b);
  return {
    qps: num(/Queries per second:\s+([\d.]+)/),
    sent: num(/Queries sent:\s+(\d+)/),
    lost: num(/Queries lost:\s+(\d+)/),
    avgMs: num(/Average Latency \(s\):\s+([\d.]+)/) * 1000,
    maxMs: num(/max ([\d.]+)\)/) * 1000,
    p99Ms: latencies.length > 0 ? (latencies[Math.floor(latencies.length * 0.99)] ?? 0) * 1000 : undefined,
    p50Ms: latencies.length > 0 ? (latencies[Math.floor(latencies.length * 0.5)] ?? 0) * 1000 : undefined,
    stealPct:
      before !== undefined && after !== undefined && after.total > before.total
        ? (100 * (after.steal - before.steal)) / (after.total - before.total)
        : undefined,
  };
}

/** Starts serve.ts and waits for its port. */
async function startHostwarden(engine: 'native' | 'dgram', workers: number | 'inline'): Promise<{ port: number; child: ChildProcess }> {
  const script = fileURLToPath(new URL('./serve.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, engine, String(workers)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const first = await new Promise<string>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('serve.ts did not start in 30 s')), 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('\n')) {
        clearTimeout(timer);
        resolve(buf.slice(0, buf.indexOf('\n')));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve.ts exited with ${code}`));
    });
  });
  const { port, engine: used } = JSON.parse(first) as { port: number; engine: string };
  if (used !== engine) throw new Error(`asked for the ${engine} engine, got ${used} (npm run build:native?)`);
  return { port, child };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin?.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

function line(name: string, r: PerfResult): string {
  const p99 = r.p99Ms === undefined ? '' : `  p50 ${(r.p50Ms ?? 0).toFixed(3)} ms  p99 ${r.p99Ms.toFixed(3)} ms`;
  const steal = r.stealPct === undefined ? '' : `  steal ${r.stealPct.toFixed(1)}%`;
  return `${name.padEnd(30)} ${r.qps.toFixed(0).padStart(7)} qps  avg ${r.avgMs.toFixed(3)} ms  max ${r.maxMs.toFixed(2)} ms${p99}  lost ${r.lost}/${r.sent}${steal}`;
}

/** The run with the median value of `key` (the upper one of two middles). */
function median(runs: PerfResult[], key: 'qps' | 'p99Ms'): PerfResult {
  const sorted = [...runs].sort((x, y) => (x[key] ?? 0) - (y[key] ?? 0));
  return sorted[Math.floor(sorted.length / 2)] as PerfResult;
}

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 10);
  const rounds = Math.max(1, Number(process.argv[3] ?? 1));
  if (!(await namedAvailable())) throw new Error('named (bind9) is not installed');
  await run('dnsperf', ['-h']).catch((err: { code?: string }) => {
    if (err.code === 'ENOENT') throw new Error('dnsperf is not installed');
  });
  const dir = await mkdtemp(join(tmpdir(), 'hw-dnsbench-'));
  const zone = benchZone();
  const queries = join(dir, 'queries.txt');
  await writeFile(queries, queryFile(200_000));
  const bind = await startBind({ zones: [zone], threads: 2 });
  const children: ChildProcess[] = [];
  try {
    const servers: { name: string; port: number }[] = [{ name: 'BIND 9 (-n 2)', port: bind.port }];
    for (const [name, engine, workers] of [
      ['Hostwarden native (DNS thread)', 'native', 0],
      ['Hostwarden native (inline)', 'native', 'inline'],
      ['Hostwarden native (2 workers)', 'native', 2],
      ['Hostwarden dgram (DNS thread)', 'dgram', 0],
    ] as const) {
      const s = await startHostwarden(engine, workers);
      children.push(s.child);
      servers.push({ name, port: s.port });
    }
    // Warm up caches (prepared answers are built on first use) and the JIT.
    for (const s of servers) await dnsperf(s.port, queries, 2, dir);
    console.log(
      `zone ${ORIGIN}: ${zone.rrsets.length} RRsets; ${seconds}s per run, ${rounds} round(s); dnsperf -c 4 -T 1; ${(await run('nproc')).stdout.trim()} cores; load average ${load()}`,
    );
    const ratios = (results: PerfResult[]): string =>
      servers
        .slice(1)
        .map((s, i) => `${s.name.replace('Hostwarden ', '')} ${((results[i + 1]?.qps ?? 0) / (results[0]?.qps ?? 1)).toFixed(2)}`)
        .join(', ');
    const max: PerfResult[][] = servers.map(() => []);
    const capped: PerfResult[][] = servers.map(() => []);
    for (let round = 1; round <= rounds; round++) {
      console.log(`-- round ${round}: maximum rate (load ${load()})`);
      for (const [k, s] of servers.entries()) {
        const r = await dnsperf(s.port, queries, seconds, dir);
        max[k]?.push(r);
        console.log(line(s.name, r));
      }
      console.log(`-- round ${round}: capped at ${CAP_QPS} qps (-Q ${CAP_QPS} -v; per-query lines go to a file, parsed after each run)`);
      for (const [k, s] of servers.entries()) {
        const r = await dnsperf(s.port, queries, seconds, dir, CAP_QPS);
        capped[k]?.push(r);
        console.log(line(s.name, r));
      }
    }
    const maxMedian = max.map((runs) => median(runs, 'qps'));
    console.log(`== median of ${rounds} round(s): maximum rate`);
    for (const [k, s] of servers.entries()) console.log(line(s.name, maxMedian[k] as PerfResult));
    console.log(`QPS ratio to BIND: ${ratios(maxMedian)}`);
    console.log(`== median of ${rounds} round(s): capped at ${CAP_QPS} qps (median p99)`);
    for (const [k, s] of servers.entries()) console.log(line(s.name, median(capped[k] ?? [], 'p99Ms')));
    console.log(`load average after: ${load()}`);
  } finally {
    for (const c of children) await stopChild(c);
    await bind.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
