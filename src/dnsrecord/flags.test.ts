import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extensionClassesOf } from './flags.ts';

const flags = (classes: string[], alias = ''): Parameters<typeof extensionClassesOf>[0] => ({
  list: () => [...classes],
  str: () => alias,
});

test('--extension-classes, with --dnsrecord-class as an alias that adds one; none means shoot', () => {
  assert.deepEqual(extensionClassesOf(flags([])), ['shoot']);
  assert.deepEqual(extensionClassesOf(flags(['seed', 'shoot'])), ['seed', 'shoot']);
  assert.deepEqual(extensionClassesOf(flags([], 'garden')), ['garden']);
  assert.deepEqual(extensionClassesOf(flags(['shoot'], 'shoot')), ['shoot']);
});
