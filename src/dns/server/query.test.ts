import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PARSE_FORMERR, PARSE_OK, ParsedQuery, parseQuery } from './query.ts';

/** A query for `labels` (raw label bytes), type A class IN, without EDNS. */
function query(labels: number[][]): Buffer {
  const name = labels.flatMap((l) => [l.length, ...l]);
  return Buffer.from([0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, ...name, 0, 0, 1, 0, 1]);
}

const ascii = (s: string): number[] => [...Buffer.from(s, 'latin1')];

test('the question name becomes its lookup key: lower-cased, dots between labels, root is empty', () => {
  const q = new ParsedQuery();
  assert.equal(parseQuery(query([ascii('WwW'), ascii('Example'), ascii('COM')]), q), PARSE_OK);
  assert.equal(q.qname, 'www.example.com');
  assert.equal(parseQuery(query([]), q), PARSE_OK);
  assert.equal(q.qname, '');
  // The scratch buffer is reused: a shorter name after a longer one leaves nothing behind.
  assert.equal(parseQuery(query([ascii('a')]), q), PARSE_OK);
  assert.equal(q.qname, 'a');
});

test('a dot or backslash inside a label cannot match a zone name; Latin-1 case folds as toLowerCase does', () => {
  const q = new ParsedQuery();
  parseQuery(query([ascii('a.b'), ascii('test')]), q);
  assert.equal(q.qname, 'a\u0000b.test');
  parseQuery(query([ascii('x\\y'), ascii('test')]), q);
  assert.equal(q.qname, 'x\u0000y.test');
  // A label is folded only when it holds A-Z, '.' or '\': then U+00C0-U+00DE (but U+00D7) fold too.
  parseQuery(
    query([
      [0xc0, 0x41, 0xd7],
      [0xc0, 0x61],
    ]),
    q,
  );
  assert.equal(q.qname, 'àa×.Àa');
});

test('a name longer than 255 bytes or running past the message is FORMERR', () => {
  const q = new ParsedQuery();
  const long = Array.from({ length: 5 }, () => Array.from({ length: 63 }, () => 0x61));
  assert.equal(parseQuery(query(long), q), PARSE_FORMERR);
  assert.equal(parseQuery(query([ascii('abc')]).subarray(0, 15), q), PARSE_FORMERR);
});
