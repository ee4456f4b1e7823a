/**
 * Endpoints to Route53 record sets and back, with external-dns's conventions: alias records are
 * A or AAAA endpoints with `alias=true` and `aws/evaluate-target-health` (their target is the
 * alias target's name), plain CNAMEs carry `alias=false`, routing policies travel as `aws/*`
 * provider-specific properties beside a set identifier, TXT values are quoted and split at 255
 * bytes, and names come back from Route53 with octal escapes (`\052` for `*`) decoded here.
 */
import type { ResourceRecordSet, RRType } from '@aws-sdk/client-route-53';
import { quoteTxt } from '../../dns/master-file.ts';
import { canonicalTarget, getProviderSpecific, isRecordType, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, ProviderSpecificProperty, RecordType } from '../../endpoint/endpoint.ts';
import { tryNormalizeRecordName } from '../../endpoint/name.ts';
import { InvalidEndpointError } from '../../errors.ts';
import { parseTxtContent } from '../presentation.ts';

export const PS_ALIAS = 'alias';
export const PS_EVALUATE_TARGET_HEALTH = 'aws/evaluate-target-health';
export const PS_WEIGHT = 'aws/weight';
export const PS_REGION = 'aws/region';
export const PS_FAILOVER = 'aws/failover';
export const PS_GEO_CONTINENT = 'aws/geolocation-continent-code';
export const PS_GEO_COUNTRY = 'aws/geolocation-country-code';
export const PS_GEO_SUBDIVISION = 'aws/geolocation-subdivision-code';
export const PS_GEOPROX_REGION = 'aws/geoproximity-region';
export const PS_GEOPROX_LOCAL_ZONE = 'aws/geoproximity-local-zone-group';
export const PS_GEOPROX_COORDINATES = 'aws/geoproximity-coordinates';
export const PS_GEOPROX_BIAS = 'aws/geoproximity-bias';
export const PS_MULTI_VALUE = 'aws/multi-value-answer';
export const PS_HEALTH_CHECK = 'aws/health-check-id';

/** Endpoint types Route53 has no record type for (its RRType list has no DNAME). */
export const ROUTE53_UNSUPPORTED_TYPES: readonly RecordType[] = ['DNAME'];

/**
 * Names Route53 escapes as `\ooo` (octal): every character outside a-z, 0-9, `-`, `_` and `.`,
 * so `*` comes back as `\052` wherever it is (the wildcard label and the `*` inside
 * external-dns's ownership TXT name `a-*.apps.example.org`).
 */
export function decodeRoute53Name(name: string): string {
  return name.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}

/** `*` as Route53 stores it (`\052`), in any position; Route53 documents both forms as accepted. */
export function encodeRoute53Name(name: string): string {
  return name.replaceAll('*', '\\052');
}

/** The TTL external-dns reports for alias record sets, which have none of their own. */
export const ALIAS_TTL = 300;

/**
 * The `alias` property as external-dns reads it: `true`, `false`, `A` or `AAAA`; `true`/`false`
 * in any letter case (Hostwarden always took `TRUE`); anything else is no alias property.
 */
export function aliasProperty(ep: Endpoint): 'true' | 'false' | 'A' | 'AAAA' | undefined {
  const value = getProviderSpecific(ep, PS_ALIAS)?.trim();
  if (value === undefined) return undefined;
  if (value === 'A' || value === 'AAAA') return value;
  const lower = value.toLowerCase();
  return lower === 'true' || lower === 'false' ? lower : undefined;
}

/**
 * An A or AAAA endpoint written as a Route53 alias record set: `alias=true`, or the family's own
 * name (`alias=A` on an A endpoint), which adjustEndpoints turns into `true`.
 */
export function isAlias(ep: Endpoint): boolean {
  if (ep.recordType !== 'A' && ep.recordType !== 'AAAA') return false;
  const alias = aliasProperty(ep);
  return alias === 'true' || alias === ep.recordType;
}

/** The record set's identity as the cache and the emulator key it. */
export function recordSetKey(name: string, type: string, setIdentifier: string | undefined): string {
  return `${decodeRoute53Name(name).toLowerCase().replace(/\.$/, '')}\u0000${type}\u0000${setIdentifier ?? ''}`;
}

/** A Route53 record set as an endpoint, or undefined for types and names Hostwarden leaves alone. */
export function recordSetToEndpoint(rs: ResourceRecordSet): Endpoint | undefined {
  if (rs.Name === undefined || rs.Type === undefined) return undefined;
  const dnsName = tryNormalizeRecordName(decodeRoute53Name(rs.Name));
  if (dnsName === undefined) return undefined;
  const ps = routingToProviderSpecific(rs);
  const setIdentifier = rs.SetIdentifier ?? '';
  if (rs.AliasTarget !== undefined) {
    if ((rs.Type !== 'A' && rs.Type !== 'AAAA') || rs.AliasTarget.DNSName === undefined) return undefined;
    ps.push({ name: PS_ALIAS, value: 'true' }, { name: PS_EVALUATE_TARGET_HEALTH, value: String(rs.AliasTarget.EvaluateTargetHealth === true) });
    return newEndpoint({
      dnsName,
      recordType: rs.Type,
      targets: [canonicalTarget('CNAME', decodeRoute53Name(rs.AliasTarget.DNSName))],
      setIdentifier,
      // external-dns reports its default TTL here, and its ownership TXT records carry that TTL.
      recordTTL: rs.TTL ?? ALIAS_TTL,
      providerSpecific: ps,
    });
  }
  if (!isRecordType(rs.Type)) return undefined;
  const values = (rs.ResourceRecords ?? []).map((r) => r.Value ?? '');
  const type = rs.Type;
  const targets = type === 'TXT' ? values.map(parseTxtValue) : values.map((v) => (type === 'CNAME' || type === 'NAPTR' ? canonicalTarget(type, v) : v));
  if (type === 'CNAME') ps.push({ name: PS_ALIAS, value: 'false' });
  return newEndpoint({ dnsName, recordType: type, targets, setIdentifier, recordTTL: rs.TTL ?? 0, providerSpecific: ps });
}

/** Character-strings joined; plain quoted ASCII (ownership records) skips the byte-level parser. */
export function parseTxtValue(value: string): string {
  if (/^"[\x20-\x21\x23-\x5b\x5d-\x7e]*"( "[\x20-\x21\x23-\x5b\x5d-\x7e]*")*$/.test(value)) return value.slice(1, -1).split('" "').join('');
  return parseTxtContent(value);
}

export interface ToRecordSetOptions {
  defaultTTL: number;
  /** Hosted zone id for an alias target: a canonical AWS zone or one of ours. */
  aliasZoneOf: (target: string) => string | undefined;
  /** EvaluateTargetHealth of an alias without `aws/evaluate-target-health` (--aws-evaluate-target-health). */
  evaluateTargetHealth?: boolean;
}

/** The record set for an endpoint; throws InvalidEndpointError when Route53 could not hold it. */
export function endpointToRecordSet(ep: Endpoint, opts: ToRecordSetOptions): ResourceRecordSet {
  const rs: ResourceRecordSet = { Name: encodeRoute53Name(`${ep.dnsName}.`), Type: ep.recordType as RRType };
  if (ep.setIdentifier !== '') rs.SetIdentifier = ep.setIdentifier;
  applyRouting(ep, rs);
  if (isAlias(ep)) {
    const target = ep.targets[0];
    if (ep.targets.length !== 1 || target === undefined) throw new InvalidEndpointError(`${ep.dnsName}: an alias record needs exactly one target`);
    const zoneId = opts.aliasZoneOf(target);
    if (zoneId === undefined) throw new InvalidEndpointError(`${ep.dnsName}: no hosted zone known for alias target ${target}`);
    const health = getProviderSpecific(ep, PS_EVALUATE_TARGET_HEALTH)?.trim().toLowerCase();
    rs.AliasTarget = {
      HostedZoneId: zoneId,
      DNSName: target.endsWith('.') ? target : `${target}.`,
      EvaluateTargetHealth: health === undefined ? opts.evaluateTargetHealth !== false : health === 'true',
    };
    return rs;
  }
  rs.TTL = ep.recordTTL > 0 ? ep.recordTTL : opts.defaultTTL;
  rs.ResourceRecords = ep.targets.map((t) => ({ Value: ep.recordType === 'TXT' ? quoteTxt(canonicalTarget('TXT', t)) : t }));
  return rs;
}

function applyRouting(ep: Endpoint, rs: ResourceRecordSet): void {
  const get = (name: string): string | undefined => getProviderSpecific(ep, name);
  const weight = get(PS_WEIGHT);
  if (weight !== undefined) rs.Weight = Number(weight);
  const region = get(PS_REGION);
  if (region !== undefined) rs.Region = region as ResourceRecordSet['Region'];
  const failover = get(PS_FAILOVER);
  if (failover !== undefined) rs.Failover = failover.toUpperCase() as ResourceRecordSet['Failover'];
  const continent = get(PS_GEO_CONTINENT);
  const country = get(PS_GEO_COUNTRY);
  const subdivision = get(PS_GEO_SUBDIVISION);
  if (continent !== undefined || country !== undefined || subdivision !== undefined) {
    rs.GeoLocation = {
      ...(continent === undefined ? {} : { ContinentCode: continent }),
      ...(country === undefined ? {} : { CountryCode: country }),
      ...(subdivision === undefined ? {} : { SubdivisionCode: subdivision }),
    };
  }
  const gpRegion = get(PS_GEOPROX_REGION);
  const gpZone = get(PS_GEOPROX_LOCAL_ZONE);
  const gpCoords = get(PS_GEOPROX_COORDINATES);
  const gpBias = get(PS_GEOPROX_BIAS);
  if (gpRegion !== undefined || gpZone !== undefined || gpCoords !== undefined) {
    const [lat, long] = (gpCoords ?? '').split(',').map((s) => s.trim());
    rs.GeoProximityLocation = {
      ...(gpRegion === undefined ? {} : { AWSRegion: gpRegion }),
      ...(gpZone === undefined ? {} : { LocalZoneGroup: gpZone }),
      ...(gpCoords === undefined ? {} : { Coordinates: { Latitude: lat ?? '', Longitude: long ?? '' } }),
      ...(gpBias === undefined ? {} : { Bias: Number(gpBias) }),
    };
  }
  if (get(PS_MULTI_VALUE) === 'true') rs.MultiValueAnswer = true;
  const healthCheck = get(PS_HEALTH_CHECK);
  if (healthCheck !== undefined) rs.HealthCheckId = healthCheck;
}

function routingToProviderSpecific(rs: ResourceRecordSet): ProviderSpecificProperty[] {
  const ps: ProviderSpecificProperty[] = [];
  const add = (name: string, value: string | number | undefined): void => {
    if (value !== undefined) ps.push({ name, value: String(value) });
  };
  add(PS_WEIGHT, rs.Weight);
  add(PS_REGION, rs.Region);
  add(PS_FAILOVER, rs.Failover);
  add(PS_GEO_CONTINENT, rs.GeoLocation?.ContinentCode);
  add(PS_GEO_COUNTRY, rs.GeoLocation?.CountryCode);
  add(PS_GEO_SUBDIVISION, rs.GeoLocation?.SubdivisionCode);
  const gp = rs.GeoProximityLocation;
  add(PS_GEOPROX_REGION, gp?.AWSRegion);
  add(PS_GEOPROX_LOCAL_ZONE, gp?.LocalZoneGroup);
  if (gp?.Coordinates !== undefined) add(PS_GEOPROX_COORDINATES, `${gp.Coordinates.Latitude ?? ''},${gp.Coordinates.Longitude ?? ''}`);
  add(PS_GEOPROX_BIAS, gp?.Bias);
  if (rs.MultiValueAnswer === true) add(PS_MULTI_VALUE, 'true');
  add(PS_HEALTH_CHECK, rs.HealthCheckId);
  return ps;
}
