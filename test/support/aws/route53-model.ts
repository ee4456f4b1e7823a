/** Route53 record sets inside the emulator, and their XML form in both directions. */
import { child, children, el, textOf } from './xml.ts';
import type { XmlNode } from './xml.ts';

export interface RecordSet {
  /** Lower case, absolute (trailing dot), `*` decoded. */
  name: string;
  type: string;
  setIdentifier?: string;
  ttl?: number;
  values: string[];
  alias?: { hostedZoneId: string; dnsName: string; evaluateTargetHealth: boolean };
  weight?: number;
  region?: string;
  failover?: string;
  geo?: { continent?: string; country?: string; subdivision?: string };
  geoProximity?: { region?: string; localZoneGroup?: string; latitude?: string; longitude?: string; bias?: number };
  multiValue?: boolean;
  healthCheckId?: string;
}

/** Route53's listing order: names compared label by label from the right, then type, then set identifier. */
export function sortKey(rs: Pick<RecordSet, 'name' | 'type' | 'setIdentifier'>): string {
  const reversed = rs.name.replace(/\.$/, '').split('.').reverse().join('.');
  return `${reversed}\u0000${rs.type}\u0000${rs.setIdentifier ?? ''}`;
}

/**
 * Route53's DomainNameFormat rules: a name may be sent with characters or with `\ooo` octal
 * escapes; it is stored decoded and every character outside a-z, 0-9, `-`, `_` and `.` comes
 * back escaped, wherever it is (`*.apps` as `\052.apps`, `a-*.apps` as `a-\052.apps`).
 */
export function normName(name: string): string {
  return name
    .replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)))
    .toLowerCase()
    .replace(/\.?$/, '.');
}

export function escapeName(name: string): string {
  return name.replace(/[^a-z0-9_.-]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

export function recordSetFromXml(node: XmlNode | undefined): RecordSet {
  const rs: RecordSet = {
    name: normName(textOf(node, 'Name') ?? ''),
    type: textOf(node, 'Type') ?? '',
    values: children(child(node, 'ResourceRecords'), 'ResourceRecord').map((r) => textOf(r, 'Value') ?? ''),
  };
  const setId = textOf(node, 'SetIdentifier');
  if (setId !== undefined) rs.setIdentifier = setId;
  const ttl = textOf(node, 'TTL');
  if (ttl !== undefined) rs.ttl = Number(ttl);
  const alias = child(node, 'AliasTarget');
  if (alias !== undefined)
    rs.alias = {
      hostedZoneId: textOf(alias, 'HostedZoneId') ?? '',
      dnsName: normName(textOf(alias, 'DNSName') ?? ''),
      evaluateTargetHealth: textOf(alias, 'EvaluateTargetHealth') === 'true',
    };
  const weight = textOf(node, 'Weight');
  if (weight !== undefined) rs.weight = Number(weight);
  const region = textOf(node, 'Region');
  if (region !== undefined) rs.region = region;
  const failover = textOf(node, 'Failover');
  if (failover !== undefined) rs.failover = failover;
  const geo = child(node, 'GeoLocation');
  if (geo !== undefined) {
    rs.geo = {};
    const [c, n, s] = [textOf(geo, 'ContinentCode'), textOf(geo, 'CountryCode'), textOf(geo, 'SubdivisionCode')];
    if (c !== undefined) rs.geo.continent = c;
    if (n !== undefined) rs.geo.country = n;
    if (s !== undefined) rs.geo.subdivision = s;
  }
  const gp = child(node, 'GeoProximityLocation');
  if (gp !== undefined) {
    rs.geoProximity = {};
    const r = textOf(gp, 'AWSRegion');
    const l = textOf(gp, 'LocalZoneGroup');
    const b = textOf(gp, 'Bias');
    const coords = child(gp, 'Coordinates');
    if (r !== undefined) rs.geoProximity.region = r;
    if (l !== undefined) rs.geoProximity.localZoneGroup = l;
    if (b !== undefined) rs.geoProximity.bias = Number(b);
    if (coords !== undefined) Object.assign(rs.geoProximity, { latitude: textOf(coords, 'Latitude') ?? '', longitude: textOf(coords, 'Longitude') ?? '' });
  }
  if (textOf(node, 'MultiValueAnswer') === 'true') rs.multiValue = true;
  const hc = textOf(node, 'HealthCheckId');
  if (hc !== undefined) rs.healthCheckId = hc;
  return rs;
}

export function recordSetToXml(rs: RecordSet): string {
  const parts: string[] = [el('Name', escapeName(rs.name)), el('Type', rs.type)];
  if (rs.setIdentifier !== undefined) parts.push(el('SetIdentifier', rs.setIdentifier));
  if (rs.weight !== undefined) parts.push(el('Weight', rs.weight));
  if (rs.region !== undefined) parts.push(el('Region', rs.region));
  if (rs.geo !== undefined)
    parts.push(el('GeoLocation', [el('ContinentCode', rs.geo.continent), el('CountryCode', rs.geo.country), el('SubdivisionCode', rs.geo.subdivision)]));
  if (rs.failover !== undefined) parts.push(el('Failover', rs.failover));
  if (rs.multiValue === true) parts.push(el('MultiValueAnswer', true));
  if (rs.ttl !== undefined && rs.alias === undefined) parts.push(el('TTL', rs.ttl));
  if (rs.alias === undefined)
    parts.push(
      el(
        'ResourceRecords',
        rs.values.map((v) => el('ResourceRecord', [el('Value', v)])),
      ),
    );
  else
    parts.push(
      el('AliasTarget', [
        el('HostedZoneId', rs.alias.hostedZoneId),
        el('DNSName', rs.alias.dnsName),
        el('EvaluateTargetHealth', rs.alias.evaluateTargetHealth),
      ]),
    );
  if (rs.healthCheckId !== undefined) parts.push(el('HealthCheckId', rs.healthCheckId));
  if (rs.geoProximity !== undefined) {
    const g = rs.geoProximity;
    const coords = g.latitude === undefined ? undefined : [el('Latitude', g.latitude), el('Longitude', g.longitude)];
    parts.push(el('GeoProximityLocation', [el('AWSRegion', g.region), el('LocalZoneGroup', g.localZoneGroup), el('Coordinates', coords), el('Bias', g.bias)]));
  }
  return el('ResourceRecordSet', parts);
}

/** What Route53 compares for a DELETE: everything, values as a set. */
export function sameRecordSet(a: RecordSet, b: RecordSet): boolean {
  // Keys sorted: a set stored by a test and one parsed from a request list their fields in different orders.
  const norm = (rs: RecordSet): string => {
    const flat: Record<string, unknown> = { ...rs, values: [...rs.values].sort(), ttl: rs.alias === undefined ? rs.ttl : undefined };
    return JSON.stringify(
      Object.fromEntries(
        Object.keys(flat)
          .sort()
          .map((k) => [k, flat[k]]),
      ),
    );
  };
  return norm(a) === norm(b);
}
