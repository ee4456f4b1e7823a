/**
 * One run of the Kubernetes benchmark: the test API server filled with an object set (one child
 * process), the shipped `bin/hostwarden run --provider inmemory` with the set's `--source` flags
 * (a second child process, so its RSS is Hostwarden's alone), and the changes, one at a time, each
 * timed from its PATCH until Hostwarden's JSON log says it applies the record the change moves.
 */
import { fork, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { openSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { KubeClient } from '../../src/kube/client.ts';
import { objectPath } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import type { Change } from './objects.ts';

const BIN = fileURLToPath(new URL('../../bin/hostwarden', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHANGE_TIMEOUT_MS = 30_000;
const PROGRESS_EVERY = 250;
export const mb = (kib: number): number => Math.round(kib / 1024);

export interface RunOptions {
  /** Counts per kind (objects.ts), as the API server child takes them. */
  counts: Record<string, number>;
  sources: readonly string[];
  /** The i-th change, and the kind it belongs to (for per-kind figures). */
  change: (i: number) => { kind: string; change: Change };
  changeCount: number;
  minEventSyncInterval: string;
  txtCacheInterval: string;
  runtime: 'auto' | 'tsx' | 'dist';
  hostwardenArgs: readonly string[];
  nodeArgs: readonly string[];
  imageNodeFlags: boolean;
  hostwardenStdout: string;
  /** Wait after the first apply, for the first sync's Events and watches to settle. */
  settleMs: number;
}

export interface Figures {
  initialMs: number;
  created: number;
  latencies: number[];
  perKind: Map<string, number[]>;
  applies: number;
  rssAfterSync: number;
  rssWhileChanging: number;
  peak: number;
  loadStart: string;
  loadEnd: string;
}

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
      this.line(line);
    }
  }

  private line(line: string): void {
    let entry: { msg?: string; create?: number; updated?: string[]; level?: number };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      process.stderr.write(`${line}\n`);
      return;
    }
    if (entry.msg !== 'applying changes') {
      if ((entry.level ?? 0) >= 40 && !this.quiet) process.stderr.write(`${line}\n`);
      return;
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

  /** `describeEndpoint` form: "name TYPE". */
  waitFor(record: string): Promise<void> {
    return new Promise((resolve) => this.waiters.set(record, resolve));
  }
}

/** What bin/hostwarden will run: dist/ when `npm run build` made it after the last change under src/. */
export async function builtRuntime(): Promise<string> {
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

export async function loadAverage(): Promise<string> {
  return (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

/** The node flags of the Dockerfile's ENTRYPOINT (["node", <flags…>, "bin/hostwarden"]), so the two cannot drift. */
async function imageNodeFlags(): Promise<string[]> {
  const dockerfile = await readFile(`${REPO_ROOT}Dockerfile`, 'utf8');
  const entry = /^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(dockerfile)?.[1];
  const words = entry === undefined ? [] : (JSON.parse(entry) as string[]);
  return words.slice(1, words.indexOf('bin/hostwarden')).filter((w) => w.startsWith('--'));
}

async function startApiServer(counts: Record<string, number>): Promise<{ child: ChildProcess; kubeconfig: string }> {
  const child = fork(fileURLToPath(new URL('./apiserver-child.ts', import.meta.url)), [JSON.stringify(counts)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const kubeconfig = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { kubeconfig: string }).kubeconfig));
    child.once('exit', (code) => reject(new Error(`API server child exited with ${code}`)));
  });
  return { child, kubeconfig };
}

function hostwardenArgsOf(o: RunOptions, kubeconfig: string): string[] {
  return [
    'run',
    ...o.sources.flatMap((s) => ['--source', s]),
    ...['--provider', 'inmemory', '--domain-filter', 'example.org', '--kubeconfig', kubeconfig, '--txt-owner-id', 'bench', '--interval', '1h'],
    ...['--min-event-sync-interval', o.minEventSyncInterval, '--txt-cache-interval', o.txtCacheInterval, '--metrics-address', '127.0.0.1:0'],
    ...['--log-level', 'info', '--log-format', 'json'],
    ...o.hostwardenArgs,
  ];
}

export async function runKubeBench(o: RunOptions): Promise<Figures> {
  const loadStart = await loadAverage();
  const tApi = performance.now();
  const api = await startApiServer(o.counts);
  const what = Object.entries(o.counts)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  process.stdout.write(`objects: ${what} (test API server filled in ${Math.round(performance.now() - tApi)} ms, its own process)\n`);

  const hostwardenArgs = hostwardenArgsOf(o, api.kubeconfig);
  const runtimeNote = o.runtime === 'tsx' ? 'tsx (forced)' : o.runtime === 'dist' ? 'dist (forced, as last built)' : await builtRuntime();
  const entry = o.runtime === 'dist' ? `${REPO_ROOT}dist/cli/bin.js` : BIN;
  const nodeFlags = [...(o.imageNodeFlags ? await imageNodeFlags() : []), ...o.nodeArgs];
  process.stdout.write(`hostwarden ${hostwardenArgs.join(' ')}\nruntime: ${runtimeNote}\nnode flags: ${nodeFlags.join(' ') || '(none)'}\n`);
  const applyLog = new ApplyLog();
  const tSpawn = performance.now();
  const hostwarden: ChildProcess = spawn(process.execPath, [...nodeFlags, entry, ...hostwardenArgs], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...(o.runtime === 'tsx' ? { HOSTWARDEN_TSX: '1' } : {}) },
    stdio: ['ignore', o.hostwardenStdout === '' ? 'ignore' : openSync(o.hostwardenStdout, 'w'), 'pipe'],
  });
  hostwarden.stderr?.on('data', (chunk: Buffer) => applyLog.feed(chunk));
  const hostwardenExit = new Promise<number | null>((resolve) => hostwarden.once('exit', (code) => resolve(code)));
  const pid = hostwarden.pid ?? 0;
  let samples: { rss: number; peak: number }[] = [];
  const sampler = setInterval(() => void memoryOf(pid).then((m) => samples.push(m)), 250);
  const writer = KubeClient.fromConfig({ kubeconfig: api.kubeconfig, env: {} }, silentLogger());
  try {
    await withTimeout(
      Promise.race([applyLog.firstApplied, hostwardenExit.then((code) => Promise.reject(new Error(`hostwarden exited with ${code}`)))]),
      600_000,
      'the first apply',
    );
    const initialMs = performance.now() - tSpawn;
    const afterSync = await memoryOf(pid);
    process.stdout.write(`initial sync (process start → ${applyLog.firstApply?.create ?? 0} records and their TXT applied): ${Math.round(initialMs)} ms\n`);
    await new Promise((r) => setTimeout(r, o.settleMs));
    const appliesBefore = applyLog.applies;
    samples = [];
    await writer.request('GET', '/api');
    const latencies: number[] = [];
    const perKind = new Map<string, number[]>();
    for (let i = 0; i < o.changeCount; i++) {
      const { kind, change } = o.change(i);
      const applied = applyLog.waitFor(change.record);
      const started = performance.now();
      await writer.request('PATCH', objectPath(change.resource, change.namespace, change.name), {
        body: change.patch,
        contentType: 'application/merge-patch+json',
      });
      await withTimeout(applied, CHANGE_TIMEOUT_MS, `change ${i} (${kind} ${change.name} → ${change.record})`);
      const ms = performance.now() - started;
      latencies.push(ms);
      perKind.set(kind, [...(perKind.get(kind) ?? []), ms]);
      // A long run under load shows it is moving.
      if ((i + 1) % PROGRESS_EVERY === 0 && i + 1 < o.changeCount) {
        const last = latencies.slice(-PROGRESS_EVERY).sort((a, b) => a - b);
        process.stdout.write(
          `  ${i + 1}/${o.changeCount} changes; the last ${PROGRESS_EVERY}: p50 ${percentile(last, 50)} ms, max ${percentile(last, 100)} ms\n`,
        );
      }
    }
    const end = await memoryOf(pid);
    return {
      initialMs,
      created: applyLog.firstApply?.create ?? 0,
      latencies,
      perKind,
      applies: applyLog.applies - appliesBefore,
      rssAfterSync: afterSync.rss,
      rssWhileChanging: samples.length === 0 ? end.rss : Math.max(...samples.map((s) => s.rss)),
      peak: end.peak,
      loadStart,
      loadEnd: await loadAverage(),
    };
  } finally {
    clearInterval(sampler);
    applyLog.quiet = true;
    if (hostwarden.exitCode === null && hostwarden.signalCode === null) hostwarden.kill('SIGTERM');
    const killer = setTimeout(() => hostwarden.kill('SIGKILL'), 30_000);
    await hostwardenExit;
    clearTimeout(killer);
    writer.close();
    api.child.disconnect();
  }
}

/** The p-th percentile of ascending-sorted values (as the benchmark has always taken it). */
export function percentile(sorted: readonly number[], p: number): number {
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0);
}
