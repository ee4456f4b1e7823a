/**
 * The provider port, in the external-dns shape. A provider lists the records it holds and applies
 * a set of changes; everything about ownership lives in the registry above it.
 */
import type { DomainFilter } from '../endpoint/domain-filter.ts';
import type { Endpoint } from '../endpoint/endpoint.ts';
import type { Changes } from '../plan/changes.ts';

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
  close?(): Promise<void>;
}
