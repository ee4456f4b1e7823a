/**
 * --zone-id-filter and --zone-name-filter, external-dns's provider-level zone filters. They are
 * core flags upstream, read by each provider that lists zones: aws, google and azure among the
 * providers Hostwarden implements (zone-name-filter: aws in Hostwarden, azure in both).
 */
import type { FlagSpec } from '../config/flags.ts';

export const ZONE_FILTER_FLAGS: readonly FlagSpec[] = [
  {
    name: 'zone-id-filter',
    kind: 'list',
    default: [],
    help: 'aws, google, azure: only zones whose id ends with one of these; cloudflare: only these zone ids (repeatable).',
  },
  {
    name: 'zone-name-filter',
    kind: 'list',
    default: [],
    help: 'azure: also zones under these domains, records still limited by --domain-filter; aws: only zones named by these domains or below them (repeatable).',
  },
];

/**
 * external-dns's zone id match: no ids (or only an empty one) match every zone, else a zone
 * matches when its id ends with one of them, so a bare Azure zone name or a Route53 id without
 * "/hostedzone/" still selects the zone.
 */
export function zoneIdMatches(ids: readonly string[], zoneId: string): boolean {
  return !zoneIdFilterConfigured(ids) || ids.some((id) => id !== '' && zoneId.endsWith(id));
}

/** Whether the filter can leave a zone out: it has a non-empty value. */
export function zoneIdFilterConfigured(ids: readonly string[]): boolean {
  return ids.some((id) => id !== '');
}
