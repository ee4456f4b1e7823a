import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { validateSpec, validateUpdate } from './validate.ts';

const base = { type: 'aws-route53', secretRef: { name: 's', namespace: 'ns' }, name: 'api.example.org', recordType: 'A', values: ['192.0.2.1'], ttl: 120 };
const paths = (spec: unknown): string[] => validateSpec(spec).map((p) => p.path);

describe('validateSpec', () => {
  const cases: { title: string; spec: unknown; want: string[] }[] = [
    { title: 'a valid A record', spec: base, want: [] },
    { title: 'a wildcard name', spec: { ...base, name: '*.ingress.example.org' }, want: [] },
    { title: 'TXT with a leading _ label', spec: { ...base, name: '_acme-challenge.example.org', recordType: 'TXT', values: ['token'] }, want: [] },
    { title: '_ label on an A record', spec: { ...base, name: '_x.example.org' }, want: ['spec.name'] },
    { title: 'wildcard not first', spec: { ...base, name: 'a.*.example.org' }, want: ['spec.name'] },
    { title: 'single label', spec: { ...base, name: 'localhost' }, want: ['spec.name'] },
    { title: 'bad IPv4 in the second value', spec: { ...base, values: ['192.0.2.1', '300.1.1.1'] }, want: ['spec.values[1]'] },
    // Gardener takes any IP address (net.ParseIP) for A and AAAA alike.
    { title: 'IPv4 in AAAA, IPv6 in A', spec: { ...base, recordType: 'AAAA', values: ['192.0.2.1'] }, want: [] },
    { title: 'an IPv6 zone index is no IP for Go', spec: { ...base, values: ['fe80::1%eth0'] }, want: ['spec.values[0]'] },
    { title: 'IPv4 with leading zeros', spec: { ...base, values: ['192.0.2.01'] }, want: ['spec.values[0]'] },
    { title: 'upper case name (lowercase RFC 1123)', spec: { ...base, name: 'API.example.org' }, want: ['spec.name'] },
    { title: 'TXT wildcard', spec: { ...base, recordType: 'TXT', name: '*.example.org', values: ['x'] }, want: ['spec.name'] },
    { title: 'TXT with two _ labels', spec: { ...base, recordType: 'TXT', name: '_a._b.example.org', values: ['x'] }, want: ['spec.name'] },
    { title: 'empty TXT value', spec: { ...base, recordType: 'TXT', values: [''] }, want: [] },
    { title: 'ttl at the int32 bound', spec: { ...base, ttl: 2147483647 }, want: [] },
    { title: 'ttl over the int32 bound', spec: { ...base, ttl: 2147483648 }, want: ['spec.ttl'] },
    { title: 'two CNAME values', spec: { ...base, recordType: 'CNAME', values: ['a.example.org', 'b.example.org'] }, want: ['spec.values'] },
    { title: 'CNAME to a bad hostname', spec: { ...base, recordType: 'CNAME', values: ['not a host'] }, want: ['spec.values[0]'] },
    { title: 'no values', spec: { ...base, values: [] }, want: ['spec.values'] },
    { title: 'negative ttl', spec: { ...base, ttl: -1 }, want: ['spec.ttl'] },
    { title: 'unknown record type', spec: { ...base, recordType: 'MX' }, want: ['spec.recordType'] },
    { title: 'empty region and zone (a blank is not empty)', spec: { ...base, region: '', zone: ' ' }, want: ['spec.region'] },
    { title: 'no secretRef name', spec: { ...base, secretRef: {} }, want: ['spec.secretRef.name'] },
    { title: 'no type', spec: { ...base, type: '' }, want: ['spec.type'] },
    { title: 'not an object', spec: 'x', want: ['spec'] },
  ];
  for (const c of cases) test(c.title, () => assert.deepEqual(paths(c.spec), c.want));
});

describe('validateUpdate', () => {
  const obj = (spec: object, deletionTimestamp?: string): unknown => ({
    metadata: { name: 'r', ...(deletionTimestamp === undefined ? {} : { deletionTimestamp }) },
    spec,
  });
  test('type, name and recordType are immutable', () => {
    const got = validateUpdate(obj(base), obj({ ...base, type: 'rfc2136', name: 'other.example.org', recordType: 'AAAA', values: ['2001:db8::1'] }));
    assert.deepEqual(
      got.map((p) => `${p.path}: ${p.message}`),
      ['spec.type: field is immutable', 'spec.name: field is immutable', 'spec.recordType: field is immutable'],
    );
  });
  test('values may change', () => assert.deepEqual(validateUpdate(obj(base), obj({ ...base, values: ['192.0.2.2'] })), []));
  test('no spec change once deletion started; metadata-only updates pass', () => {
    const when = '2026-01-01T00:00:00Z';
    assert.deepEqual(
      validateUpdate(obj(base, when), obj({ ...base, values: ['192.0.2.2'] }, when)).map((p) => p.path),
      ['spec'],
    );
    assert.deepEqual(validateUpdate(obj(base, when), obj({ ...base }, when)), []);
  });
});
