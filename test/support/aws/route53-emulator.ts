/**
 * Route53 on the REST-XML API, enforcing the documented rules the provider depends on:
 * paginated ListHostedZones and ListResourceRecordSets (Route53's order: names by reversed
 * labels, then type, then set identifier), ChangeResourceRecordSets applied all or nothing with
 * InvalidChangeBatch for a CREATE of an existing set, a DELETE of a missing or different set,
 * names outside the zone, CNAMEs beside other types, routing policies without set identifier,
 * and requests over 1000 changes, 1000 values or 32,000 value characters (UPSERT counting twice).
 * Alias sets follow route53-alias.ts (no TTL or values; A/AAAA to AWS endpoints in their own zone).
 * Zones belong to an account: a caller lists and changes only its own (ListHostedZones is scoped,
 * another account's zone answers AccessDenied). Private zones, their VPC associations and
 * authorizations, CreateHostedZone and DeleteHostedZone live in route53-zones.ts.
 */
import { randomBytes } from 'node:crypto';
import type { NetworkModel } from './ec2-model.ts';
import type { AwsEmulator, EmulatedRequest, EmulatedResponse, ServiceHandler } from './emulator.ts';
import { child, children, el, parseXml, textOf } from './xml.ts';
import type { XmlNode } from './xml.ts';
import { escapeName, normName, recordSetFromXml, recordSetToXml, sameRecordSet, sortKey } from './route53-model.ts';
import type { RecordSet } from './route53-model.ts';
import { aliasProblem } from './route53-alias.ts';
import { delegationSetXml, ownZone, Route53Fault, vpcXml, ZoneOperations, zoneXml } from './route53-zones.ts';
import type { EmulatedZone, ZoneOptions, ZoneVpc } from './route53-zones.ts';

const NS = 'https://route53.amazonaws.com/doc/2013-04-01/';

export type { EmulatedZone, ZoneVpc } from './route53-zones.ts';

export interface Route53Limits {
  changes: number;
  values: number;
  characters: number;
}

const ROUTES: readonly { method: string; path: RegExp; op: string }[] = [
  { method: 'GET', path: /^\/2013-04-01\/hostedzone$/, op: 'ListHostedZones' },
  { method: 'POST', path: /^\/2013-04-01\/hostedzone$/, op: 'CreateHostedZone' },
  { method: 'GET', path: /^\/2013-04-01\/hostedzonesbyname$/, op: 'ListHostedZonesByName' },
  { method: 'GET', path: /^\/2013-04-01\/hostedzone\/[^/]+\/rrset$/, op: 'ListResourceRecordSets' },
  { method: 'POST', path: /^\/2013-04-01\/hostedzone\/[^/]+\/rrset$/, op: 'ChangeResourceRecordSets' },
  { method: 'GET', path: /^\/2013-04-01\/hostedzone\/[^/]+$/, op: 'GetHostedZone' },
  { method: 'DELETE', path: /^\/2013-04-01\/hostedzone\/[^/]+$/, op: 'DeleteHostedZone' },
  { method: 'POST', path: /^\/2013-04-01\/hostedzone\/[^/]+\/associatevpc$/, op: 'AssociateVPCWithHostedZone' },
  { method: 'POST', path: /^\/2013-04-01\/hostedzone\/[^/]+\/disassociatevpc$/, op: 'DisassociateVPCFromHostedZone' },
  { method: 'POST', path: /^\/2013-04-01\/hostedzone\/[^/]+\/authorizevpcassociation$/, op: 'CreateVPCAssociationAuthorization' },
  { method: 'GET', path: /^\/2013-04-01\/hostedzone\/[^/]+\/authorizevpcassociation$/, op: 'ListVPCAssociationAuthorizations' },
  { method: 'POST', path: /^\/2013-04-01\/hostedzone\/[^/]+\/deauthorizevpcassociation$/, op: 'DeleteVPCAssociationAuthorization' },
  { method: 'GET', path: /^\/2013-04-01\/change\/[^/]+$/, op: 'GetChange' },
  { method: 'GET', path: /^\/2013-04-01\/tags\/hostedzone\/[^/]+$/, op: 'ListTagsForResource' },
  { method: 'POST', path: /^\/2013-04-01\/tags\/hostedzone\/[^/]+$/, op: 'ChangeTagsForResource' },
];

/** Operations on zones as objects (route53-zones.ts); the rest work on records. */
const ZONE_OPS: ReadonlySet<string> = new Set([
  'CreateHostedZone',
  'DeleteHostedZone',
  'ListHostedZonesByName',
  'AssociateVPCWithHostedZone',
  'DisassociateVPCFromHostedZone',
  'CreateVPCAssociationAuthorization',
  'ListVPCAssociationAuthorizations',
  'DeleteVPCAssociationAuthorization',
  'ChangeTagsForResource',
]);

/** The root identity's account: zones made by `createZone` belong to it unless told otherwise. */
const DEFAULT_ACCOUNT = '111122223333';

export class Route53Emulator implements ServiceHandler {
  readonly service = 'route53';
  readonly zones = new Map<string, EmulatedZone>();
  limits: Route53Limits = { changes: 1000, values: 1000, characters: 32_000 };
  /** Largest page ListResourceRecordSets returns (Route53: 300). */
  maxRecordPage = 300;
  /** Record names exactly as ChangeResourceRecordSets received them (before decoding escapes). */
  readonly receivedNames: string[] = [];
  /** Accepted ChangeResourceRecordSets requests in order, one entry per request (which changes shared one). */
  readonly batches: { zoneId: string; changes: { action: string; name: string; type: string }[] }[] = [];
  private readonly changes = new Map<string, string>();
  private readonly zoneOps: ZoneOperations;
  private nextZone = 1;

  /** VPC ownership for private zones; absent when only public zones are emulated. */
  readonly network: NetworkModel | undefined;

  constructor(aws: AwsEmulator, network?: NetworkModel) {
    this.network = network;
    this.zoneOps = new ZoneOperations(this);
    aws.register(this);
  }

  createZone(name: string, opts: ZoneOptions = {}): EmulatedZone {
    const id = opts.id ?? `Z${String(this.nextZone++).padStart(4, '0')}EMULATED`;
    const fqdn = name.toLowerCase().replace(/\.?$/, '.');
    const zone: EmulatedZone = {
      id,
      name: fqdn,
      private: opts.private === true,
      account: opts.account ?? DEFAULT_ACCOUNT,
      callerReference: opts.callerReference ?? id,
      comment: opts.comment ?? '',
      tags: { ...(opts.tags ?? {}) },
      vpcs: [...(opts.vpcs ?? [])],
      authorizations: [],
      sets: new Map(),
    };
    this.put(zone, { name: fqdn, type: 'SOA', ttl: 900, values: [`ns-1.awsdns.test. awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400`] });
    this.put(zone, { name: fqdn, type: 'NS', ttl: 172800, values: ['ns-1.awsdns.test.', 'ns-2.awsdns.test.'] });
    this.zones.set(id, zone);
    return zone;
  }

  /** End state for assertions: the zones `account` owns. */
  zonesOf(account: string): EmulatedZone[] {
    return [...this.zones.values()].filter((z) => z.account === account);
  }

  /** The zone's record sets other than its apex SOA and NS (what a test created or expects). */
  recordsOf(zoneId: string): RecordSet[] {
    const zone = this.zones.get(zoneId);
    if (zone === undefined) return [];
    return [...zone.sets.values()].filter((rs) => !(rs.name === zone.name && (rs.type === 'SOA' || rs.type === 'NS')));
  }

  /** VPCs of other accounts the zone's owner has authorized (and not yet deauthorized). */
  authorizationsOf(zoneId: string): ZoneVpc[] {
    return [...(this.zones.get(zoneId)?.authorizations ?? [])];
  }

  recordChange(): string {
    const id = `C${randomBytes(6).toString('hex').toUpperCase()}`;
    this.changes.set(id, new Date().toISOString());
    return id;
  }

  /** Adds or replaces a record set directly, as another tool writing to the zone would. */
  put(zone: EmulatedZone, rs: RecordSet): void {
    const stored = { ...rs, name: normName(rs.name) };
    zone.sets.set(sortKey(stored), stored);
  }

  find(zone: EmulatedZone, name: string, type: string, setIdentifier?: string): RecordSet | undefined {
    return zone.sets.get(sortKey({ name: normName(name), type, ...(setIdentifier === undefined ? {} : { setIdentifier }) }));
  }

  operation(req: EmulatedRequest): string {
    const p = req.path.replace(/\/$/, '');
    const route = ROUTES.find((r) => r.method === req.method && r.path.test(p));
    if (route === undefined) throw new Error(`unsupported request ${req.method} ${req.path}`);
    return route.op;
  }

  handle(req: EmulatedRequest, op: string): EmulatedResponse {
    const parts = req.path.replace(/\/$/, '').split('/');
    // `/2013-04-01/hostedzone/<id>/…` and `/2013-04-01/tags/hostedzone/<id>`
    const zoneId = (parts[2] === 'tags' ? parts[4] : parts[3]) ?? '';
    try {
      if (ZONE_OPS.has(op)) {
        const r = this.zoneOps.handle(req, op, zoneId);
        return { ...ok(op, r.content), status: r.status };
      }
      if (op !== 'ListHostedZones' && op !== 'GetChange') ownZone(this, req, zoneId);
      return this.recordOperation(req, op, zoneId);
    } catch (err) {
      if (err instanceof Route53Fault) return this.error(err.status, err.code, err.message);
      throw err;
    }
  }

  private recordOperation(req: EmulatedRequest, op: string, zoneId: string): EmulatedResponse {
    switch (op) {
      case 'ListHostedZones':
        return this.listZones(req);
      case 'GetHostedZone': {
        const zone = this.zones.get(zoneId);
        if (zone === undefined) return this.noZone(zoneId);
        return ok(op, [zoneXml(zone), zone.private ? el('VPCs', zone.vpcs.map(vpcXml)) : delegationSetXml()]);
      }
      case 'ListResourceRecordSets':
        return this.listSets(zoneId, req.query);
      case 'ChangeResourceRecordSets':
        return this.change(zoneId, req.body);
      case 'GetChange': {
        const id = zoneId;
        const at = this.changes.get(id);
        return at === undefined ? this.error(404, 'NoSuchChange', `A change with the specified change ID does not exist: ${id}`) : ok(op, [changeInfo(id, at)]);
      }
      case 'ListTagsForResource': {
        const zone = this.zones.get(zoneId);
        if (zone === undefined) return this.noZone(zoneId);
        const tags = Object.entries(zone.tags).map(([k, v]) => el('Tag', [el('Key', k), el('Value', v)]));
        return ok(op, [el('ResourceTagSet', [el('ResourceType', 'hostedzone'), el('ResourceId', zone.id), el('Tags', tags)])]);
      }
      default:
        return this.error(400, 'InvalidAction', op);
    }
  }

  error(status: number, code: string, message: string): EmulatedResponse {
    return {
      status,
      body: `<?xml version="1.0" encoding="UTF-8"?><ErrorResponse xmlns="${NS}">${el('Error', [el('Type', status >= 500 ? 'Receiver' : 'Sender'), el('Code', code), el('Message', message)])}${el('RequestId', randomBytes(8).toString('hex'))}</ErrorResponse>`,
    };
  }

  private noZone(id: string): EmulatedResponse {
    return this.error(404, 'NoSuchHostedZone', `No hosted zone found with ID: ${id}`);
  }

  private listZones(req: EmulatedRequest): EmulatedResponse {
    const q = req.query;
    const max = Math.min(100, Number(q.get('maxitems') ?? '100') || 100);
    const all = this.zonesOf(req.account).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const marker = q.get('marker');
    const start = marker === null ? 0 : all.findIndex((z) => z.id === marker);
    if (start < 0) return this.error(400, 'InvalidInput', `invalid marker ${marker ?? ''}`);
    const page = all.slice(start, start + max);
    const next = all[start + max];
    return ok('ListHostedZones', [
      el('HostedZones', page.map(zoneXml)),
      ...(marker === null ? [] : [el('Marker', marker)]),
      el('IsTruncated', next !== undefined),
      ...(next === undefined ? [] : [el('NextMarker', next.id)]),
      el('MaxItems', max),
    ]);
  }

  private listSets(zoneId: string, q: URLSearchParams): EmulatedResponse {
    const zone = this.zones.get(zoneId);
    if (zone === undefined) return this.noZone(zoneId);
    const max = Math.min(this.maxRecordPage, Number(q.get('maxitems') ?? '300') || 300);
    const sorted = [...zone.sets.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((e) => e[1]);
    const name = q.get('name');
    let start = 0;
    if (name !== null) {
      const from = sortKey({
        name: normName(name),
        type: q.get('type') ?? '',
        ...(q.get('identifier') === null ? {} : { setIdentifier: q.get('identifier') as string }),
      });
      start = sorted.findIndex((rs) => sortKey(rs) >= from);
      if (start < 0) start = sorted.length;
    }
    const page = sorted.slice(start, start + max);
    const next = sorted[start + max];
    return ok('ListResourceRecordSets', [
      el('ResourceRecordSets', page.map(recordSetToXml)),
      el('IsTruncated', next !== undefined),
      ...(next === undefined
        ? []
        : [
            el('NextRecordName', escapeName(next.name)),
            el('NextRecordType', next.type),
            ...(next.setIdentifier === undefined ? [] : [el('NextRecordIdentifier', next.setIdentifier)]),
          ]),
      el('MaxItems', max),
    ]);
  }

  private change(zoneId: string, body: string): EmulatedResponse {
    const zone = this.zones.get(zoneId);
    if (zone === undefined) return this.noZone(zoneId);
    let doc: XmlNode;
    try {
      doc = parseXml(body);
    } catch (err) {
      return this.error(400, 'InvalidInput', (err as Error).message);
    }
    const received = children(child(child(doc, 'ChangeBatch'), 'Changes'), 'Change');
    for (const c of received) this.receivedNames.push(textOf(child(c, 'ResourceRecordSet'), 'Name') ?? '');
    const changes = received.map((c) => ({
      action: textOf(c, 'Action') ?? '',
      rs: recordSetFromXml(child(c, 'ResourceRecordSet')),
    }));
    if (changes.length === 0) return this.error(400, 'InvalidInput', 'ChangeBatch must contain at least one change');
    let values = 0;
    let characters = 0;
    for (const c of changes) {
      const factor = c.action === 'UPSERT' ? 2 : 1;
      values += (c.rs.alias === undefined ? c.rs.values.length : 1) * factor;
      characters += c.rs.values.reduce((n, v) => n + v.length, 0) * factor;
    }
    if (changes.length > this.limits.changes)
      return this.invalid([`Number of changes in the request (${changes.length}) exceeds the maximum of ${this.limits.changes}`]);
    if (values > this.limits.values)
      return this.invalid([`Number of records in the request (${values}, UPSERT counted twice) exceeds the maximum of ${this.limits.values}`]);
    if (characters > this.limits.characters)
      return this.invalid([`Number of characters in Value elements (${characters}, UPSERT counted twice) exceeds the maximum of ${this.limits.characters}`]);
    // All or nothing: validate on a copy, commit only when every change is accepted.
    const next = new Map(zone.sets);
    const problems: string[] = [];
    for (const { action, rs } of changes) {
      const problem = validate(zone, rs);
      if (problem !== undefined) {
        problems.push(problem);
        continue;
      }
      const key = sortKey(rs);
      const what = `[name='${rs.name}', type='${rs.type}'${rs.setIdentifier === undefined ? '' : `, set-identifier='${rs.setIdentifier}'`}]`;
      const existing = next.get(key);
      if (action === 'CREATE') {
        if (existing !== undefined) problems.push(`Tried to create resource record set ${what} but it already exists`);
        else next.set(key, rs);
      } else if (action === 'DELETE') {
        if (existing === undefined) problems.push(`Tried to delete resource record set ${what} but it was not found`);
        else if (!sameRecordSet(existing, rs))
          problems.push(`Tried to delete resource record set ${what} but the values provided do not match the current values`);
        else next.delete(key);
      } else if (action === 'UPSERT') {
        next.set(key, rs);
      } else {
        problems.push(`Invalid action ${action}`);
      }
    }
    const typesByName = new Map<string, string[]>();
    for (const rs of next.values()) typesByName.set(rs.name, [...(typesByName.get(rs.name) ?? []), rs.type]);
    for (const { rs } of changes) {
      const conflict = cnameConflict(typesByName.get(rs.name) ?? [], rs.name);
      if (conflict !== undefined && !problems.includes(conflict)) problems.push(conflict);
    }
    if (problems.length > 0) return this.invalid(problems);
    zone.sets = next;
    this.batches.push({ zoneId, changes: changes.map(({ action, rs }) => ({ action, name: rs.name, type: rs.type })) });
    const id = `C${randomBytes(6).toString('hex').toUpperCase()}`;
    const at = new Date().toISOString();
    this.changes.set(id, at);
    return ok('ChangeResourceRecordSets', [changeInfo(id, at)]);
  }

  private invalid(messages: string[]): EmulatedResponse {
    return this.error(400, 'InvalidChangeBatch', messages.join('; '));
  }
}

/** Route53's RRType values (no DNAME). */
const ROUTE53_TYPES = new Set(['A', 'AAAA', 'CAA', 'CNAME', 'DS', 'HTTPS', 'MX', 'NAPTR', 'NS', 'PTR', 'SOA', 'SPF', 'SRV', 'SSHFP', 'SVCB', 'TLSA', 'TXT']);

/**
 * NAPTR as Route53 documents its value: `order preference "flags" "service" "regexp" replacement`,
 * numbers 0-65535, flags letters and digits, and a replacement of "." whenever a regexp is given.
 */
function naptrProblem(value: string): string | undefined {
  const m = /^(\d{1,5}) (\d{1,5}) "([A-Za-z0-9]*)" "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)" (\S+)$/.exec(value);
  if (m === null || Number(m[1]) > 65535 || Number(m[2]) > 65535) return 'InvalidNAPTRFormat';
  if ((m[5] ?? '') !== '' && m[6] !== '.') return 'NAPTRReplacementMustBeDotWithRegexp';
  return undefined;
}

function validate(zone: EmulatedZone, rs: RecordSet): string | undefined {
  if (!ROUTE53_TYPES.has(rs.type))
    return `Invalid request: Value '${rs.type}' at 'changeBatch.changes.member.resourceRecordSet.type' failed to satisfy constraint: Member must satisfy enum value set: [${[...ROUTE53_TYPES].join(', ')}]`;
  if (rs.name !== zone.name && !rs.name.endsWith(`.${zone.name}`)) return `RRSet with DNS name ${rs.name} is not permitted in zone ${zone.name}`;
  const routed =
    rs.weight !== undefined ||
    rs.region !== undefined ||
    rs.failover !== undefined ||
    rs.geo !== undefined ||
    rs.geoProximity !== undefined ||
    rs.multiValue === true;
  if (routed && rs.setIdentifier === undefined) return `Invalid request: Missing field 'SetIdentifier' in Change with [Name=${rs.name}, Type=${rs.type}]`;
  if (!routed && rs.setIdentifier !== undefined)
    return `Invalid request: Expected exactly one of [Weight, Region, Failover, GeoLocation, GeoProximityLocation, MultiValueAnswer], but found none in Change with [Name=${rs.name}, Type=${rs.type}, SetIdentifier=${rs.setIdentifier}]`;
  const badAlias = aliasProblem(rs);
  if (badAlias !== undefined) return badAlias;
  if (rs.alias === undefined && rs.values.length === 0)
    return `Invalid request: Expected ResourceRecords or AliasTarget in Change with [Name=${rs.name}, Type=${rs.type}]`;
  if (rs.alias === undefined && rs.ttl === undefined) return `Invalid request: Missing field 'TTL' in Change with [Name=${rs.name}, Type=${rs.type}]`;
  if (rs.type === 'TXT' && rs.values.some((v) => !/^"/.test(v)))
    return `Invalid Resource Record: 'FATAL problem: InvalidCharacterString (Value should be enclosed in quotation marks) encountered with '${rs.values[0] ?? ''}''`;
  const badNaptr = rs.type === 'NAPTR' ? rs.values.find((v) => naptrProblem(v) !== undefined) : undefined;
  if (badNaptr !== undefined) return `Invalid Resource Record: 'FATAL problem: ${naptrProblem(badNaptr) ?? ''} encountered with '${badNaptr}''`;
  if (rs.type === 'CNAME' && rs.values.length > 1) return `Invalid Resource Record: CNAME at ${rs.name} has more than one value`;
  return undefined;
}

function cnameConflict(types: readonly string[], name: string): string | undefined {
  const other = types.find((t) => t !== 'CNAME');
  if (!types.includes('CNAME') || other === undefined) return undefined;
  return `RRSet of type CNAME with DNS name ${name} is not permitted because a conflicting RRSet of type ${other} with the same DNS name already exists`;
}

function changeInfo(id: string, at: string): string {
  return el('ChangeInfo', [el('Id', `/change/${id}`), el('Status', 'INSYNC'), el('SubmittedAt', at)]);
}

function ok(op: string, content: string[]): EmulatedResponse {
  return { status: 200, body: `<?xml version="1.0" encoding="UTF-8"?><${op}Response xmlns="${NS}">${content.join('')}</${op}Response>` };
}
