/**
 * What the controller needs from AWS, as small ports: SDK-backed in aws-clients.ts, in-memory
 * fakes in tests. Lookups return undefined or [] for "not there"; every other failure throws
 * AwsCallError with the AWS error code kept.
 */

export interface LoadBalancer {
  arn: string;
  name: string;
  /** `provisioning`, `active`, `failed`, … */
  state: string;
}

export interface Elbv2Port {
  findLoadBalancer(name: string): Promise<LoadBalancer | undefined>;
}

export interface EndpointService {
  id: string;
  /** `com.amazonaws.vpce.<region>.vpce-svc-…` */
  name: string;
  state: string;
  acceptanceRequired: boolean;
  nlbArns: string[];
  availabilityZones: string[];
}

export interface VpcEndpoint {
  id: string;
  vpcId: string;
  serviceName: string;
  /** `pendingAcceptance`, `pending`, `available`, `deleting`, `deleted`, `rejected`, `failed`, `expired`. */
  state: string;
  subnetIds: string[];
  eniIds: string[];
  dnsEntries: { dnsName: string; hostedZoneId: string }[];
}

/** An endpoint's connection to one of this account's endpoint services, as the service owner sees it. */
export interface EndpointConnection {
  endpointId: string;
  /** The account that owns the endpoint. */
  owner: string;
  /** `pendingAcceptance`, `pending`, `available`, `deleting`, `deleted`, `rejected`, `failed`. */
  state: string;
}

export interface Tag {
  key: string;
  value: string;
}

export interface Ec2Port {
  /** Endpoint services of this account carrying `tag`. */
  findEndpointServices(tag: Tag): Promise<EndpointService[]>;
  createEndpointService(nlbArn: string, tag: Tag): Promise<EndpointService>;
  modifyEndpointService(id: string, change: { acceptanceRequired?: boolean; addNlbArns?: string[]; removeNlbArns?: string[] }): Promise<void>;
  allowedPrincipals(serviceId: string): Promise<string[]>;
  modifyAllowedPrincipals(serviceId: string, add: string[], remove: string[]): Promise<void>;
  deleteEndpointServices(ids: string[]): Promise<void>;
  /** Every endpoint connection to the service (of any account). */
  endpointConnections(serviceId: string): Promise<EndpointConnection[]>;
  /** Rejects the endpoints' connections to the service; ids AWS no longer knows count as done. */
  rejectEndpointConnections(serviceId: string, endpointIds: string[]): Promise<void>;
  /** The availability zones of a service as this account names them; undefined when it cannot see it. */
  serviceAvailabilityZones(serviceName: string): Promise<string[] | undefined>;
  findEndpoints(tag: Tag): Promise<VpcEndpoint[]>;
  getEndpoint(id: string): Promise<VpcEndpoint | undefined>;
  /** Endpoints (any owner tag, not deleted) per VPC. */
  countEndpoints(vpcIds: string[]): Promise<Map<string, number>>;
  createEndpoint(input: { vpcId: string; serviceName: string; subnetIds: string[]; tag: Tag }): Promise<VpcEndpoint>;
  deleteEndpoints(ids: string[]): Promise<void>;
  privateIps(eniIds: string[]): Promise<string[]>;
}

export interface Vpc {
  vpcId: string;
  region: string;
}

export interface RecordSet {
  name: string;
  type: string;
  ttl?: number;
  values?: string[];
  alias?: { hostedZoneId: string; dnsName: string; evaluateTargetHealth: boolean };
}

export interface Route53Port {
  /** Private zones named exactly `name` (no trailing dot), with their ids. */
  findPrivateZones(name: string): Promise<string[]>;
  createPrivateZone(name: string, vpc: Vpc, callerReference: string): Promise<string>;
  zoneVpcs(zoneId: string): Promise<Vpc[]>;
  listRecords(zoneId: string): Promise<RecordSet[]>;
  upsertRecord(zoneId: string, record: RecordSet): Promise<void>;
  deleteRecords(zoneId: string, records: RecordSet[]): Promise<void>;
  deleteZone(zoneId: string): Promise<void>;
  associate(zoneId: string, vpc: Vpc): Promise<void>;
  disassociate(zoneId: string, vpc: Vpc): Promise<void>;
  listAuthorizations(zoneId: string): Promise<Vpc[]>;
  createAuthorization(zoneId: string, vpc: Vpc): Promise<void>;
  deleteAuthorization(zoneId: string, vpc: Vpc): Promise<void>;
}

export interface StsPort {
  callerArn(): Promise<string>;
}

/** The clients of one account (credentials) in one region. */
export interface AwsAccount {
  ec2: Ec2Port;
  elbv2: Elbv2Port;
  route53: Route53Port;
  sts: StsPort;
}

/** Where an account's credentials come from: Secret data (`aws_access_key_id`, …) and/or a role to assume. */
export interface AccountSpec {
  region: string;
  secret?: Readonly<Record<string, string>> | undefined;
  assumeRole?: { roleArn: string; externalId?: string | undefined } | undefined;
}

export type AccountFactory = (spec: AccountSpec) => AwsAccount;
