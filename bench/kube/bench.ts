/**
 * Kubernetes benchmark. The service+ingress run (issue #4): N Services + N Ingresses in the test API
 * server (one child process), read by the shipped `bin/hostwarden run --source service --source
 * ingress --provider inmemory` (a second child process, so its RSS is Hostwarden's alone), which
 * plans through the TXT registry; applies are seen in its JSON log. Events and /metrics stay on, as
 * in a cluster. Prints the initial sync time, object change → apply latency (p50/p99 over
 * `--changes` sequential changes, each a PATCH of one Service's target annotation) and Hostwarden's
 * RSS (peak from the kernel's VmHWM), beside the goals of issue #4.
 *
 * The mixed run (issue #20, `--mix`): 5k Services, 5k Ingresses, 2k Nodes, 5k Pods, 2k HTTPRoutes
 * (with a Gateway per namespace), 1k Istio Gateways and 1k Istio VirtualServices (objects.ts), read
 * by every source among service, ingress, node, pod, gateway-httproute, istio-gateway and
 * istio-virtualservice that the binary accepts (the others are skipped with a note; their objects
 * are still created); the changes go round-robin over the kinds read, each moving one record.
 * `--mix` runs the service+ingress run first and prints both side by side.
 *
 *   npm run bench:kube                                   # 10k + 10k, 1,000 changes
 *   npm run bench:kube:mix                               # the service+ingress run, then the mixed run, side by side
 *   node --import tsx bench/kube/bench.ts --objects 2000 --changes 200
 *   ... --mix --scale 0.2                                # the mixed run at a fifth of the issue's sizes
 *   ... --mix-only                                       # the mixed run alone
 *   BENCH_CHANGES=200 npm run bench:kube                 # fewer changes, same objects
 *   ... --min-event-sync-interval 100ms --txt-cache-interval 1h   # the knobs under test (defaults shown)
 *   ... --hostwarden-arg --foo=bar                       # any further flag for Hostwarden (repeatable)
 *   ... --runtime tsx|dist                               # force the sources through tsx, or dist/ as built (default: what bin/hostwarden picks)
 *   ... --node-arg --cpu-prof --node-arg --cpu-prof-dir=/tmp/prof   # node flags for Hostwarden (profiles)
 *   ... --node-arg --trace-gc --hostwarden-stdout /tmp/gc.log       # what node prints on stdout, to a file
 *   ... --no-image-node-flags                            # leave out the node flags of the image's ENTRYPOINT
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { KINDS, kindOf, mixedSet, serviceIngressSet } from './objects.ts';
import { REPO_ROOT, mb, percentile, runKubeBench } from './run.ts';
import type { Figures, RunOptions } from './run.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}
function args(name: string): string[] {
  return process.argv.flatMap((a, i) => (a === `--${name}` && process.argv[i + 1] !== undefined ? [process.argv[i + 1] as string] : []));
}

const objects = Number(arg('objects', process.env['BENCH_OBJECTS'] ?? '10000'));
const changeCount = Number(arg('changes', process.env['BENCH_CHANGES'] ?? '1000'));
const scale = Number(arg('scale', '1'));
const mixOnly = process.argv.includes('--mix-only');
const mix = mixOnly || process.argv.includes('--mix');
const runtimeArg = arg('runtime', 'auto');
const runtime: RunOptions['runtime'] = runtimeArg === 'tsx' || runtimeArg === 'dist' ? runtimeArg : 'auto';
const GOALS = {
  serviceIngress: { issue: 'issue #4', p99Ms: 1000, rssMb: 150 },
  mixed: { issue: 'issue #20', p99Ms: 1000, rssMb: 250 },
};
const SETTLE_MS = 3000;

const common: Omit<RunOptions, 'counts' | 'sources' | 'change'> = {
  changeCount,
  minEventSyncInterval: arg('min-event-sync-interval', '100ms'),
  txtCacheInterval: arg('txt-cache-interval', '1h'),
  runtime,
  hostwardenArgs: args('hostwarden-arg'),
  nodeArgs: args('node-arg'),
  imageNodeFlags: !process.argv.includes('--no-image-node-flags'),
  hostwardenStdout: arg('hostwarden-stdout', ''),
  settleMs: SETTLE_MS,
};

/**
 * Whether the binary accepts `--source <name>`: start-up rejects an unknown or unimplemented source
 * before it reads the (absent) kubeconfig, naming the source.
 */
async function sourceAccepted(name: string): Promise<boolean> {
  const entry = runtime === 'dist' ? `${REPO_ROOT}dist/cli/bin.js` : `${REPO_ROOT}bin/hostwarden`;
  const out = await promisify(execFile)(
    process.execPath,
    [entry, 'run', '--source', name, '--provider', 'inmemory', '--once', '--dry-run', '--kubeconfig', '/nonexistent/kubeconfig'],
    { cwd: REPO_ROOT, env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' }, timeout: 60_000 },
  ).then(
    (r) => r.stdout + r.stderr,
    (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}`,
  );
  return !out.includes(`--source=${name}`) && !out.includes(`--source "${name}"`);
}

/** The service+ingress run: only Services change, as issue #4's benchmark has always done. */
function serviceIngressRun(): RunOptions {
  const service = kindOf('service');
  return {
    ...common,
    counts: serviceIngressSet(objects),
    sources: ['service', 'ingress'],
    change: (i) => ({ kind: 'service', change: service.change((i * 7919) % objects, i) }),
  };
}

/** The mixed run: the kinds whose sources the binary accepts are read and changed in turn. */
async function mixedRun(): Promise<RunOptions> {
  const counts = mixedSet(scale);
  const accepted = new Map<string, boolean>();
  for (const s of new Set(KINDS.flatMap((k) => k.sources))) accepted.set(s, await sourceAccepted(s));
  const read = KINDS.filter((k) => counts[k.key] !== undefined && k.sources.every((s) => accepted.get(s) === true));
  for (const k of KINDS.filter((k) => counts[k.key] !== undefined && !read.includes(k)))
    process.stdout.write(
      `note: skipping ${k.label}: this binary does not accept --source ${k.sources.filter((s) => accepted.get(s) !== true).join(', ')} (the objects are created, nothing reads or changes them)\n`,
    );
  return {
    ...common,
    counts,
    sources: [...new Set(read.flatMap((k) => k.sources))],
    change: (i) => {
      const k = read[i % read.length] ?? kindOf('service');
      const round = Math.floor(i / read.length);
      return { kind: k.key, change: k.change((round * 7919) % (counts[k.key] ?? 1), i) };
    },
  };
}

interface Row {
  label: string;
  goal: { issue: string; p99Ms: number; rssMb: number };
  figures: Figures;
  counts: Record<string, number>;
}

const sec = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

function printRun(r: Row): void {
  const f = r.figures;
  const sorted = [...f.latencies].sort((a, b) => a - b);
  process.stdout.write(
    `${r.label}: initial sync ${sec(f.initialMs)} (${f.created} records created); event → apply over ${sorted.length} changes: ` +
      `p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms, max ${percentile(sorted, 100)} ms; ${f.applies} applies; ` +
      `RSS ${mb(f.rssAfterSync)} MB after the first sync, ${mb(f.rssWhileChanging)} MB highest while changing, ${mb(f.peak)} MB peak (VmHWM); ` +
      `load ${f.loadStart} → ${f.loadEnd}\n`,
  );
  if (f.perKind.size > 1)
    for (const [kind, ms] of f.perKind) {
      const s = [...ms].sort((a, b) => a - b);
      process.stdout.write(`  ${kind.padEnd(22)} ${String(s.length).padStart(5)} changes  p50 ${percentile(s, 50)} ms  p99 ${percentile(s, 99)} ms\n`);
    }
}

/** Both runs side by side; each figure with a goal says whether its own run's goal (issue #4 or #20) is met. */
function printTable(rows: readonly Row[]): void {
  const p = (f: Figures, q: number): number =>
    percentile(
      [...f.latencies].sort((a, b) => a - b),
      q,
    );
  const verdict = (ok: boolean): string => (ok ? ' (met)' : ' (MISSED)');
  const lines: [string, (r: Row) => string][] = [
    ['objects', (r) => String(Object.values(r.counts).reduce((a, b) => a + b, 0))],
    ['goals', (r) => `${r.goal.issue}: p99 ≤ ${r.goal.p99Ms} ms, ≤ ${r.goal.rssMb} MB`],
    ['initial sync', (r) => sec(r.figures.initialMs)],
    ['event → apply p50', (r) => `${p(r.figures, 50)} ms`],
    ['event → apply p99', (r) => `${p(r.figures, 99)} ms${verdict(p(r.figures, 99) <= r.goal.p99Ms)}`],
    ['event → apply max', (r) => `${p(r.figures, 100)} ms`],
    ['RSS after the first sync', (r) => `${mb(r.figures.rssAfterSync)} MB`],
    ['RSS while changing', (r) => `${mb(r.figures.rssWhileChanging)} MB`],
    ['RSS peak (VmHWM)', (r) => `${mb(r.figures.peak)} MB${verdict(mb(r.figures.peak) <= r.goal.rssMb)}`],
    ['load average start → end', (r) => `${r.figures.loadStart.split(' ')[0]} → ${r.figures.loadEnd.split(' ')[0]}`],
  ];
  const w = 40;
  process.stdout.write(`\n${''.padEnd(26)}${rows.map((r) => r.label.padEnd(w)).join('')}\n`);
  for (const [what, cell] of lines) process.stdout.write(`${what.padEnd(26)}${rows.map((r) => cell(r).padEnd(w)).join('')}\n`);
}

let failed = false;
try {
  const rows: Row[] = [];
  if (!mixOnly) {
    const o = serviceIngressRun();
    process.stdout.write(`\n== service+ingress run ==\n`);
    rows.push({ label: `service+ingress ${objects}+${objects}`, goal: GOALS.serviceIngress, figures: await runKubeBench(o), counts: o.counts });
  }
  if (mix) {
    process.stdout.write(`\n== mixed run (scale ${scale}) ==\n`);
    const o = await mixedRun();
    rows.push({ label: `mixed ×${scale}`, goal: GOALS.mixed, figures: await runKubeBench(o), counts: o.counts });
  }
  process.stdout.write('\n');
  for (const r of rows) printRun(r);
  printTable(rows);
} catch (err) {
  failed = true;
  process.stderr.write(`benchmark failed: ${(err as Error).message}\n`);
}
process.exitCode = failed ? 1 : 0;
