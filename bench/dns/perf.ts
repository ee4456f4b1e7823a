/**
 * One dnsperf run of `npm run bench:dns` and what it measures: rate, lost queries, latency
 * percentiles (from `dnsperf -v`, one line per query, written to a file and read after the run so
 * the parsing never shares a CPU with the run) and the CPU time the server used meanwhile.
 */
import { execFile, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PerfResult {
  qps: number;
  sent: number;
  completed: number;
  lost: number;
  avgMs: number;
  /** Percentiles from the per-query lines (capped runs only). */
  p50Ms?: number;
  p99Ms?: number;
  p999Ms?: number;
  /** Server CPU-seconds (utime + stime of the server and all its descendants) during the run. */
  cpuS: number;
  /** Answers per server CPU-second. */
  perCpuS: number;
  /** Server CPU-seconds per wall second (1.0 = one core). */
  cpuShare: number;
  /** Share of the machine's CPU time the hypervisor took during the run (/proc/stat steal). */
  stealPct?: number;
}

let clockTicks: number | undefined;

/** utime + stime, in seconds, of `pid` and every live descendant (workers, NSD's server processes). */
export async function treeCpuSeconds(pid: number): Promise<number> {
  clockTicks ??= Number((await run('getconf', ['CLK_TCK'])).stdout.trim()) || 100;
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const text = await readFile(join('/proc', entry, 'stat'), 'utf8').catch(() => '');
    // Fields after the parenthesised command (which may contain spaces): state ppid ... utime(14) stime(15).
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    if (rest.length < 13) continue;
    stats.set(Number(entry), { ppid: Number(rest[1]), ticks: Number(rest[11]) + Number(rest[12]) });
  }
  let ticks = 0;
  const queue = [pid];
  for (let i = 0; i < queue.length && i < 10_000; i++) {
    const p = queue[i] as number;
    ticks += stats.get(p)?.ticks ?? 0;
    for (const [child, s] of stats) if (s.ppid === p) queue.push(child);
  }
  return ticks / clockTicks;
}

async function cpuTimes(): Promise<{ total: number; steal: number } | undefined> {
  const text = await readFile('/proc/stat', 'utf8').catch(() => '');
  const fields = /^cpu +(.*)$/m.exec(text)?.[1]?.trim().split(/\s+/).map(Number) ?? [];
  if (fields.length < 8) return undefined;
  return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
}

function percentile(sorted: number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0) * 1000;
}

/** Runs dnsperf against 127.0.0.1:port; with a rate it also runs verbose (-v) for percentiles. */
export async function dnsperf(target: { port: number; pid: number }, queries: string, seconds: number, dir: string, rate?: number): Promise<PerfResult> {
  const args = ['-s', '127.0.0.1', '-p', String(target.port), '-d', queries, '-l', String(seconds), '-c', '4', '-T', '1'];
  if (rate !== undefined) args.push('-Q', String(rate), '-v');
  const outFile = join(dir, 'dnsperf.out');
  const fd = openSync(outFile, 'w');
  const before = await cpuTimes();
  const cpuBefore = await treeCpuSeconds(target.pid);
  const started = process.hrtime.bigint();
  const child = spawn('dnsperf', args, { stdio: ['ignore', fd, 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
  const wallS = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuS = (await treeCpuSeconds(target.pid)) - cpuBefore;
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
  const completed = num(/Queries completed:\s+(\d+)/);
  return {
    qps: num(/Queries per second:\s+([\d.]+)/),
    sent: num(/Queries sent:\s+(\d+)/),
    completed,
    lost: num(/Queries lost:\s+(\d+)/),
    avgMs: num(/Average Latency \(s\):\s+([\d.]+)/) * 1000,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    p999Ms: percentile(latencies, 0.999),
    cpuS,
    perCpuS: cpuS > 0 ? completed / cpuS : NaN,
    cpuShare: cpuS / wallS,
    stealPct:
      before !== undefined && after !== undefined && after.total > before.total
        ? (100 * (after.steal - before.steal)) / (after.total - before.total)
        : undefined,
  };
}
