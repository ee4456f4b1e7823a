/**
 * Admission webhook benchmark: decisions per second and latency percentiles over HTTPS on
 * loopback, against `bin/hostwarden admission-webhook` in its own process (as deployed). Two
 * workloads: Services inside the allowed ranges (no SubjectAccessReview), and Services outside
 * them from an admin, so every request makes the override SubjectAccessReview round trip to the
 * test API server (in this process, beside the load generator).
 *
 *   npm run bench:admission
 *   node --import tsx bench/admission/bench.ts --requests 5000 --concurrency 1,32
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { decide } from '../../src/admission/decision.ts';
import { policyFromFlags } from '../../src/admission/policy.ts';
import { readReview } from '../../src/http/admission-review.ts';
import { makeCert, serviceReview, writeKubeconfig } from '../../test/admission/harness.ts';
import { startTestApiServer } from '../../test/support/kube-apiserver/server.ts';

const GOAL_P99_MS = 10;
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const REQUESTS = Number(arg('requests', '4000'));
const CONCURRENCY = arg('concurrency', '1,16').split(',').map(Number);

function post(port: number, ca: Buffer, agent: Agent, body: string): Promise<{ allowed: boolean; status?: { message?: string } }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/validate-services-externalips',
        ca,
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve((JSON.parse(text) as { response: { allowed: boolean; status?: { message?: string } } }).response));
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
    req.end(body);
  });
}

/** CPU time (user + system) a process has used, in ms; from /proc, so it works for the child. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return NaN;
  }
}

/**
 * The decision alone (parse + decide), in this process: what the code costs without HTTPS, in CPU
 * time so that a busy machine does not distort it.
 */
function pureDecisionCpuMicros(body: string): number {
  const policy = policyFromFlags({ allowedCidrs: ['10.0.0.0/8'], rejectedCidrs: [], allowIngressIP: false });
  const n = 50_000;
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const read = readReview(body);
    if (!read.ok || !decide(policy, read.request).allowed) throw new Error('unexpected decision');
  }
  const used = process.cpuUsage(t0);
  return (used.user + used.system) / n;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function measure(
  port: number,
  ca: Buffer,
  body: string,
  expectAllowed: boolean,
  total: number,
  concurrency: number,
): Promise<{ rate: number; p50: number; p99: number; max: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < total) {
      next++;
      const t0 = performance.now();
      const answer = await post(port, ca, agent, body);
      latencies.push(performance.now() - t0);
      if (answer.allowed !== expectAllowed) throw new Error(`unexpected decision: allowed=${String(answer.allowed)}: ${answer.status?.message ?? ''}`);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { rate: total / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] ?? NaN };
}

async function main(): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'hostwarden-admission-bench-'));
  const api = await startTestApiServer();
  api.setSubjectAccessReviewAnswer((spec) => ({ allowed: ((spec['groups'] as string[] | undefined) ?? []).includes('system:masters') }));
  const kubeconfig = await writeKubeconfig(dir, api.url);
  const cert = await makeCert(dir, 'bench');
  const ca = await readFile(cert.certFile);
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin/hostwarden'),
      'admission-webhook',
      '--log-format',
      'json',
      '--listen',
      '127.0.0.1:0',
      '--kubeconfig',
      kubeconfig,
      '--tls-cert-file',
      cert.certFile,
      '--tls-private-key-file',
      cert.keyFile,
      '--allowed-cidrs',
      '10.0.0.0/8',
    ],
    { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let failed = false;
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let buffer = '';
      const timer = setTimeout(() => reject(new Error(`the webhook did not start within 120 s: ${buffer.slice(0, 500)}`)), 120_000);
      child.stderr?.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const m = /"address":"127\.0\.0\.1:(\d+)"/.exec(buffer);
        if (m !== null) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
      child.once('exit', (code) => reject(new Error(`the webhook exited (${String(code)}): ${buffer.slice(0, 500)}`)));
    });
    child.stderr?.resume();
    const workloads = [
      { name: 'inside the ranges (no SubjectAccessReview)', body: serviceReview({ externalIPs: ['10.1.2.3', '10.4.5.6'] }), allowed: true },
      {
        name: 'admin override (SubjectAccessReview round trip)',
        body: serviceReview({ externalIPs: ['192.0.2.1'], user: 'root', groups: ['system:masters'] }),
        allowed: true,
      },
    ];
    const cores = (await import('node:os')).availableParallelism();
    const load = (await import('node:os')).loadavg()[0] ?? 0;
    const micros = pureDecisionCpuMicros(workloads[0]!.body);
    console.log(`parse + decide alone, in process: ${micros.toFixed(1)} µs CPU each (${(1e6 / micros).toFixed(0)} decisions per CPU-second)`);
    console.log(
      `admission webhook over HTTPS on loopback, ${REQUESTS} requests per row, keep-alive connections; ${cores} cores, load average ${load.toFixed(1)} at start`,
    );
    console.log(
      'workload'.padEnd(50) +
        'conc'.padStart(6) +
        'decisions/s'.padStart(13) +
        'p50 ms'.padStart(9) +
        'p99 ms'.padStart(9) +
        'max ms'.padStart(9) +
        'cpu ms/req'.padStart(12) +
        '  goal p99 ≤ 10 ms',
    );
    for (const w of workloads) {
      await measure(port, ca, w.body, w.allowed, 300, 4); // warm-up: JIT, TLS sessions, API client
      for (const c of CONCURRENCY) {
        const cpu0 = cpuMs(child.pid ?? 0);
        const r = await measure(port, ca, w.body, w.allowed, REQUESTS, c);
        const cpuPerRequest = (cpuMs(child.pid ?? 0) - cpu0) / REQUESTS;
        const ok = r.p99 <= GOAL_P99_MS;
        if (!ok) failed = true;
        console.log(
          w.name.padEnd(50) +
            String(c).padStart(6) +
            r.rate.toFixed(0).padStart(13) +
            r.p50.toFixed(2).padStart(9) +
            r.p99.toFixed(2).padStart(9) +
            r.max.toFixed(2).padStart(9) +
            cpuPerRequest.toFixed(3).padStart(12) +
            `  ${ok ? 'met' : 'MISSED'}`,
        );
      }
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return failed ? 1 : 0;
}

process.exitCode = await main();
