/**
 * Kubernetes benchmark: N Services + N Ingresses in the test API server (one child process), read by
 * the shipped `bin/hostwarden run --source service --source ingress --provider inmemory` (a second
 * child process, so its RSS is Hostwarden's alone), which plans through the TXT registry; applies are
 * seen in its JSON log. Events and /metrics stay on, as in a cluster. Prints the initial sync time, object change → apply latency (p50/p99 over `--changes`
 * sequential changes, each a PATCH of one Service's target annotation) and Hostwarden's RSS (peak
 * from the kernel's VmHWM), beside the goals of issue #4.
 *
 *   npm run bench:kube                                   # 10k + 10k, 1,000 changes
 *   node --import tsx bench/kube/bench.ts --objects 2000 --changes 200
 *   BENCH_CHANGES=200 npm run bench:kube                 # fewer changes, same objects
 *   ... --min-event-sync-interval 100ms --txt-cache-interval 1h   # the knobs under test (defaults shown)
 *   ... --hostwarden-arg --foo=bar                       # any further flag for Hostwarden (repeatable)
 *   ... --runtime tsx|dist                               # force the sources through tsx, or dist/ as built (default: what bin/hostwarden picks)
 *   ... --node-arg --cpu-prof --node-arg --cpu-prof-dir=/tmp/prof   # node flags for Hostwarden (profiles)
 *   ... --node-arg --trace-gc --hostwarden-stdout /tmp/gc.log       # what node prints on stdout, to a file
 *   ... --no-image-node-flags                            # leave out the node flags of the image's ENTRYPOINT
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fork } from 'node:child_process';
import { openSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { KubeClient } from '../../src/kube/client.ts';
import { SERVICES, objectPath } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';

const BIN = fileURLToPath(new URL('../../bin/hostwarden', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}
function args(name: string): string[] {
  return process.argv.flatMap((a, i) => (a === `--${name}` && process.argv[i + 1] !== undefined ? [process.argv[i + 1] as string] : []));
}

const objects = Number(arg('objects', process.env['BENCH_OBJECTS'] ?? '10000'));
const changeCount = Number(arg('changes', process.env['BENCH_CHANGES'] ?? '1000'));
const minEventSyncInterval = arg('min-event-sync-interval', '100ms');
const txtCacheInterval = arg('txt-cache-interval', '1h');
const runtime = arg('runtime', 'auto');
const GOAL_P99_MS = 1000;
const GOAL_RSS_MB = 150;
const CHANGE_TIMEOUT_MS = 30_000;
const mb = (kib: number): number => Math.round(kib / 1024);

/**
 * Follows Hostwarden's JSON log: the controller logs "applying changes" with the names it updates
 * right before the inmemory provider applies them (synchronously, in the same tick).
 */
class ApplyLog {
  private readonly waiters = new Map<string, () => void>();
  private buffer = '';
  /** Set once the figures are taken: shutdown noise (events cut short) is not worth printing. */
  quiet = false;
  applies = 0;
  firstApply: { create: number } | undefined;
  private firstApplyDone: (() => void) | undefined;
  readonly firstApplied = new Promise<void>((resolve) => (this.firstApplyDone = resolve));

  feed(chunk: Buffer): void {
    this.buffer += chunk.toString();
    let nl = this.buffer.indexOf('\n');
    while (nl >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      nl = this.buffer.indexOf('\n');
      let entry: { msg?: string; create?: number; updated?: string[]; level?: number };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        process.stderr.write(`${line}\n`);
        continue;
      }
      if (entry.msg !== 'applying changes') {
        if ((entry.level ?? 0) >= 40 && !this.quiet) process.stderr.write(`${line}\n`);
        continue;
      }
      this.applies++;
      if (this.firstApply === undefined) {
        this.firstApply = { create: entry.create ?? 0 };
        this.firstApplyDone?.();
      }
      for (const name of entry.updated ?? []) {
        const w = this.waiters.get(name);
        if (w === undefined) continue;
        this.waiters.delete(name);
        w();
      }
    }
  }

  /** `describeEndpoint` form: "name TYPE". */
  waitFor(record: string): Promise<void> {
    return new Promise((resolve) => this.waiters.set(record, resolve));
  }
}

/** What bin/hostwarden will run: dist/ when `npm run build` made it after the last change under src/. */
async function builtRuntime(): Promise<string> {
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce(
      (m, e) => Math.max(m, e.isDirectory() ? newest(`${dir}/${e.name}`) : statSync(`${dir}/${e.name}`).mtimeMs),
      statSync(dir).mtimeMs,
    );
  const stamp = await readFile(`${REPO_ROOT}dist/.build.json`, 'utf8').catch(() => '');
  if (stamp === '') return 'tsx (no dist/: npm run build)';
  return newest(`${REPO_ROOT}src`) < (JSON.parse(stamp) as { startedAt: number }).startedAt
    ? 'dist (compiled JS, plain node)'
    : 'tsx (dist/ is older than src/: npm run build)';
}

/** VmRSS and VmHWM (peak) of a process, in KiB, from /proc. */
async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? '0');
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

const tApi = performance.now();
const apiChild = fork(fileURLToPath(new URL('./apiserver-child.ts', import.meta.url)), [String(objects)], {
  execArgv: ['--import', 'tsx'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const kubeconfig = await new Promise<string>((resolve, reject) => {
  apiChild.once('message', (m) => resolve((m as { kubeconfig: string }).kubeconfig));
  apiChild.once('exit', (code) => reject(new Error(`API server child exited with ${code}`)));
});
process.stdout.write(
  `objects: ${objects} Services + ${objects} Ingresses (test API server filled in ${Math.round(performance.now() - tApi)} ms, its own process)\n`,
);

const logger = silentLogger();

const hostwardenArgs = [
  'run',
  '--source',
  'service',
  '--source',
  'ingress',
  '--provider',
  'inmemory',
  '--domain-filter',
  'example.org',
  '--kubeconfig',
  kubeconfig,
  '--txt-owner-id',
  'bench',
  '--interval',
  '1h',
  '--min-event-sync-interval',
  minEventSyncInterval,
  '--txt-cache-interval',
  txtCacheInterval,
  '--metrics-address',
  '127.0.0.1:0',
  '--log-level',
  'info',
  '--log-format',
  'json',
  ...args('hostwarden-arg'),
];
const runtimeNote = runtime === 'tsx' ? 'tsx (forced)' : runtime === 'dist' ? 'dist (forced, as last built)' : await builtRuntime();
const entry = runtime === 'dist' ? `${REPO_ROOT}dist/cli/bin.js` : BIN;
process.stdout.write(`hostwarden ${hostwardenArgs.join(' ')}\nruntime: ${runtimeNote}\n`);
const applyLog = new ApplyLog();
const tSpawn = performance.now();
// Hostwarden runs as the container image starts it, unless asked not to: the node flags are read
// from the Dockerfile's ENTRYPOINT (["node", <flags…>, "bin/hostwarden"]), so the two cannot drift.
async function imageNodeFlags(): Promise<string[]> {
  const dockerfile = await readFile(`${REPO_ROOT}Dockerfile`, 'utf8');
  const entry = /^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(dockerfile)?.[1];
  const words = entry === undefined ? [] : (JSON.parse(entry) as string[]);
  return words.slice(1, words.indexOf('bin/hostwarden')).filter((w) => w.startsWith('--'));
}
const nodeFlags = [...(process.argv.includes('--no-image-node-flags') ? [] : await imageNodeFlags()), ...args('node-arg')];
process.stdout.write(`node flags: ${nodeFlags.join(' ') || '(none)'}\n`);
const hostwarden: ChildProcess = spawn(process.execPath, [...nodeFlags, entry, ...hostwardenArgs], {
  cwd: REPO_ROOT,
  env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...(runtime === 'tsx' ? { HOSTWARDEN_TSX: '1' } : {}) },
  stdio: ['ignore', arg('hostwarden-stdout', '') === '' ? 'ignore' : openSync(arg('hostwarden-stdout', ''), 'w'), 'pipe'],
});
hostwarden.stderr?.on('data', (chunk: Buffer) => applyLog.feed(chunk));
const hostwardenExit = new Promise<number | null>((resolve) => hostwarden.once('exit', (code) => resolve(code)));
const pid = hostwarden.pid ?? 0;
let samples: { rss: number; peak: number }[] = [];
const sampler = setInterval(() => void memoryOf(pid).then((m) => samples.push(m)), 250);

const writer = KubeClient.fromConfig({ kubeconfig, env: {} }, logger);
let failed = false;
try {
  await withTimeout(
    Promise.race([applyLog.firstApplied, hostwardenExit.then((code) => Promise.reject(new Error(`hostwarden exited with ${code}`)))]),
    600_000,
    'the first apply',
  );
  const initialMs = performance.now() - tSpawn;
  const afterSync = await memoryOf(pid);
  process.stdout.write(
    `initial sync (process start, list both types, translate, plan, apply ${applyLog.firstApply?.create ?? 0} records and their TXT): ${Math.round(initialMs)} ms\n`,
  );
  // Events for 20k objects and the loop's own first sync settle before measuring.
  await new Promise((r) => setTimeout(r, 3000));
  const appliesBefore = applyLog.applies;
  samples = [];

  await writer.request('GET', '/api');
  const latencies: number[] = [];
  for (let i = 0; i < changeCount; i++) {
    const n = (i * 7919) % objects;
    const target = `172.16.${(i >> 8) & 255}.${i & 255}`;
    const applied = applyLog.waitFor(`svc-${n}.example.org A`);
    const started = performance.now();
    await writer.request('PATCH', objectPath(SERVICES, `ns-${n % 20}`, `svc-${n}`), {
      body: { metadata: { annotations: { 'external-dns.alpha.kubernetes.io/target': target } } },
      contentType: 'application/merge-patch+json',
    });
    await withTimeout(applied, CHANGE_TIMEOUT_MS, `change ${i} (svc-${n} → ${target})`);
    latencies.push(performance.now() - started);
  }
  const end = await memoryOf(pid);
  const steadyRss = samples.length === 0 ? end.rss : Math.max(...samples.map((s) => s.rss));

  latencies.sort((a, b) => a - b);
  const pct = (p: number): number => Math.round(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0);
  const load = (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
  process.stdout.write(
    `event → apply over ${latencies.length} changes (--min-event-sync-interval ${minEventSyncInterval}, --txt-cache-interval ${txtCacheInterval}): p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${pct(100)} ms; ` +
      `${applyLog.applies - appliesBefore} applies\n`,
  );
  process.stdout.write(
    `Hostwarden RSS: ${mb(afterSync.rss)} MB after the first sync, ${mb(steadyRss)} MB highest while changing, ${mb(end.peak)} MB peak over the whole run (VmHWM)\n`,
  );
  process.stdout.write(`runtime: ${runtimeNote}; load average at the end: ${load}\n\n`);
  const row = (what: string, goal: string, measured: string, ok: boolean): string =>
    `${what.padEnd(32)}${goal.padEnd(12)}${measured.padEnd(12)}${ok ? 'met' : 'MISSED'}\n`;
  process.stdout.write(row('goal (issue #4)', 'target', 'measured', true).replace('met', ''));
  process.stdout.write(row('event → apply p99', `≤ ${GOAL_P99_MS} ms`, `${pct(99)} ms`, pct(99) <= GOAL_P99_MS));
  process.stdout.write(row('RSS while changing', `≤ ${GOAL_RSS_MB} MB`, `${mb(steadyRss)} MB`, mb(steadyRss) <= GOAL_RSS_MB));
  process.stdout.write(row('RSS peak, whole run (VmHWM)', `≤ ${GOAL_RSS_MB} MB`, `${mb(end.peak)} MB`, mb(end.peak) <= GOAL_RSS_MB));
} catch (err) {
  failed = true;
  process.stderr.write(`benchmark failed: ${(err as Error).message}\n`);
} finally {
  clearInterval(sampler);
  applyLog.quiet = true;
  if (hostwarden.exitCode === null && hostwarden.signalCode === null) hostwarden.kill('SIGTERM');
  const killer = setTimeout(() => hostwarden.kill('SIGKILL'), 30_000);
  await hostwardenExit;
  clearTimeout(killer);
  writer.close();
  apiChild.disconnect();
}
process.exitCode = failed ? 1 : 0;
