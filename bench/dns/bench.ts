/**
 * Hostwarden's DNS server beside BIND 9, Knot and NSD on the same zone and query file, in one run:
 *   node --import tsx bench/dns/bench.ts [seconds=10] [rounds=3] [--servers bind,knot,nsd,hw-thread,hw-thread-nopc,hw-inline,hw-workers,hw-dgram]
 *     [--rates 20000[,10000,40000]] [--popularity uniform|zipf[:s]] [--queries 200000]
 * Zone and queries: bench-zone.ts (the mix and the number of distinct names are printed). Before
 * any figure every server must give the same answers for a sample of names (answer-check.ts).
 * Each server runs in its own process; per round every server gets a maximum-rate run and a run at
 * each fixed rate, the servers taking turns, so load from elsewhere falls on all of them. Figures:
 * qps, lost queries, p50/p99/p99.9 (fixed rates), and answers per server CPU-second (utime + stime
 * of the server's process tree from /proc, perf.ts). At maximum rate dnsperf (one thread) is
 * usually the limit, not the server: the server's CPU share says how busy the server was. The
 * summary takes each figure's median over the rounds and its ratio to Knot.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { checkAnswers } from './answer-check.ts';
import { ORIGIN, benchZone, describeQueries, generateQueries, parsePopularity } from './bench-zone.ts';
import type { Popularity } from './bench-zone.ts';
import { dnsperf } from './perf.ts';
import type { PerfResult } from './perf.ts';
import { SERVER_KEYS, startServer } from './servers.ts';
import type { BenchServer, ServerKey } from './servers.ts';

const run = promisify(execFile);

interface Options {
  seconds: number;
  rounds: number;
  servers: ServerKey[];
  rates: number[];
  popularity: Popularity;
  queries: number;
}

function parseArgs(argv: string[]): Options {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (!a.startsWith('--')) positional.push(a);
    else if (a.includes('=')) flags.set(a.slice(2, a.indexOf('=')), a.slice(a.indexOf('=') + 1));
    else flags.set(a.slice(2), argv[++i] ?? '');
  }
  for (const f of flags.keys()) if (!['servers', 'rates', 'popularity', 'queries'].includes(f)) throw new Error(`unknown flag --${f}`);
  const servers = (flags.get('servers') ?? SERVER_KEYS.join(',')).split(',').filter((s) => s !== '');
  for (const s of servers)
    if (!(SERVER_KEYS as readonly string[]).includes(s)) throw new Error(`--servers: unknown server "${s}" (known: ${SERVER_KEYS.join(', ')})`);
  const rates = (flags.get('rates') ?? '20000').split(',').map(Number);
  if (rates.some((r) => !Number.isInteger(r) || r <= 0)) throw new Error(`--rates: expected positive integers, got "${flags.get('rates')}"`);
  const seconds = Number(positional[0] ?? 10);
  const rounds = Number(positional[1] ?? 3);
  const queries = Number(flags.get('queries') ?? 200_000);
  if (!(seconds > 0) || !Number.isInteger(rounds) || rounds < 1) throw new Error('usage: bench.ts [seconds > 0] [rounds ≥ 1] [--servers …] [--rates …]');
  if (!Number.isInteger(queries) || queries < 1000) throw new Error('--queries: expected an integer ≥ 1000');
  return { seconds, rounds, servers: servers as ServerKey[], rates, popularity: parsePopularity(flags.get('popularity') ?? 'uniform'), queries };
}

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const ms = (v: number | undefined): string => (v === undefined || Number.isNaN(v) ? '–' : v.toFixed(3));
const k = (v: number): string => (Number.isFinite(v) ? `${(v / 1000).toFixed(1)}k` : '–');

function line(name: string, r: PerfResult): string {
  const pct = r.p99Ms === undefined ? '' : `  p50/p99/p99.9 ${ms(r.p50Ms)}/${ms(r.p99Ms)}/${ms(r.p999Ms)} ms`;
  const steal = r.stealPct === undefined ? '' : `  steal ${r.stealPct.toFixed(1)}%`;
  return `${name.padEnd(31)} ${r.qps.toFixed(0).padStart(7)} qps${pct}  lost ${r.lost}/${r.sent}  server CPU ${r.cpuShare.toFixed(2)} core, ${k(r.perCpuS)} answers/CPU-s${steal}`;
}

function median(values: (number | undefined)[]): number {
  const v = values.filter((x): x is number => x !== undefined && !Number.isNaN(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  return v.length % 2 === 1 ? (v[v.length >> 1] as number) : ((v[v.length / 2 - 1] as number) + (v[v.length / 2] as number)) / 2;
}

type Runs = Map<string, PerfResult[]>;
const runKey = (server: string, rate: number | 'max'): string => `${server}@${rate}`;

async function round(servers: BenchServer[], opts: Options, queries: string, dir: string, runs: Runs, n: number): Promise<void> {
  for (const rate of ['max', ...opts.rates] as const) {
    console.log(`-- round ${n}: ${rate === 'max' ? 'maximum rate' : `${rate} qps (-Q ${rate} -v)`} (load ${load()})`);
    for (const s of servers) {
      const r = await dnsperf(s, queries, opts.seconds, dir, rate === 'max' ? undefined : rate);
      const key = runKey(s.key, rate);
      runs.set(key, [...(runs.get(key) ?? []), r]);
      console.log(line(s.name, r));
    }
  }
}

function summary(servers: BenchServer[], opts: Options, runs: Runs): void {
  const med = (s: string, rate: number | 'max', f: (r: PerfResult) => number | undefined): number => median((runs.get(runKey(s, rate)) ?? []).map(f));
  const ratio = (v: number, ref: number): string => (Number.isFinite(v / ref) && servers.some((s) => s.key === 'knot') ? `${(v / ref).toFixed(2)}×` : '–');
  for (const rate of opts.rates) {
    console.log(`\n== medians of ${opts.rounds} round(s); fixed rate ${rate} qps; max = maximum rate (dnsperf-limited: see server CPU)`);
    console.log(
      `| server | max qps (server CPU, cores) | answers/CPU-s at max | p50 / p99 / p99.9 at ${k(rate)} (ms) | lost at ${k(rate)} (all rounds) | answers/CPU-s at ${k(rate)} | p99 ÷ Knot | answers/CPU-s ÷ Knot (max / ${k(rate)}) |`,
    );
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const s of servers) {
      const p99 = med(s.key, rate, (r) => r.p99Ms);
      const cpuMax = med(s.key, 'max', (r) => r.perCpuS);
      const cpuRate = med(s.key, rate, (r) => r.perCpuS);
      const lost = (runs.get(runKey(s.key, rate)) ?? []).reduce((a, r) => a + r.lost, 0);
      const sent = (runs.get(runKey(s.key, rate)) ?? []).reduce((a, r) => a + r.sent, 0);
      console.log(
        `| ${s.name} | ${k(med(s.key, 'max', (r) => r.qps))} (${med(s.key, 'max', (r) => r.cpuShare).toFixed(2)}) | ${k(cpuMax)} | ${ms(med(s.key, rate, (r) => r.p50Ms))} / ${ms(p99)} / ${ms(med(s.key, rate, (r) => r.p999Ms))} | ${lost} of ${sent} | ${k(cpuRate)} | ${ratio(
          p99,
          med('knot', rate, (r) => r.p99Ms),
        )} | ${ratio(
          cpuMax,
          med('knot', 'max', (r) => r.perCpuS),
        )} / ${ratio(
          cpuRate,
          med('knot', rate, (r) => r.perCpuS),
        )} |`,
      );
    }
  }
  console.log('goals (issue #24): p99 at 20k ÷ Knot ≤ 1.00; answers/CPU-s ÷ Knot ≥ 1.20; 0 lost at 20k in every mode');
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  await run('dnsperf', ['-h']).catch((err: { code?: string }) => {
    if (err.code === 'ENOENT') throw new Error('dnsperf is not installed');
  });
  const dir = await mkdtemp(join(tmpdir(), 'hw-dnsbench-'));
  const queries = join(dir, 'queries.txt');
  const set = generateQueries(opts.queries, opts.popularity);
  await writeFile(queries, `${set.lines.join('\n')}\n`);
  const servers: BenchServer[] = [];
  const notes: string[] = [];
  try {
    for (const key of opts.servers) servers.push(await startServer(key, notes));
    const checked = await checkAnswers(servers);
    console.log(`zone ${ORIGIN}: ${benchZone().rrsets.length} RRsets; ${describeQueries(set, opts.popularity)}`);
    for (const n of notes) console.log(n);
    console.log(`answer check: ${checked} names (apex SOA/NS and 50 per category) answered identically by ${servers.map((s) => s.key).join(', ')}`);
    // Warm up caches (prepared answers are built on first use) and the JIT.
    for (const s of servers) await dnsperf(s, queries, 2, dir);
    const cores = (await run('nproc')).stdout.trim();
    console.log(
      `${opts.seconds}s per run, ${opts.rounds} round(s), rates max,${opts.rates.join(',')}; dnsperf -c 4 -T 1; ${cores} cores; load average ${load()}`,
    );
    const runs: Runs = new Map();
    for (let n = 1; n <= opts.rounds; n++) await round(servers, opts, queries, dir, runs, n);
    summary(servers, opts, runs);
    console.log(`load average after: ${load()}`);
  } finally {
    for (const s of servers) await s.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
