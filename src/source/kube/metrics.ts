/**
 * Prometheus metrics of the Kubernetes sources' list+watch caches, read from each reflector's
 * counters when /metrics is scraped (nothing to update on the hot path). Several sources share one
 * registry: the first registers the metrics, the others add their reflectors to them.
 */
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { Reflector } from '../../kube/reflector.ts';
import type { KubeObject } from '../../kube/resource.ts';

type Labels = 'source' | 'resource';

interface Watched {
  source: string;
  resource: string;
  reflector: Reflector<KubeObject>;
}

type StatName = keyof Reflector<KubeObject>['stats'];

const COUNTERS: readonly (readonly [StatName, string, string])[] = [
  ['lists', 'hostwarden_kube_reflector_lists_total', 'Complete lists of a resource (the first, then after 410 Gone, a stalled watch or a failure).'],
  ['watches', 'hostwarden_kube_reflector_watches_total', 'Watch streams opened.'],
  ['gone', 'hostwarden_kube_reflector_gone_total', 'Watches answered 410 Gone (resourceVersion too old): the cache was listed again.'],
  ['stalls', 'hostwarden_kube_reflector_stalls_total', 'Watches silent for longer than --kube-watch-inactivity-timeout, cut and listed again.'],
  ['failures', 'hostwarden_kube_reflector_failures_total', 'Failed lists or watches, retried with backoff.'],
];

export const OBJECTS_METRIC = 'hostwarden_kube_reflector_objects';

/** Holds the shared list of reflectors, so later sources find it through the registry. */
class ObjectsGauge extends Gauge<Labels> {
  readonly watched: Watched[];

  constructor(registry: Registry, watched: Watched[]) {
    super({
      name: OBJECTS_METRIC,
      help: 'Objects in the list+watch cache of a resource.',
      labelNames: ['source', 'resource'],
      registers: [registry],
      collect() {
        for (const w of watched) this.set({ source: w.source, resource: w.resource }, w.reflector.size);
      },
    });
    this.watched = watched;
  }
}

function watchedOf(registry: Registry): Watched[] {
  const existing = registry.getSingleMetric(OBJECTS_METRIC);
  if (existing instanceof ObjectsGauge) return existing.watched;
  const watched: Watched[] = [];
  new ObjectsGauge(registry, watched);
  new Gauge<Labels>({
    name: 'hostwarden_kube_reflector_synced',
    help: '1 once the cache of a resource has completed its first list.',
    labelNames: ['source', 'resource'],
    registers: [registry],
    collect() {
      for (const w of watched) this.set({ source: w.source, resource: w.resource }, w.reflector.hasSynced() ? 1 : 0);
    },
  });
  for (const [stat, name, help] of COUNTERS) {
    // Counters only go up: each scrape adds what the reflector counted since the previous one.
    const reported = new Map<Watched, number>();
    new Counter<Labels>({
      name,
      help,
      labelNames: ['source', 'resource'],
      registers: [registry],
      collect() {
        for (const w of watched) {
          const now = w.reflector.stats[stat];
          const delta = now - (reported.get(w) ?? 0);
          this.inc({ source: w.source, resource: w.resource }, delta > 0 ? delta : 0);
          reported.set(w, now);
        }
      },
    });
  }
  return watched;
}

/** Exposes a source's reflectors on `registry`, labelled with the source name and resource plural. */
export function registerReflectorMetrics(registry: Registry, source: string, resource: string, reflector: Reflector<KubeObject>): void {
  watchedOf(registry).push({ source, resource, reflector });
}
