/**
 * The embedded type: records go into Hostwarden's own durable zone files (the same ZoneStore the
 * embedded provider uses) and are answered by the built-in DNS server of this process. The zones
 * are the controller's (--embedded-zone); the Secret is not read.
 */
import { endpointToRRSet } from '../../dns/rrset-endpoint.ts';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import { tryNormalizeDnsName } from '../../endpoint/name.ts';
import type { ZoneStore } from '../../provider/embedded/record-sets.ts';
import { rrsetKey } from '../../provider/embedded/record-sets.ts';
import { ConfigurationProblem } from '../backend.ts';
import type { BackendZone, RecordSet, RecordSetBackend } from '../backend.ts';

export class EmbeddedBackend implements RecordSetBackend {
  constructor(private readonly store: ZoneStore) {}

  listZones(): Promise<BackendZone[]> {
    return Promise.resolve(this.store.zones().map((z) => ({ id: z, name: z })));
  }

  async upsert(zoneId: string, rrset: RecordSet): Promise<void> {
    const zone = this.zoneOf(zoneId);
    if (zone === undefined)
      throw new ConfigurationProblem(`zone ${zoneId} is not served by this controller (--embedded-zone: ${this.store.zones().join(', ') || 'none'})`);
    const set = endpointToRRSet(
      newEndpoint({ dnsName: rrset.name, recordType: rrset.type, targets: rrset.values, recordTTL: rrset.ttl }),
      this.store.defaultTTL,
    );
    await this.store.commit(new Map([[zone, (sets) => void sets.set(rrsetKey(set.name, set.type), set)]]));
  }

  async remove(zoneId: string, rrset: RecordSet): Promise<void> {
    const zone = this.zoneOf(zoneId);
    if (zone === undefined) return;
    const name = tryNormalizeDnsName(rrset.name) ?? rrset.name;
    await this.store.commit(new Map([[zone, (sets) => void sets.delete(rrsetKey(name, rrset.type))]]));
  }

  private zoneOf(zoneId: string): string | undefined {
    const name = tryNormalizeDnsName(zoneId);
    return name !== undefined && this.store.zones().includes(name) ? name : undefined;
  }
}
