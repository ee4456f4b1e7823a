import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applySchema, fieldErrorText, validateValue } from './schema.ts';
import type { JsonSchema } from './schema.ts';

const SCHEMA: JsonSchema = {
  type: 'object',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      required: ['bar'],
      properties: {
        foo: { type: 'integer', minimum: 1, maximum: 65535 },
        bar: { type: 'string', minLength: 1, maxLength: 5, pattern: '^[a-z]+$' },
        x: { type: 'string', enum: ['a', 'b'] },
        ratio: { type: 'number' },
        on: { type: 'boolean' },
        port: { 'x-kubernetes-int-or-string': true },
        mode: { type: 'string', default: 'Same' },
        maybe: { type: 'string', nullable: true },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        names: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2, 'x-kubernetes-list-type': 'set' },
        listeners: {
          type: 'array',
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
        },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};

function run(obj: Record<string, unknown>, statusOnly = false): { obj: Record<string, unknown>; unknown: string[]; errors: string[] } {
  const copy = structuredClone(obj);
  const out = applySchema(copy, SCHEMA, statusOnly);
  return { obj: copy, unknown: out.unknownFields, errors: out.errors.map(fieldErrorText) };
}

const base = { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't', labels: { a: 'b' }, anything: 1 } };

describe('structural schema', () => {
  test('a valid object keeps its fields; apiVersion, kind and metadata are untouched; defaults are filled in', () => {
    const r = run({ ...base, spec: { bar: 'abc', foo: 80, port: 'http', labels: { k: 'v' }, free: { any: { deep: [1] } }, names: ['a'] } });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.unknown, []);
    assert.deepEqual(r.obj.metadata, base.metadata);
    assert.deepEqual(r.obj.spec, { bar: 'abc', foo: 80, port: 'http', labels: { k: 'v' }, free: { any: { deep: [1] } }, names: ['a'], mode: 'Same' });
  });

  test('unknown fields are pruned at every level and reported by path', () => {
    const r = run({ ...base, top: 1, spec: { bar: 'a', extra: true, listeners: [{ name: 'l', bogus: 1 }] }, status: { ready: true, why: 'x' } });
    assert.deepEqual(r.unknown, ['spec.extra', 'spec.listeners[0].bogus', 'status.why', 'top']);
    assert.deepEqual(r.obj.spec, { bar: 'a', listeners: [{ name: 'l' }], mode: 'Same' });
    assert.equal('top' in r.obj, false);
  });

  test("kube-apiserver's wording for type, required, enum, bounds, length, pattern and items", () => {
    const r = run({
      ...base,
      spec: { foo: 'string', x: 'z', ratio: 'no', on: 'yes', port: 1.5, names: [], listeners: [{ port: 1 }] },
    });
    assert.deepEqual(r.errors, [
      'spec.bar: Required value',
      'spec.foo: Invalid value: "string": spec.foo in body must be of type integer: "string"',
      'spec.x: Unsupported value: "z": supported values: "a", "b"',
      'spec.ratio: Invalid value: "string": spec.ratio in body must be of type number: "string"',
      'spec.on: Invalid value: "string": spec.on in body must be of type boolean: "string"',
      'spec.port: Invalid value: "number": spec.port in body must be of type integer-or-string: "number"',
      'spec.names: Invalid value: 0: spec.names in body should have at least 1 items',
      'spec.listeners[0].name: Required value',
    ]);
    const bounds = run({ ...base, spec: { bar: 'ABCDEFG', foo: 0, names: ['a', 'b', 'c'] } });
    assert.deepEqual(bounds.errors, [
      'spec.bar: Too long: may not be longer than 5',
      'spec.bar: Invalid value: "ABCDEFG": spec.bar in body should match \'^[a-z]+$\'',
      'spec.foo: Invalid value: 0: spec.foo in body should be greater than or equal to 1',
      'spec.names: Too many: 3: must have at most 2 items',
    ]);
    assert.deepEqual(run({ ...base, spec: { bar: '', foo: 70000 } }).errors, [
      'spec.bar: Invalid value: "": spec.bar in body should be at least 1 chars long',
      'spec.bar: Invalid value: "": spec.bar in body should match \'^[a-z]+$\'',
      'spec.foo: Invalid value: 70000: spec.foo in body should be less than or equal to 65535',
    ]);
    assert.deepEqual(run({ ...base }).errors, ['spec: Required value']);
  });

  test('additionalProperties, list-type set and map duplicates, object where a string belongs', () => {
    const r = run({ ...base, spec: { bar: 'a', labels: { k: 1 }, names: ['a', 'a'], listeners: [{ name: 'l' }, { name: 'l' }], x: {} } });
    assert.deepEqual(r.errors, [
      'spec.labels[k]: Invalid value: "integer": spec.labels[k] in body must be of type string: "integer"',
      'spec.names[1]: Duplicate value: "a"',
      'spec.listeners[1]: Duplicate value: {"name":"l"}',
      'spec.x: Invalid value: "object": spec.x in body must be of type string: "object"',
    ]);
  });

  test('null: dropped when not nullable and without a default, kept when nullable, defaulted when it has a default', () => {
    const r = run({ ...base, spec: { bar: 'a', foo: null, maybe: null, mode: null } });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.obj.spec, { bar: 'a', maybe: null, mode: 'Same' });
  });

  test('status writes prune and validate only status', () => {
    const r = run({ ...base, spec: { extra: 1 }, status: { ready: 'yes', why: 1 } }, true);
    assert.deepEqual(r.unknown, ['status.why']);
    assert.deepEqual(r.errors, ['status.ready: Invalid value: "string": status.ready in body must be of type boolean: "string"']);
    assert.deepEqual(r.obj.spec, { extra: 1 });
  });

  test('a status write against a schema without status drops it', () => {
    const obj: Record<string, unknown> = { ...base, spec: {}, status: { a: 1 } };
    assert.deepEqual(applySchema(obj, { type: 'object', properties: { spec: { type: 'object' } } }, true), { unknownFields: ['status'], errors: [] });
    assert.equal('status' in obj, false);
  });

  test('a schema that preserves unknown fields at the root accepts anything', () => {
    const out = applySchema({ ...base, spec: { a: 1 }, b: [2] }, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    assert.deepEqual(out, { unknownFields: [], errors: [] });
  });

  test('formats: date-time, ipv4; unknown formats pass', () => {
    const s: JsonSchema = {
      type: 'object',
      properties: { at: { type: 'string', format: 'date-time' }, ip: { type: 'string', format: 'ipv4' }, n: { type: 'integer', format: 'int32' } },
    };
    assert.deepEqual(validateValue({ at: '2026-01-01T00:00:00Z', ip: '192.0.2.1', n: 3 }, s, 'spec'), []);
    assert.deepEqual(validateValue({ at: 'yesterday', ip: '300.1.1.1' }, s, 'spec').map(fieldErrorText), [
      'spec.at: Invalid value: "yesterday": spec.at in body must be of type date-time: "yesterday"',
      'spec.ip: Invalid value: "300.1.1.1": spec.ip in body must be of type ipv4: "300.1.1.1"',
    ]);
  });

  test('anyOf / oneOf / not', () => {
    const s: JsonSchema = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, oneOf: [{ required: ['a'] }, { required: ['b'] }] };
    assert.deepEqual(validateValue({ a: 'x' }, s, 'spec').map(fieldErrorText), []);
    assert.deepEqual(validateValue({ a: 'x', b: 'y' }, s, 'spec').map(fieldErrorText), [
      'spec: Invalid value: "object": spec in body must validate one and only one schema (oneOf)',
    ]);
  });
});
