import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ZoneContent } from '../zone-content.ts';
import { message, soa } from '../../../test/support/transfer-messages.ts';
import type { Crafted } from '../../../test/support/transfer-messages.ts';
import { applyChanges, zoneFromRecords } from './apply.ts';
import { TransferError } from './errors.ts';
import { readAnswers } from './records.ts';
import { TransferReader, serialBefore } from './stream.ts';
import type { ParsedTransfer } from './stream.ts';

const Z = 'example.test';

function read(messages: Crafted[][], fromSerial?: number): ParsedTransfer {
  const reader = new TransferReader(Z, fromSerial);
  for (const m of messages) {
    for (const rec of readAnswers(message(m)) ?? []) reader.push(rec);
    reader.endOfMessage();
    if (reader.done) break;
  }
  return reader.result();
}

function fails(fn: () => unknown, reason: string, pattern: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof TransferError, String(err));
    assert.equal(err.reason, reason);
    assert.match(err.message, pattern);
    return true;
  });
}

const current: ZoneContent = {
  origin: Z,
  soa: soa(1),
  rrsets: [
    { name: Z, type: 'NS', ttl: 3600, rdata: [`ns1.${Z}`] },
    { name: `www.${Z}`, type: 'A', ttl: 60, rdata: ['192.0.2.1', '192.0.2.2'] },
  ],
};

describe('transfer stream reader', () => {
  test('RFC 1982 serial order wraps', () => {
    assert.ok(serialBefore(1, 2));
    assert.ok(serialBefore(0xffffffff, 0));
    assert.ok(!serialBefore(2, 2));
    assert.ok(!serialBefore(5, 1));
  });

  test('AXFR over two messages; every served type decodes to the canonical text', () => {
    const records: Crafted[] = [
      [Z, 'NS', `ns1.${Z}`, 3600],
      [Z, 'MX', `10 mail.${Z}`],
      [Z, 'TXT', 'x'.repeat(300)],
      [Z, 'CAA', '0 issue letsencrypt.org'],
      [`www.${Z}`, 'AAAA', '2001:db8:0:0::1'],
      [`_sip._tcp.${Z}`, 'SRV', `10 60 5060 mail.${Z}`],
      [`n.${Z}`, 'NAPTR', '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.test!" .'],
      [`d.${Z}`, 'DNAME', 'example.org'],
      [`p.${Z}`, 'PTR', `www.${Z}`],
    ];
    const parsed = read([
      [soa(7), ...records.slice(0, 4)],
      [...records.slice(4), soa(7)],
    ]);
    assert.equal(parsed.kind, 'axfr');
    if (parsed.kind !== 'axfr') return;
    const z = zoneFromRecords(Z, parsed.soa, parsed.records);
    const text = (name: string, type: string): string[] | undefined => z.rrsets.find((s) => s.name === name && s.type === type)?.rdata;
    assert.deepEqual(text(Z, 'TXT'), ['x'.repeat(300)]);
    assert.deepEqual(text(`www.${Z}`, 'AAAA'), ['2001:db8::1']);
    assert.deepEqual(text(Z, 'CAA'), ['0 issue letsencrypt.org']);
    assert.deepEqual(text(`n.${Z}`, 'NAPTR'), ['100 10 "U" "E2U+sip" "!^.*$!sip:info@example.test!" .']);
    assert.deepEqual(text(`_sip._tcp.${Z}`, 'SRV'), [`10 60 5060 mail.${Z}`]);
    assert.equal(z.rrsets.length, 9);
  });

  test('IXFR with a chain of two changes applies deletions then additions', () => {
    const parsed = read(
      [
        [soa(3), soa(1), [`www.${Z}`, 'A', '192.0.2.1', 60], soa(2), [`new.${Z}`, 'A', '192.0.2.9']],
        [soa(2), [`new.${Z}`, 'A', '192.0.2.9'], soa(3), [`www.${Z}`, 'A', '192.0.2.3', 30], soa(3)],
      ],
      1,
    );
    assert.equal(parsed.kind, 'ixfr');
    if (parsed.kind !== 'ixfr') return;
    assert.equal(parsed.changes.length, 2);
    const z = applyChanges(current, parsed.changes, parsed.soa);
    assert.equal(z.soa.serial, 3);
    assert.deepEqual(z.rrsets, [
      { name: Z, type: 'NS', ttl: 3600, rdata: [`ns1.${Z}`] },
      { name: `www.${Z}`, type: 'A', ttl: 30, rdata: ['192.0.2.2', '192.0.2.3'] },
    ]);
  });

  test('the SOA alone is "up to date" at our serial; refused when newer or older', () => {
    assert.equal(read([[soa(4)]], 4).kind, 'current');
    fails(() => read([[soa(5)]], 4), 'malformed', /SOA alone with serial 5, newer than ours \(4\)/);
    fails(() => read([[soa(3)]], 4), 'serial', /serial 3 is before ours \(4\); it went backwards/);
  });

  test('a broken chain, a change going backwards, a first change not at our serial', () => {
    fails(
      () => read([[soa(4), soa(1), soa(2), soa(3), soa(4), soa(4)]], 1),
      'malformed',
      /broken chain: a change starts at serial 3, the one before ended at 2/,
    );
    fails(() => read([[soa(4), soa(1), soa(0), soa(4)]], 1), 'serial', /from serial 1 to 0, backwards/);
    fails(() => read([[soa(4), soa(2), soa(4), soa(4)]], 1), 'malformed', /first change starts at serial 2, not at ours \(1\)/);
  });

  test('a stream must end with the SOA it started with, and nothing after it', () => {
    fails(() => read([[soa(7), [`a.${Z}`, 'A', '192.0.2.1'], soa(7, 'other.test')]]), 'malformed', /ends with a different SOA/);
    fails(() => read([[soa(7), [`a.${Z}`, 'A', '192.0.2.1'], soa(7), [`b.${Z}`, 'A', '192.0.2.2']]]), 'malformed', /after the closing SOA/);
    fails(() => read([[soa(7), [`a.${Z}`, 'A', '192.0.2.1']]]), 'malformed', /ended before its closing SOA/);
    fails(() => read([[[`a.${Z}`, 'A', '192.0.2.1'], soa(7)]]), 'malformed', /does not start with the SOA/);
    fails(() => read([[soa(7), ['a.example.org', 'A', '192.0.2.1'], soa(7)]]), 'malformed', /a\.example\.org is outside the zone/);
  });

  test('an IXFR that deletes what the local copy does not hold is refused as diverged', () => {
    const parsed = read([[soa(2), soa(1), [`gone.${Z}`, 'A', '192.0.2.77'], soa(2), soa(2)]], 1);
    assert.equal(parsed.kind, 'ixfr');
    if (parsed.kind !== 'ixfr') return;
    fails(
      () => applyChanges(current, parsed.changes, parsed.soa),
      'diverged',
      /deletes gone\.example\.test A "192\.0\.2\.77", which the local copy does not hold/,
    );
  });

  test('a truncated record makes the message unreadable', () => {
    const m = message([soa(1), [`a.${Z}`, 'A', '192.0.2.1']]);
    assert.equal(readAnswers(m.subarray(0, m.length - 2)), undefined);
  });
});
