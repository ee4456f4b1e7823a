/**
 * A provider that keeps records in memory, with the validation of external-dns's inmemory
 * provider: creating an existing record set, or updating or deleting a missing one, rejects the
 * whole batch. Used by tests, `--provider inmemory` dry runs and the planner's property tests.
 */
import { DomainFilter } from '../../endpoint/domain-filter.ts';
import { EndpointsByName } from '../../endpoint/by-name.ts';
import { cloneEndpoint, describeEndpoint, freezeEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { isInZone, normalizeDnsName } from '../../endpoint/name.ts';
import { ProviderError } from '../../errors.ts';
import type { ErrorCode } from '../../errors.ts';
import type { Provider } from '../provider.ts';
import type { Changes } from '../../plan/changes.ts';
import { ownZonesOf } from '../provider.ts';
import type { ProviderConfig, ProviderDeps } from '../provider.ts';

const PROVIDER_NAME = 'inmemory';

export interface InMemoryProviderOptions {
  /** Zone apexes; every record must fall in one of them. */
  zones: readonly string[];
  /** What the planner may touch; defaults to the zones. */
  domainFilter?: DomainFilter;
  /** Records present from the start (validated against the zones like creates). */
  records?: readonly Endpoint[];
}

export class InMemoryProvider implements Provider {
  readonly name = PROVIDER_NAME;
  readonly zones: readonly string[];
  private readonly filter: DomainFilter;
  /** By name rather than by a composite key string: at 40k records those keys were most of the map. */
  private readonly store = new EndpointsByName();

  constructor(options: InMemoryProviderOptions) {
    // Longest zone first so a record lands in the most specific zone.
    this.zones = [...new Set(options.zones.map((z) => normalizeDnsName(z)))].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    this.filter = options.domainFilter ?? new DomainFilter({ include: this.zones });
    if (options.records !== undefined && options.records.length > 0) {
      this.applyChangesSync({ create: [...options.records], updateOld: [], updateNew: [], delete: [] });
    }
  }

  /** --inmemory-zone as in external-dns; without it, the zones the embedded provider would serve. */
  static fromConfig(cfg: ProviderConfig, _deps?: ProviderDeps): InMemoryProvider {
    const zones = cfg.flags.list('inmemory-zone');
    return new InMemoryProvider({ zones: zones.length > 0 ? zones : ownZonesOf(cfg) });
  }

  /** The stored records themselves: they are read-only. */
  records(): Promise<Endpoint[]> {
    return Promise.resolve(this.store.values());
  }

  applyChanges(changes: Changes): Promise<void> {
    try {
      this.applyChangesSync(changes);
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  adjustEndpoints(endpoints: Endpoint[]): Promise<Endpoint[]> {
    return Promise.resolve(endpoints);
  }

  domainFilter(): DomainFilter {
    return this.filter;
  }

  /** The zone a name belongs to, or undefined when no configured zone contains it. */
  zoneFor(dnsName: string): string | undefined {
    for (const zone of this.zones) if (isInZone(dnsName, zone)) return zone;
    return undefined;
  }

  private applyChangesSync(changes: Changes): void {
    this.validate(changes);
    // Deletes first so that a batch may replace a record set of one type by another at a name.
    for (const ep of changes.delete) this.store.delete(ep.dnsName, ep.recordType, ep.setIdentifier);
    for (const ep of changes.updateNew) this.store.set(keep(ep));
    for (const ep of changes.create) this.store.set(keep(ep));
  }

  /** Checks the whole batch before touching anything, so a failed batch changes nothing. */
  private validate(changes: Changes): void {
    if (changes.updateOld.length !== changes.updateNew.length) {
      throw this.error(`update lists differ in length (${changes.updateOld.length} old, ${changes.updateNew.length} new)`, 'PROVIDER_INVALID_CHANGE');
    }
    const touched = new EndpointsByName();
    this.claimAll(changes.create, touched);
    this.claimAll(changes.updateNew, touched);
    this.claimAll(changes.delete, touched);
    for (const ep of changes.create) {
      if (this.stored(ep)) throw this.error(`cannot create ${describeEndpoint(ep)}: record already exists`, 'PROVIDER_RECORD_EXISTS');
    }
    changes.updateNew.forEach((ep, i) => {
      const old = changes.updateOld[i] as Endpoint;
      if (old.dnsName !== ep.dnsName || old.recordType !== ep.recordType || old.setIdentifier !== ep.setIdentifier) {
        throw this.error(`cannot update ${describeEndpoint(old)} into a different record set ${describeEndpoint(ep)}`, 'PROVIDER_INVALID_CHANGE');
      }
      if (!this.stored(ep)) throw this.error(`cannot update ${describeEndpoint(ep)}: record not found`, 'PROVIDER_RECORD_NOT_FOUND');
    });
    for (const ep of changes.delete) {
      if (!this.stored(ep)) throw this.error(`cannot delete ${describeEndpoint(ep)}: record not found`, 'PROVIDER_RECORD_NOT_FOUND');
    }
  }

  private stored(ep: Endpoint): boolean {
    return this.store.has(ep.dnsName, ep.recordType, ep.setIdentifier);
  }

  /** Zone check and per-batch uniqueness. */
  private claimAll(endpoints: readonly Endpoint[], touched: EndpointsByName): void {
    for (const ep of endpoints) {
      if (this.zoneFor(ep.dnsName) === undefined) {
        throw this.error(`record ${describeEndpoint(ep)} is not in any zone (${this.zones.join(', ')})`, 'PROVIDER_ZONE_NOT_FOUND');
      }
      if (touched.has(ep.dnsName, ep.recordType, ep.setIdentifier))
        throw this.error(`record ${describeEndpoint(ep)} appears more than once in one batch`, 'PROVIDER_DUPLICATE_RECORD');
      touched.set(ep);
    }
  }

  private error(message: string, code: ErrorCode): ProviderError {
    return new ProviderError(PROVIDER_NAME, `inmemory: ${message}`, { transient: false, code });
  }
}

/** A read-only endpoint is stored as it is (the TXT registry keeps the same object); others are copied. */
function keep(ep: Endpoint): Endpoint {
  return Object.isFrozen(ep) ? ep : freezeEndpoint(cloneEndpoint(ep));
}
