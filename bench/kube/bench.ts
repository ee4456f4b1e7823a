/**
 * Kubernetes benchmark: N Services + N Ingresses in the test API server (a child process), read
 * by the service and ingress sources over HTTP, planned through the TXT registry into the inmemory
 * provider by the controller, with Events on. Prints the initial sync time, object change → apply
 * latency (p50/p99 over `--changes` sequential changes, each a PATCH of one Service's target
 * annotation) and this process's RSS.
 *
 *   npm run bench:kube                               # 10k + 10k, 1,000 changes
 *   node --import tsx bench/kube/bench.ts --objects 2000 --changes 200
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Controller } from '../../src/controller/controller.ts';
import { AllDomainFilters } from '../../src/endpoint/domain-filter.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { EventRecorder } from '../../src/kube/events.ts';
import { RecordEventReporter } from '../../src/kube/record-events.ts';
import { SERVICES, objectPath } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { InMemoryProvider } from '../../src/provider/inmemory/inmemory.ts';
import type { Changes } from '../../src/provider/provider.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';
import { ingressSource, serviceSource } from '../../src/source/kube/sources.ts';
import { MultiSource } from '../../src/source/wrappers/multi-source.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const objects = arg('objects', 10_000);
const changeCount = arg('changes', 1000);
const minEventMs = arg('min-event-sync-interval-ms', 100);
const mb = (bytes: number): number => Math.round(bytes / 1024 / 1024);

const child = fork(fileURLToPath(new URL('./apiserver-child.ts', import.meta.url)), [String(objects)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const kubeconfig = await new Promise<string>((resolve, reject) => {
  child.once('message', (m) => resolve((m as { kubeconfig: string }).kubeconfig));
  child.once('exit', (code) => reject(new Error(`API server child exited with ${code}`)));
});

/** Resolves waiters when an applied change gives a name the expected target. */
class WatchedProvider extends InMemoryProvider {
  private readonly waiters = new Map<string, { target: string; resolve: () => void }>();
  waitFor(name: string, target: string): Promise<void> {
    return new Promise((resolve) => this.waiters.set(name, { target, resolve }));
  }
  override async applyChanges(changes: Changes): Promise<void> {
    await super.applyChanges(changes);
    for (const ep of [...changes.create, ...changes.updateNew]) {
      const w = this.waiters.get(ep.dnsName);
      if (w !== undefined && ep.targets.includes(w.target)) {
        this.waiters.delete(ep.dnsName);
        w.resolve();
      }
    }
  }
}

const logger = silentLogger();
const client = KubeClient.fromConfig({ kubeconfig, env: {} }, logger);
const writer = KubeClient.fromConfig({ kubeconfig, env: {} }, logger);
const provider = new WatchedProvider({ zones: ['example.org'] });
const registry = new TXTRegistry(provider, { ownerId: 'bench', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger });
const deps = { client, logger, translateOptions: {}, namespace: '', syncTimeoutMs: 600_000 };
const sources = [serviceSource(deps), ingressSource(deps, [])];
const recorder = new EventRecorder({ client, logger, instance: 'bench', maxQueue: 50_000 });
const reporter = new RecordEventReporter({ recorder, enabled: new Set(['RecordReady', 'RecordDeleted', 'RecordError']) });
const syncMs: number[] = [];
const controller = new Controller({
  source: new MultiSource({ sources }),
  registry,
  plan: { policy: 'sync', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], domainFilter: new AllDomainFilters([]), migrateFromOwner: '' },
  intervalMs: 3_600_000,
  minEventSyncIntervalMs: minEventMs,
  dryRun: false,
  logger,
  onSynced: (r) => reporter.onSynced(r),
});

// client-node is imported on the first request; that cost (seconds under tsx) is start-up, not sync.
const tImport = performance.now();
await client.request('GET', '/api');
await writer.request('GET', '/api');
const importMs = performance.now() - tImport;
const rssBaseline = process.memoryUsage().rss;
const t0 = performance.now();
const initial = await controller.runOnce();
const initialMs = performance.now() - t0;
const rssAfterSync = process.memoryUsage().rss;
process.stdout.write(`objects: ${objects} Services + ${objects} Ingresses\n`);
process.stdout.write(`client start-up (client-node import + first request): ${Math.round(importMs)} ms\n`);
process.stdout.write(`initial sync (list both types, translate, plan, apply): ${Math.round(initialMs)} ms, ${initial.changes.create.length} records planned\n`);
await recorder.flush();
process.stdout.write(`events written after the first sync: ${recorder.stats.sent} (failed ${recorder.stats.failed}, dropped ${recorder.stats.dropped})\n`);

const stop = new AbortController();
const loop = controller.run(stop.signal);
// The loop's own first sync finds nothing to do; let it pass before measuring.
await new Promise((r) => setTimeout(r, 1000));

const latencies: number[] = [];
let peakRss = process.memoryUsage().rss;
for (let i = 0; i < changeCount; i++) {
  const n = (i * 7919) % objects;
  const target = `172.16.${(i >> 8) & 255}.${i & 255}`;
  const applied = provider.waitFor(`svc-${n}.example.org`, target);
  const started = performance.now();
  await writer.request('PATCH', objectPath(SERVICES, `ns-${n % 20}`, `svc-${n}`), {
    body: { metadata: { annotations: { 'external-dns.alpha.kubernetes.io/target': target } } },
    contentType: 'application/merge-patch+json',
  });
  await applied;
  latencies.push(performance.now() - started);
  if (i % 50 === 0) peakRss = Math.max(peakRss, process.memoryUsage().rss);
}
const t1 = performance.now();
await controller.runOnce();
syncMs.push(performance.now() - t1);
peakRss = Math.max(peakRss, process.memoryUsage().rss);

latencies.sort((a, b) => a - b);
const pct = (p: number): number => Math.round(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0);
process.stdout.write(`event → apply latency over ${latencies.length} changes (min-event-sync-interval ${minEventMs} ms): p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${pct(100)} ms\n`);
process.stdout.write(`steady-state full sync: ${Math.round(syncMs[0] ?? 0)} ms\n`);
process.stdout.write(`RSS: ${mb(rssBaseline)} MB before listing (node + tsx + client-node), ${mb(rssAfterSync)} MB after the first sync, ${mb(peakRss)} MB peak while changing (heap used ${mb(process.memoryUsage().heapUsed)} MB)\n`);

stop.abort();
await loop;
await Promise.all(sources.map((s) => s.close()));
await recorder.flush();
client.close();
writer.close();
child.disconnect();
