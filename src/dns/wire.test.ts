import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as dnsPacket from 'dns-packet';
import { Writer, parseIPv4, parseIPv6, readName, skipName } from './wire.ts';
import { parseRdata, txtWire } from './rdata.ts';
import { T_CAA, T_MX, T_SRV, T_TXT } from './wire.ts';

describe('wire', () => {
  test('names share suffixes through compression pointers', () => {
    const w = new Writer();
    w.bytes(Buffer.alloc(12));
    w.name('www.example.test');
    const before = w.len;
    w.name('mail.example.test');
    assert.equal(w.len - before, 1 + 4 + 2, 'label "mail" then a pointer');
    assert.equal(w.buf.readUInt16BE(w.len - 2), 0xc000 | 16);
    assert.equal(readName(w.buf.subarray(0, w.len), before)?.name, 'mail.example.test');
  });

  test('relative fragments record fixups for every pointer', () => {
    const w = new Writer({ relative: true });
    w.name('a.example.test');
    w.name('b.example.test');
    assert.deepEqual(w.fixups, [w.len - 2]);
    w.truncate(16);
    assert.deepEqual(w.fixups, []);
  });

  test('readName rejects loops, forward pointers and overlong names; skipName bounds', () => {
    assert.equal(readName(Buffer.from([0xc0, 0x00]), 0), undefined);
    assert.equal(readName(Buffer.from([0xc0, 0x05, 0, 0, 0, 0]), 0), undefined);
    const long = Buffer.concat([...Array.from({ length: 5 }, () => Buffer.concat([Buffer.from([63]), Buffer.alloc(63, 97)])), Buffer.from([0])]);
    assert.equal(readName(long, 0), undefined);
    assert.equal(skipName(long, 0), -1);
    assert.equal(skipName(Buffer.from([3, 97, 98]), 0), -1);
    assert.equal(skipName(Buffer.from([1, 65, 0]), 0), 3);
    assert.equal(readName(Buffer.from([1, 65, 0]), 0)?.name, 'a');
  });

  test('addresses', () => {
    assert.deepEqual([...(parseIPv4('192.0.2.1') ?? [])], [192, 0, 2, 1]);
    assert.equal(parseIPv4('256.0.0.1'), undefined);
    assert.equal(parseIPv4('1.2.3'), undefined);
    assert.equal(parseIPv6('2001:db8::1')?.toString('hex'), '20010db8000000000000000000000001');
    assert.equal(parseIPv6('::')?.toString('hex'), '0'.repeat(32));
    assert.equal(parseIPv6('::ffff:192.0.2.1')?.toString('hex'), '00000000000000000000ffffc0000201');
    assert.equal(parseIPv6('1:2:3:4:5:6:7:8')?.toString('hex'), '00010002000300040005000600070008');
    assert.equal(parseIPv6('1::2::3'), undefined);
    assert.equal(parseIPv6('1:2:3:4:5:6:7:8:9'), undefined);
    assert.equal(parseIPv6('12345::'), undefined);
  });

  test('TXT splits at 255 bytes; empty TXT is one empty string', () => {
    const w = txtWire('x'.repeat(300));
    assert.equal(w[0], 255);
    assert.equal(w[256], 45);
    assert.deepEqual([...txtWire('')], [0]);
    assert.equal(parseRdata(T_TXT, 'a b')?.parts.length, 1);
  });

  test('rdata text forms encode like dns-packet decodes them', () => {
    const encode = (type: number, text: string, dnsType: string): unknown => {
      const parsed = parseRdata(type, text);
      assert.ok(parsed, text);
      const w = new Writer();
      w.bytes(Buffer.from([0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0]));
      w.name('x.test');
      w.u16(type);
      w.u16(1);
      w.u32(60);
      const at = w.len;
      w.u16(0);
      for (const p of parsed.parts) {
        if (Buffer.isBuffer(p)) w.bytes(p);
        else w.name(p.name, p.compress);
      }
      w.buf.writeUInt16BE(w.len - at - 2, at);
      const d = dnsPacket.decode(w.finish());
      const a = d.answers?.[0];
      assert.equal(a?.type, dnsType);
      return (a as { data: unknown }).data;
    };
    assert.deepEqual(encode(T_MX, '10 mail.x.test', 'MX'), { preference: 10, exchange: 'mail.x.test' });
    assert.deepEqual(encode(T_SRV, '1 2 3 t.x.test', 'SRV'), { priority: 1, weight: 2, port: 3, target: 't.x.test' });
    const caa = encode(T_CAA, '0 issue "letsencrypt.org"', 'CAA') as { tag: string; value: string };
    assert.equal(caa.tag, 'issue');
    assert.equal(caa.value, 'letsencrypt.org');
    assert.equal(parseRdata(T_MX, 'ten mail'), undefined);
    assert.equal(parseRdata(T_SRV, '1 2 70000 x'), undefined);
  });
});
