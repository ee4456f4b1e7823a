import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as dnsPacket from 'dns-packet';
import { InvalidEndpointError } from '../../errors.ts';
import { CLASS_NONE, encodeQuery, encodeUpdate, prerequisiteSize, readHeader, updateRRSize } from './update-message.ts';
import type { UpdateRR } from './update-message.ts';

/** Walks the update section by hand: class, ttl and rdata length of each record. */
function updateRecords(msg: Buffer): { name: string; type: number; klass: number; ttl: number; rdata: Buffer }[] {
  const out = [];
  let p = 12;
  // Zone section: one name, type, class.
  while ((msg[p] ?? 0) !== 0) p += (msg[p] ?? 0) + 1;
  p += 5;
  // Prerequisite records (PRCOUNT) come first, then the update records (UPCOUNT).
  const count = msg.readUInt16BE(6) + msg.readUInt16BE(8);
  for (let i = 0; i < count; i++) {
    const labels: string[] = [];
    while ((msg[p] ?? 0) !== 0) {
      const l = msg[p] ?? 0;
      if ((l & 0xc0) === 0xc0) {
        labels.push('<ptr>');
        p += 1;
        break;
      }
      labels.push(msg.subarray(p + 1, p + 1 + l).toString('latin1'));
      p += l + 1;
    }
    p += 1;
    const type = msg.readUInt16BE(p);
    const klass = msg.readUInt16BE(p + 2);
    const ttl = msg.readUInt32BE(p + 4);
    const len = msg.readUInt16BE(p + 8);
    out.push({ name: labels.join('.'), type, klass, ttl, rdata: msg.subarray(p + 10, p + 10 + len) });
    p += 10 + len;
  }
  assert.equal(p, msg.length, 'no trailing bytes');
  return out;
}

describe('UPDATE encoder', () => {
  test('prerequisites (RFC 2136 2.4): RRset absent is NONE/type, name unused is NONE/ANY, value-dependent RRset exists is IN with rdata; all TTL 0', () => {
    const msg = encodeUpdate({
      id: 7,
      zone: 'example.test',
      prerequisites: [
        { op: 'rrsetAbsent', name: 'web.example.test', type: 'A' },
        { op: 'nameUnused', name: 'app.example.test' },
        { op: 'rrsetEquals', name: 'web.example.test', type: 'A', rdata: ['192.0.2.1', '192.0.2.2'] },
      ],
      updates: [{ op: 'add', name: 'web.example.test', type: 'A', ttl: 60, rdata: '192.0.2.1' }],
    });
    assert.deepEqual([msg.readUInt16BE(4), msg.readUInt16BE(6), msg.readUInt16BE(8), msg.readUInt16BE(10)], [1, 4, 1, 0]);
    const rrs = updateRecords(msg).map((r) => [r.type, r.klass, r.ttl, [...r.rdata].join('.')]);
    assert.deepEqual(rrs, [
      [1, CLASS_NONE, 0, ''],
      [255, CLASS_NONE, 0, ''],
      [1, 1, 0, '192.0.2.1'],
      [1, 1, 0, '192.0.2.2'],
      [1, 1, 60, '192.0.2.1'],
    ]);
    assert.ok(prerequisiteSize({ op: 'nameUnused', name: 'app.example.test' }) >= 10 + 'app.example.test'.length);
  });

  test('header: opcode UPDATE, one zone, the update count; zone section is SOA/IN', () => {
    const msg = encodeUpdate({ id: 0x1234, zone: 'example.test', updates: [{ op: 'add', name: 'www.example.test', type: 'A', ttl: 60, rdata: '192.0.2.1' }] });
    assert.equal(msg.readUInt16BE(0), 0x1234);
    assert.equal((msg.readUInt16BE(2) >> 11) & 0xf, 5);
    assert.deepEqual([msg.readUInt16BE(4), msg.readUInt16BE(6), msg.readUInt16BE(8), msg.readUInt16BE(10)], [1, 0, 1, 0]);
    const decoded = dnsPacket.decode(msg);
    assert.equal(decoded.questions?.[0]?.name, 'example.test');
    assert.equal(decoded.questions?.[0]?.type, 'SOA');
  });

  test('additions decode as ordinary IN records (dns-packet reads the update section as authority)', () => {
    const long = 'y'.repeat(300);
    const updates: UpdateRR[] = [
      { op: 'add', name: 'www.example.test', type: 'A', ttl: 60, rdata: '192.0.2.1' },
      { op: 'add', name: 'www.example.test', type: 'AAAA', ttl: 60, rdata: '2001:db8::1' },
      { op: 'add', name: 'alias.example.test', type: 'CNAME', ttl: 0, rdata: 'www.example.test' },
      { op: 'add', name: 'txt.example.test', type: 'TXT', ttl: 300, rdata: long },
    ];
    const decoded = dnsPacket.decode(encodeUpdate({ id: 1, zone: 'example.test', updates }));
    const auth = decoded.authorities ?? [];
    assert.equal(auth.length, 4);
    assert.deepEqual(
      auth.map((a) => [a.name, a.type, (a as { class?: string }).class, (a as { ttl?: number }).ttl]),
      [
        ['www.example.test', 'A', 'IN', 60],
        ['www.example.test', 'AAAA', 'IN', 60],
        ['alias.example.test', 'CNAME', 'IN', 0],
        ['txt.example.test', 'TXT', 'IN', 300],
      ],
    );
    assert.equal((auth[0] as { data: string }).data, '192.0.2.1');
    assert.equal((auth[2] as { data: string }).data, 'www.example.test');
    const chunks = (auth[3] as { data: Buffer[] }).data;
    assert.deepEqual(
      chunks.map((c) => c.length),
      [255, 45],
      'TXT values over 255 bytes become several character-strings',
    );
    assert.equal(Buffer.concat(chunks).toString(), long);
  });

  test('delete RRset is class ANY, TTL 0, empty rdata; delete RR is class NONE, TTL 0, with rdata', () => {
    const msg = encodeUpdate({
      id: 2,
      zone: 'example.test',
      updates: [
        { op: 'deleteRRset', name: 'www.example.test', type: 'A' },
        { op: 'deleteRR', name: 'www.example.test', type: 'A', rdata: '192.0.2.1' },
        { op: 'deleteRR', name: 'txt.example.test', type: 'TXT', rdata: 'hello' },
      ],
    });
    const [all, one, txt] = updateRecords(msg);
    assert.deepEqual({ klass: all?.klass, ttl: all?.ttl, len: all?.rdata.length, type: all?.type }, { klass: 255, ttl: 0, len: 0, type: 1 });
    assert.deepEqual({ klass: one?.klass, ttl: one?.ttl, rdata: [...(one?.rdata ?? [])] }, { klass: CLASS_NONE, ttl: 0, rdata: [192, 0, 2, 1] });
    assert.deepEqual([...(txt?.rdata ?? [])], [5, ...Buffer.from('hello')]);
  });

  test('owner names are compressed against the zone; rdata names are not', () => {
    const msg = encodeUpdate({ id: 3, zone: 'example.test', updates: [{ op: 'add', name: 'a.example.test', type: 'CNAME', ttl: 1, rdata: 'b.example.test' }] });
    const [rr] = updateRecords(msg);
    assert.equal(rr?.name, 'a.<ptr>');
    assert.deepEqual([...(rr?.rdata ?? [])], [1, 98, 7, ...Buffer.from('example'), 4, ...Buffer.from('test'), 0]);
  });

  test('invalid values and unknown types are endpoint errors, not garbage on the wire', () => {
    assert.throws(
      () => encodeUpdate({ id: 1, zone: 'example.test', updates: [{ op: 'add', name: 'x.example.test', type: 'A', ttl: 1, rdata: '999.1.1.1' }] }),
      InvalidEndpointError,
    );
    assert.throws(
      () => encodeUpdate({ id: 1, zone: 'example.test', updates: [{ op: 'add', name: 'x.example.test', type: 'HINFO', ttl: 1, rdata: 'x' }] }),
      InvalidEndpointError,
    );
  });

  test('updateRRSize bounds the encoded size of a record', () => {
    const rr: UpdateRR = { op: 'add', name: 'www.example.test', type: 'A', ttl: 60, rdata: '192.0.2.1' };
    const alone = encodeUpdate({ id: 1, zone: 'example.test', updates: [rr] }).length;
    const empty = encodeUpdate({ id: 1, zone: 'example.test', updates: [] }).length;
    assert.ok(alone - empty <= updateRRSize(rr));
    assert.equal(updateRRSize(rr), 18 + 10 + 4);
  });

  test('readHeader and encodeQuery', () => {
    const q = encodeQuery(0xbeef, 'example.test', 252);
    const h = readHeader(q);
    assert.equal(h?.id, 0xbeef);
    assert.equal(h?.qr, false);
    assert.equal(h?.question, 'example.test');
    const reply = Buffer.from(q);
    reply.writeUInt16BE(0x8000 | (5 << 11) | 0x0200 | 9, 2);
    assert.deepEqual([readHeader(reply)?.qr, readHeader(reply)?.opcode, readHeader(reply)?.truncated, readHeader(reply)?.rcode], [true, 5, true, 9]);
    assert.equal(readHeader(Buffer.alloc(5)), undefined);
  });
});
