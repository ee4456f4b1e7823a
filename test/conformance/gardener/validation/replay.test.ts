/**
 * Replays Gardener's DNSRecord validation test cases (dnsrecord.json) through Hostwarden's
 * validateSpec / validateUpdate: the same field errors, of the same Kubernetes error types.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateSpec, validateUpdate } from '../../../../src/dnsrecord/validate.ts';

interface FieldError {
  type: string;
  field: string;
}

interface Case {
  name: string;
  upstream: { file: string; test: string };
  operation: 'create' | 'update';
  spec?: Record<string, unknown>;
  replaceSpec?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  deleting?: boolean;
  expect: FieldError[];
  differs?: string;
  hostwarden?: FieldError[];
}

const doc = JSON.parse(readFileSync(join(import.meta.dirname, 'dnsrecord.json'), 'utf8')) as {
  base: { metadata: Record<string, unknown>; spec: Record<string, unknown> };
  cases: Case[];
};

const sorted = (errs: readonly FieldError[]): string[] => errs.map((e) => `${e.type} ${e.field}`).sort();

describe("Gardener's DNSRecord validation cases", () => {
  for (const c of doc.cases) {
    test(`${c.name} (${c.upstream.test})`, () => {
      const spec = c.replaceSpec ?? { ...doc.base.spec, ...(c.spec ?? {}) };
      const deletion = c.deleting === true ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {};
      const got =
        c.operation === 'create'
          ? validateSpec(spec)
          : validateUpdate({ metadata: { ...doc.base.metadata, ...deletion }, spec: doc.base.spec }, { metadata: { ...doc.base.metadata, ...deletion }, spec });
      const want = c.differs === undefined ? c.expect : (c.hostwarden ?? []);
      assert.deepEqual(sorted(got.map((p) => ({ type: p.type, field: p.path }))), sorted(want));
    });
  }
});
