/**
 * EC2's XML shapes for the emulated resources. EC2 names response members in lower camel case
 * and wraps every list in `<…Set><item>`; the SDK's deserializer ignores anything it does not
 * know but finds nothing under a wrong name, so these names follow the SDK's schema exactly.
 */
import { awsPartition, dnsSuffix } from '../../../src/aws/partition.ts';
import { randomBytes } from 'node:crypto';
import type { EmulatedResponse } from './emulator.ts';
import type { Endpoint, EndpointService, NetworkInterface, NetworkModel, Subnet, Vpc } from './ec2-model.ts';
import { vpceHostedZoneId } from './ec2-model.ts';
import type { Tag } from './query.ts';
import { el } from './xml.ts';

const NS = 'http://ec2.amazonaws.com/doc/2016-11-15/';

export function items(name: string, values: readonly string[]): string {
  return el(
    name,
    values.map((v) => `<item>${v}</item>`),
  );
}

export function textItems(name: string, values: readonly string[]): string {
  return el(
    name,
    values.map((v) => el('item', v)),
  );
}

export function tagSet(tags: readonly Tag[]): string {
  return items(
    'tagSet',
    tags.map((t) => el('key', t.key) + el('value', t.value)),
  );
}

export function ec2Ok(op: string, content: readonly string[]): EmulatedResponse {
  return {
    status: 200,
    body: `<?xml version="1.0" encoding="UTF-8"?><${op}Response xmlns="${NS}">${el('requestId', requestId())}${content.join('')}</${op}Response>`,
  };
}

export function ec2Error(status: number, code: string, message: string): EmulatedResponse {
  return {
    status,
    body: `<?xml version="1.0" encoding="UTF-8"?><Response>${el('Errors', [el('Error', [el('Code', code), el('Message', message)])])}${el('RequestID', requestId())}</Response>`,
  };
}

export function vpcXml(v: Vpc): string {
  return [
    el('vpcId', v.id),
    el('ownerId', v.account),
    el('state', 'available'),
    el('cidrBlock', v.cidr),
    items('cidrBlockAssociationSet', [
      el('associationId', `vpc-cidr-assoc-${v.id.slice(4)}`) + el('cidrBlock', v.cidr) + el('cidrBlockState', [el('state', 'associated')]),
    ]),
    el('dhcpOptionsId', 'dopt-emulated'),
    el('instanceTenancy', 'default'),
    el('isDefault', false),
    tagSet(v.tags),
  ].join('');
}

export function subnetXml(model: NetworkModel, s: Subnet): string {
  return [
    el('subnetId', s.id),
    el('subnetArn', `arn:${awsPartition(s.region)}:ec2:${s.region}:${s.account}:subnet/${s.id}`),
    el('ownerId', s.account),
    el('vpcId', s.vpcId),
    el('state', 'available'),
    el('cidrBlock', s.cidr),
    el('availableIpAddressCount', 251 - s.allocated),
    el('availabilityZone', model.azName(s.account, s.region, s.azId)),
    el('availabilityZoneId', s.azId),
    el('defaultForAz', false),
    el('mapPublicIpOnLaunch', false),
    tagSet(s.tags),
  ].join('');
}

export function interfaceXml(model: NetworkModel, n: NetworkInterface): string {
  return [
    el('networkInterfaceId', n.id),
    el('subnetId', n.subnetId),
    el('vpcId', n.vpcId),
    el('availabilityZone', model.azName(n.account, n.region, n.azId)),
    el('description', n.description),
    el('ownerId', n.account),
    el('requesterId', 'amazon-aws'),
    el('requesterManaged', true),
    el('status', 'in-use'),
    el('interfaceType', 'vpc_endpoint'),
    el('privateIpAddress', n.privateIp),
    items('privateIpAddressesSet', [el('privateIpAddress', n.privateIp) + el('primary', true)]),
    el('sourceDestCheck', true),
    tagSet(n.tags),
  ].join('');
}

function baseDnsName(svc: EndpointService): string {
  return `${svc.id}.${svc.region}.vpce.${dnsSuffix(svc.region)}`;
}

export function serviceConfigurationXml(model: NetworkModel, svc: EndpointService): string {
  const zones = model.serviceZones(svc);
  return [
    items('serviceType', [el('serviceType', 'Interface')]),
    el('serviceId', svc.id),
    el('serviceName', svc.name),
    el('serviceState', 'Available'),
    textItems('availabilityZoneIdSet', zones),
    textItems(
      'availabilityZoneSet',
      zones.map((z) => model.azName(svc.account, svc.region, z)),
    ),
    el('acceptanceRequired', svc.acceptanceRequired),
    el('managesVpcEndpoints', false),
    textItems('networkLoadBalancerArnSet', svc.nlbArns),
    textItems('supportedIpAddressTypeSet', ['ipv4']),
    textItems('baseEndpointDnsNameSet', [baseDnsName(svc)]),
    tagSet(svc.tags),
  ].join('');
}

/** What a consumer sees of a service: zone names in the CALLER's mapping. */
export function serviceDetailXml(model: NetworkModel, svc: EndpointService, viewer: string): string {
  const zones = model.serviceZones(svc);
  return [
    el('serviceName', svc.name),
    el('serviceId', svc.id),
    items('serviceType', [el('serviceType', 'Interface')]),
    textItems('availabilityZoneIdSet', zones),
    textItems('availabilityZoneSet', zones.map((z) => model.azName(viewer, svc.region, z)).sort()),
    el('owner', svc.account),
    textItems('baseEndpointDnsNameSet', [baseDnsName(svc)]),
    el('vpcEndpointPolicySupported', false),
    el('acceptanceRequired', svc.acceptanceRequired),
    el('managesVpcEndpoints', false),
    textItems('supportedIpAddressTypeSet', ['ipv4']),
    ...(svc.account === viewer ? [tagSet(svc.tags)] : []),
  ].join('');
}

/** The regional DNS name first, then one per zone, as AWS lists them. */
export function endpointDnsEntries(model: NetworkModel, e: Endpoint): { dnsName: string; hostedZoneId: string }[] {
  const zone = vpceHostedZoneId(e.region);
  const base = `${e.serviceId}.${e.region}.vpce.${dnsSuffix(e.region)}`;
  const perAz = e.subnetIds
    .map((id) => model.subnets.get(id))
    .filter((s): s is Subnet => s !== undefined)
    .map((s) => ({ dnsName: `${e.dnsPrefix}-${model.azName(e.account, e.region, s.azId)}.${base}`, hostedZoneId: zone }));
  return [{ dnsName: `${e.dnsPrefix}.${base}`, hostedZoneId: zone }, ...perAz];
}

export function endpointXml(model: NetworkModel, e: Endpoint): string {
  return [
    el('vpcEndpointId', e.id),
    el('vpcEndpointType', 'Interface'),
    el('vpcId', e.vpcId),
    el('serviceName', e.serviceName),
    el('state', e.state),
    textItems('routeTableIdSet', []),
    textItems('subnetIdSet', e.subnetIds),
    el('ipAddressType', 'ipv4'),
    el('dnsOptions', [el('dnsRecordIpType', 'ipv4')]),
    el('privateDnsEnabled', e.privateDnsEnabled),
    el('requesterManaged', false),
    textItems('networkInterfaceIdSet', e.eniIds),
    items(
      'dnsEntrySet',
      endpointDnsEntries(model, e).map((d) => el('dnsName', d.dnsName) + el('hostedZoneId', d.hostedZoneId)),
    ),
    el('creationTimestamp', e.createdAt.toISOString()),
    tagSet(e.tags),
    el('ownerId', e.account),
    ...(e.state === 'failed' ? [el('lastError', [el('message', 'The VPC endpoint could not be created'), el('code', 'Client::InternalError')])] : []),
  ].join('');
}

function requestId(): string {
  const h = randomBytes(16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** An EC2 client error (`InvalidVpcID.NotFound` …), thrown by operations and answered as XML. */
export class Ec2Fault extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}
