/**
 * Several --aws-profile values, as external-dns takes them: one Route53 client per profile (each
 * usually another account), the hosted zones of all of them together, and every call about a
 * zone sent with the client of the profile that listed it.
 */
import type { Change, HostedZone, ResourceRecordSet } from '@aws-sdk/client-route-53';
import { ProviderError } from '../../errors.ts';
import { PROVIDER_NAME, bareZoneId } from './api.ts';
import type { Route53Port } from './api.ts';

export class ProfiledRoute53 implements Route53Port {
  private readonly byProfile: ReadonlyMap<string, Route53Port>;
  /** Bare zone id → the profile whose listing holds it (the last one, as upstream's map keeps). */
  private owners = new Map<string, string>();

  constructor(byProfile: ReadonlyMap<string, Route53Port>) {
    this.byProfile = byProfile;
  }

  async listHostedZones(): Promise<HostedZone[]> {
    const lists = await Promise.all([...this.byProfile].map(async ([profile, api]) => ({ profile, zones: await api.listHostedZones() })));
    const owners = new Map<string, string>();
    const zones = new Map<string, HostedZone>();
    for (const { profile, zones: listed } of lists) {
      for (const z of listed) {
        if (z.Id === undefined) continue;
        owners.set(bareZoneId(z.Id), profile);
        zones.set(bareZoneId(z.Id), z);
      }
    }
    this.owners = owners;
    return [...zones.values()];
  }

  zoneTags(zoneId: string): Promise<Record<string, string>> {
    return this.apiFor(zoneId).zoneTags(zoneId);
  }

  listRecordSets(zoneId: string): Promise<ResourceRecordSet[]> {
    return this.apiFor(zoneId).listRecordSets(zoneId);
  }

  changeRecordSets(zoneId: string, changes: Change[]): Promise<void> {
    return this.apiFor(zoneId).changeRecordSets(zoneId, changes);
  }

  close(): void {
    for (const api of this.byProfile.values()) api.close?.();
  }

  private apiFor(zoneId: string): Route53Port {
    const profile = this.owners.get(bareZoneId(zoneId));
    const api = profile === undefined ? undefined : this.byProfile.get(profile);
    // The provider only asks about zones it listed; anything else is a bug, not a user error.
    if (api === undefined) throw new ProviderError(PROVIDER_NAME, `no --aws-profile listed hosted zone ${bareZoneId(zoneId)}`, { transient: true });
    return api;
  }
}
