/**
 * A DNSRecord backend type that keeps record sets in memory and records every provider call, for
 * tests about which calls the controller makes (the API side stays the real client and the test
 * API server). `failWith` makes the next writes throw; removing a record that is not there succeeds.
 */
import type { BackendZone, RecordSet, RecordSetBackend } from '../../src/dnsrecord/backend.ts';
import type { BackendType } from '../../src/dnsrecord/reconciler.ts';

export interface FakeCall {
  op: 'listZones' | 'upsert' | 'remove';
  zone?: string;
  name?: string;
  type?: string;
  values?: string[];
}

export class FakeBackend implements RecordSetBackend {
  readonly calls: FakeCall[] = [];
  readonly records = new Map<string, RecordSet>();
  /** Thrown by upsert and remove while set. */
  failWith: Error | undefined;
  /** Runs inside each upsert/remove before it takes effect (to look at the object mid-operation). */
  onCall: ((call: FakeCall) => Promise<void>) | undefined;

  constructor(readonly zones: BackendZone[] = [{ id: 'Z1', name: 'example.test' }]) {}

  listZones(): Promise<BackendZone[]> {
    this.calls.push({ op: 'listZones' });
    return Promise.resolve(this.zones);
  }

  async upsert(zoneId: string, rrset: RecordSet): Promise<void> {
    const call: FakeCall = { op: 'upsert', zone: zoneId, name: rrset.name, type: rrset.type, values: [...rrset.values] };
    this.calls.push(call);
    await this.onCall?.(call);
    if (this.failWith !== undefined) throw this.failWith;
    this.records.set(`${zoneId}|${rrset.name}|${rrset.type}`, rrset);
  }

  async remove(zoneId: string, rrset: RecordSet): Promise<void> {
    const call: FakeCall = { op: 'remove', zone: zoneId, name: rrset.name, type: rrset.type };
    this.calls.push(call);
    await this.onCall?.(call);
    if (this.failWith !== undefined) throw this.failWith;
    this.records.delete(`${zoneId}|${rrset.name}|${rrset.type}`);
  }

  /** upsert and remove calls only (zone listings are a backend's own business). */
  writes(): FakeCall[] {
    return this.calls.filter((c) => c.op !== 'listZones');
  }

  type(): BackendType {
    return { needsSecret: false, build: () => this };
  }
}
