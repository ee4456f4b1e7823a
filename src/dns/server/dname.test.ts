import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as dnsPacket from 'dns-packet';
import type { Packet } from 'dns-packet';
import { silentLogger } from '../../log.ts';
import { Responder } from './responder.ts';
import type { ZoneContent } from '../zone-content.ts';

const ORIGIN = 'example.test';

function zone(dnameTarget: string): ZoneContent {
  return {
    origin: ORIGIN,
    soa: { mname: `ns1.${ORIGIN}`, rname: `hostmaster.${ORIGIN}`, serial: 1, refresh: 3600, retry: 600, expire: 86400, minimum: 300, ttl: 3600 },
    rrsets: [
      { name: ORIGIN, type: 'NS', ttl: 3600, rdata: [`ns1.${ORIGIN}`] },
      { name: `old.${ORIGIN}`, type: 'DNAME', ttl: 120, rdata: [dnameTarget] },
      { name: `_sip._udp.${ORIGIN}`, type: 'NAPTR', ttl: 60, rdata: ['100 10 "u" "E2U+sip" "!^.*$!sip:info@example.com!" .'] },
    ],
  };
}

function ask(z: ZoneContent, name: string, type: string): Packet & { rcode?: string } {
  const r = new Responder({ logger: silentLogger(), allowTransfer: [], tsigKeys: [], now: () => 1000 });
  r.setZone(z);
  const reply = r.handle(dnsPacket.encode({ type: 'query', id: 7, questions: [{ name, type: type as 'A', class: 'IN' }] }), 'udp', '127.0.0.1');
  assert.ok(Buffer.isBuffer(reply));
  return dnsPacket.decode(reply) as Packet & { rcode?: string };
}

const rows = (p: Packet): string[] =>
  (p.answers ?? []).map((a) => {
    const rr = a as { name: string; ttl?: number; type: string; data: unknown };
    return `${rr.name} ${rr.ttl ?? 0} ${rr.type} ${JSON.stringify(rr.data)}`;
  });

describe('DNAME substitution (RFC 6672)', () => {
  test('a name below the owner gets the DNAME and a CNAME synthesised for it, with the DNAME TTL', () => {
    const p = ask(zone('new.example.net'), 'a.b.old.example.test', 'AAAA');
    assert.equal(p.rcode, 'NOERROR');
    assert.deepEqual(rows(p), ['old.example.test 120 DNAME "new.example.net"', 'a.b.old.example.test 120 CNAME "a.b.new.example.net"']);
  });

  test('the owner itself is not substituted', () => {
    assert.deepEqual(rows(ask(zone('new.example.net'), 'old.example.test', 'DNAME')), ['old.example.test 120 DNAME "new.example.net"']);
    const nodata = ask(zone('new.example.net'), 'old.example.test', 'A');
    assert.equal(nodata.rcode, 'NOERROR');
    assert.deepEqual(rows(nodata), []);
  });

  test('a substituted name longer than 255 bytes is YXDOMAIN with the DNAME alone', () => {
    const longTarget = Array.from({ length: 3 }, () => 'x'.repeat(63)).join('.');
    const qname = `${Array.from({ length: 2 }, () => 'y'.repeat(60)).join('.')}.old.example.test`;
    const p = ask(zone(longTarget), qname, 'A');
    assert.equal(p.rcode, 'YXDOMAIN');
    assert.deepEqual(rows(p), [`old.example.test 120 DNAME "${longTarget}"`]);
  });

  test('NAPTR answers decode to the record written', () => {
    const p = ask(zone('new.example.net'), '_sip._udp.example.test', 'NAPTR');
    assert.deepEqual(
      p.answers?.map((a) => (a as { data: unknown }).data),
      [{ order: 100, preference: 10, flags: 'u', services: 'E2U+sip', regexp: '!^.*$!sip:info@example.com!', replacement: '.' }],
    );
  });
});
