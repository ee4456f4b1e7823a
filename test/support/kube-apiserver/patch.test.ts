import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch, jsonPatch, mergePatch, patchTypeOf, strategicMerge } from './patch.ts';
import { ApiError } from './types.ts';

describe('patch', () => {
  test('content types map to patch kinds; unknown ones are 415', () => {
    assert.equal(patchTypeOf('application/merge-patch+json; charset=utf-8'), 'merge');
    assert.equal(patchTypeOf('application/json-patch+json'), 'json');
    assert.equal(patchTypeOf('application/strategic-merge-patch+json'), 'strategic');
    assert.equal(patchTypeOf('application/apply-patch+yaml'), 'apply');
    assert.throws(
      () => patchTypeOf('application/json'),
      (e: unknown) => e instanceof ApiError && e.status === 415,
    );
  });

  test('merge patch follows RFC 7386: null deletes, objects merge, lists replace', () => {
    const target = { a: { b: 1, c: 2 }, l: [1, 2], keep: true };
    assert.deepEqual(mergePatch(target, { a: { b: null, d: 3 }, l: [3] }), { a: { c: 2, d: 3 }, l: [3], keep: true });
    assert.deepEqual(target, { a: { b: 1, c: 2 }, l: [1, 2], keep: true }, 'the target is not changed');
  });

  test('JSON patch: add, remove, replace, move, copy, test, and its errors', () => {
    const doc = { metadata: { labels: { a: '1' } }, list: ['x', 'y'] };
    const out = jsonPatch(doc, [
      { op: 'add', path: '/metadata/labels/b~1c', value: '2' },
      { op: 'replace', path: '/metadata/labels/a', value: '3' },
      { op: 'add', path: '/list/-', value: 'z' },
      { op: 'remove', path: '/list/0' },
      { op: 'copy', from: '/list/0', path: '/first' },
      { op: 'move', from: '/first', path: '/moved' },
      { op: 'test', path: '/moved', value: 'y' },
    ]);
    assert.deepEqual(out, { metadata: { labels: { a: '3', 'b/c': '2' } }, list: ['y', 'z'], moved: 'y' });
    const invalid = (e: unknown): boolean => e instanceof ApiError && e.status === 422;
    assert.throws(() => jsonPatch(doc, [{ op: 'remove', path: '/nope' }]), invalid);
    assert.throws(() => jsonPatch(doc, [{ op: 'replace', path: '/metadata/nope', value: 1 }]), invalid);
    assert.throws(() => jsonPatch(doc, [{ op: 'test', path: '/list/0', value: 'q' }]), invalid);
    assert.throws(
      () => jsonPatch(doc, { op: 'add' }),
      (e: unknown) => e instanceof ApiError && e.status === 400,
    );
  });

  test('strategic merge: finalizers as a set, named lists by key, directives', () => {
    const target = {
      metadata: { finalizers: ['a', 'b'] },
      spec: {
        containers: [
          { name: 'app', image: 'v1' },
          { name: 'side', image: 's1' },
        ],
        args: ['x'],
      },
    };
    const out = strategicMerge(target, {
      metadata: { finalizers: ['b', 'c'], '$deleteFromPrimitiveList/finalizers': ['a'] },
      spec: {
        containers: [
          { name: 'app', image: 'v2' },
          { name: 'side', $patch: 'delete' },
          { name: 'new', image: 'n' },
        ],
        args: ['y'],
      },
    });
    assert.deepEqual(out, {
      metadata: { finalizers: ['b', 'c'] },
      spec: {
        containers: [
          { name: 'app', image: 'v2' },
          { name: 'new', image: 'n' },
        ],
        args: ['y'],
      },
    });
    assert.deepEqual(strategicMerge(target, { metadata: { finalizers: [] } }), { ...target, metadata: { finalizers: [] } });
    assert.deepEqual(strategicMerge({ spec: { a: 1, b: 2 } }, { spec: { $patch: 'replace', c: 3 } }), { spec: { c: 3 } });
  });

  test('apply is a merge in this server', () => {
    assert.deepEqual(applyPatch('apply', { data: { a: '1' } }, { data: { b: '2' } }), { data: { a: '1', b: '2' } });
  });
});
