/**
 * A small checker for the JSON Schema subset that CRD openAPIV3Schemas and the chart's
 * values.schema.json use. Besides errors it reports the fields an API server would prune (unknown
 * to a structural schema), because a pruned field of an external-dns object is silently lost.
 */

export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

export interface SchemaResult {
  errors: string[];
  pruned: string[];
}

export function checkSchema(schema: Schema, value: unknown): SchemaResult {
  const result: SchemaResult = { errors: [], pruned: [] };
  walk(schema, value, '', result);
  return result;
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function walk(schema: Schema, value: unknown, at: string, out: SchemaResult): void {
  const where = at === '' ? '(root)' : at;
  const actual = typeOf(value);
  if (schema.type !== undefined) {
    const allowed = Array.isArray(schema.type) ? schema.type : [schema.type];
    const ok = allowed.includes(actual) || (actual === 'integer' && allowed.includes('number'));
    if (!ok) {
      out.errors.push(`${where}: expected ${allowed.join(' or ')}, got ${actual}`);
      return;
    }
  }
  if (schema.enum !== undefined && !schema.enum.includes(value))
    out.errors.push(`${where}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) out.errors.push(`${where}: ${value} < minimum ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) out.errors.push(`${where}: ${value} > maximum ${schema.maximum}`);
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) out.errors.push(`${where}: shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength) out.errors.push(`${where}: longer than ${schema.maxLength}`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value))
      out.errors.push(`${where}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) out.errors.push(`${where}: fewer than ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) out.errors.push(`${where}: more than ${schema.maxItems} items`);
    if (schema.items !== undefined) {
      const items = schema.items;
      value.forEach((item, i) => walk(items, item, `${at}[${i}]`, out));
    }
  }
  if (actual === 'object') {
    const obj = value as Record<string, unknown>;
    for (const key of schema.required ?? []) {
      if (!(key in obj)) out.errors.push(`${where}: missing required field ${key}`);
    }
    for (const [key, v] of Object.entries(obj)) {
      const path = at === '' ? key : `${at}.${key}`;
      const prop = schema.properties?.[key];
      if (prop !== undefined) walk(prop, v, path, out);
      else if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, v, path, out);
      else if (schema.additionalProperties === false) out.errors.push(`${where}: unknown field ${key}`);
      else if (schema.properties !== undefined && schema['x-kubernetes-preserve-unknown-fields'] !== true) out.pruned.push(path);
    }
  }
}
