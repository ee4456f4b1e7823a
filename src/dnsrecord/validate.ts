/**
 * The DNSRecord validation rules, shared by the admission webhook and the reconciler (which must
 * not trust that the webhook ran). Pure: field errors carry Kubernetes-style field paths
 * (`spec.values[1]`) so a user sees exactly which value is wrong.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { RECORD_TYPES } from './types.ts';

export interface FieldProblem {
  path: string;
  message: string;
}

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;
const UNDERSCORE_LABEL = /^_[a-z0-9]([a-z0-9_-]{0,61}[a-z0-9])?$/i;

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** A fully qualified name of two labels or more; `*.` first is allowed, and `_` labels first for TXT. */
export function checkRecordName(name: string, recordType: string): string | undefined {
  const plain = name.endsWith('.') ? name.slice(0, -1) : name;
  if (plain.length === 0) return 'must not be empty';
  if (plain.length > 253) return 'must be no more than 253 characters';
  const labels = plain.split('.');
  if (labels.length < 2) return 'must be a fully qualified domain name (at least two labels)';
  let i = 0;
  if (labels[0] === '*') i = 1;
  else if (recordType === 'TXT') while (i < labels.length - 2 && UNDERSCORE_LABEL.test(labels[i] ?? '')) i++;
  for (; i < labels.length; i++) {
    const label = labels[i] ?? '';
    if (label === '*') return 'a wildcard "*" is only allowed as the first label';
    if (!LABEL.test(label))
      return `label ${JSON.stringify(label)} must consist of letters, digits and "-", start and end with a letter or digit, and be at most 63 characters`;
  }
  return undefined;
}

function checkValue(recordType: string, value: string): string | undefined {
  switch (recordType) {
    case 'A':
      return isIPv4(value) ? undefined : 'must be a valid IPv4 address';
    case 'AAAA':
      return isIPv6(value) ? undefined : 'must be a valid IPv6 address';
    case 'CNAME': {
      const problem = checkRecordName(value, 'CNAME');
      return problem === undefined ? undefined : `must be a valid hostname: ${problem}`;
    }
    default:
      return value.length === 0 ? 'must not be empty' : undefined;
  }
}

/** Every problem of a spec (any JSON; nothing is assumed about its shape). */
export function validateSpec(raw: unknown): FieldProblem[] {
  const out: FieldProblem[] = [];
  const spec = asRecord(raw);
  if (spec === undefined) return [{ path: 'spec', message: 'required' }];
  const str = (v: unknown): v is string => typeof v === 'string';

  if (!str(spec['type']) || spec['type'] === '') out.push({ path: 'spec.type', message: 'required' });

  const ref = asRecord(spec['secretRef']);
  if (ref === undefined) out.push({ path: 'spec.secretRef', message: 'required' });
  else {
    if (!str(ref['name']) || ref['name'] === '') out.push({ path: 'spec.secretRef.name', message: 'required' });
    if (ref['namespace'] !== undefined && (!str(ref['namespace']) || ref['namespace'] === ''))
      out.push({ path: 'spec.secretRef.namespace', message: 'must not be empty when set' });
  }
  for (const field of ['region', 'zone'] as const) {
    const v = spec[field];
    if (v !== undefined && v !== null && (!str(v) || v.trim() === '')) out.push({ path: `spec.${field}`, message: 'must not be empty when set' });
  }

  const recordType = spec['recordType'];
  const knownType = str(recordType) && (RECORD_TYPES as readonly string[]).includes(recordType);
  if (!str(recordType) || recordType === '') out.push({ path: 'spec.recordType', message: 'required' });
  else if (!knownType)
    out.push({
      path: 'spec.recordType',
      message: `unsupported value ${JSON.stringify(recordType)}: supported values: ${RECORD_TYPES.map((t) => `"${t}"`).join(', ')}`,
    });

  const name = spec['name'];
  if (!str(name) || name === '') out.push({ path: 'spec.name', message: 'required' });
  else {
    const problem = checkRecordName(name, str(recordType) ? recordType : '');
    if (problem !== undefined) out.push({ path: 'spec.name', message: problem });
  }

  const values = spec['values'];
  if (!Array.isArray(values) || values.length === 0) out.push({ path: 'spec.values', message: 'required: at least one value' });
  else {
    if (recordType === 'CNAME' && values.length > 1) out.push({ path: 'spec.values', message: 'a CNAME record takes exactly one value' });
    values.forEach((v: unknown, i) => {
      if (!str(v)) out.push({ path: `spec.values[${i}]`, message: 'must be a string' });
      else if (knownType) {
        const problem = checkValue(recordType, v);
        if (problem !== undefined) out.push({ path: `spec.values[${i}]`, message: `${JSON.stringify(v)} ${problem}` });
      }
    });
  }

  const ttl = spec['ttl'];
  if (ttl !== undefined && ttl !== null && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0))
    out.push({ path: 'spec.ttl', message: 'must be a whole number of seconds, 0 or more' });
  if (spec['class'] !== undefined && spec['class'] !== null && !str(spec['class'])) out.push({ path: 'spec.class', message: 'must be a string' });
  return out;
}

const IMMUTABLE = ['type', 'name', 'recordType'] as const;

/** The spec rules, plus the update rules: immutable fields, and no spec change once deletion started. */
export function validateUpdate(oldObj: unknown, newObj: unknown): FieldProblem[] {
  const oldSpec = asRecord(asRecord(oldObj)?.['spec']) ?? {};
  const newSpec = asRecord(asRecord(newObj)?.['spec']);
  const out = validateSpec(newSpec);
  if (newSpec === undefined) return out;
  for (const field of IMMUTABLE) {
    if (oldSpec[field] !== undefined && oldSpec[field] !== newSpec[field]) out.push({ path: `spec.${field}`, message: 'field is immutable' });
  }
  const deleting = asRecord(asRecord(oldObj)?.['metadata'])?.['deletionTimestamp'];
  if (typeof deleting === 'string' && deleting !== '' && JSON.stringify(canonical(oldSpec)) !== JSON.stringify(canonical(newSpec))) {
    out.push({ path: 'spec', message: 'cannot be changed once the DNSRecord is being deleted' });
  }
  return out;
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
