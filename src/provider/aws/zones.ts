/**
 * Which hosted zones the provider manages, and which zone a record belongs to. Filters follow
 * external-dns: zone type, zone ids, zone names, tags, and the domain filter, which also keeps
 * the parent zone of a filtered subdomain (`--domain-filter app.example.org` keeps `example.org`).
 */
import type { HostedZone } from '@aws-sdk/client-route-53';
import { DomainFilter } from '../../endpoint/domain-filter.ts';
import { isInZone, tryNormalizeDnsName } from '../../endpoint/name.ts';
import { bareZoneId } from './api.ts';
import { decodeRoute53Name } from './convert.ts';
import { zoneIdMatches } from '../zone-filter.ts';

export interface Zone {
  /** Bare id (`Z123`), as the API accepts it. */
  id: string;
  name: string;
  private: boolean;
}

export interface ZoneFilterSettings {
  zoneType: '' | 'public' | 'private';
  zoneIds: readonly string[];
  zoneNames: readonly string[];
  /** `key=value` or `key`: every one must match. */
  tags: readonly string[];
  domainFilter: DomainFilter;
}

export function toZone(z: HostedZone): Zone | undefined {
  const name = z.Name === undefined ? undefined : tryNormalizeDnsName(decodeRoute53Name(z.Name));
  if (z.Id === undefined || name === undefined) return undefined;
  return { id: bareZoneId(z.Id), name, private: z.Config?.PrivateZone === true };
}

/** Every filter except tags, which cost one API call per zone and are checked last. */
export function zoneMatches(zone: Zone, f: ZoneFilterSettings): boolean {
  if (f.zoneType === 'public' && zone.private) return false;
  if (f.zoneType === 'private' && !zone.private) return false;
  // external-dns matches the end of Route53's "/hostedzone/<id>", so a bare id and a full one both work.
  if (!zoneIdMatches(f.zoneIds, `/hostedzone/${zone.id}`)) return false;
  if (f.zoneNames.length > 0 && !new DomainFilter({ include: f.zoneNames }).match(zone.name)) return false;
  const df = f.domainFilter;
  if (!df.isConfigured() || df.match(zone.name)) return true;
  return df.include.some((inc) => isInZone(inc.replace(/^\./, ''), zone.name));
}

export function tagsMatch(tags: Readonly<Record<string, string>>, wanted: readonly string[]): boolean {
  return wanted.every((w) => {
    const eq = w.indexOf('=');
    if (eq < 0) return tags[w.trim()] !== undefined;
    return tags[w.slice(0, eq).trim()] === w.slice(eq + 1).trim();
  });
}

/** Zones by name, longest first, so the first suffix match is the most specific zone. */
export class ZoneIndex {
  readonly zones: readonly Zone[];
  private readonly byLength: Zone[];

  constructor(zones: readonly Zone[]) {
    this.zones = zones;
    this.byLength = [...zones].sort((a, b) => b.name.length - a.name.length);
  }

  /** The zones (public and private may share a name) with the longest name containing `name`. */
  zonesFor(name: string): Zone[] {
    const first = this.byLength.find((z) => isInZone(name, z.name));
    return first === undefined ? [] : this.byLength.filter((z) => z.name === first.name);
  }

  domainFilter(): DomainFilter {
    // No zone: match nothing rather than everything, so the planner touches no name.
    if (this.zones.length === 0) return new DomainFilter({ regexInclude: /^\b$/ });
    return new DomainFilter({ include: [...new Set(this.zones.map((z) => z.name))] });
  }
}
