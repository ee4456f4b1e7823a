/**
 * What the validating webhook checks, as a pure function: every problem of one object at once, each
 * with its field path, worded as Kubernetes words field errors (`spec.x: Invalid value: "v": why`).
 */
import { PARTITIONS } from '../aws/partition.ts';
import { withDefaults } from './defaults.ts';
import type { ExternalDNS, ExternalDNSSpec } from './types.ts';

export interface FieldError {
  field: string;
  type: 'Required' | 'Invalid' | 'Unsupported' | 'TooMany';
  /** The whole line, `field: Type value: detail`. */
  message: string;
}

export interface ValidationContext {
  /** On OpenShift the Cloud Credential Operator supplies AWS, GCP and Azure credentials. */
  openshift: boolean;
}

const PROVIDERS = ['AWS', 'GCP', 'Azure', 'BlueCat', 'Infoblox', 'RFC2136', 'PowerDNS', 'Embedded'];
/** Upstream types Hostwarden has no provider or source for. */
const UNSUPPORTED_PROVIDERS = new Set(['BlueCat', 'Infoblox']);
const SOURCES = ['Service', 'OpenShiftRoute', 'CRD'];
const SERVICE_TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];
export const MAX_ZONES = 10;

const required = (field: string, detail: string): FieldError => ({ field, type: 'Required', message: `${field}: Required value: ${detail}` });
const invalid = (field: string, value: unknown, detail: string): FieldError => ({
  field,
  type: 'Invalid',
  message: `${field}: Invalid value: ${JSON.stringify(value)}: ${detail}`,
});
const unsupported = (field: string, value: unknown, supported: readonly string[], why = ''): FieldError => ({
  field,
  type: 'Unsupported',
  message: `${field}: Unsupported value: ${JSON.stringify(value)}: ${why}supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
});

/**
 * The AWS SDK's `arn.IsARN` (aws-sdk-go-v2/aws/arn), the only check upstream's webhook makes: the
 * "arn:" prefix and at least six colon-separated sections. An ARN it admits is never refused.
 */
export function isArn(arn: string): boolean {
  return arn.startsWith('arn:') && arn.split(':').length >= 6;
}

/**
 * Why `arn` does not look like an IAM role ARN, or undefined when it does. Advisory only: the
 * webhook returns it as a warning, since upstream admits any ARN the SDK's check admits.
 */
export function roleArnProblem(arn: string): string | undefined {
  const parts = arn.split(':');
  if (parts.length !== 6 || parts[0] !== 'arn') return 'must be an ARN of the form arn:<partition>:iam::<12-digit account>:role/<name>';
  const [, partition = '', service = '', region = '', account = '', resource = ''] = parts;
  if (!PARTITIONS.includes(partition)) return `partition must be one of ${PARTITIONS.join(', ')}, not ${JSON.stringify(partition)}`;
  if (service !== 'iam') return `service must be "iam", not ${JSON.stringify(service)}`;
  if (region !== '') return `region must be empty for IAM, not ${JSON.stringify(region)}`;
  if (!/^\d{12}$/.test(account)) return `account must be 12 digits, not ${JSON.stringify(account)}`;
  if (!resource.startsWith('role/')) return `resource must be role/<name>, not ${JSON.stringify(resource)}`;
  const rest = resource.slice('role/'.length);
  const cut = rest.lastIndexOf('/');
  const path = cut < 0 ? '' : rest.slice(0, cut + 1);
  const name = rest.slice(cut + 1);
  if (!/^[\w+=,.@-]{1,64}$/.test(name)) return `role name must be 1 to 64 characters of letters, digits and +=,.@_-, not ${JSON.stringify(name)}`;
  if (path !== '' && (path.length > 511 || !/^([\x21-\x2E\x30-\x7E]+\/)+$/.test(path)))
    return `role path ${JSON.stringify(`/${path}`)} has characters IAM does not allow`;
  return undefined;
}

export function externalIdProblem(id: string): string | undefined {
  return /^[\w+=,.@:/-]{2,1224}$/.test(id) ? undefined : 'must be 2 to 1224 characters of letters, digits and +=,.@:/_-';
}

export function regexProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
    return undefined;
  } catch (err) {
    return `does not compile: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** Every problem of the object's spec (defaults applied first), in field order. */
export function validateExternalDNS(obj: ExternalDNS, ctx: ValidationContext): FieldError[] {
  const spec = withDefaults(obj.spec);
  return [...validateDomains(spec), ...validateProvider(spec, ctx), ...validateSource(spec), ...validateZones(spec)];
}

function validateDomains(spec: ExternalDNSSpec): FieldError[] {
  const out: FieldError[] = [];
  (spec.domains ?? []).forEach((d, i) => {
    const at = `spec.domains[${i}]`;
    if (d.filterType !== 'Include' && d.filterType !== 'Exclude') out.push(unsupported(`${at}.filterType`, d.filterType, ['Include', 'Exclude']));
    if (d.matchType === 'Exact') {
      if (d.name === undefined || d.name === '') out.push(required(`${at}.name`, 'name is required when matchType is Exact'));
    } else if (d.matchType === 'Pattern') {
      if (d.pattern === undefined || d.pattern === '') out.push(required(`${at}.pattern`, 'pattern is required when matchType is Pattern'));
      else {
        const problem = regexProblem(d.pattern);
        if (problem !== undefined) out.push(invalid(`${at}.pattern`, d.pattern, problem));
      }
    } else out.push(unsupported(`${at}.matchType`, d.matchType, ['Exact', 'Pattern']));
  });
  return out;
}

function validateProvider(spec: ExternalDNSSpec, ctx: ValidationContext): FieldError[] {
  const p = spec.provider ?? {};
  const out: FieldError[] = [];
  if (p.type === undefined) return [required('spec.provider.type', 'the provider type is required')];
  if (!PROVIDERS.includes(p.type))
    return [
      unsupported(
        'spec.provider.type',
        p.type,
        PROVIDERS.filter((x) => !UNSUPPORTED_PROVIDERS.has(x)),
      ),
    ];
  if (UNSUPPORTED_PROVIDERS.has(p.type))
    return [
      unsupported(
        'spec.provider.type',
        p.type,
        PROVIDERS.filter((x) => !UNSUPPORTED_PROVIDERS.has(x)),
        'Hostwarden has no provider for it; ',
      ),
    ];
  const platform = ctx.openshift && (p.type === 'AWS' || p.type === 'GCP' || p.type === 'Azure');
  switch (p.type) {
    case 'AWS': {
      const role = p.aws?.assumeRole;
      // As upstream: assumeRole needs base credentials too; the pod's own identity is never a silent fallback.
      if (!platform && (p.aws?.credentials?.name ?? '') === '')
        out.push(required('spec.provider.aws.credentials.name', 'credentials secret must be specified when provider type is AWS'));
      if (role !== undefined) {
        if (role.arn === undefined || role.arn === '') out.push(required('spec.provider.aws.assumeRole.arn', 'the ARN of the role to assume is required'));
        else if (!isArn(role.arn)) out.push(invalid('spec.provider.aws.assumeRole.arn', role.arn, `arn ${JSON.stringify(role.arn)} is not a valid AWS ARN`));
        if (role.externalID !== undefined) {
          const problem = externalIdProblem(role.externalID);
          if (problem !== undefined) out.push(invalid('spec.provider.aws.assumeRole.externalID', role.externalID, problem));
        }
      }
      break;
    }
    case 'GCP':
      if (!platform && (p.gcp?.credentials?.name ?? '') === '')
        out.push(required('spec.provider.gcp.credentials.name', 'credentials secret must be specified when provider type is GCP'));
      break;
    case 'Azure':
      if (!platform && (p.azure?.configFile?.name ?? '') === '')
        out.push(required('spec.provider.azure.configFile.name', 'config file name must be specified when provider type is Azure'));
      break;
    case 'RFC2136':
      if ((p.rfc2136?.host ?? '') === '') out.push(required('spec.provider.rfc2136.host', 'the DNS server is required for RFC2136'));
      if ((p.rfc2136?.zone ?? '') === '') out.push(required('spec.provider.rfc2136.zone', 'the zone is required for RFC2136'));
      break;
    case 'PowerDNS':
      if ((p.powerDNS?.server ?? '') === '') out.push(required('spec.provider.powerDNS.server', 'the API server URL is required for PowerDNS'));
      if ((p.powerDNS?.apiKey?.name ?? '') === '') out.push(required('spec.provider.powerDNS.apiKey.name', 'an API key Secret is required for PowerDNS'));
      break;
    default:
      break;
  }
  return out;
}

function validateSource(spec: ExternalDNSSpec): FieldError[] {
  const s = spec.source ?? {};
  const out: FieldError[] = [];
  if (s.type === undefined) out.push(required('spec.source.type', 'the source type is required'));
  else if (!SOURCES.includes(s.type)) out.push(unsupported('spec.source.type', s.type, SOURCES));
  (s.service?.serviceType ?? []).forEach((t, i) => {
    if (!SERVICE_TYPES.includes(t)) out.push(unsupported(`spec.source.service.serviceType[${i}]`, t, SERVICE_TYPES));
  });
  if (s.hostnameAnnotation !== 'Allow' && s.hostnameAnnotation !== 'Ignore')
    out.push(unsupported('spec.source.hostnameAnnotation', s.hostnameAnnotation, ['Allow', 'Ignore']));
  else if (s.type !== 'OpenShiftRoute' && s.hostnameAnnotation === 'Ignore' && (s.fqdnTemplate ?? []).length === 0) {
    out.push(required('spec.source.fqdnTemplate', 'fqdnTemplate is required when hostnameAnnotation is Ignore'));
  }
  return out;
}

function validateZones(spec: ExternalDNSSpec): FieldError[] {
  const out: FieldError[] = [];
  const zones = spec.zones ?? [];
  if (zones.length > MAX_ZONES)
    out.push({ field: 'spec.zones', type: 'TooMany', message: `spec.zones: Too many: ${zones.length}: must have at most ${MAX_ZONES} items` });
  zones.forEach((z, i) => {
    if (z === '') out.push(required(`spec.zones[${i}]`, 'a zone id cannot be empty'));
  });
  const interval = spec.intervalSeconds;
  if (interval !== undefined && (!Number.isInteger(interval) || interval < 60 || interval > 3600))
    out.push(invalid('spec.intervalSeconds', interval, 'must be a whole number of seconds from 60 to 3600'));
  return out;
}

/** Admission warnings: what is admitted (as upstream admits it) but will likely not work. */
export function validationWarnings(obj: ExternalDNS): string[] {
  const arn = withDefaults(obj.spec).provider?.aws?.assumeRole?.arn ?? '';
  const problem = arn !== '' && isArn(arn) ? roleArnProblem(arn) : undefined;
  return problem === undefined
    ? []
    : [`spec.provider.aws.assumeRole.arn: ${JSON.stringify(arn)} does not look like an IAM role ARN (${problem}); admitted as upstream admits it`];
}

/** The one message for a rejected object, as the API server words an invalid object. */
export function invalidMessage(name: string, errors: readonly FieldError[]): string {
  const list = errors.map((e) => e.message);
  return `ExternalDNS.externaldns.olm.openshift.io ${JSON.stringify(name)} is invalid: ${list.length === 1 ? (list[0] ?? '') : `[${list.join(', ')}]`}`;
}
