import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sampleZone } from '../../../test/dns/sample-zone.ts';
import { ZoneReader, packZone } from './zone-pack.ts';

test('a packed zone reads back as the same content, non-ASCII text included', () => {
  const zone = sampleZone('example.test', 4_000_000_000);
  zone.rrsets.push({ name: 'utf8.example.test', type: 'TXT', ttl: 1, rdata: ['grüße ✓', '', 'x'.repeat(70_000)] });
  const packed = packZone(zone);
  assert.ok(packed instanceof ArrayBuffer);
  const reader = new ZoneReader(packed);
  assert.equal(reader.origin, zone.origin);
  assert.deepEqual(reader.soa, zone.soa);
  assert.deepEqual([...reader.rrsets], zone.rrsets);
  // A Uint8Array view (what a worker process receives) reads the same.
  const copy = new Uint8Array(packed.byteLength + 8);
  copy.set(new Uint8Array(packed), 8);
  assert.deepEqual([...new ZoneReader(copy.subarray(8)).rrsets], zone.rrsets);
});

test('an unknown type does not pack, and a buffer of another version does not read', () => {
  const zone = sampleZone();
  zone.rrsets.push({ name: 'x.example.test', type: 'HINFO' as 'A', ttl: 1, rdata: ['a b'] });
  assert.throws(() => packZone(zone), /cannot pack record type HINFO/);
  const packed = new Uint8Array(packZone(sampleZone()));
  packed[0] = 9;
  assert.throws(() => new ZoneReader(packed), /version 9/);
});

test('provisional content packs as provisional, other content as not', () => {
  assert.equal(new ZoneReader(packZone({ ...sampleZone(), provisional: true })).provisional, true);
  assert.equal(new ZoneReader(packZone({ ...sampleZone(), provisional: false })).provisional, false);
  const plain = new ZoneReader(packZone(sampleZone()));
  assert.equal(plain.provisional, false);
  assert.deepEqual([...plain.rrsets], sampleZone().rrsets, 'the flag byte does not shift the records');
});
