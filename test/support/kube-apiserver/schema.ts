/**
 * Structural openAPIV3Schema handling for custom resources, in the order kube-apiserver applies it
 * to a decoded body: unknown fields pruned (and collected, for `fieldValidation`), nulls of
 * non-nullable fields without a default dropped, defaults filled in, then the value validated.
 * Messages follow kube-apiserver's field errors (`spec.foo: Invalid value: "string": spec.foo in
 * body must be of type integer: "string"`) because clients and people match on them.
 * Not implemented: CEL rules (x-kubernetes-validations), formats beyond the few below, ratcheting.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { isDeepStrictEqual } from 'node:util';

export type JsonSchema = Record<string, unknown>;

/** A field error as kube-apiserver reports it in the message and in `details.causes`. */
export interface FieldError {
  readonly reason: 'FieldValueInvalid' | 'FieldValueRequired' | 'FieldValueNotSupported' | 'FieldValueTooLong' | 'FieldValueTooMany' | 'FieldValueDuplicate';
  readonly field: string;
  /** The text after `<field>: `. */
  readonly message: string;
}

export function fieldErrorText(e: FieldError): string {
  return `${e.field}: ${e.message}`;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function props(s: JsonSchema): Record<string, JsonSchema> {
  return isObj(s.properties) ? (s.properties as Record<string, JsonSchema>) : {};
}

function child(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

const ROOT_KEPT = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Removes fields the schema does not declare (in place), pushing their paths to `unknown`. At the
 * root and in embedded resources apiVersion, kind and metadata stay as they are.
 */
export function prune(value: unknown, s: JsonSchema, path: string, unknown: string[], root = false): void {
  if (Array.isArray(value)) {
    const items = isObj(s.items) ? (s.items as JsonSchema) : undefined;
    if (items !== undefined) value.forEach((v, i) => prune(v, items, `${path}[${i}]`, unknown));
    return;
  }
  if (!isObj(value) || s['x-kubernetes-int-or-string'] === true) return;
  const p = props(s);
  const additional = s.additionalProperties;
  const keepMeta = root || s['x-kubernetes-embedded-resource'] === true;
  for (const [k, v] of Object.entries(value)) {
    if (keepMeta && ROOT_KEPT.has(k)) continue;
    const ps = p[k];
    if (ps !== undefined) prune(v, ps, child(path, k), unknown);
    else if (isObj(additional)) prune(v, additional, `${path}[${k}]`, unknown);
    else if (additional === true || s['x-kubernetes-preserve-unknown-fields'] === true) continue;
    else {
      unknown.push(child(path, k));
      delete value[k];
    }
  }
}

/** Drops null values of fields that are not nullable and have no default, then fills defaults (in place). */
export function defaultValues(value: unknown, s: JsonSchema, root = false): void {
  if (Array.isArray(value)) {
    const items = isObj(s.items) ? (s.items as JsonSchema) : undefined;
    if (items !== undefined) for (const v of value) defaultValues(v, items);
    return;
  }
  if (!isObj(value)) return;
  for (const [k, ps] of Object.entries(props(s))) {
    if (root && ROOT_KEPT.has(k)) continue;
    if (value[k] === null && ps.nullable !== true && ps.default === undefined) delete value[k];
    if ((value[k] === undefined || value[k] === null) && ps.default !== undefined && !(value[k] === null && ps.nullable === true)) {
      value[k] = structuredClone(ps.default);
    }
    if (value[k] !== undefined) defaultValues(value[k], ps);
  }
  if (isObj(s.additionalProperties)) {
    const as = s.additionalProperties as JsonSchema;
    for (const [k, v] of Object.entries(value)) if (!(k in props(s))) defaultValues(v, as);
  }
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(type: string, v: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'object':
      return isObj(v);
    case 'array':
      return Array.isArray(v);
    default:
      return true;
  }
}

/** How kube-apiserver prints a value in "Invalid value: …": strings quoted, numbers bare. */
function shown(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(typeName(v));
}

function invalid(field: string, value: unknown, detail: string): FieldError {
  return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${shown(value)}: ${field} in body ${detail}` };
}

/** Validates `value` against `s`; errors in document order. `path` is the value's field path. */
export function validateValue(value: unknown, s: JsonSchema, path: string, root = false): FieldError[] {
  const errs: FieldError[] = [];
  if (value === null && s.nullable === true) return errs;
  const type = typeof s.type === 'string' ? s.type : undefined;
  if (s['x-kubernetes-int-or-string'] === true) {
    if (!(typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value)))) {
      errs.push(invalid(path, typeName(value), `must be of type integer-or-string: ${JSON.stringify(typeName(value))}`));
      return errs;
    }
  } else if (type !== undefined && !typeMatches(type, value)) {
    errs.push(invalid(path, typeName(value), `must be of type ${type}: ${JSON.stringify(typeName(value))}`));
    return errs;
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => isDeepStrictEqual(e, value))) {
    const supported = s.enum.map((e) => (typeof e === 'string' ? JSON.stringify(e) : JSON.stringify(e))).join(', ');
    errs.push({ reason: 'FieldValueNotSupported', field: path, message: `Unsupported value: ${shown(value)}: supported values: ${supported}` });
  }
  if (typeof value === 'string') errs.push(...stringChecks(value, s, path));
  if (typeof value === 'number') errs.push(...numberChecks(value, s, path));
  if (Array.isArray(value)) errs.push(...arrayChecks(value, s, path));
  if (isObj(value)) errs.push(...objectChecks(value, s, path, root));
  errs.push(...compositeChecks(value, s, path));
  return errs;
}

function stringChecks(v: string, s: JsonSchema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const len = [...v].length;
  if (typeof s.maxLength === 'number' && len > s.maxLength) {
    errs.push({ reason: 'FieldValueTooLong', field: path, message: `Too long: may not be longer than ${s.maxLength}` });
  }
  if (typeof s.minLength === 'number' && len < s.minLength) errs.push(invalid(path, v, `should be at least ${s.minLength} chars long`));
  if (typeof s.pattern === 'string' && !goRegExp(s.pattern).test(v)) errs.push(invalid(path, v, `should match '${s.pattern}'`));
  const format = typeof s.format === 'string' ? FORMATS[s.format] : undefined;
  if (format !== undefined && !format(v)) errs.push(invalid(path, v, `must be of type ${String(s.format)}: ${JSON.stringify(v)}`));
  return errs;
}

/** The string formats kube-apiserver checks that are cheap to check here; others (int32, …) pass. */
const FORMATS: Readonly<Record<string, (v: string) => boolean>> = {
  'date-time': (v) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v)),
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v),
  ipv4: (v) => isIPv4(v),
  ipv6: (v) => isIPv6(v),
  uuid: (v) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(v),
  byte: (v) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v),
};

/** Schemas carry Go (RE2) patterns; the unicode flag matches RE2 best, but refuses some escapes RE2 allows. */
function goRegExp(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return new RegExp(pattern);
  }
}

function numberChecks(v: number, s: JsonSchema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof s.minimum === 'number') {
    if (s.exclusiveMinimum === true ? v <= s.minimum : v < s.minimum) {
      errs.push(invalid(path, v, `should be greater than ${s.exclusiveMinimum === true ? '' : 'or equal to '}${s.minimum}`));
    }
  }
  if (typeof s.maximum === 'number') {
    if (s.exclusiveMaximum === true ? v >= s.maximum : v > s.maximum) {
      errs.push(invalid(path, v, `should be less than ${s.exclusiveMaximum === true ? '' : 'or equal to '}${s.maximum}`));
    }
  }
  if (typeof s.multipleOf === 'number' && s.multipleOf > 0 && v % s.multipleOf !== 0) errs.push(invalid(path, v, `should be a multiple of ${s.multipleOf}`));
  return errs;
}

function arrayChecks(v: unknown[], s: JsonSchema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof s.maxItems === 'number' && v.length > s.maxItems) {
    errs.push({ reason: 'FieldValueTooMany', field: path, message: `Too many: ${v.length}: must have at most ${s.maxItems} items` });
  }
  if (typeof s.minItems === 'number' && v.length < s.minItems) errs.push(invalid(path, v.length, `should have at least ${s.minItems} items`));
  const items = isObj(s.items) ? (s.items as JsonSchema) : undefined;
  if (items !== undefined) v.forEach((x, i) => errs.push(...validateValue(x, items, `${path}[${i}]`)));
  errs.push(...listTypeChecks(v, s, path));
  return errs;
}

/** x-kubernetes-list-type set/map (and uniqueItems): duplicates are refused. */
function listTypeChecks(v: unknown[], s: JsonSchema, path: string): FieldError[] {
  const listType = s['x-kubernetes-list-type'];
  const keys = Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as string[]) : [];
  const identity = (x: unknown): unknown => (listType === 'map' && isObj(x) ? keys.map((k) => x[k]) : x);
  if (listType !== 'set' && listType !== 'map' && s.uniqueItems !== true) return [];
  const errs: FieldError[] = [];
  const seen: unknown[] = [];
  v.forEach((x, i) => {
    const id = identity(x);
    if (seen.some((y) => isDeepStrictEqual(y, id))) {
      const shownId = listType === 'map' ? JSON.stringify(Object.fromEntries(keys.map((k) => [k, isObj(x) ? x[k] : undefined]))) : shown(x);
      errs.push({ reason: 'FieldValueDuplicate', field: `${path}[${i}]`, message: `Duplicate value: ${shownId}` });
    }
    seen.push(id);
  });
  return errs;
}

function objectChecks(v: Record<string, unknown>, s: JsonSchema, path: string, root: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const n = Object.keys(v).length;
  if (typeof s.maxProperties === 'number' && n > s.maxProperties) {
    errs.push({ reason: 'FieldValueTooMany', field: path, message: `Too many: ${n}: must have at most ${s.maxProperties} items` });
  }
  if (typeof s.minProperties === 'number' && n < s.minProperties) errs.push(invalid(path, n, `should have at least ${s.minProperties} properties`));
  for (const r of Array.isArray(s.required) ? (s.required as string[]) : []) {
    if (v[r] === undefined) errs.push({ reason: 'FieldValueRequired', field: child(path, r), message: 'Required value' });
  }
  const p = props(s);
  for (const [k, x] of Object.entries(v)) {
    if ((root || s['x-kubernetes-embedded-resource'] === true) && ROOT_KEPT.has(k)) continue;
    const ps = p[k];
    if (ps !== undefined) errs.push(...validateValue(x, ps, child(path, k)));
    else if (isObj(s.additionalProperties)) errs.push(...validateValue(x, s.additionalProperties as JsonSchema, `${path}[${k}]`));
  }
  return errs;
}

/** allOf/anyOf/oneOf/not: value validations only (structural schemas prune by properties alone). */
function compositeChecks(v: unknown, s: JsonSchema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = (k: string): JsonSchema[] => (Array.isArray(s[k]) ? (s[k] as JsonSchema[]) : []);
  for (const sub of list('allOf')) errs.push(...validateValue(v, sub, path));
  const anyOf = list('anyOf');
  if (anyOf.length > 0 && !anyOf.some((sub) => validateValue(v, sub, path).length === 0)) {
    errs.push(invalid(path, v, 'must validate at least one schema (anyOf)'));
  }
  const oneOf = list('oneOf');
  if (oneOf.length > 0 && oneOf.filter((sub) => validateValue(v, sub, path).length === 0).length !== 1) {
    errs.push(invalid(path, v, 'must validate one and only one schema (oneOf)'));
  }
  if (isObj(s.not) && validateValue(v, s.not as JsonSchema, path).length === 0) errs.push(invalid(path, v, "shouldn't validate the schema (not)"));
  return errs;
}

export interface SchemaOutcome {
  /** Paths of the fields pruned because the schema does not declare them. */
  unknownFields: string[];
  errors: FieldError[];
}

/**
 * Prunes, defaults and validates a whole custom resource (in place). With `statusOnly`, as for a
 * write to the status subresource, only `status` is pruned, defaulted and validated.
 */
export function applySchema(obj: Record<string, unknown>, s: JsonSchema, statusOnly = false): SchemaOutcome {
  const unknownFields: string[] = [];
  if (statusOnly) {
    if (obj.status === undefined) return { unknownFields, errors: [] };
    // Pruned as part of the root, so a schema without `status` drops it (unless the root preserves unknown fields).
    const ss = props(s).status;
    const wrapper: Record<string, unknown> = { status: obj.status };
    prune(wrapper, { ...s, properties: ss === undefined ? {} : { status: ss } }, '', unknownFields, true);
    if (wrapper.status === undefined) delete obj.status;
    if (ss === undefined || obj.status === undefined) return { unknownFields, errors: [] };
    defaultValues(wrapper, { properties: { status: ss } });
    return { unknownFields, errors: validateValue(obj.status, ss, 'status') };
  }
  prune(obj, s, '', unknownFields, true);
  // kube-apiserver reports them sorted, whatever the body's key order.
  unknownFields.sort();
  defaultValues(obj, s, true);
  return { unknownFields, errors: validateValue(obj, s, '', true) };
}
