/**
 * The provider port, in the external-dns shape. A provider lists the records it holds and applies
 * a set of changes; everything about ownership lives in the registry above it.
 */
import type { DomainFilter } from '../endpoint/domain-filter.ts';
import type { Endpoint } from '../endpoint/endpoint.ts';

export interface Changes {
  create: Endpoint[];
  updateOld: Endpoint[];
  updateNew: Endpoint[];
  delete: Endpoint[];
}

export function emptyChanges(): Changes {
  return { create: [], updateOld: [], updateNew: [], delete: [] };
}

export function hasChanges(changes: Changes): boolean {
  return changes.create.length + changes.updateNew.length + changes.delete.length > 0;
}

export interface Provider {
  /** Short name used in logs, metrics and errors (`embedded`, `inmemory`, `aws`, …). */
  readonly name: string;
  /**
   * Every record the provider holds in the zones it manages, TXT ownership records included.
   * The objects are the caller's: fresh on every call, so the registry may label them in place.
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
