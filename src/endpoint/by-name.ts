/**
 * Endpoints keyed by DNS name, then by record type and set identifier. The obvious
 * `Map<endpointKey(ep), Endpoint>` builds one composite string per record, and at 40k records those
 * keys weighed more than the map itself; the DNS name is a string every endpoint already holds.
 * Nearly every name has one record set, so a lone endpoint is stored as itself and an array is made
 * only for a name's second one.
 *
 * Order: names in the order they were first added (a name whose last record set goes away and comes
 * back again is added anew, at the end); within a name, in the order its record sets were added.
 * Replacing a record set keeps its place. So the order is stable from one read to the next and new
 * records come last, which is what the Events reporter's in-order comparison relies on.
 *
 * Names are compared exactly as given: callers that want case-insensitive names pass them lower-cased.
 */
import type { Endpoint } from './endpoint.ts';

function sameSet(ep: Endpoint, recordType: string, setIdentifier: string): boolean {
  return ep.recordType === recordType && ep.setIdentifier === setIdentifier;
}

export class EndpointsByName {
  private readonly names = new Map<string, Endpoint | Endpoint[]>();
  private count = 0;

  /** Number of endpoints held. */
  get size(): number {
    return this.count;
  }

  /** The endpoint of that record set (the last one when several were added). */
  get(dnsName: string, recordType: string, setIdentifier: string): Endpoint | undefined {
    const at = this.names.get(dnsName);
    if (at === undefined) return undefined;
    if (!Array.isArray(at)) return sameSet(at, recordType, setIdentifier) ? at : undefined;
    for (let i = at.length - 1; i >= 0; i--) {
      const ep = at[i] as Endpoint;
      if (sameSet(ep, recordType, setIdentifier)) return ep;
    }
    return undefined;
  }

  has(dnsName: string, recordType: string, setIdentifier: string): boolean {
    return this.get(dnsName, recordType, setIdentifier) !== undefined;
  }

  /** `ep` becomes the one endpoint of its record set, in the place of the one it replaces. */
  set(ep: Endpoint): void {
    const at = this.names.get(ep.dnsName);
    if (at === undefined) {
      this.names.set(ep.dnsName, ep);
      this.count++;
      return;
    }
    if (!Array.isArray(at)) {
      if (sameSet(at, ep.recordType, ep.setIdentifier)) this.names.set(ep.dnsName, ep);
      else {
        this.names.set(ep.dnsName, [at, ep]);
        this.count++;
      }
      return;
    }
    const first = at.findIndex((e) => sameSet(e, ep.recordType, ep.setIdentifier));
    if (first < 0) {
      at.push(ep);
      this.count++;
      return;
    }
    at[first] = ep;
    // Only reachable when add() put several endpoints in one set.
    for (let i = at.length - 1; i > first; i--) {
      if (sameSet(at[i] as Endpoint, ep.recordType, ep.setIdentifier)) {
        at.splice(i, 1);
        this.count--;
      }
    }
    this.collapse(ep.dnsName, at);
  }

  /**
   * Adds `ep` beside the endpoints of its record set rather than replacing them (a provider may list
   * a record set twice): after the last of them, so a set's endpoints stay together.
   */
  add(ep: Endpoint): void {
    const at = this.names.get(ep.dnsName);
    this.count++;
    if (at === undefined) {
      this.names.set(ep.dnsName, ep);
      return;
    }
    if (!Array.isArray(at)) {
      this.names.set(ep.dnsName, [at, ep]);
      return;
    }
    let last = -1;
    for (let i = at.length - 1; i >= 0; i--) {
      if (sameSet(at[i] as Endpoint, ep.recordType, ep.setIdentifier)) {
        last = i;
        break;
      }
    }
    if (last < 0 || last === at.length - 1) at.push(ep);
    else at.splice(last + 1, 0, ep);
  }

  /** The endpoints at a name, in order (a new array; empty when there are none). */
  at(dnsName: string): Endpoint[] {
    const at = this.names.get(dnsName);
    return at === undefined ? [] : Array.isArray(at) ? [...at] : [at];
  }

  /** Removes this very endpoint (by identity, not by record set); false when it is not held. */
  remove(ep: Endpoint): boolean {
    const at = this.names.get(ep.dnsName);
    if (at === ep) {
      this.names.delete(ep.dnsName);
      this.count--;
      return true;
    }
    if (!Array.isArray(at)) return false;
    const i = at.indexOf(ep);
    if (i < 0) return false;
    at.splice(i, 1);
    this.count--;
    this.collapse(ep.dnsName, at);
    return true;
  }

  /** Removes every endpoint of that record set; returns how many there were. */
  delete(dnsName: string, recordType: string, setIdentifier: string): number {
    const at = this.names.get(dnsName);
    if (at === undefined) return 0;
    if (!Array.isArray(at)) {
      if (!sameSet(at, recordType, setIdentifier)) return 0;
      this.names.delete(dnsName);
      this.count--;
      return 1;
    }
    let removed = 0;
    for (let i = at.length - 1; i >= 0; i--) {
      if (sameSet(at[i] as Endpoint, recordType, setIdentifier)) {
        at.splice(i, 1);
        removed++;
      }
    }
    this.count -= removed;
    this.collapse(dnsName, at);
    return removed;
  }

  /** Every endpoint, in the order described above, appended to `out` (a new array by default). */
  values(out: Endpoint[] = []): Endpoint[] {
    for (const at of this.names.values()) {
      if (Array.isArray(at)) for (const ep of at) out.push(ep);
      else out.push(at);
    }
    return out;
  }

  clear(): void {
    this.names.clear();
    this.count = 0;
  }

  /** Back to a lone endpoint, or no entry, so a name that lost its other sets costs no array. */
  private collapse(dnsName: string, at: Endpoint[]): void {
    if (at.length === 0) this.names.delete(dnsName);
    else if (at.length === 1) this.names.set(dnsName, at[0] as Endpoint);
  }
}
