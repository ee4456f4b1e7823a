/**
 * Hostwarden's DNS server against BIND 9 on the same zone and query file, in one run:
 *   node --import tsx bench/dns/bench.ts [seconds=10]
 * Zone: 10k A, 1k CNAME, 1k TXT records and a wildcard. Queries: 80% existing names, 10% NXDOMAIN,
 * 5% TXT, 5% wildcard. dnsperf shares the machine with the server under test, so compare the two
 * servers' figures (and their ratio), not absolute numbers across machines.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DnsServer } from '../../src/dns/server.ts';
import type { RRSet, ZoneContent } from '../../src/dns/zone-content.ts';
import { createLogger } from '../../src/log.ts';
import { namedAvailable, startBind } from '../../test/support/bind.ts';

const run = promisify(execFile);
const ORIGIN = 'bench.test';

function benchZone(): ZoneContent {
  const rrsets: RRSet[] = [{ name: ORIGIN, type: 'NS', ttl: 3600, rdata: [`ns1.${ORIGIN}`] }];
  rrsets.push({ name: `ns1.${ORIGIN}`, type: 'A', ttl: 3600, rdata: ['192.0.2.53'] });
  for (let i = 0; i < 10_000; i++) {
    rrsets.push({ name: `host-${i}.${ORIGIN}`, type: 'A', ttl: 300, rdata: [`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`] });
  }
  for (let i = 0; i < 1000; i++) rrsets.push({ name: `alias-${i}.${ORIGIN}`, type: 'CNAME', ttl: 300, rdata: [`host-${i * 7}.${ORIGIN}`] });
  for (let i = 0; i < 1000; i++) rrsets.push({ name: `txt-${i}.${ORIGIN}`, type: 'TXT', ttl: 300, rdata: [`heritage=external-dns,external-dns/owner=bench,entry=${i}`] });
  rrsets.push({ name: `*.wild.${ORIGIN}`, type: 'A', ttl: 300, rdata: ['192.0.2.99'] });
  return {
    origin: ORIGIN,
    soa: { mname: `ns1.${ORIGIN}`, rname: `hostmaster.${ORIGIN}`, serial: 1, refresh: 3600, retry: 600, expire: 86400, minimum: 300, ttl: 3600 },
    rrsets,
  };
}

/** Deterministic query mix (a simple LCG keeps runs comparable). */
function queryFile(count: number): string {
  let seed = 12345;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const r = rand(100);
    if (r < 70) lines.push(`host-${rand(10_000)}.${ORIGIN} A`);
    else if (r < 80) lines.push(`alias-${rand(1000)}.${ORIGIN} A`);
    else if (r < 90) lines.push(`missing-${rand(100_000)}.${ORIGIN} A`);
    else if (r < 95) lines.push(`txt-${rand(1000)}.${ORIGIN} TXT`);
    else lines.push(`w${rand(100_000)}.wild.${ORIGIN} A`);
  }
  return `${lines.join('\n')}\n`;
}

interface PerfResult {
  qps: number;
  sent: number;
  completed: number;
  lost: number;
  avgMs: number;
  maxMs: number;
  p99Ms: number | undefined;
}

/** Runs dnsperf; with `verbose` every answer's latency is read to compute p99. */
async function dnsperf(port: number, file: string, seconds: number, rate?: number): Promise<PerfResult> {
  const args = ['-s', '127.0.0.1', '-p', String(port), '-d', file, '-l', String(seconds), '-c', '4', '-T', '1'];
  if (rate !== undefined) args.push('-Q', String(rate), '-v');
  const child = spawn('dnsperf', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const latencies: number[] = [];
  let summary = '';
  let rest = '';
  child.stdout.on('data', (d: Buffer) => {
    const text = rest + d.toString();
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      // Verbose lines look like "> NOERROR name A 0.000123"; everything else is the summary.
      if (line.startsWith('> ')) {
        const v = Number(line.slice(line.lastIndexOf(' ') + 1));
        if (Number.isFinite(v)) latencies.push(v);
      } else summary += `${line}\n`;
    }
  });
  await new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
  summary += rest;
  const num = (re: RegExp): number => Number(re.exec(summary)?.[1] ?? NaN);
  latencies.sort((a, b) => a - b);
  return {
    qps: num(/Queries per second:\s+([\d.]+)/),
    sent: num(/Queries sent:\s+(\d+)/),
    completed: num(/Queries completed:\s+(\d+)/),
    lost: num(/Queries lost:\s+(\d+)/),
    avgMs: num(/Average Latency \(s\):\s+([\d.]+)/) * 1000,
    maxMs: num(/max ([\d.]+)\)/) * 1000,
    p99Ms: latencies.length > 0 ? (latencies[Math.floor(latencies.length * 0.99)] ?? 0) * 1000 : undefined,
  };
}

function line(name: string, r: PerfResult): string {
  const p99 = r.p99Ms === undefined ? '' : `  p99 ${r.p99Ms.toFixed(3)} ms`;
  return `${name.padEnd(26)} ${r.qps.toFixed(0).padStart(7)} qps  avg ${r.avgMs.toFixed(3)} ms  max ${r.maxMs.toFixed(2)} ms${p99}  lost ${r.lost}/${r.sent}`;
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 10);
  if (!(await namedAvailable())) throw new Error('named (bind9) is not installed');
  await run('dnsperf', ['-h']).catch((err: { code?: string }) => {
    if (err.code === 'ENOENT') throw new Error('dnsperf is not installed');
  });
  const dir = await mkdtemp(join(tmpdir(), 'hw-dnsbench-'));
  const zone = benchZone();
  const file = join(dir, 'queries.txt');
  await writeFile(file, queryFile(200_000));
  const logger = createLogger('warn', 'json');
  const bind = await startBind({ zones: [zone], threads: 2 });
  const inproc = new DnsServer({ listen: ['127.0.0.1:0'], logger });
  const pool = new DnsServer({ listen: ['127.0.0.1:0'], logger, workers: 2 });
  try {
    inproc.zoneChanged(zone);
    pool.zoneChanged(zone);
    const hwPort = (await inproc.start()).addresses[0]?.udp.port ?? 0;
    const poolPort = (await pool.start()).addresses[0]?.udp.port ?? 0;
    // Warm up caches (prepared answers are built on first use) and the JIT.
    await dnsperf(hwPort, file, 2);
    await dnsperf(poolPort, file, 2);
    console.log(`zone ${ORIGIN}: ${zone.rrsets.length} RRsets; ${seconds}s per run; dnsperf -c 4 -T 1; ${(await run('nproc')).stdout.trim()} cores`);
    const bindMax = await dnsperf(bind.port, file, seconds);
    const hwMax = await dnsperf(hwPort, file, seconds);
    const poolMax = await dnsperf(poolPort, file, seconds);
    console.log('-- maximum rate');
    console.log(line('BIND 9 (-n 2)', bindMax));
    console.log(line('Hostwarden (in-process)', hwMax));
    console.log(line('Hostwarden (2 workers)', poolMax));
    console.log(`ratio Hostwarden/BIND: in-process ${(hwMax.qps / bindMax.qps).toFixed(2)}, 2 workers ${(poolMax.qps / bindMax.qps).toFixed(2)}`);
    console.log('-- capped at 20000 qps (-Q 20000)');
    console.log('   (p99 from dnsperf -v per-query output, which itself costs dnsperf CPU)');
    const bindCap = await dnsperf(bind.port, file, seconds, 20_000);
    const hwCap = await dnsperf(hwPort, file, seconds, 20_000);
    const poolCap = await dnsperf(poolPort, file, seconds, 20_000);
    console.log(line('BIND 9 (-n 2)', bindCap));
    console.log(line('Hostwarden (in-process)', hwCap));
    console.log(line('Hostwarden (2 workers)', poolCap));
  } finally {
    await inproc.stop();
    await pool.stop();
    await bind.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
