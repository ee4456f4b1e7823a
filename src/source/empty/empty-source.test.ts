import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EmptySource } from './empty-source.ts';

test('the empty source desires nothing and never signals a change', async () => {
  const source = EmptySource.fromConfig();
  assert.equal(source.name, 'empty');
  assert.deepEqual(await source.endpoints(), []);
  let called = false;
  const off = source.addEventHandler(() => (called = true));
  off();
  assert.equal(called, false);
});
