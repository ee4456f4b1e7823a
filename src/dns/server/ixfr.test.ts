import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { silentLogger } from '../../log.ts';
import { Responder } from './responder.ts';
import type { ZoneContent } from '../zone-content.ts';
import { sampleZone } from '../../../test/dns/sample-zone.ts';
import { sign } from '../tsig.ts';
import { IxfrJournal, serialCompare } from './ixfr-journal.ts';
import type { JournalEntry } from './ixfr-journal.ts';
import { clientSerial } from './ixfr.ts';
import { ZoneReader, packZone } from './zone-pack.ts';
import { soaRR } from '../rdata.ts';

const KEY = { name: 'k', algorithm: 'hmac-sha256' as const, secret: Buffer.from('secret') };

function responder(allow: string[] = ['127.0.0.0/8'], journal?: { changes: number; bytes: number }): Responder {
  return new Responder({
    logger: silentLogger(),
    allowTransfer: allow,
    tsigKeys: [KEY],
    now: () => 1000,
    ...(journal === undefined ? {} : { ixfrJournal: journal }),
  });
}

/** The sample zone at `serial`, with www's addresses and one host per change up to `serial`. */
function version(serial: number, extra: ZoneContent['rrsets'] = []): ZoneContent {
  const z = sampleZone('example.test', serial);
  z.rrsets = z.rrsets.filter((s) => !(s.name === 'www.example.test' && s.type === 'A'));
  z.rrsets.push({ name: 'www.example.test', type: 'A', ttl: 60, rdata: [`192.0.2.${serial % 250}`] }, ...extra);
  return z;
}

function ixfrQuery(serial: number | undefined, opts: { id?: number; edns?: number } = {}): Buffer {
  const packet = {
    type: 'query',
    id: opts.id ?? 9,
    flags: 0,
    questions: [{ name: 'example.test', type: 'IXFR', class: 'IN' }],
    authorities:
      serial === undefined
        ? []
        : [
            {
              name: 'example.test',
              type: 'SOA',
              ttl: 0,
              data: { mname: 'ns1.example.test', rname: 'hostmaster.example.test', serial, refresh: 1, retry: 1, expire: 1, minimum: 1 },
            },
          ],
    additionals: opts.edns === undefined ? [] : [{ type: 'OPT', name: '.', udpPayloadSize: opts.edns } as Answer],
  } as Packet;
  return dnsPacket.encode(packet);
}

function answers(reply: Buffer | Buffer[] | undefined): Answer[] {
  const list = reply === undefined ? [] : Array.isArray(reply) ? reply : [reply];
  return list.flatMap((m) => dnsPacket.decode(m).answers ?? []);
}

const serialOf = (a: Answer | undefined): number => (a as { data?: { serial: number } } | undefined)?.data?.serial ?? -1;
const brief = (a: Answer): string => (a.type === 'SOA' ? `SOA ${serialOf(a)}` : `${a.name} ${a.type} ${String((a as { data?: unknown }).data)}`);

function entry(oldSerial: number, newSerial: number, bytes = 10): JournalEntry {
  const soa = (serial: number): ReturnType<typeof soaRR> => soaRR({ mname: 'a', rname: 'b', serial, refresh: 1, retry: 1, expire: 1, minimum: 1, ttl: 1 });
  return { oldSerial, newSerial, oldSoa: soa(oldSerial), newSoa: soa(newSerial), removed: [], added: [], bytes };
}

describe('IXFR journal', () => {
  test('RFC 1982 serial order wraps', () => {
    assert.equal(serialCompare(1, 2), -1);
    assert.equal(serialCompare(2, 1), 1);
    assert.equal(serialCompare(0xffffffff, 0), -1, 'wrap: 2^32-1 precedes 0');
    assert.equal(serialCompare(0, 0xffffffff), 1);
    assert.equal(serialCompare(5, 5), 0);
    assert.equal(serialCompare(0, 0x80000000), undefined);
  });

  test('bounded by changes and bytes; chains must be contiguous', () => {
    const j = new IxfrJournal({ changes: 3, bytes: 100 });
    for (let s = 1; s <= 5; s++) j.record('z', entry(s, s + 1));
    assert.deepEqual(j.size('z'), { changes: 3, bytes: 30 });
    assert.equal(j.chain('z', 1, 6), undefined, 'dropped');
    assert.deepEqual(
      j.chain('z', 3, 6)?.map((e) => e.newSerial),
      [4, 5, 6],
    );
    assert.deepEqual(
      j.chain('z', 5, 6)?.map((e) => e.newSerial),
      [6],
    );
    assert.equal(j.chain('z', 3, 7), undefined, 'does not reach the served serial');
    j.record('z', entry(6, 7, 90));
    assert.deepEqual(j.size('z'), { changes: 2, bytes: 100 }, 'byte bound drops the oldest');
    j.record('z', entry(7, 8, 101));
    assert.deepEqual(j.size('z'), { changes: 0, bytes: 0 }, 'a change larger than the bound alone is not kept');
    j.record('z', entry(8, 9));
    j.record('z', entry(20, 21));
    assert.deepEqual(j.size('z'), { changes: 1, bytes: 10 }, 'a gap starts the chain anew');
    j.record('z', entry(0xffffffff, 0));
    j.record('z', entry(0, 1));
    assert.equal(j.chain('z', 0xffffffff, 1)?.length, 2, 'chains across the wrap');
    const off = new IxfrJournal({ changes: 0, bytes: 100 });
    off.record('z', entry(1, 2));
    assert.equal(off.chain('z', 1, 2), undefined);
  });

  test('clientSerial reads the authority SOA (compressed names too)', () => {
    const msg = ixfrQuery(4242);
    assert.equal(clientSerial(msg, 12 + 14 + 4), 4242);
    assert.equal(clientSerial(ixfrQuery(undefined), 12 + 14 + 4), undefined);
  });
});

describe('Responder IXFR', () => {
  test('zone swaps are journaled; incremental answer in RFC 1995 order', () => {
    const r = responder();
    r.setZone(version(10));
    r.setZone(version(11, [{ name: 'new.example.test', type: 'A', ttl: 60, rdata: ['192.0.2.111'] }]));
    r.setZone(version(12, [{ name: 'new.example.test', type: 'A', ttl: 60, rdata: ['192.0.2.112'] }]));
    assert.equal(r.journal.size('example.test').changes, 2);
    const got = answers(r.handle(ixfrQuery(10), 'tcp', '127.0.0.1')).map(brief);
    assert.deepEqual(got, [
      'SOA 12',
      'SOA 10',
      'www.example.test A 192.0.2.10',
      'SOA 11',
      'www.example.test A 192.0.2.11',
      'new.example.test A 192.0.2.111',
      'SOA 11',
      'www.example.test A 192.0.2.11',
      'new.example.test A 192.0.2.111',
      'SOA 12',
      'www.example.test A 192.0.2.12',
      'new.example.test A 192.0.2.112',
      'SOA 12',
    ]);
    assert.deepEqual(
      answers(r.handle(ixfrQuery(11), 'tcp', '127.0.0.1'))
        .map(brief)
        .slice(0, 2),
      ['SOA 12', 'SOA 11'],
    );
  });

  test('up to date (or ahead): the current SOA alone', () => {
    const r = responder();
    r.setZone(version(10));
    r.setZone(version(11));
    for (const serial of [11, 12]) assert.deepEqual(answers(r.handle(ixfrQuery(serial), 'tcp', '127.0.0.1')).map(brief), ['SOA 11']);
  });

  test('unknown, too old or missing serial, and journal 0: a full transfer', () => {
    const r = responder(['127.0.0.0/8'], { changes: 2, bytes: 1 << 20 });
    for (let s = 10; s <= 13; s++) r.setZone(version(s));
    const full = (serial: number | undefined, resp = r): void => {
      const a = answers(resp.handle(ixfrQuery(serial), 'tcp', '127.0.0.1'));
      assert.equal(a.filter((x) => x.type === 'SOA').length, 2, `serial ${String(serial)}`);
      assert.ok(a.length > 20, 'whole zone');
      assert.equal(serialOf(a[1]) === 13 || a[1]?.type !== 'SOA', true, 'AXFR-style: second record is not an old SOA');
    };
    full(10);
    full(5);
    full(undefined);
    assert.equal(answers(r.handle(ixfrQuery(11), 'tcp', '127.0.0.1'))[1]?.type, 'SOA', 'kept: incremental');
    const off = responder(['127.0.0.0/8'], { changes: 0, bytes: 1 << 20 });
    off.setZone(version(10));
    off.setZone(version(11));
    full(10, off);
    r.setZone(version(9));
    assert.equal(r.journal.size('example.test').changes, 0, 'a serial that goes back drops the journal');
    full(8);
  });

  test('UDP: incremental when it fits, else the SOA alone; SOA alone without transfer rights', () => {
    const r = responder();
    r.setZone(version(10));
    r.setZone(version(11));
    const small = answers(r.handle(ixfrQuery(10, { edns: 1232 }), 'udp', '127.0.0.1'));
    assert.equal(small.length, 6);
    const big = Array.from({ length: 100 }, (_, i) => ({ name: `h${i}.example.test`, type: 'A' as const, ttl: 60, rdata: ['192.0.2.9'] }));
    r.setZone(version(12, big));
    assert.deepEqual(answers(r.handle(ixfrQuery(11), 'udp', '127.0.0.1')).map(brief), ['SOA 12'], 'too large for 512 bytes');
    assert.ok(answers(r.handle(ixfrQuery(11), 'tcp', '127.0.0.1')).length > 100);
    assert.deepEqual(answers(r.handle(ixfrQuery(11), 'udp', '10.9.9.9')).map(brief), ['SOA 12']);
  });

  test('access: refused over TCP without CIDR or TSIG; signed from anywhere, every message signed', () => {
    const r = responder([]);
    r.setZone(version(10));
    r.setZone(version(11));
    assert.equal((dnsPacket.decode(r.handle(ixfrQuery(10), 'tcp', '10.1.1.1') as Buffer) as { rcode?: string }).rcode, 'REFUSED');
    const msgs = r.handle(sign(ixfrQuery(10, { id: 77 }), KEY, 1000).message, 'tcp', '203.0.113.9');
    assert.ok(Array.isArray(msgs));
    for (const m of msgs) {
      const d = dnsPacket.decode(m);
      assert.equal(d.additionals?.at(-1)?.type, 'TSIG');
    }
    assert.deepEqual(answers(msgs).map(brief).slice(0, 2), ['SOA 11', 'SOA 10']);
  });

  test('content loaded as provisional is no base of a difference: IXFR from its serial is answered in full', () => {
    const r = responder();
    r.setZone({ ...version(10), provisional: true });
    r.setZone(version(11));
    assert.equal(r.journal.size('example.test').changes, 0, 'no journal entry after provisional content');
    const a = answers(r.handle(ixfrQuery(10), 'tcp', '127.0.0.1'));
    assert.ok(a.length > 20, 'whole zone');
    assert.equal(a.filter((x) => x.type === 'SOA').length, 2);
    assert.equal(serialOf(a[0]), 11);
    assert.notEqual(serialOf(a[1]), 10, 'AXFR-style: no old SOA second');
    // From the first content that is not provisional on, swaps are journaled again.
    r.setZone(version(12));
    assert.equal(r.journal.size('example.test').changes, 1);
    assert.deepEqual(
      answers(r.handle(ixfrQuery(11), 'tcp', '127.0.0.1'))
        .map(brief)
        .slice(0, 2),
      ['SOA 12', 'SOA 11'],
    );
    // The same through the packed form a DNS thread or worker receives.
    const packed = responder();
    packed.setZone(new ZoneReader(packZone({ ...version(10), provisional: true })));
    packed.setZone(new ZoneReader(packZone(version(11))));
    assert.equal(packed.journal.size('example.test').changes, 0);
    packed.setZone(new ZoneReader(packZone(version(12))));
    assert.equal(packed.journal.size('example.test').changes, 1);
  });

  test('a large change splits over several TCP messages', () => {
    const r = responder();
    r.setZone(version(10));
    const many = Array.from({ length: 3000 }, (_, i) => ({ name: `h${i}.example.test`, type: 'A' as const, ttl: 60, rdata: ['192.0.2.9'] }));
    r.setZone(version(11, many));
    const msgs = r.handle(ixfrQuery(10), 'tcp', '127.0.0.1');
    assert.ok(Array.isArray(msgs) && msgs.length > 1);
    const a = answers(msgs);
    assert.equal(a.length, 3000 + 6);
    assert.equal(serialOf(a.at(-1)), 11);
  });
});
