/** NAPTR (RFC 3403) and DNAME (RFC 6672) in the format library: zone files and wire rdata. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as dnsPacket from 'dns-packet';
import { parseZone, serializeZone } from './master-file.ts';
import { parseRdata } from './rdata.ts';
import type { RdataPart } from './rdata.ts';
import { endpointToRRSet, rrsetToEndpoint } from './rrset-endpoint.ts';
import { T_DNAME, T_NAPTR, Writer } from './wire.ts';
import { newEndpoint } from '../endpoint/endpoint.ts';

const HEAD = '$ORIGIN example.test.\n$TTL 300\n@ IN SOA ns1 hostmaster 1 3600 600 86400 300\n@ IN NS ns1\n';

function wire(parts: RdataPart[]): Buffer {
  const w = new Writer();
  for (const p of parts) {
    if (Buffer.isBuffer(p)) w.bytes(p);
    else w.name(p.name, p.compress);
  }
  return w.buf.subarray(0, w.len);
}

describe('NAPTR and DNAME in zone files', () => {
  test('hand-written records (bare strings, relative names, parentheses) parse to the canonical form', () => {
    const text = `${HEAD}_sip._udp IN NAPTR ( 100 10 S SIP+D2U "" _sip._udp.srv )\n  IN NAPTR 10 20 "u" "E2U+sip" "!^.*$!sip:info@example.com!" .\nold 600 IN DNAME New.Example.NET.\nrel IN DNAME other\n`;
    const zone = parseZone(text, 'example.test', 'z');
    const get = (name: string, type: string): string[] | undefined => zone.rrsets.find((r) => r.name === name && r.type === type)?.rdata;
    assert.deepEqual(get('_sip._udp.example.test', 'NAPTR'), [
      '10 20 "u" "E2U+sip" "!^.*$!sip:info@example.com!" .',
      '100 10 "S" "SIP+D2U" "" _sip._udp.srv.example.test.',
    ]);
    assert.deepEqual(get('old.example.test', 'DNAME'), ['new.example.net']);
    assert.deepEqual(get('rel.example.test', 'DNAME'), ['other.example.test']);
    const again = parseZone(serializeZone(zone), 'example.test', 'z');
    assert.deepEqual(again.rrsets, zone.rrsets);
    assert.match(serializeZone(zone), /^old\.example\.test\. 600 IN DNAME new\.example\.net\.$/m);
  });

  test('bad NAPTR lines name the file, line and problem', () => {
    assert.throws(
      () => parseZone(`${HEAD}x IN NAPTR 1 2 "u" "" ""\n`, 'example.test', 'z.db'),
      /z\.db:5: NAPTR needs "<order> <preference> <flags> <service> <regexp> <replacement>"/,
    );
    assert.throws(() => parseZone(`${HEAD}x IN NAPTR 1 2 "u+" "" "" .\n`, 'example.test', 'z.db'), /z\.db:5: NAPTR flags .* letters and digits/);
    assert.throws(() => parseZone(`${HEAD}x IN NAPTR 1 99999 "u" "" "" .\n`, 'example.test', 'z.db'), /z\.db:5: NAPTR preference "99999"/);
  });
});

describe('NAPTR and DNAME rdata on the wire', () => {
  test('NAPTR rdata is byte for byte what dns-packet encodes; the replacement is uncompressed', () => {
    const cases: [string, dnsPacket.NaptrData][] = [
      [
        '100 10 "u" "E2U+sip" "!^.*$!sip:info@example.com!" .',
        { order: 100, preference: 10, flags: 'u', services: 'E2U+sip', regexp: '!^.*$!sip:info@example.com!', replacement: '.' },
      ],
      [
        '102 10 "S" "SIP+D2T" "" _sip._tcp.example.test.',
        { order: 102, preference: 10, flags: 'S', services: 'SIP+D2T', regexp: '', replacement: '_sip._tcp.example.test' },
      ],
    ];
    for (const [text, data] of cases) {
      const parsed = parseRdata(T_NAPTR, text);
      assert.ok(parsed !== undefined, text);
      const ours = wire(parsed.parts);
      // One answer owned by "x" (3 bytes) after the 12-byte header; its rdata follows type, class, TTL and length.
      const theirs = dnsPacket.encode({ answers: [{ type: 'NAPTR', name: 'x', data }] }).subarray(12 + 3 + 10);
      assert.deepEqual(ours.toString('hex'), Buffer.from(theirs).toString('hex'), text);
      assert.ok(parsed.parts.every((p) => Buffer.isBuffer(p) || !p.compress));
    }
    assert.equal(parseRdata(T_NAPTR, '1 2 "u" "" ""'), undefined);
  });

  test('DNAME rdata is one uncompressed name (RFC 6672 2.5)', () => {
    const parsed = parseRdata(T_DNAME, 'new.example.net');
    assert.deepEqual(parsed?.parts, [{ name: 'new.example.net', compress: false }]);
    assert.equal(parseRdata(T_DNAME, ''), undefined);
  });
});

describe('endpoints and record sets', () => {
  test('NAPTR and DNAME endpoints become canonical record sets and read back equal', () => {
    const naptr = newEndpoint({
      dnsName: '_sip._udp.example.test',
      targets: ['100 10 u E2U+sip "!^.*$!sip:info@example.com!" .'],
      recordType: 'NAPTR',
      recordTTL: 60,
    });
    const set = endpointToRRSet(naptr);
    assert.deepEqual(set.rdata, ['100 10 "u" "E2U+sip" "!^.*$!sip:info@example.com!" .']);
    assert.deepEqual(rrsetToEndpoint(set).targets, set.rdata);
    assert.deepEqual(endpointToRRSet(newEndpoint({ dnsName: 'old.example.test', targets: ['New.Example.net.'], recordType: 'DNAME' })).rdata, [
      'new.example.net',
    ]);
    assert.throws(
      () => endpointToRRSet(newEndpoint({ dnsName: 'x.example.test', targets: ['1 2 "u"'], recordType: 'NAPTR' })),
      /x\.example\.test NAPTR: target .* is not a NAPTR record/,
    );
  });
});
