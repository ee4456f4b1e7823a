/**
 * Route53 hosted zones as objects owned by an account, with private zones and their VPCs:
 * CreateHostedZone (a CallerReference used before fails with HostedZoneAlreadyExists; a private
 * zone needs a VPC of the caller; ConflictingDomainExists when that VPC already has a private zone
 * of that name), DeleteHostedZone (HostedZoneNotEmpty while records other than the apex SOA and NS
 * remain), ListHostedZonesByName (name order with labels reversed, then id; paged by
 * DNSName/HostedZoneId), AssociateVPCWithHostedZone (the VPC must be the caller's; a zone of
 * another account needs its owner's CreateVPCAssociationAuthorization first, else
 * NotAuthorizedException), DisassociateVPCFromHostedZone (never the last VPC: LastVPCAssociation),
 * Create/Delete/ListVPCAssociationAuthorization(s) by the zone owner, ChangeTagsForResource.
 */
import type { EmulatedRequest } from './emulator.ts';
import type { NetworkModel } from './ec2-model.ts';
import type { RecordSet } from './route53-model.ts';
import { child, children, el, parseXml, textOf } from './xml.ts';
import type { XmlNode } from './xml.ts';

export interface ZoneVpc {
  region: string;
  vpcId: string;
}

export interface ZoneOptions {
  private?: boolean;
  tags?: Record<string, string>;
  id?: string;
  /** The owner (default: the emulator's root identity's account, 111122223333). */
  account?: string;
  vpcs?: ZoneVpc[];
  callerReference?: string;
  comment?: string;
}

/** What these operations need of the Route53 emulator (its zone table and helpers). */
export interface ZoneStore {
  readonly zones: Map<string, EmulatedZone>;
  readonly network: NetworkModel | undefined;
  createZone(name: string, opts: ZoneOptions): EmulatedZone;
  /** A new INSYNC change, known to GetChange. */
  recordChange(): string;
}

export interface EmulatedZone {
  id: string;
  name: string;
  private: boolean;
  account: string;
  callerReference: string;
  comment: string;
  tags: Record<string, string>;
  vpcs: ZoneVpc[];
  authorizations: ZoneVpc[];
  sets: Map<string, RecordSet>;
}

/** A Route53 client error: thrown by the operations, answered in Route53's XML by the emulator. */
export class Route53Fault extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export function zoneXml(z: EmulatedZone): string {
  return el('HostedZone', [
    el('Id', `/hostedzone/${z.id}`),
    el('Name', z.name),
    el('CallerReference', z.callerReference),
    el('Config', [el('Comment', z.comment), el('PrivateZone', z.private)]),
    el('ResourceRecordSetCount', z.sets.size),
  ]);
}

export function vpcXml(v: ZoneVpc): string {
  return el('VPC', [el('VPCRegion', v.region), el('VPCId', v.vpcId)]);
}

export function delegationSetXml(): string {
  return el('DelegationSet', [el('NameServers', [el('NameServer', 'ns-1.awsdns.test'), el('NameServer', 'ns-2.awsdns.test')])]);
}

/** A zone of the caller's account; another account's zone is refused as AWS refuses it. */
export function ownZone(store: ZoneStore, req: EmulatedRequest, id: string): EmulatedZone {
  const zone = store.zones.get(id);
  if (zone === undefined) throw new Route53Fault(404, 'NoSuchHostedZone', `No hosted zone found with ID: ${id}`);
  if (zone.account !== req.account) throw new Route53Fault(403, 'AccessDenied', `User: ${req.principal} is not authorized to access this resource`);
  return zone;
}

function changeInfo(id: string): string {
  return el('ChangeInfo', [el('Id', `/change/${id}`), el('Status', 'INSYNC'), el('SubmittedAt', new Date().toISOString())]);
}

function reversedName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '').split('.').reverse().join('.');
}

function sameVpc(a: ZoneVpc, b: ZoneVpc): boolean {
  return a.vpcId === b.vpcId && a.region === b.region;
}

function vpcOf(doc: XmlNode): ZoneVpc | undefined {
  const v = child(doc, 'VPC');
  return v === undefined ? undefined : { region: textOf(v, 'VPCRegion') ?? '', vpcId: textOf(v, 'VPCId') ?? '' };
}

export class ZoneOperations {
  private readonly store: ZoneStore;

  constructor(store: ZoneStore) {
    this.store = store;
  }

  /** The body of a successful answer (the elements inside `<OpResponse>`) and its status. */
  handle(req: EmulatedRequest, op: string, zoneId: string): { status: number; content: string[] } {
    const doc = req.method === 'POST' && req.body.trim() !== '' ? parseXml(req.body) : undefined;
    switch (op) {
      case 'CreateHostedZone':
        return { status: 201, content: this.create(req, doc) };
      case 'DeleteHostedZone':
        return { status: 200, content: this.delete(req, zoneId) };
      case 'ListHostedZonesByName':
        return { status: 200, content: this.listByName(req) };
      case 'AssociateVPCWithHostedZone':
        return { status: 200, content: this.associate(req, zoneId, doc) };
      case 'DisassociateVPCFromHostedZone':
        return { status: 200, content: this.disassociate(req, zoneId, doc) };
      case 'CreateVPCAssociationAuthorization': {
        const zone = this.privateZone(req, zoneId);
        const vpc = requiredVpc(doc);
        if (!zone.authorizations.some((a) => sameVpc(a, vpc))) zone.authorizations.push(vpc);
        return { status: 200, content: [el('HostedZoneId', zone.id), vpcXml(vpc)] };
      }
      case 'DeleteVPCAssociationAuthorization': {
        const zone = this.privateZone(req, zoneId);
        const vpc = requiredVpc(doc);
        if (!zone.authorizations.some((a) => sameVpc(a, vpc)))
          throw new Route53Fault(
            404,
            'VPCAssociationAuthorizationNotFound',
            `The VPC ${vpc.vpcId} in ${vpc.region} is not authorized to be associated with hosted zone ${zone.id}`,
          );
        zone.authorizations = zone.authorizations.filter((a) => !sameVpc(a, vpc));
        return { status: 200, content: [] };
      }
      case 'ListVPCAssociationAuthorizations': {
        const zone = this.privateZone(req, zoneId);
        const start = Number(req.query.get('nexttoken') ?? '0') || 0;
        const max = Number(req.query.get('maxresults') ?? '50') || 50;
        const pageOf = zone.authorizations.slice(start, start + max);
        const more = start + max < zone.authorizations.length;
        return { status: 200, content: [el('HostedZoneId', zone.id), ...(more ? [el('NextToken', String(start + max))] : []), el('VPCs', pageOf.map(vpcXml))] };
      }
      case 'ChangeTagsForResource': {
        const zone = ownZone(this.store, req, zoneId);
        for (const t of children(child(doc, 'AddTags'), 'Tag')) zone.tags[textOf(t, 'Key') ?? ''] = textOf(t, 'Value') ?? '';
        for (const k of children(child(doc, 'RemoveTagKeys'), 'Key')) delete zone.tags[k.text.trim()];
        return { status: 200, content: [] };
      }
      default:
        throw new Route53Fault(400, 'InvalidAction', op);
    }
  }

  private create(req: EmulatedRequest, doc: XmlNode | undefined): string[] {
    const name = textOf(doc, 'Name');
    const ref = textOf(doc, 'CallerReference');
    if (name === undefined || name === '' || ref === undefined || ref === '')
      throw new Route53Fault(400, 'InvalidInput', 'Name and CallerReference are required');
    if ([...this.store.zones.values()].some((z) => z.account === req.account && z.callerReference === ref)) {
      throw new Route53Fault(409, 'HostedZoneAlreadyExists', `A hosted zone has already been created with the specified caller reference: ${ref}`);
    }
    const config = child(doc, 'HostedZoneConfig');
    const vpc = doc === undefined ? undefined : vpcOf(doc);
    const isPrivate = vpc !== undefined || textOf(config, 'PrivateZone') === 'true';
    if (isPrivate && vpc === undefined) throw new Route53Fault(400, 'InvalidInput', 'A private hosted zone needs a VPC');
    const fqdn = name.toLowerCase().replace(/\.?$/, '.');
    if (vpc !== undefined) {
      this.callerVpc(req, vpc);
      this.noConflict(fqdn, vpc);
    }
    const zone = this.store.createZone(fqdn, {
      private: isPrivate,
      account: req.account,
      vpcs: vpc === undefined ? [] : [vpc],
      callerReference: ref,
      comment: textOf(config, 'Comment') ?? '',
    });
    return [
      zoneXml(zone),
      el('ChangeInfo', [el('Id', `/change/${this.store.recordChange()}`), el('Status', 'INSYNC'), el('SubmittedAt', new Date().toISOString())]),
      ...(vpc === undefined ? [delegationSetXml()] : [vpcXml(vpc)]),
    ];
  }

  private delete(req: EmulatedRequest, zoneId: string): string[] {
    const zone = ownZone(this.store, req, zoneId);
    const extra = [...zone.sets.values()].filter((rs) => {
      return !(rs.name === zone.name && (rs.type === 'SOA' || rs.type === 'NS'));
    });
    if (extra.length > 0)
      throw new Route53Fault(400, 'HostedZoneNotEmpty', 'The specified hosted zone contains non-required resource record sets and so cannot be deleted.');
    this.store.zones.delete(zone.id);
    return [changeInfo(this.store.recordChange())];
  }

  private listByName(req: EmulatedRequest): string[] {
    const dnsName = req.query.get('dnsname');
    const zoneId = req.query.get('hostedzoneid');
    if (zoneId !== null && dnsName === null) throw new Route53Fault(400, 'InvalidInput', 'HostedZoneId requires DNSName');
    const max = Math.min(100, Number(req.query.get('maxitems') ?? '100') || 100);
    const key = (name: string, id: string): string => `${reversedName(name)}\u0000${id}`;
    const all = [...this.store.zones.values()].filter((z) => z.account === req.account).sort((a, b) => (key(a.name, a.id) < key(b.name, b.id) ? -1 : 1));
    const from = dnsName === null ? '' : key(dnsName, zoneId ?? '');
    const rest = all.filter((z) => key(z.name, z.id) >= from);
    const pageOf = rest.slice(0, max);
    const next = rest[max];
    return [
      el('HostedZones', pageOf.map(zoneXml)),
      ...(dnsName === null ? [] : [el('DNSName', dnsName)]),
      ...(zoneId === null ? [] : [el('HostedZoneId', zoneId)]),
      el('IsTruncated', next !== undefined),
      ...(next === undefined ? [] : [el('NextDNSName', next.name), el('NextHostedZoneId', next.id)]),
      el('MaxItems', max),
    ];
  }

  private associate(req: EmulatedRequest, zoneId: string, doc: XmlNode | undefined): string[] {
    const zone = this.store.zones.get(zoneId);
    if (zone === undefined) throw new Route53Fault(404, 'NoSuchHostedZone', `No hosted zone found with ID: ${zoneId}`);
    const vpc = requiredVpc(doc);
    if (!zone.private) throw new Route53Fault(400, 'PublicZoneVPCAssociation', 'You cannot associate a VPC with a public hosted zone.');
    this.callerVpc(req, vpc);
    if (zone.account !== req.account && !zone.authorizations.some((a) => sameVpc(a, vpc))) {
      throw new Route53Fault(401, 'NotAuthorizedException', `The VPC ${vpc.vpcId} has not been authorized to be associated with hosted zone ${zone.id}`);
    }
    if (zone.vpcs.some((v) => sameVpc(v, vpc)))
      throw new Route53Fault(400, 'ConflictingDomainExists', `The VPC ${vpc.vpcId} in ${vpc.region} is already associated with hosted zone ${zone.id}`);
    this.noConflict(zone.name, vpc);
    zone.vpcs.push(vpc);
    return [changeInfo(this.store.recordChange())];
  }

  private disassociate(req: EmulatedRequest, zoneId: string, doc: XmlNode | undefined): string[] {
    const zone = this.store.zones.get(zoneId);
    if (zone === undefined) throw new Route53Fault(404, 'NoSuchHostedZone', `No hosted zone found with ID: ${zoneId}`);
    const vpc = requiredVpc(doc);
    const vpcOwner = this.store.network?.vpcs.get(vpc.vpcId)?.account;
    if (zone.account !== req.account && vpcOwner !== req.account)
      throw new Route53Fault(403, 'AccessDenied', `User: ${req.principal} is not authorized to access this resource`);
    if (!zone.vpcs.some((v) => sameVpc(v, vpc)))
      throw new Route53Fault(404, 'VPCAssociationNotFound', `The VPC ${vpc.vpcId} in ${vpc.region} is not associated with hosted zone ${zone.id}`);
    if (zone.vpcs.length === 1)
      throw new Route53Fault(
        400,
        'LastVPCAssociation',
        "The VPC that you're trying to disassociate from the private hosted zone is the last VPC that is associated with the hosted zone.",
      );
    zone.vpcs = zone.vpcs.filter((v) => !sameVpc(v, vpc));
    return [changeInfo(this.store.recordChange())];
  }

  private privateZone(req: EmulatedRequest, zoneId: string): EmulatedZone {
    const zone = ownZone(this.store, req, zoneId);
    if (!zone.private) throw new Route53Fault(400, 'HostedZoneNotPrivate', `The hosted zone ${zone.id} is not private`);
    return zone;
  }

  /** With a network model, the VPC must exist in that region and belong to the caller. */
  private callerVpc(req: EmulatedRequest, vpc: ZoneVpc): void {
    const network = this.store.network;
    if (network === undefined) return;
    const found = network.vpcs.get(vpc.vpcId);
    if (found === undefined || found.region !== vpc.region || found.account !== req.account)
      throw new Route53Fault(400, 'InvalidVPCId', `The VPC ID '${vpc.vpcId}' in ${vpc.region} is invalid or does not belong to the caller's account`);
  }

  private noConflict(name: string, vpc: ZoneVpc): void {
    const other = [...this.store.zones.values()].find((z) => z.private && z.name === name && z.vpcs.some((v) => sameVpc(v, vpc)));
    if (other !== undefined)
      throw new Route53Fault(
        400,
        'ConflictingDomainExists',
        `The VPC ${vpc.vpcId} is already associated with the private hosted zone ${other.id} of the same name ${name}`,
      );
  }
}

function requiredVpc(doc: XmlNode | undefined): ZoneVpc {
  const vpc = doc === undefined ? undefined : vpcOf(doc);
  if (vpc === undefined || vpc.vpcId === '' || vpc.region === '') throw new Route53Fault(400, 'InvalidInput', 'VPC with VPCRegion and VPCId is required');
  return vpc;
}
