import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LABEL_OWNED_RECORD, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../../endpoint/endpoint.ts';
import { absentPrerequisites, groupCreates, guardedGroup, settleGuarded } from './guarded-creates.ts';
import type { GuardedGroup, GuardedOutcome } from './guarded-creates.ts';
import type { AddRR, Prerequisite, UpdateRR } from './update-message.ts';

function ep(dnsName: string, recordType: RecordType, targets: string[], owned?: string): Endpoint {
  return newEndpoint({ dnsName, recordType, targets, ...(owned === undefined ? {} : { labels: { [LABEL_OWNED_RECORD]: owned } }) });
}

const additions = (name: string, e: Endpoint): AddRR[] => e.targets.map((rdata) => ({ op: 'add', name, type: e.recordType, ttl: 300, rdata }));

/** A zone as RFC 2136 section 3.2 evaluates prerequisites: all must hold, or nothing is applied. */
class FakeZone {
  readonly sets = new Map<string, string[]>();
  readonly messages: { prerequisites: number; updates: number }[] = [];
  constructor(initial: Record<string, string[]> = {}) {
    for (const [k, v] of Object.entries(initial)) this.sets.set(k, [...v]);
  }
  holds(p: Prerequisite): boolean {
    switch (p.op) {
      case 'nameUnused':
        return ![...this.sets.keys()].some((k) => k.startsWith(`${p.name} `));
      case 'rrsetAbsent':
        return !this.sets.has(`${p.name} ${p.type}`);
      case 'rrsetEquals':
        return JSON.stringify([...(this.sets.get(`${p.name} ${p.type}`) ?? [])].sort()) === JSON.stringify([...p.rdata].sort());
    }
  }
  send = (_zone: string, prerequisites: Prerequisite[], updates: UpdateRR[]): Promise<boolean> => {
    this.messages.push({ prerequisites: prerequisites.length, updates: updates.length });
    if (!prerequisites.every((p) => this.holds(p))) return Promise.resolve(false);
    for (const u of updates) {
      if (u.op !== 'add') continue;
      const key = `${u.name} ${u.type}`;
      this.sets.set(key, [...(this.sets.get(key) ?? []), u.rdata]);
    }
    return Promise.resolve(true);
  };
}

const OURS = 'heritage=external-dns,external-dns/owner=us';
const THEIRS = 'heritage=external-dns,external-dns/owner=them';

function groups(creates: Endpoint[]): GuardedGroup[] {
  return groupCreates(creates).map((g) => guardedGroup('example.test', g, additions));
}

async function settle(zone: FakeZone, creates: Endpoint[]): Promise<GuardedOutcome> {
  const out: GuardedOutcome = { created: [], inPlace: [], taken: [] };
  await settleGuarded('example.test', groups(creates), zone.send, out);
  return out;
}

const names = (list: GuardedGroup[]): string[] => list.flatMap((g) => g.records).sort();

describe('guarded creates (--no-rfc2136-axfr)', () => {
  test('an ownership TXT joins the record it names; records of one name travel together', () => {
    const grouped = groupCreates([
      ep('web.example.test', 'A', ['192.0.2.1']),
      ep('web.example.test', 'AAAA', ['2001:db8::1']),
      ep('app.example.test', 'CNAME', ['lb.example.net']),
      ep('a-web.example.test', 'TXT', [OURS], 'web.example.test'),
      ep('aaaa-web.example.test', 'TXT', [OURS], 'web.example.test'),
      ep('cname-app.example.test', 'TXT', [OURS], 'APP.example.test.'),
      ep('note.example.test', 'TXT', ['hello']),
    ]);
    assert.deepEqual(
      grouped.map((g) => [g.name, g.endpoints.map((e) => `${e.dnsName} ${e.recordType}`)]),
      [
        ['web.example.test', ['web.example.test A', 'web.example.test AAAA', 'a-web.example.test TXT', 'aaaa-web.example.test TXT']],
        ['app.example.test', ['app.example.test CNAME', 'cname-app.example.test TXT']],
        ['note.example.test', ['note.example.test TXT']],
      ],
    );
  });

  test('prerequisites: a CNAME needs the name unused; other types need their RRset and a CNAME absent', () => {
    assert.deepEqual(absentPrerequisites('app.example.test', 'CNAME'), [{ op: 'nameUnused', name: 'app.example.test' }]);
    assert.deepEqual(absentPrerequisites('web.example.test', 'A'), [
      { op: 'rrsetAbsent', name: 'web.example.test', type: 'A' },
      { op: 'rrsetAbsent', name: 'web.example.test', type: 'CNAME' },
    ]);
    const [g] = groups([ep('web.example.test', 'A', ['192.0.2.1']), ep('web.example.test', 'AAAA', ['2001:db8::1'])]);
    assert.equal(g?.absent.filter((p) => p.op === 'rrsetAbsent' && p.type === 'CNAME').length, 1, 'the shared CNAME check is sent once');
  });

  test('a fresh name is created; a taken name is left byte-identical; ours from an earlier sync is in place', async () => {
    const zone = new FakeZone({
      'app.example.test CNAME': ['their-lb.example.net'],
      'cname-app.example.test TXT': [THEIRS],
      'web.example.test A': ['203.0.113.1'],
      'a-web.example.test TXT': [THEIRS],
      'mine.example.test A': ['192.0.2.7'],
      'a-mine.example.test TXT': [OURS],
      'orphan.example.test A': ['192.0.2.8'],
    });
    const before = JSON.stringify([...zone.sets]);
    const out = await settle(zone, [
      ep('app.example.test', 'CNAME', ['our-lb.example.net']),
      ep('web.example.test', 'A', ['192.0.2.1']),
      ep('mine.example.test', 'A', ['192.0.2.7']),
      ep('orphan.example.test', 'AAAA', ['2001:db8::8']),
      ep('fresh.example.test', 'A', ['192.0.2.9']),
      ep('cname-app.example.test', 'TXT', [OURS], 'app.example.test'),
      ep('a-web.example.test', 'TXT', [OURS], 'web.example.test'),
      ep('a-mine.example.test', 'TXT', [OURS], 'mine.example.test'),
      ep('aaaa-orphan.example.test', 'TXT', [OURS], 'orphan.example.test'),
      ep('a-fresh.example.test', 'TXT', [OURS], 'fresh.example.test'),
    ]);
    assert.deepEqual(names(out.created), ['a-fresh.example.test TXT', 'aaaa-orphan.example.test TXT', 'fresh.example.test A', 'orphan.example.test AAAA']);
    assert.deepEqual(names(out.inPlace), ['a-mine.example.test TXT', 'mine.example.test A']);
    assert.deepEqual(names(out.taken), ['a-web.example.test TXT', 'app.example.test CNAME', 'cname-app.example.test TXT', 'web.example.test A']);
    const after = new Map(zone.sets);
    for (const [k, v] of JSON.parse(before) as [string, string[]][]) assert.deepEqual(after.get(k), v, `${k} unchanged`);
    assert.equal(after.size, new Map(JSON.parse(before) as [string, string[]][]).size + 4);
  });

  test('steady state: a batch whose every group is already in place costs two messages', async () => {
    const creates = (n: number): Endpoint[] =>
      Array.from({ length: n }, (_, i) => [
        ep(`h${i}.example.test`, 'A', ['192.0.2.1']),
        ep(`a-h${i}.example.test`, 'TXT', [OURS], `h${i}.example.test`),
      ]).flat();
    const zone = new FakeZone();
    assert.equal((await settle(zone, creates(50))).created.length, 50);
    assert.equal(zone.messages.length, 1);
    zone.messages.length = 0;
    assert.equal((await settle(zone, creates(50))).inPlace.length, 50);
    assert.deepEqual(zone.messages, [
      { prerequisites: 100 * 2, updates: 100 },
      { prerequisites: 100, updates: 0 },
    ]);
  });

  test('one taken name among many: the others are created, in a bounded number of messages', async () => {
    const zone = new FakeZone({ 'h17.example.test A': ['203.0.113.1'] });
    const creates = Array.from({ length: 32 }, (_, i) => ep(`h${i}.example.test`, 'A', ['192.0.2.1']));
    const out = await settle(zone, creates);
    assert.equal(out.created.length, 31);
    assert.deepEqual(names(out.taken), ['h17.example.test A']);
    assert.deepEqual(zone.sets.get('h17.example.test A'), ['203.0.113.1']);
    // Halving: two messages per level on the path to the taken group, one per created half.
    assert.ok(zone.messages.length <= 2 * Math.log2(32) * 2 + 2, `${zone.messages.length} messages`);
  });
});
