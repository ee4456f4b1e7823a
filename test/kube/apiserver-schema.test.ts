/**
 * Test API server: custom resources are pruned, defaulted and validated by their version's
 * openAPIV3Schema over HTTP, as kube-apiserver does (fieldValidation, Warning headers, 422 causes).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { installCrd } from '../support/crds/load.ts';
import type { CrdObject } from '../support/crds/load.ts';

function schema(fooType: string): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        required: ['bar'],
        properties: { foo: { type: fooType }, bar: { type: 'string' }, x: { type: 'string', enum: ['a', 'b'] }, mode: { type: 'string', default: 'Same' } },
      },
      status: { type: 'object', properties: { ready: { type: 'boolean' } } },
    },
  };
}

const CRD: CrdObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'things.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'things', singular: 'thing', kind: 'Thing' },
    versions: [
      { name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: schema('integer') } },
      { name: 'v1alpha1', served: true, storage: false, subresources: { status: {} }, schema: { openAPIV3Schema: schema('string') } },
    ],
  },
};

const LOOSE: CrdObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'loose.example.com' },
  spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'loose', kind: 'Loose' }, versions: [{ name: 'v1', served: true, storage: true }] },
};

describe('test API server: CRD schemas', () => {
  let api: TestApiServer;
  before(async () => {
    api = await startTestApiServer();
    await installCrd(api, CRD);
    await installCrd(api, LOOSE);
  });
  after(() => api.stop());

  async function call(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<{ status: number; body: Record<string, unknown>; warnings: string | null }> {
    const res = await fetch(api.url + path, {
      method,
      headers: { authorization: 'Bearer test-token', 'content-type': contentType },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, warnings: res.headers.get('warning') };
  }

  const things = (v = 'v1', q = ''): string => `/apis/example.com/${v}/namespaces/default/things${q}`;
  const thing = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    apiVersion: 'example.com/v1',
    kind: 'Thing',
    metadata: { name, annotations: { keep: 'me' } },
    spec,
    ...extra,
  });

  test('unknown fields: pruned with a Warning by default, 400 under Strict, silent under Ignore', async () => {
    const warn = await call('POST', things(), thing('warn', { bar: 'b', extra: 1 }, { other: 2 }));
    assert.equal(warn.status, 201);
    assert.deepEqual(warn.body.spec, { bar: 'b', mode: 'Same' });
    assert.equal(warn.body.other, undefined);
    assert.deepEqual((warn.body.metadata as { annotations: unknown }).annotations, { keep: 'me' });
    assert.equal(warn.warnings, '299 - "unknown field \\"other\\"", 299 - "unknown field \\"spec.extra\\""');
    const strict = await call('POST', things('v1', '?fieldValidation=Strict'), thing('strict', { bar: 'b', extra: 1 }));
    assert.equal(strict.status, 400);
    assert.equal(strict.body.reason, 'BadRequest');
    assert.equal(strict.body.message, 'Thing in version "v1" cannot be handled as a Thing: strict decoding error: unknown field "spec.extra"');
    const ignore = await call('POST', things('v1', '?fieldValidation=Ignore'), thing('ignore', { bar: 'b', extra: 1 }));
    assert.equal(ignore.status, 201);
    assert.equal(ignore.warnings, null);
  });

  test("schema violations are 422 Invalid with kube-apiserver's causes; each version has its own schema", async () => {
    const bad = await call('POST', things(), thing('bad', { foo: 'string', x: 'z' }));
    assert.equal(bad.status, 422);
    assert.equal(bad.body.reason, 'Invalid');
    assert.equal(
      bad.body.message,
      'Thing.example.com "bad" is invalid: [spec.bar: Required value, spec.foo: Invalid value: "string": spec.foo in body must be of type integer: "string", spec.x: Unsupported value: "z": supported values: "a", "b"]',
    );
    const causes = (bad.body.details as { causes: { field: string; reason: string }[] }).causes;
    assert.deepEqual(
      causes.map((c) => `${c.reason} ${c.field}`),
      ['FieldValueRequired spec.bar', 'FieldValueInvalid spec.foo', 'FieldValueNotSupported spec.x'],
    );
    const alpha = await call('POST', things('v1alpha1'), { ...thing('alpha', { foo: 'string', bar: 'b' }), apiVersion: 'example.com/v1alpha1' });
    assert.equal(alpha.status, 201, JSON.stringify(alpha.body));
  });

  test('updates, merge patches and the status subresource are validated too', async () => {
    await call('POST', things(), thing('upd', { bar: 'b' }));
    const patched = await call('PATCH', things('v1', '/upd'), { spec: { foo: 'no' } }, 'application/merge-patch+json');
    assert.equal(patched.status, 422);
    assert.match(String(patched.body.message), /spec\.foo in body must be of type integer/);
    const status = await call('PATCH', things('v1', '/upd/status'), { status: { ready: 'yes' } }, 'application/merge-patch+json');
    assert.equal(status.status, 422);
    assert.equal(
      status.body.message,
      'Thing.example.com "upd" is invalid: status.ready: Invalid value: "string": status.ready in body must be of type boolean: "string"',
    );
    const ok = await call('PATCH', things('v1', '/upd/status'), { status: { ready: true, why: 'x' } }, 'application/merge-patch+json');
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.status, { ready: true });
    assert.throws(() => api.create(thing('direct', { foo: 'x', bar: 'b' }) as never), /must be of type integer/);
  });

  test('a CRD without a schema accepts anything', async () => {
    const r = await call('POST', '/apis/example.com/v1/namespaces/default/loose', {
      apiVersion: 'example.com/v1',
      kind: 'Loose',
      metadata: { name: 'l' },
      spec: { any: [1, 'x'] },
      top: true,
    });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body.spec, { any: [1, 'x'] });
    assert.equal(r.body.top, true);
  });
});
