/**
 * `--provider-cache-time`: reuses the wrapped provider's record list for that long, as
 * external-dns's CachedProvider does, so an interval shorter than the provider's API quota allows
 * still reads it rarely. A sync that applies changes drops the list (the next read sees them); a
 * failed read drops it too. An empty change set is not sent to the provider at all, as upstream.
 */
import { Counter } from 'prom-client';
import type { Registry as MetricsRegistry } from 'prom-client';
import type { DomainFilter } from '../../endpoint/domain-filter.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { Logger } from '../../log.ts';
import { hasChanges } from '../../plan/changes.ts';
import type { Changes } from '../../plan/changes.ts';
import type { Provider } from '../provider.ts';

export interface CachedProviderOptions {
  provider: Provider;
  /** How long a record list is reused, in milliseconds (> 0). */
  cacheTimeMs: number;
  logger: Logger;
  /** Where external-dns's external_dns_provider_cache_* counters go; absent: not counted. */
  metrics?: MetricsRegistry;
  now?: () => number;
}

export class CachedProvider implements Provider {
  readonly name: string;
  private readonly inner: Provider;
  private readonly ttlMs: number;
  private readonly log: Logger;
  private readonly now: () => number;
  private cache: Endpoint[] | undefined;
  private readAt = 0;
  private readonly recordsCalls: Counter<'from_cache'> | undefined;
  private readonly applyCalls: Counter | undefined;

  constructor(opts: CachedProviderOptions) {
    this.inner = opts.provider;
    this.name = opts.provider.name;
    this.ttlMs = opts.cacheTimeMs;
    this.log = opts.logger;
    this.now = opts.now ?? Date.now;
    const registry = opts.metrics;
    if (registry !== undefined) {
      // run may have registered them already (they exist whether or not the cache is on): reuse them.
      const recordsName = 'external_dns_provider_cache_records_calls';
      const applyName = 'external_dns_provider_cache_apply_changes_calls';
      this.recordsCalls =
        (registry.getSingleMetric(recordsName) as Counter<'from_cache'> | undefined) ??
        new Counter({ name: recordsName, help: 'Number of calls to the provider cache Records list.', labelNames: ['from_cache'], registers: [registry] });
      this.applyCalls =
        (registry.getSingleMetric(applyName) as Counter | undefined) ??
        new Counter({ name: applyName, help: 'Number of calls to the provider cache ApplyChanges.', registers: [registry] });
    }
  }

  async records(): Promise<Endpoint[]> {
    if (this.cache !== undefined && this.now() - this.readAt <= this.ttlMs) {
      this.recordsCalls?.inc({ from_cache: 'true' });
      return this.cache;
    }
    this.log.debug('provider records cache: reading the provider');
    this.cache = undefined;
    const records = await this.inner.records();
    this.cache = records;
    this.readAt = this.now();
    this.recordsCalls?.inc({ from_cache: 'false' });
    return records;
  }

  async applyChanges(changes: Changes): Promise<void> {
    if (!hasChanges(changes)) return;
    this.cache = undefined;
    this.applyCalls?.inc();
    await this.inner.applyChanges(changes);
  }

  adjustEndpoints(endpoints: Endpoint[]): Promise<Endpoint[]> {
    return this.inner.adjustEndpoints(endpoints);
  }

  domainFilter(): DomainFilter {
    return this.inner.domainFilter();
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }
}
