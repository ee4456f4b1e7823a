/**
 * The provider port, in the external-dns shape. A provider lists the records it holds and applies
 * a set of changes; everything about ownership lives in the registry above it.
 */
import type { DomainFilter } from '../endpoint/domain-filter.ts';
import type { Endpoint } from '../endpoint/endpoint.ts';
import type { FlagValues } from '../config/config.ts';
import type { Registry as MetricsRegistry } from 'prom-client';
import type { Logger } from '../log.ts';
import type { Changes } from '../plan/changes.ts';

/**
 * What every provider's `fromConfig(cfg, deps)` reads: the parsed flags and the shared domain
 * context. A resolved Config satisfies it; tests pass just these fields.
 */
export interface ProviderConfig {
  flags: FlagValues;
  domainFilters: readonly string[];
  excludeDomains: readonly string[];
  regexDomainFilter?: RegExp | undefined;
  regexDomainExclusion?: RegExp | undefined;
  /** --embedded-zone: the zones of providers that serve their own (embedded, inmemory); else the domain filters. */
  embeddedZones?: readonly string[];
}

/** What every provider's `fromConfig` is given besides the configuration; a provider may add its own test seams. */
export interface ProviderDeps {
  logger: Logger;
  env?: Readonly<Record<string, string | undefined>>;
  /** plan/explain: read what the provider holds, change nothing (the embedded store takes no lock). */
  readOnly?: boolean;
  /** Where a provider reports its own metrics (the webhook client's calls and HTTP latencies). */
  metrics?: MetricsRegistry;
  /** Embedded only: each zone's SOA serial kept in the cluster, below which no serial is served. */
  serialFloors?: ReadonlyMap<string, number>;
  /** Embedded only: keeps a zone's next serial in the cluster before it is served (a replica set's leader). */
  reserveSerial?: (zone: string, serial: number) => Promise<void>;
}

/** The zones of a provider that serves its own: --embedded-zone, else the domain filters. */
export function ownZonesOf(cfg: ProviderConfig): string[] {
  return cfg.embeddedZones !== undefined && cfg.embeddedZones.length > 0 ? [...cfg.embeddedZones] : cfg.domainFilters.map((d) => d.replace(/^\./, ''));
}

export interface Provider {
  /** Short name used in logs, metrics and errors (`embedded`, `inmemory`, `aws`, …). */
  readonly name: string;
  /**
   * Every record the provider holds in the zones it manages, TXT ownership records included.
   * Either the provider's own frozen records (freezeEndpoint), shared with later calls, which
   * nobody may change (the registry labels copies of them); or fresh unfrozen objects, which then
   * belong to the caller (the registry labels and freezes them in place). Either way the provider
   * never changes a record it has handed out.
   */
  records(): Promise<Endpoint[]>;
  /** Applies all changes or throws a ProviderError (transient when a retry may help). */
  applyChanges(changes: Changes): Promise<void>;
  /** Lets the provider normalise desired endpoints (e.g. drop TTLs it cannot honour) before planning. */
  adjustEndpoints(endpoints: Endpoint[]): Promise<Endpoint[]>;
  /** The zones the provider can write to, so the planner leaves every other name alone. */
  domainFilter(): DomainFilter;
  /**
   * Why the provider cannot hold a record named `name` although it is a valid record name, for
   * providers whose API refuses names others accept (PowerDNS: a `*` anywhere but as the whole
   * first label, so external-dns's wildcard ownership TXT `a-*.apps`). Undefined when it can.
   * The TXT registry asks before it writes an ownership record, so the record is skipped with an
   * error naming the fix instead of failing the provider's whole batch.
   */
  refusedName?(name: string): string | undefined;
  close?(): Promise<void>;
}
