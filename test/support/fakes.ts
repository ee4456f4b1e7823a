/**
 * Small hand-written fakes for the ports, shared by unit tests. They keep state in memory and
 * let a test script failures; nothing here mocks a module.
 */
import { DomainFilter } from '../../src/endpoint/domain-filter.ts';
import { cloneEndpoint, endpointKey } from '../../src/endpoint/endpoint.ts';
import type { Endpoint } from '../../src/endpoint/endpoint.ts';
import type { Changes } from '../../src/plan/changes.ts';
import type { Registry } from '../../src/registry/registry.ts';
import type { Source } from '../../src/source/source.ts';

export class FakeSource implements Source {
  readonly name = 'fake';
  desired: Endpoint[];
  calls = 0;
  private readonly handlers = new Set<() => void>();
  /** Errors thrown by the next calls to endpoints(), in order. */
  failures: Error[] = [];
  /** What heldResources() answers. */
  held: ReadonlySet<string> = new Set();

  constructor(desired: Endpoint[] = []) {
    this.desired = desired;
  }

  async endpoints(): Promise<Endpoint[]> {
    this.calls++;
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
    return this.desired.map(cloneEndpoint);
  }

  addEventHandler(handler: () => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  heldResources(): ReadonlySet<string> {
    return this.held;
  }

  emit(): void {
    for (const h of this.handlers) h();
  }
}

/** A registry without ownership metadata: stores records as given, owner labels included. */
export class FakeRegistry implements Registry {
  readonly ownerId: string;
  readonly records_ = new Map<string, Endpoint>();
  applied: Changes[] = [];
  /** Errors thrown by the next calls to applyChanges(), in order. */
  applyFailures: Error[] = [];

  constructor(ownerId = 'default', records: Endpoint[] = []) {
    this.ownerId = ownerId;
    for (const r of records) this.records_.set(endpointKey(r), cloneEndpoint(r));
  }

  async records(): Promise<Endpoint[]> {
    return [...this.records_.values()].map(cloneEndpoint);
  }

  async applyChanges(changes: Changes): Promise<void> {
    const failure = this.applyFailures.shift();
    if (failure !== undefined) throw failure;
    this.applied.push(changes);
    for (const ep of [...changes.delete, ...changes.updateOld]) this.records_.delete(endpointKey(ep));
    for (const ep of [...changes.create, ...changes.updateNew]) this.records_.set(endpointKey(ep), cloneEndpoint(ep));
  }

  async adjustEndpoints(endpoints: Endpoint[]): Promise<Endpoint[]> {
    return endpoints;
  }

  domainFilter(): DomainFilter {
    return new DomainFilter();
  }
}
