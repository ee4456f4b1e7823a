/**
 * The counters of external-dns's provider cache (--provider-cache-time), with its names and labels:
 * calls of records() by whether the cache answered, and calls of applyChanges(). Registered by
 * `run` whether or not the cache is on (external-dns registers them unconditionally too), so
 * dashboards see zeros rather than gaps.
 */
import { Counter } from 'prom-client';
import type { Registry as MetricsRegistry } from 'prom-client';

export class ProviderCacheMetrics {
  readonly recordsCalls: Counter<'from_cache'>;
  readonly applyChangesCalls: Counter;

  constructor(registry: MetricsRegistry) {
    const recordsName = 'external_dns_provider_cache_records_calls';
    const applyName = 'external_dns_provider_cache_apply_changes_calls';
    this.recordsCalls =
      (registry.getSingleMetric(recordsName) as Counter<'from_cache'> | undefined) ??
      new Counter({
        name: recordsName,
        help: 'Calls of records() on the provider cache, by whether the cache answered (from_cache="true") or the provider did.',
        labelNames: ['from_cache'],
        registers: [registry],
      });
    this.applyChangesCalls =
      (registry.getSingleMetric(applyName) as Counter | undefined) ??
      new Counter({ name: applyName, help: 'Calls of applyChanges() on the provider cache.', registers: [registry] });
  }

  /** One records() call, answered by the cache or not. */
  records(fromCache: boolean): void {
    this.recordsCalls.inc({ from_cache: String(fromCache) });
  }

  /** One applyChanges() call that reached the cache with changes. */
  applied(): void {
    this.applyChangesCalls.inc();
  }
}
