import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newEndpoint } from '../endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../endpoint/endpoint.ts';
import { cnameConflictLoser, compareCandidates, compareTargets, resolveCreate, resolveUpdate } from './conflict.ts';

function cand(targets: string[], resource?: string, extra: { recordTTL?: number; recordType?: RecordType } = {}): Endpoint {
  return newEndpoint({
    dnsName: 'a.example.org',
    recordType: extra.recordType ?? 'A',
    targets,
    recordTTL: extra.recordTTL ?? 0,
    labels: resource === undefined ? {} : { resource },
  });
}

describe('compareTargets', () => {
  test('fewer targets first', () => {
    assert.ok(compareTargets('A', ['192.0.2.9'], ['192.0.2.1', '192.0.2.2']) < 0);
  });

  test('IPv6 addresses compare numerically whatever their spelling', () => {
    assert.ok(compareTargets('AAAA', ['2001:db8::9'], ['2001:db8::a']) < 0);
    assert.ok(compareTargets('AAAA', ['2001:db8:0:0:0:0:0:ffff'], ['2001:db8::1:0']) < 0);
    assert.equal(compareTargets('AAAA', ['2001:DB8::1'], ['2001:db8:0:0::1']), 0);
    assert.ok(compareTargets('AAAA', ['::ffff:192.0.2.1'], ['::ffff:192.0.2.2']) < 0);
    assert.ok(compareTargets('AAAA', ['::1'], ['fe80::1']) < 0);
  });

  test('multi-target sets compare element by element after sorting', () => {
    assert.ok(compareTargets('A', ['192.0.2.3', '192.0.2.1'], ['192.0.2.2', '192.0.2.1']) > 0);
  });
});

describe('compareCandidates and resolvers', () => {
  test('ties on targets fall back to resource label, then TTL', () => {
    assert.ok(compareCandidates(cand(['192.0.2.1'], 'r/a'), cand(['192.0.2.1'], 'r/b')) < 0);
    assert.ok(compareCandidates(cand(['192.0.2.1'], 'r/a', { recordTTL: 60 }), cand(['192.0.2.1'], 'r/a', { recordTTL: 300 })) < 0);
    assert.ok(compareCandidates(cand(['192.0.2.1']), cand(['192.0.2.1'], 'r/a')) < 0, 'no resource label sorts first');
  });

  test('is a total order even for targets equal only after canonicalisation', () => {
    const a = cand(['LB.example.com'], 'r', { recordType: 'CNAME' });
    const b = cand(['lb.example.com'], 'r', { recordType: 'CNAME' });
    assert.notEqual(compareCandidates(a, b), 0);
    assert.equal(Math.sign(compareCandidates(a, b)), -Math.sign(compareCandidates(b, a)));
  });

  test('resolveCreate picks the minimum regardless of order', () => {
    const xs = [cand(['192.0.2.3'], 'r/3'), cand(['192.0.2.1'], 'r/1'), cand(['192.0.2.2'], 'r/2')];
    assert.equal(resolveCreate(xs).labels['resource'], 'r/1');
    assert.equal(resolveCreate([...xs].reverse()).labels['resource'], 'r/1');
    assert.throws(() => resolveCreate([]), RangeError);
  });

  test('resolveUpdate prefers the current holder, then the create rule', () => {
    const current = cand(['192.0.2.5'], 'r/holder');
    const xs = [cand(['192.0.2.1'], 'r/other'), cand(['192.0.2.9'], 'r/holder')];
    assert.equal(resolveUpdate(current, xs).labels['resource'], 'r/holder');
    assert.equal(resolveUpdate(cand(['192.0.2.5'], 'r/gone'), xs).labels['resource'], 'r/other');
  });
});

describe('cnameConflictLoser', () => {
  test('no conflict unless both CNAME and other candidates exist', () => {
    assert.equal(cnameConflictLoser(true, false, false, true), undefined);
    assert.equal(cnameConflictLoser(false, true, true, false), undefined);
  });

  test('an existing lone CNAME wins; otherwise the other types win', () => {
    assert.equal(cnameConflictLoser(true, true, true, false), 'other');
    assert.equal(cnameConflictLoser(true, true, false, false), 'cname');
    assert.equal(cnameConflictLoser(true, true, false, true), 'cname');
    assert.equal(cnameConflictLoser(true, true, true, true), 'cname');
  });
});
