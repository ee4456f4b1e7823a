/**
 * `--provider-cache-time`: reuses the wrapped provider's record list for that long, as
 * external-dns's CachedProvider does, so an interval shorter than the provider's API quota allows
 * still reads it rarely. A sync that applies changes drops the list (the next read sees them); a
 * failed read drops it too. An empty change set is not sent to the provider at all, as upstream.
 */
import type { DomainFilter } from '../../endpoint/domain-filter.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { Logger } from '../../log.ts';
import { hasChanges } from '../../plan/changes.ts';
import type { Changes } from '../../plan/changes.ts';
import type { Provider } from '../provider.ts';
import type { ProviderCacheMetrics } from './metrics.ts';

export interface CachedProviderOptions {
  provider: Provider;
  /** How long a record list is reused, in milliseconds (> 0). */
  cacheTimeMs: number;
  logger: Logger;
  /** Where external-dns's external_dns_provider_cache_* counters go; absent: not counted. */
  metrics?: ProviderCacheMetrics;
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
  private readonly metrics: ProviderCacheMetrics | undefined;

  constructor(opts: CachedProviderOptions) {
    this.inner = opts.provider;
    this.name = opts.provider.name;
    this.ttlMs = opts.cacheTimeMs;
    this.log = opts.logger;
    this.now = opts.now ?? Date.now;
    this.metrics = opts.metrics;
  }

  async records(): Promise<Endpoint[]> {
    if (this.cache !== undefined && this.now() - this.readAt <= this.ttlMs) {
      this.metrics?.records(true);
      return this.cache;
    }
    this.log.debug('provider records cache: reading the provider');
    this.cache = undefined;
    const records = await this.inner.records();
    this.cache = records;
    this.readAt = this.now();
    this.metrics?.records(false);
    return records;
  }

  async applyChanges(changes: Changes): Promise<void> {
    if (!hasChanges(changes)) return;
    this.cache = undefined;
    this.metrics?.applied();
    await this.inner.applyChanges(changes);
  }

  adjustEndpoints(endpoints: Endpoint[]): Promise<Endpoint[]> {
    return this.inner.adjustEndpoints(endpoints);
  }

  domainFilter(): DomainFilter {
    return this.inner.domainFilter();
  }

  /** The wrapped provider's answer: the registry must still learn which names its API refuses. */
  refusedName(name: string): string | undefined {
    return this.inner.refusedName?.(name);
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }
}
