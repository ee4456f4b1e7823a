import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { extensionClassesOf, servedTypes } from './flags.ts';

describe('servedTypes (--dnsrecord-types)', () => {
  test('TYPE serves itself; NAME=TYPE serves spec.type NAME with TYPE', () => {
    assert.deepEqual(servedTypes(['rfc2136', 'hostwarden-aws-route53=aws-route53']), [
      { served: 'rfc2136', backend: 'rfc2136' },
      { served: 'hostwarden-aws-route53', backend: 'aws-route53' },
    ]);
  });

  test('an unknown type, a bad name or a name given twice is an error naming the flag', () => {
    assert.throws(() => servedTypes(['route53']), /--dnsrecord-types: unknown type "route53"/);
    assert.throws(() => servedTypes(['x=route53']), /unknown type "route53"/);
    assert.throws(() => servedTypes(['Bad_Name=rfc2136']), /--dnsrecord-types: "Bad_Name" is not a type name/);
    assert.throws(() => servedTypes(['=rfc2136']), /"" is not a type name/);
    assert.throws(() => servedTypes(['rfc2136', 'rfc2136=powerdns']), /"rfc2136" is named twice/);
  });
});

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
