import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { classOf, defaultCreate, defaultUpdate, generationChangedUpdate, hasClass } from './predicates.ts';
import type { DNSRecord, DNSRecordStatus } from './types.ts';

function rec(opts: { cls?: string; op?: string; deleting?: boolean; generation?: number; status?: DNSRecordStatus } = {}): DNSRecord {
  return {
    metadata: {
      name: 'r',
      generation: opts.generation ?? 1,
      ...(opts.op === undefined ? {} : { annotations: { 'gardener.cloud/operation': opts.op } }),
      ...(opts.deleting === true ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: {
      type: 'x',
      secretRef: { name: 's' },
      name: 'a.example.org',
      recordType: 'A',
      values: ['192.0.2.1'],
      ...(opts.cls === undefined ? {} : { class: opts.cls }),
    },
    ...(opts.status === undefined ? {} : { status: opts.status }),
  };
}
const op = (state: 'Succeeded' | 'Error' | 'Processing'): DNSRecordStatus => ({
  lastOperation: { type: 'Reconcile', state, description: '', lastUpdateTime: '2026-01-01T00:00:00Z', progress: 0 },
});

describe('HasClass', () => {
  test('unset and empty class are shoot', () => {
    assert.equal(classOf(rec()), 'shoot');
    assert.equal(classOf(rec({ cls: '' })), 'shoot');
  });
  test('no classes, or one empty class, serve shoot only', () => {
    for (const classes of [[], ['']]) {
      const serves = hasClass(classes);
      assert.deepEqual([rec(), rec({ cls: 'shoot' }), rec({ cls: 'seed' })].map(serves), [true, true, false]);
    }
  });
});

describe("the library's default controller predicate", () => {
  test('create: annotation, deletion, or a last operation that did not succeed', () => {
    assert.equal(defaultCreate(rec({ status: op('Succeeded') })), false);
    assert.equal(defaultCreate(rec()), true, 'no last operation yet');
    assert.equal(defaultCreate(rec({ status: op('Error') })), true);
    assert.equal(defaultCreate(rec({ status: op('Processing') })), true);
    assert.equal(defaultCreate(rec({ status: op('Succeeded'), deleting: true })), true);
    for (const o of ['reconcile', 'restore', 'migrate']) assert.equal(defaultCreate(rec({ op: o, status: op('Succeeded') })), true);
    assert.equal(defaultCreate(rec({ op: 'wait-for-state', status: op('Succeeded') })), false);
  });
  test('update: annotation, or deletion with an unchanged status; never a generation change alone', () => {
    const old = rec({ status: op('Succeeded') });
    assert.equal(defaultUpdate(old, rec({ generation: 2, status: op('Succeeded') })), false);
    assert.equal(defaultUpdate(old, rec({ status: op('Error') })), false);
    assert.equal(defaultUpdate(old, rec({ op: 'reconcile', status: op('Succeeded') })), true);
    assert.equal(defaultUpdate(old, rec({ deleting: true, status: op('Succeeded') })), true);
    assert.equal(defaultUpdate(rec({ deleting: true, status: op('Succeeded') }), rec({ deleting: true, status: op('Processing') })), false);
  });
  test('GenerationChangedPredicate: only a generation change', () => {
    assert.equal(generationChangedUpdate(rec(), rec({ generation: 2 })), true);
    assert.equal(generationChangedUpdate(rec(), rec({ op: 'reconcile' })), false);
  });
});
