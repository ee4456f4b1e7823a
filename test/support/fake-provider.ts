/**
 * A strict in-memory provider for registry tests: it keeps records by name, type and set
 * identifier without labels (a zone has nowhere to keep them), rejects creates of existing records and updates/deletes of missing ones (so a
 * registry that names the wrong TXT record fails the test), and remembers every Changes batch.
 */
import { DomainFilter } from '../../src/endpoint/domain-filter.ts';
import { cloneEndpoint, endpointKey, sameTargets } from '../../src/endpoint/endpoint.ts';
import type { Endpoint } from '../../src/endpoint/endpoint.ts';
import { ProviderError } from '../../src/errors.ts';
import type { Provider } from '../../src/provider/provider.ts';
import type { Changes } from '../../src/plan/changes.ts';

export class FakeProvider implements Provider {
  readonly name = 'fake';
  readonly batches: Changes[] = [];
  private readonly store = new Map<string, Endpoint>();
  failNext = false;
  recordsCalls = 0;

  constructor(initial: readonly Endpoint[] = []) {
    for (const ep of initial) this.store.set(endpointKey(ep), unlabelled(ep));
  }

  records(): Promise<Endpoint[]> {
    this.recordsCalls += 1;
    return Promise.resolve([...this.store.values()].map(cloneEndpoint));
  }

  applyChanges(changes: Changes): Promise<void> {
    this.batches.push(structuredClone(changes));
    if (this.failNext) {
      this.failNext = false;
      return Promise.reject(new ProviderError('fake', 'injected failure', { transient: true }));
    }
    const next = new Map(this.store);
    const mustExist = (ep: Endpoint, what: string): void => {
      const cur = next.get(endpointKey(ep));
      if (cur === undefined || !sameTargets(ep.recordType, cur.targets, ep.targets)) {
        throw new ProviderError('fake', `${what} of ${ep.dnsName} ${ep.recordType}: no such record with targets ${JSON.stringify(ep.targets)}`);
      }
    };
    try {
      for (const ep of changes.delete) {
        mustExist(ep, 'delete');
        next.delete(endpointKey(ep));
      }
      for (const ep of changes.updateOld) {
        mustExist(ep, 'update');
        next.delete(endpointKey(ep));
      }
      for (const ep of [...changes.create, ...changes.updateNew]) {
        if (next.has(endpointKey(ep))) throw new ProviderError('fake', `create of ${ep.dnsName} ${ep.recordType}: already exists`);
        next.set(endpointKey(ep), unlabelled(ep));
      }
    } catch (err) {
      return Promise.reject(err as Error);
    }
    this.store.clear();
    for (const [k, v] of next) this.store.set(k, v);
    return Promise.resolve();
  }

  adjustEndpoints(endpoints: Endpoint[]): Promise<Endpoint[]> {
    return Promise.resolve(endpoints);
  }

  domainFilter(): DomainFilter {
    return new DomainFilter({ include: ['example.org'] });
  }

  /** Current records (optionally of one type), for assertions. */
  list(recordType?: string): Endpoint[] {
    return [...this.store.values()].filter((e) => recordType === undefined || e.recordType === recordType).map(cloneEndpoint);
  }

  get(dnsName: string, recordType: string, setIdentifier = ''): Endpoint | undefined {
    const ep = this.store.get(`${dnsName}\u0000${recordType}\u0000${setIdentifier}`);
    return ep === undefined ? undefined : cloneEndpoint(ep);
  }
}

function unlabelled(ep: Endpoint): Endpoint {
  const copy = cloneEndpoint(ep);
  copy.labels = {};
  return copy;
}
