/**
 * The DNSRecord validation rules, shared by the admission webhook and the reconciler (which must
 * not trust that the webhook ran): Gardener's own (pkg/api/extensions/validation/dnsrecord.go),
 * field for field. Pure: field errors carry Kubernetes-style field paths (`spec.values[1]`) so a
 * user sees exactly which value is wrong.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { RECORD_TYPES } from './types.ts';

export interface FieldProblem {
  path: string;
  message: string;
  /** The Kubernetes field error type (field.ErrorType) Gardener reports for it. */
  type: 'Required' | 'Invalid' | 'NotSupported' | 'Forbidden';
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const MAX_TTL = 2147483647;

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/**
 * Kubernetes' IsFullyQualifiedDomainName (apimachinery util/validation), which Gardener applies:
 * one trailing dot allowed, a lowercase RFC 1123 subdomain of at least two labels.
 */
export function fqdnProblem(value: string): string | undefined {
  if (value === '') return 'required';
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  const subdomain: string[] = [];
  if (name.length > 253) subdomain.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN.test(name)) subdomain.push(SUBDOMAIN_MESSAGE);
  if (subdomain.length > 0) return `${JSON.stringify(name)}: ${subdomain.join(',')}`;
  const labels = name.split('.');
  if (labels.length < 2) return `${JSON.stringify(name)}: should be a domain with at least two segments separated by dots`;
  for (const label of labels) {
    const problems: string[] = [];
    if (label.length > 63) problems.push('must be no more than 63 characters');
    if (!DNS1123_LABEL.test(label)) problems.push(LABEL_MESSAGE);
    if (problems.length > 0) return `${JSON.stringify(label)}: ${problems.join(',')}`;
  }
  return undefined;
}

/**
 * Gardener's name rule: for TXT one leading "_" is dropped (DNS challenges), otherwise one
 * leading "*." (wildcards); the rest must be a fully qualified domain name.
 */
export function checkRecordName(name: string, recordType: string): string | undefined {
  const rest = recordType === 'TXT' ? name.replace(/^_/, '') : name.replace(/^\*\./, '');
  return fqdnProblem(rest);
}

/** Go's net.ParseIP: dotted IPv4 without leading zeros, or IPv6 (no zone); either family for A and AAAA alike. */
export function isGoIp(value: string): boolean {
  return isIPv4(value) || (isIPv6(value) && !value.includes('%'));
}

function checkValue(recordType: string, value: string): string | undefined {
  switch (recordType) {
    case 'A':
    case 'AAAA':
      return isGoIp(value) ? undefined : 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
    case 'CNAME':
      return fqdnProblem(value);
    default:
      return undefined;
  }
}

/**
 * Every problem of a spec (any JSON; nothing is assumed about its shape), in the order and on the
 * fields of Gardener's ValidateDNSRecordSpec (pkg/api/extensions/validation/dnsrecord.go).
 */
export function validateSpec(raw: unknown): FieldProblem[] {
  const out: FieldProblem[] = [];
  const spec = asRecord(raw);
  if (spec === undefined) return [{ path: 'spec', message: 'required', type: 'Required' }];
  const str = (v: unknown): v is string => typeof v === 'string';

  if (!str(spec['type']) || spec['type'] === '') out.push({ path: 'spec.type', message: 'field is required', type: 'Required' });

  const ref = asRecord(spec['secretRef']);
  if (ref === undefined || !str(ref['name']) || ref['name'] === '') out.push({ path: 'spec.secretRef.name', message: 'field is required', type: 'Required' });
  // Hostwarden's own rule: "" would make the Secret unreadable (Gardener reads it in namespace "").
  if (ref !== undefined && ref['namespace'] !== undefined && (!str(ref['namespace']) || ref['namespace'] === ''))
    out.push({ path: 'spec.secretRef.namespace', message: 'must not be empty when set', type: 'Invalid' });
  for (const field of ['region', 'zone'] as const) {
    const v = spec[field];
    if (v !== undefined && v !== null && (!str(v) || v === ''))
      out.push({ path: `spec.${field}`, message: 'field cannot be empty if specified', type: 'Invalid' });
  }

  const recordType = spec['recordType'];
  const name = spec['name'];
  const nameProblem = checkRecordName(str(name) ? name : '', str(recordType) ? recordType : '');
  if (nameProblem !== undefined) out.push({ path: 'spec.name', message: nameProblem, type: nameProblem === 'required' ? 'Required' : 'Invalid' });

  const knownType = str(recordType) && (RECORD_TYPES as readonly string[]).includes(recordType);
  if (!knownType)
    out.push({
      path: 'spec.recordType',
      message: `Unsupported value: ${JSON.stringify(str(recordType) ? recordType : '')}: supported values: ${RECORD_TYPES.map((t) => `"${t}"`).join(', ')}`,
      type: 'NotSupported',
    });

  const values = Array.isArray(spec['values']) ? (spec['values'] as unknown[]) : [];
  if (values.length === 0) out.push({ path: 'spec.values', message: 'field is required', type: 'Required' });
  if (recordType === 'CNAME' && values.length > 1) out.push({ path: 'spec.values', message: 'CNAME records must have a single value', type: 'Invalid' });
  values.forEach((v: unknown, i) => {
    if (!str(v)) out.push({ path: `spec.values[${i}]`, message: 'must be a string', type: 'Invalid' });
    else if (knownType) {
      const problem = checkValue(recordType, v);
      if (problem !== undefined) out.push({ path: `spec.values[${i}]`, message: `${JSON.stringify(v)}: ${problem}`, type: 'Invalid' });
    }
  });

  const ttl = spec['ttl'];
  if (ttl !== undefined && ttl !== null && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0 || ttl > MAX_TTL))
    out.push({ path: 'spec.ttl', message: `must be between 0 and ${MAX_TTL}, inclusive`, type: 'Invalid' });
  if (spec['class'] !== undefined && spec['class'] !== null && !str(spec['class']))
    out.push({ path: 'spec.class', message: 'must be a string', type: 'Invalid' });
  return out;
}

const IMMUTABLE = ['type', 'name', 'recordType'] as const;

/** The spec rules, plus the update rules: immutable fields, and no spec change once deletion started. */
export function validateUpdate(oldObj: unknown, newObj: unknown): FieldProblem[] {
  const oldSpec = asRecord(asRecord(oldObj)?.['spec']) ?? {};
  const newSpec = asRecord(asRecord(newObj)?.['spec']);
  const out = validateSpec(newSpec);
  if (newSpec === undefined) return out;
  // Gardener's ValidateDNSRecordSpecUpdate: once deletion started, only "spec is frozen" is said.
  const deleting = asRecord(asRecord(newObj)?.['metadata'])?.['deletionTimestamp'] ?? asRecord(asRecord(oldObj)?.['metadata'])?.['deletionTimestamp'];
  if (typeof deleting === 'string' && deleting !== '' && JSON.stringify(canonical(oldSpec)) !== JSON.stringify(canonical(newSpec))) {
    return [{ path: 'spec', message: 'cannot update dns record spec if deletion timestamp is set', type: 'Forbidden' }, ...out];
  }
  const immutable: FieldProblem[] = [];
  for (const field of IMMUTABLE) {
    if (oldSpec[field] !== newSpec[field]) immutable.push({ path: `spec.${field}`, message: 'field is immutable', type: 'Invalid' });
  }
  return [...immutable, ...out];
}

/** Key order does not make two specs different. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  const r = asRecord(v);
  if (r === undefined) return v;
  return Object.fromEntries(
    Object.keys(r)
      .sort()
      .map((k) => [k, canonical(r[k])]),
  );
}

export function describeProblems(problems: readonly FieldProblem[]): string {
  return problems.map((p) => `${p.path}: ${p.message}`).join('; ');
}
