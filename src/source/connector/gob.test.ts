import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GobDecoder, GobError } from './gob.ts';

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replaceAll(/\s+/g, ''), 'hex'));

/** The encoding/gob documentation's example: `type Point struct {X, Y int}` sent as Point{22, 33}. */
const POINT = hex(`1f ff 81 03 01 01 05 50 6f 69 6e 74 01 ff 82 00 01 02 01 01 58 01 04 00 01 01 59 01 04 00 00 00
  07 ff 82 01 2c 01 42 00`);

test("the package documentation's Point example decodes to {X: 22, Y: 33}", () => {
  const decoded = new GobDecoder().decodeFirst(POINT, 1 << 20);
  assert.deepEqual(decoded, { value: { X: 22, Y: 33 }, used: POINT.length });
});

test('a stream without a complete value yet answers undefined, at every cut', () => {
  for (let cut = 0; cut < POINT.length; cut++) assert.equal(new GobDecoder().decodeFirst(POINT.subarray(0, cut), 1 << 20), undefined, `cut at ${cut}`);
});

test('integers, floats and strings as the documentation spells them (256 = FE 01 00, -129 = FE 01 01, 17.0 = FE 31 40)', () => {
  // A top-level non-struct value: its type id (uint 3 is 06 as a signed int, int 2 is 04, float 4
  // is 08, string 6 is 0c), the 0 singleton delta, the value.
  const value = (typeByte: string, payload: string): unknown => {
    const body = hex(`${typeByte} 00 ${payload}`);
    return new GobDecoder().decodeFirst(Uint8Array.from([body.length, ...body]), 1 << 20)?.value;
  };
  assert.equal(value('06', 'fe 01 00'), 256);
  assert.equal(value('04', 'fe 01 01'), -129);
  assert.equal(value('04', '07'), -4);
  assert.equal(value('08', 'fe 31 40'), 17);
  assert.equal(value('0c', '05 68 65 6c 6c 6f'), 'hello');
});

test('malformed streams are GobErrors: an undefined type, a field past the struct, a message too large', () => {
  assert.throws(
    () => new GobDecoder().decodeFirst(hex('03 ff 90 00'), 1 << 20),
    (err: unknown) => err instanceof GobError && /type 72 was never defined/.test(err.message),
  );
  const badField = Uint8Array.from(POINT);
  badField[POINT.length - 5] = 0x05; // the X field delta becomes 5: field 4 of a two-field struct
  assert.throws(() => new GobDecoder().decodeFirst(badField, 1 << 20), /field 4 of Point/);
  assert.throws(() => new GobDecoder().decodeFirst(hex('fc 7f ff ff ff'), 1 << 20), /a message of 2147483647 bytes/);
});
