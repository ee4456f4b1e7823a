/**
 * The registry port: wraps a provider and records who owns each record. `records()` returns the
 * provider's records with `labels.owner` / `labels.resource` filled in from ownership metadata and
 * the metadata records themselves hidden; `applyChanges` writes the metadata alongside.
 */
import type { DomainFilter } from '../endpoint/domain-filter.ts';
import type { Endpoint } from '../endpoint/endpoint.ts';
import type { Changes } from '../plan/changes.ts';

export interface Registry {
  readonly ownerId: string;
  records(): Promise<Endpoint[]>;
  applyChanges(changes: Changes): Promise<void>;
  adjustEndpoints(endpoints: Endpoint[]): Promise<Endpoint[]>;
  domainFilter(): DomainFilter;
}
