/**
 * The noop registry (--registry=noop): no ownership records at all. Every record is passed
 * through untouched and nothing is written besides the records themselves, so the planner
 * must not rely on owner labels when it is used.
 */
import type { DomainFilter } from '../../endpoint/domain-filter.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { Provider } from '../../provider/provider.ts';
import type { Changes } from '../../plan/changes.ts';
import type { Registry } from '../registry.ts';

export class NoopRegistry implements Registry {
  readonly ownerId = '';
  private readonly provider: Provider;

  constructor(provider: Provider) {
    this.provider = provider;
  }

  /** The noop registry reads no flag; the shape is every fromConfig's (configuration, then collaborators). */
  static fromConfig(_cfg: unknown, deps: { provider: Provider }): NoopRegistry {
    return new NoopRegistry(deps.provider);
  }

  records(): Promise<Endpoint[]> {
    return this.provider.records();
  }

  applyChanges(changes: Changes): Promise<void> {
    return this.provider.applyChanges(changes);
  }

  adjustEndpoints(endpoints: Endpoint[]): Promise<Endpoint[]> {
    return this.provider.adjustEndpoints(endpoints);
  }

  domainFilter(): DomainFilter {
    return this.provider.domainFilter();
  }
}
