/**
 * Endpoints to Route53 record sets and back, with external-dns's conventions: alias records are
 * CNAME endpoints with `alias=true`, routing policies travel as `aws/*` provider-specific
 * properties beside a set identifier, TXT values are quoted and split at 255 bytes, and names
 * come back from Route53 with octal escapes (`\052` for `*`) that are decoded here.
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

/**
 * The alias a CNAME endpoint asks for: `true` and `A` write an IPv4 alias (record set type A),
 * `AAAA` an IPv6 one (type AAAA), as external-dns's `alias=A`/`alias=AAAA`; anything else, none.
 */
export function aliasFamily(ep: Endpoint): 'A' | 'AAAA' | undefined {
  if (ep.recordType !== 'CNAME') return undefined;
  const value = getProviderSpecific(ep, PS_ALIAS)?.trim();
  if (value === 'AAAA') return 'AAAA';
  return value?.toLowerCase() === 'true' || value === 'A' ? 'A' : undefined;
}

export function isAlias(ep: Endpoint): boolean {
  return aliasFamily(ep) !== undefined;
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
    // `alias=true` writes the A alias only; an AAAA alias reads back as `alias=AAAA`. When a name
    // holds both (as external-dns writes `alias=true`), records() keeps the A one.
    if ((rs.Type !== 'A' && rs.Type !== 'AAAA') || rs.AliasTarget.DNSName === undefined) return undefined;
    ps.push(
      { name: PS_ALIAS, value: rs.Type === 'A' ? 'true' : 'AAAA' },
      { name: PS_EVALUATE_TARGET_HEALTH, value: String(rs.AliasTarget.EvaluateTargetHealth === true) },
    );
    return newEndpoint({
      dnsName,
      recordType: 'CNAME',
      targets: [canonicalTarget('CNAME', decodeRoute53Name(rs.AliasTarget.DNSName))],
      setIdentifier,
      providerSpecific: ps,
    });
  }
  if (!isRecordType(rs.Type)) return undefined;
  const values = (rs.ResourceRecords ?? []).map((r) => r.Value ?? '');
  const type = rs.Type;
  const targets = type === 'TXT' ? values.map(parseTxtValue) : values.map((v) => (type === 'CNAME' || type === 'NAPTR' ? canonicalTarget(type, v) : v));
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
}

/** The record set for an endpoint; throws InvalidEndpointError when Route53 could not hold it. */
export function endpointToRecordSet(ep: Endpoint, opts: ToRecordSetOptions): ResourceRecordSet {
  const rs: ResourceRecordSet = { Name: encodeRoute53Name(`${ep.dnsName}.`), Type: ep.recordType as RRType };
  if (ep.setIdentifier !== '') rs.SetIdentifier = ep.setIdentifier;
  applyRouting(ep, rs);
  const family = aliasFamily(ep);
  if (family !== undefined) {
    const target = ep.targets[0];
    if (ep.targets.length !== 1 || target === undefined) throw new InvalidEndpointError(`${ep.dnsName}: an alias record needs exactly one target`);
    const zoneId = opts.aliasZoneOf(target);
    if (zoneId === undefined) throw new InvalidEndpointError(`${ep.dnsName}: no hosted zone known for alias target ${target}`);
    rs.Type = family;
    rs.AliasTarget = {
      HostedZoneId: zoneId,
      DNSName: target.endsWith('.') ? target : `${target}.`,
      EvaluateTargetHealth: getProviderSpecific(ep, PS_EVALUATE_TARGET_HEALTH) !== 'false',
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

const NUMERIC = new Set([PS_WEIGHT, PS_GEOPROX_BIAS]);
const BOOLEAN = new Set([PS_ALIAS, PS_EVALUATE_TARGET_HEALTH, PS_MULTI_VALUE]);

/**
 * Provider-specific properties in the form records() returns them, so the planner sees no
 * difference where Route53 would store the same thing: numbers and booleans canonical, failover
 * upper case, `alias=false` and the target-health flag of a non-alias record dropped.
 */
export function normaliseProviderSpecific(ep: Endpoint, opts: { evaluateTargetHealth: boolean }): ProviderSpecificProperty[] {
  const out: ProviderSpecificProperty[] = [];
  const alias = isAlias(ep);
  for (const p of ep.providerSpecific) {
    let value = p.value.trim();
    if (NUMERIC.has(p.name) && value !== '' && Number.isFinite(Number(value))) value = String(Number(value));
    // `alias=A` is the record `alias=true` writes: normalised so the planner sees no change.
    if (p.name === PS_ALIAS) value = aliasFamily(ep) === 'AAAA' ? 'AAAA' : String(alias);
    else if (BOOLEAN.has(p.name)) value = String(value.toLowerCase() === 'true');
    if (p.name === PS_FAILOVER) value = value.toUpperCase();
    if (p.name === PS_ALIAS && !alias) continue;
    if (p.name === PS_EVALUATE_TARGET_HEALTH && !alias) continue;
    if (p.name === PS_MULTI_VALUE && value !== 'true') continue;
    out.push({ name: p.name, value });
  }
  if (alias && !out.some((p) => p.name === PS_EVALUATE_TARGET_HEALTH)) out.push({ name: PS_EVALUATE_TARGET_HEALTH, value: String(opts.evaluateTargetHealth) });
  return out;
}
