import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { silentLogger } from '../../log.ts';
import { Responder } from './responder.ts';
import type { ZoneContent } from '../zone-content.ts';
import { sampleZone } from '../../../test/dns/sample-zone.ts';
import { sign } from '../tsig.ts';

function responder(zones: ZoneContent[] = [sampleZone()], allow: string[] = []): Responder {
  const r = new Responder({
    logger: silentLogger(),
    allowTransfer: allow,
    tsigKeys: [{ name: 'k', algorithm: 'hmac-sha256', secret: Buffer.from('secret') }],
    now: () => 1000,
  });
  for (const z of zones) r.setZone(z);
  return r;
}

/** dns-packet does not encode `opcode`, so it goes into the flags here. */
const OPCODES: Record<string, number> = { QUERY: 0, STATUS: 2, NOTIFY: 4, UPDATE: 5 };

function q(name: string, type: string, opts: { id?: number; rd?: boolean; edns?: number; opcode?: string; class?: string } = {}): Buffer {
  const packet: Packet = {
    type: 'query',
    id: opts.id ?? 42,
    flags: (opts.rd === false ? 0 : dnsPacket.RECURSION_DESIRED) | ((OPCODES[opts.opcode ?? 'QUERY'] ?? 0) << 11),
    questions: [{ name, type: type as 'A', class: (opts.class ?? 'IN') as 'IN' }],
    additionals: opts.edns === undefined ? [] : [{ type: 'OPT', name: '.', udpPayloadSize: opts.edns } as Answer],
  } as Packet;
  return dnsPacket.encode(packet);
}

function ask(r: Responder, msg: Buffer, transport: 'udp' | 'tcp' = 'udp', from = '127.0.0.1'): Packet & { rcode?: string; opcode?: string } {
  const reply = r.handle(msg, transport, from);
  assert.ok(Buffer.isBuffer(reply));
  return dnsPacket.decode(reply) as Packet & { rcode?: string; opcode?: string };
}

const data = (p: Packet): unknown[] => (p.answers ?? []).map((a) => (a as { data: unknown }).data);

describe('Responder', () => {
  test('exact, wildcard, ENT, NXDOMAIN and REFUSED', () => {
    const r = responder();
    assert.deepEqual(data(ask(r, q('www.example.test', 'A'))).sort(), ['192.0.2.1', '192.0.2.2']);
    const wild = ask(r, q('a.b.wild.example.test', 'A'));
    assert.deepEqual(data(wild), ['192.0.2.99']);
    assert.equal(wild.answers?.[0]?.name, 'a.b.wild.example.test');
    const ent = ask(r, q('deep.example.test', 'A'));
    assert.equal(ent.rcode, 'NOERROR');
    assert.equal(ent.answers?.length, 0);
    assert.equal(ent.authorities?.[0]?.type, 'SOA');
    const nx = ask(r, q('x.c.deep.example.test', 'A'));
    assert.equal(nx.rcode, 'NXDOMAIN');
    assert.equal((nx.authorities?.[0] as { ttl?: number }).ttl, 300, 'min(SOA TTL, minimum)');
    assert.equal(ask(r, q('example.com', 'A')).rcode, 'REFUSED');
    assert.equal(ask(r, q('version.bind', 'TXT', { class: 'CH' })).rcode, 'REFUSED');
  });

  test('the deepest hosted zone answers; removing it hands names back to the parent', () => {
    const child: ZoneContent = {
      origin: 'sub.example.test',
      soa: { mname: 'ns.sub.example.test', rname: 'h.sub.example.test', serial: 5, refresh: 1, retry: 1, expire: 1, minimum: 60, ttl: 60 },
      rrsets: [{ name: 'www.sub.example.test', type: 'A', ttl: 60, rdata: ['198.51.100.1'] }],
    };
    const r = responder([sampleZone(), child]);
    const a = ask(r, q('www.sub.example.test', 'A'));
    assert.ok(a.flags !== undefined && (a.flags & dnsPacket.AUTHORITATIVE_ANSWER) !== 0);
    assert.deepEqual(data(a), ['198.51.100.1']);
    assert.equal(ask(r, q('ns.sub.example.test', 'A')).rcode, 'NXDOMAIN', 'parent glue is occluded by the hosted child');
    r.removeZone('sub.example.test');
    const ref = ask(r, q('www.sub.example.test', 'A'));
    assert.equal(ref.answers?.length, 0);
    assert.equal(ref.authorities?.[0]?.type, 'NS');
  });

  test('truncation: additional dropped first, then TC with an empty answer', () => {
    const r = responder();
    const big = ask(r, q('big.example.test', 'TXT'));
    assert.ok(big.flags !== undefined && (big.flags & dnsPacket.TRUNCATED_RESPONSE) !== 0);
    assert.equal(big.answers?.length, 0);
    const tcp = ask(r, q('big.example.test', 'TXT'), 'tcp');
    assert.equal(tcp.answers?.length, 40);
    // MX with additional data fits in 512 without EDNS; nothing is truncated.
    const mx = ask(r, q('example.test', 'MX', { rd: false }));
    assert.ok(mx.flags !== undefined && (mx.flags & dnsPacket.TRUNCATED_RESPONSE) === 0);
    assert.ok((mx.additionals?.length ?? 0) > 0);
  });

  test('AXFR: refused over UDP and without permission, SOA first and last, split into several messages', () => {
    const zone = sampleZone();
    for (let i = 0; i < 2000; i++) zone.rrsets.push({ name: `h${i}.example.test`, type: 'A', ttl: 60, rdata: ['192.0.2.1'] });
    const r = responder([zone], ['127.0.0.0/8']);
    assert.equal(ask(r, q('example.test', 'AXFR'), 'udp').rcode, 'FORMERR');
    assert.equal(ask(r, q('example.test', 'AXFR'), 'tcp', '10.1.1.1').rcode, 'REFUSED');
    const msgs = r.handle(q('example.test', 'AXFR'), 'tcp', '127.0.0.1');
    assert.ok(Array.isArray(msgs) && msgs.length > 1);
    const answers = msgs.flatMap((m) => dnsPacket.decode(m).answers ?? []);
    assert.equal(answers[0]?.type, 'SOA');
    assert.equal(answers[answers.length - 1]?.type, 'SOA');
    assert.equal(answers.filter((a) => a.type === 'SOA').length, 2);
    assert.ok(answers.length > 2000);
    const ixfrUdp = ask(r, q('example.test', 'IXFR'), 'udp');
    assert.equal(ixfrUdp.answers?.[0]?.type, 'SOA');
  });

  test('signed transfer from anywhere with a known key; every message signed', () => {
    const r = responder();
    const signed = sign(q('example.test', 'AXFR', { id: 7 }), { name: 'k', algorithm: 'hmac-sha256', secret: Buffer.from('secret') }, 1000).message;
    const msgs = r.handle(signed, 'tcp', '203.0.113.9');
    assert.ok(Array.isArray(msgs));
    for (const m of msgs) {
      const d = dnsPacket.decode(m);
      assert.equal(d.additionals?.[d.additionals.length - 1]?.type, 'TSIG');
    }
  });

  test('opcodes and malformed input', () => {
    const r = responder();
    const notify = ask(r, q('example.test', 'SOA', { opcode: 'NOTIFY' }));
    assert.equal(notify.opcode, 'NOTIFY');
    assert.equal(notify.rcode, 'NOERROR');
    assert.equal(ask(r, q('example.org', 'SOA', { opcode: 'NOTIFY' })).rcode, 'REFUSED');
    assert.equal(ask(r, q('example.test', 'SOA', { opcode: 'UPDATE' })).rcode, 'NOTIMP');
    assert.equal(ask(r, q('example.test', 'SOA', { opcode: 'STATUS' })).rcode, 'NOTIMP');
    const trailing = Buffer.concat([q('www.example.test', 'A'), Buffer.from([1])]);
    assert.equal(ask(r, trailing).rcode, 'FORMERR');
    assert.equal(r.handle(Buffer.alloc(11), 'udp', '127.0.0.1'), undefined);
  });

  test('EDNS: the smaller of our and the client size limits the answer', () => {
    const r = responder();
    const ok = ask(r, q('long.example.test', 'TXT', { edns: 4096 }));
    assert.equal(ok.answers?.length, 2);
    const opt = ok.additionals?.find((a) => a.type === 'OPT') as { udpPayloadSize?: number } | undefined;
    assert.equal(opt?.udpPayloadSize, 1232);
  });

  test('handleInto writes into a slot the bytes handle returns, and 0 for no reply', () => {
    const r = responder();
    const slot = 4096;
    const out = Buffer.alloc(3 * slot, 0xee);
    const messages = [
      q('www.example.test', 'A'),
      q('WWW.Example.Test', 'A', { edns: 4096 }),
      q('a.b.wild.example.test', 'A', { rd: false }),
      q('x.c.deep.example.test', 'A'),
      q('long.example.test', 'TXT'),
      q('long.example.test', 'TXT', { edns: 4096 }),
      q('example.com', 'A'),
      q('example.test', 'AXFR'),
      q('example.test', 'SOA', { opcode: 'UPDATE' }),
      Buffer.concat([q('www.example.test', 'A'), Buffer.from([1])]),
      sign(q('www.example.test', 'A', { id: 9 }), { name: 'k', algorithm: 'hmac-sha256', secret: Buffer.from('secret') }, 1000).message,
    ];
    for (const msg of messages) {
      const want = r.handle(msg, 'udp', '127.0.0.1');
      assert.ok(Buffer.isBuffer(want));
      const size = r.handleInto(msg, '127.0.0.1', out, slot, slot);
      assert.deepEqual(out.subarray(slot, slot + size), want);
      assert.equal(out[0], 0xee, 'nothing written before the slot');
    }
    assert.equal(r.handleInto(Buffer.alloc(11), '127.0.0.1', out, slot, slot), 0);
    assert.equal(r.handleInto(q('long.example.test', 'TXT', { edns: 4096 }), '127.0.0.1', out, slot, 20), 0, 'a reply larger than the slot is not sent');
  });
});

describe('packet-cache hints', () => {
  test('change hooks run on every zone swap and removal, until removed', () => {
    const r = responder();
    let calls = 0;
    const off = r.onChange(() => calls++);
    r.setZone(sampleZone('other.test'));
    r.removeZone('other.test');
    r.removeZone('absent.test'); // no swap, no call
    off();
    r.setZone(sampleZone('third.test'));
    assert.equal(calls, 2);
  });

  test('last.cacheable: NOERROR and NXDOMAIN zone answers only', () => {
    const r = responder();
    const out = Buffer.alloc(4096);
    const cacheable = (msg: Buffer): boolean => {
      r.handleInto(msg, '127.0.0.1', out, 0, out.length);
      return r.last.cacheable;
    };
    assert.equal(cacheable(q('www.example.test', 'A')), true);
    assert.equal(cacheable(q('nothere.example.test', 'A')), true);
    assert.equal(cacheable(q('www.example.test', 'A', { edns: 1232 })), true);
    assert.equal(cacheable(q('www.example.org', 'A')), false, 'REFUSED');
    assert.equal(cacheable(q('www.example.test', 'ANY')), false);
    assert.equal(cacheable(q('example.test', 'AXFR')), false);
    assert.equal(cacheable(q('big.example.test', 'TXT')), false, 'truncated');
    assert.equal(cacheable(q('example.test', 'SOA', { opcode: 'NOTIFY' })), false);
  });
});
