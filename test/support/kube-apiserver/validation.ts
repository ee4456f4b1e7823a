/**
 * The little validation the test API server does: names, namespaces, CRD names. Messages follow
 * kube-apiserver's wording so clients that match on them behave the same.
 */
import { ApiError, isRecord } from './types.ts';
import type { KubeObject } from './types.ts';
import type { ResourceType } from './resources.ts';
import { applySchema, fieldErrorText } from './schema.ts';

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function invalid(t: ResourceType, name: string, causes: string[]): ApiError {
  const kind = t.kind;
  return new ApiError(422, 'Invalid', `${kind} "${name}" is invalid: ${causes.join(', ')}`, { name, group: t.group, kind });
}

/** Throws 422 Invalid when the object's name cannot be stored. */
export function validateForCreate(t: ResourceType, obj: KubeObject): void {
  const name = obj.metadata.name;
  if (typeof name !== 'string' || name === '') {
    throw invalid(t, '', ['metadata.name: Required value: name or generateName is required']);
  }
  if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) {
    throw invalid(t, name, [
      `metadata.name: Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
    ]);
  }
  if (t.plural === 'customresourcedefinitions' && t.group === 'apiextensions.k8s.io') {
    const spec = isRecord(obj.spec) ? obj.spec : {};
    const names = isRecord(spec.names) ? spec.names : {};
    const want = `${String(names.plural)}.${String(spec.group)}`;
    if (name !== want) throw invalid(t, name, [`metadata.name: Invalid value: "${name}": must be spec.names.plural+"."+spec.group`]);
    const versions = Array.isArray(spec.versions) ? spec.versions : [];
    if (typeof names.kind !== 'string' || versions.length === 0) {
      throw invalid(t, name, ['spec.names.kind: Required value, spec.versions: Required value']);
    }
  }
}

/** Labels and annotations must be string maps; a number there is a 400 in kube-apiserver too. */
export function validateMetadataShape(obj: KubeObject): void {
  for (const field of ['labels', 'annotations'] as const) {
    const m = obj.metadata[field];
    if (m === undefined || m === null) continue;
    if (!isRecord(m) || Object.values(m).some((v) => typeof v !== 'string')) {
      throw new ApiError(400, 'BadRequest', `metadata.${field}: must be a map of strings`);
    }
  }
}

/** kube-apiserver's `fieldValidation` query parameter; Warn when absent (its default since 1.27). */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export function parseFieldValidation(v: string | null): FieldValidation {
  if (v === null || v === '') return 'Warn';
  if (v === 'Strict' || v === 'Warn' || v === 'Ignore') return v;
  throw new ApiError(400, 'BadRequest', `fieldValidation parameter unsupported: "${v}" (supported: Ignore, Warn, Strict)`);
}

export interface SchemaCheck {
  /** The version the body was written at: its schema applies. */
  version: string;
  fieldValidation: FieldValidation;
  /** Receives the Warning header texts (unknown fields under Warn). */
  warnings?: string[];
  /** A write to the status subresource: only `status` is pruned and validated. */
  statusOnly?: boolean;
}

/**
 * Prunes, defaults and validates a custom resource (in place) by its version's openAPIV3Schema, as
 * kube-apiserver does: unknown fields are a 400 under Strict (the decoder refuses the body), a
 * warning under Warn; schema violations are 422 Invalid with one cause per field.
 */
export function applyCrdSchema(t: ResourceType, obj: KubeObject, check: SchemaCheck): void {
  const schema = t.schemas?.get(check.version);
  if (schema === undefined) return;
  const { unknownFields, errors } = applySchema(obj, schema, check.statusOnly === true);
  if (unknownFields.length > 0 && check.fieldValidation === 'Strict') {
    const list = unknownFields.map((f) => `unknown field "${f}"`).join(', ');
    throw new ApiError(400, 'BadRequest', `${t.kind} in version "${check.version}" cannot be handled as a ${t.kind}: strict decoding error: ${list}`);
  }
  if (check.fieldValidation === 'Warn') for (const f of unknownFields) check.warnings?.push(`unknown field "${f}"`);
  if (errors.length === 0) return;
  const name = obj.metadata.name;
  const texts = errors.map(fieldErrorText);
  const causes = errors.map((e) => ({ reason: e.reason, message: e.message, field: e.field }));
  const what = t.group === '' ? t.kind : `${t.kind}.${t.group}`;
  const body = texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
  throw new ApiError(422, 'Invalid', `${what} "${name}" is invalid: ${body}`, { name, group: t.group, kind: t.kind, causes });
}
