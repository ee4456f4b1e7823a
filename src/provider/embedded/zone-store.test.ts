import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZoneFileError } from '../../dns/master-file.ts';
import { ConfigError } from '../../errors.ts';
import type { RRSet, ZoneContent } from '../../dns/zone-content.ts';
import { silentLogger } from '../../log.ts';
import { PID_FILE } from './data-dir-lock.ts';
import { ZoneStore, freshSerial, nextSerial, rrsetKey, serialAfter, serialGreater } from './zone-store.ts';
import type { ZoneStoreOptions } from './zone-store.ts';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'hostwarden-store-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function store(dir: string, extra: Partial<ZoneStoreOptions> = {}): ZoneStore {
  return new ZoneStore({ dataDir: join(dir, 'data'), zones: ['example.org'], logger: silentLogger(), now: () => 1_700_000_000_000, ...extra });
}

const A: RRSet = { name: 'www.example.org', type: 'A', ttl: 300, rdata: ['192.0.2.1'] };
const put = (set: RRSet) => new Map([['example.org', (m: Map<string, RRSet>) => void m.set(rrsetKey(set.name, set.type), set)]]);

describe('ZoneStore', () => {
  test('creates missing zones with SOA, apex NS and nameserver addresses', () =>
    withDir(async (dir) => {
      const s = store(dir, { zones: ['Example.org.', 'b.test'], nameserverAddresses: ['192.0.2.53', '2001:DB8::53'] });
      await s.open();
      const z = s.content('example.org');
      assert.equal(z.soa.mname, 'ns1.example.org');
      assert.equal(z.soa.rname, 'hostmaster.example.org');
      assert.equal(z.soa.serial, 1_700_000_000);
      assert.deepEqual(
        z.rrsets.map((r) => `${r.name} ${r.type} ${r.rdata.join(',')}`),
        ['example.org NS ns1.example.org', 'ns1.example.org A 192.0.2.53', 'ns1.example.org AAAA 2001:db8::53'],
      );
      assert.deepEqual((await readdir(join(dir, 'data'))).sort(), ['b.test.zone', 'example.org.zone', PID_FILE]);
      await s.close();
    }));

  test('commit is durable, bumps the serial once and survives reopen', () =>
    withDir(async (dir) => {
      const s = store(dir);
      await s.open();
      const before = s.content('example.org').soa.serial;
      await s.commit(put(A));
      await s.commit(put({ ...A, rdata: ['192.0.2.2', '192.0.2.3'] }));
      assert.equal(s.content('example.org').soa.serial, before + 2);
      await s.close();
      const again = store(dir, { now: () => 0 });
      await again.open();
      const z = again.content('example.org');
      assert.equal(z.soa.serial, before + 2);
      assert.deepEqual(
        z.rrsets.find((r) => r.type === 'A'),
        { ...A, rdata: ['192.0.2.2', '192.0.2.3'] },
      );
      await again.commit(put({ ...A, rdata: ['192.0.2.4'] }));
      assert.equal(again.content('example.org').soa.serial, before + 3);
      await again.close();
    }));

  test('a commit that changes nothing writes nothing', () =>
    withDir(async (dir) => {
      const s = store(dir);
      await s.open();
      await s.commit(put(A));
      const serial = s.content('example.org').soa.serial;
      await s.commit(put({ ...A, rdata: ['192.0.2.1', '192.0.2.1'] }));
      assert.equal(s.content('example.org').soa.serial, serial);
      await s.close();
    }));

  test('concurrent commits are serialised and none is lost', () =>
    withDir(async (dir) => {
      const s = store(dir);
      await s.open();
      const serial = s.content('example.org').soa.serial;
      await Promise.all(Array.from({ length: 20 }, (_, i) => s.commit(put({ ...A, name: `h${i}.example.org` }))));
      assert.equal(s.content('example.org').rrsets.filter((r) => r.type === 'A').length, 20);
      assert.equal(s.content('example.org').soa.serial, serial + 20);
      await s.close();
    }));

  test('listeners hear every zone at open and after each commit', () =>
    withDir(async (dir) => {
      const s = store(dir, { zones: ['example.org', 'b.test'] });
      const early: ZoneContent[] = [];
      s.addListener({ zoneChanged: (z) => void early.push(z) });
      await s.open();
      assert.deepEqual(
        early.map((z) => z.origin),
        ['b.test', 'example.org'],
      );
      const late: string[] = [];
      s.addListener({ zoneChanged: (z) => void late.push(`${z.origin}@${z.soa.serial}`) });
      assert.equal(late.length, 2);
      await s.commit(put(A));
      assert.equal(early.length, 3);
      assert.ok(early[2]?.rrsets.some((r) => r.name === 'www.example.org'));
      assert.ok(Object.isFrozen(early[2]));
      assert.equal(late[2], `example.org@${s.content('example.org').soa.serial}`);
      await s.close();
    }));

  test('a rejected edit leaves every zone and file unchanged', () =>
    withDir(async (dir) => {
      const s = store(dir, { zones: ['example.org', 'b.test'] });
      await s.open();
      const files = await Promise.all(['b.test', 'example.org'].map((z) => readFile(s.filePath(z), 'utf8')));
      const edits = new Map([
        ['b.test', (m: Map<string, RRSet>) => void m.set(rrsetKey('x.b.test', 'A'), { ...A, name: 'x.b.test' })],
        [
          'example.org',
          (m: Map<string, RRSet>) => {
            m.set(rrsetKey('www.example.org', 'A'), A);
            m.set(rrsetKey('www.example.org', 'CNAME'), { name: 'www.example.org', type: 'CNAME', ttl: 300, rdata: ['x.b.test'] });
          },
        ],
      ]);
      await assert.rejects(s.commit(edits), /CNAME at www\.example\.org conflicts with its A records/);
      assert.deepEqual(await Promise.all(['b.test', 'example.org'].map((z) => readFile(s.filePath(z), 'utf8'))), files);
      assert.equal(s.content('b.test').rrsets.length, 1);
      await s.close();
    }));

  test('the apex NS cannot be removed', () =>
    withDir(async (dir) => {
      const s = store(dir);
      await s.open();
      await assert.rejects(s.commit(new Map([['example.org', (m: Map<string, RRSet>) => void m.delete(rrsetKey('example.org', 'NS'))]])), /apex NS/);
      await s.close();
    }));

  test('a corrupt zone file stops open with its name and line', () =>
    withDir(async (dir) => {
      const s = store(dir);
      await s.open();
      await s.close();
      const file = s.filePath('example.org');
      // Line 1 is the provisional mark of a zone made at start.
      await writeFile(file, `${await readFile(file, 'utf8')}broken.example.org. 300 IN A not-an-ip\n`);
      await assert.rejects(store(dir).open(), (err: unknown) => err instanceof ZoneFileError && err.file === file && err.line === 5);
      // The failed open freed the directory again.
      assert.deepEqual(await readdir(join(dir, 'data')), ['example.org.zone']);
    }));

  test('stale temporary files are removed at open', () =>
    withDir(async (dir) => {
      const s = store(dir);
      await s.open();
      await s.close();
      const stale = join(dir, 'data', '.example.org.zone.tmp-123-0123456789ab');
      await writeFile(stale, 'half a zone');
      const again = store(dir);
      await again.open();
      assert.deepEqual(await readdir(join(dir, 'data')), ['example.org.zone', PID_FILE]);
      await again.close();
      assert.deepEqual(await readdir(join(dir, 'data')), ['example.org.zone']);
    }));

  test('a second store on a locked directory is refused before it touches a file', () =>
    withDir(async (dir) => {
      const first = store(dir);
      await first.open();
      // A write of the first store in progress: its temporary file is not stale.
      const inFlight = join(dir, 'data', `.example.org.zone.tmp-${process.pid}-0123456789ab`);
      await writeFile(inFlight, 'half a zone');
      await assert.rejects(store(dir).open(), (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(
          err.message,
          `--embedded-data-dir ${join(dir, 'data')} is locked by Hostwarden process ${process.pid}: two processes must not share a data directory; stop it or choose another directory`,
        );
        return true;
      });
      assert.equal(await readFile(inFlight, 'utf8'), 'half a zone');
      await first.commit(put(A));
      await first.close();
      const second = store(dir);
      await second.open();
      assert.deepEqual(second.content('example.org').rrsets.find((s) => s.name === A.name)?.rdata, A.rdata);
      await second.close();
    }));

  test('a read-only store takes no lock and writes nothing', () =>
    withDir(async (dir) => {
      const missing = store(dir, { readOnly: true });
      await missing.open();
      assert.equal(missing.content('example.org').rrsets.length, 1, 'a missing zone reads as a new one');
      await assert.rejects(missing.commit(put(A)), /read-only/);
      await missing.close();
      await assert.rejects(readdir(join(dir, 'data')), /ENOENT/);
      const writer = store(dir);
      await writer.open();
      await writer.commit(put(A));
      const inFlight = join(dir, 'data', `.example.org.zone.tmp-${process.pid}-0123456789ab`);
      await writeFile(inFlight, 'half a zone');
      const reader = store(dir, { readOnly: true });
      await reader.open();
      assert.deepEqual(reader.content('example.org').rrsets.find((s) => s.name === A.name)?.rdata, A.rdata);
      await reader.close();
      assert.equal(await readFile(inFlight, 'utf8'), 'half a zone');
      await writer.close();
    }));

  test('close waits for commits accepted before it', () =>
    withDir(async (dir) => {
      const s = store(dir);
      await s.open();
      const pending = [1, 2, 3].map((i) => s.commit(put({ ...A, name: `q${i}.example.org` })));
      await s.close();
      await Promise.all(pending);
      const again = store(dir);
      await again.open();
      assert.equal(again.content('example.org').rrsets.filter((r) => r.name.startsWith('q')).length, 3);
      await again.close();
    }));

  test('commit after close is refused', () =>
    withDir(async (dir) => {
      const s = store(dir);
      await s.open();
      await s.close();
      await assert.rejects(s.commit(put(A)), /closed/);
    }));
});

test('serial wraps per RFC 1982', () => {
  assert.equal(nextSerial(7), 8);
  assert.equal(nextSerial(2 ** 32 - 1), 0);
});

describe('serial floor kept outside the data directory', () => {
  const T = 1_700_000_000;
  const floors = (serial: number): Map<string, number> => new Map([['example.org', serial]]);

  test('a fresh zone starts one past a floor at or above the clock, and at the clock otherwise', () =>
    withDir(async (dir) => {
      const s = store(dir, { serialFloors: floors(T + 40) });
      await s.open();
      assert.equal(s.content('example.org').soa.serial, T + 41);
      await s.commit(put(A));
      assert.equal(s.content('example.org').soa.serial, T + 42);
      await s.close();
      assert.equal(freshSerial(T * 1000, T), T + 1);
      assert.equal(freshSerial(T * 1000, T - 5), T);
      assert.equal(freshSerial(T * 1000, undefined), T);
    }));

  test('a file below the floor moves past it on its next change; a file above it goes on from itself', () =>
    withDir(async (dir) => {
      const first = store(dir);
      await first.open();
      await first.close();
      const below = store(dir, { serialFloors: floors(T + 100) });
      await below.open();
      // Loading changes nothing: the file keeps its serial until a change is written.
      assert.equal(below.content('example.org').soa.serial, T);
      await below.commit(put(A));
      assert.equal(below.content('example.org').soa.serial, T + 101);
      await below.close();
      const above = store(dir, { serialFloors: floors(T + 50) });
      await above.open();
      await above.commit(put({ ...A, rdata: ['192.0.2.2'] }));
      assert.equal(above.content('example.org').soa.serial, T + 102);
      await above.close();
    }));

  test('RFC 1982 comparison across the wrap', () => {
    assert.equal(serialGreater(5, 2 ** 32 - 10), true);
    assert.equal(serialGreater(2 ** 32 - 10, 5), false);
    assert.equal(serialGreater(7, 7), false);
    assert.equal(serialGreater(2 ** 31, 0), false, 'exactly 2^31 apart is undefined: not newer');
    // A floor past the wrap is newer than a current serial just below it.
    assert.equal(serialAfter(2 ** 32 - 3, 4), 5);
    assert.equal(serialAfter(4, 2 ** 32 - 3), 5);
    assert.equal(serialAfter(2 ** 32 - 1, undefined), 0);
    assert.equal(freshSerial(3_000, 2 ** 32 - 1), 3, 'a floor just before the wrap is older than a clock just after it');
    assert.equal(freshSerial(3_000, 10), 11);
  });
});

describe('replica-set operations: raiseFloors, bump, replace, reserveSerial, provisional', () => {
  const T = 1_700_000_000;
  const floors = (entries: [string, number][]): Map<string, number> => new Map(entries);
  const serialIn = (text: string): number => Number(/SOA\s+\S+\s+\S+\s+\(?\s*(\d+)/.exec(text)?.[1]);

  test('raiseFloors only raises (RFC 1982) and returns the zones now below their floor', () =>
    withDir(async (dir) => {
      const s = store(dir, { zones: ['example.org', 'b.test', 'c.test'], serialFloors: floors([['b.test', T - 10]]) });
      await s.open();
      assert.deepEqual(s.raiseFloors(new Map()), [], 'every zone starts at or above its floor');
      assert.deepEqual(
        s.raiseFloors(
          floors([
            ['example.org', T + 5],
            ['b.test', T - 20],
          ]),
        ),
        ['example.org'],
        'a lower floor for b.test is no raise',
      );
      // Across the wrap: 3 is newer than 2^32-3, and 2^32-3 is older than 3.
      assert.deepEqual(s.raiseFloors(floors([['c.test', 2 ** 32 - 3]])), ['example.org'], 'a floor before the wrap is older than T');
      assert.deepEqual(s.raiseFloors(floors([['example.org', T + 2]])), ['example.org'], 'kept at T+5, not lowered to T+2');
      assert.equal(await s.bump('example.org'), T + 6);
      assert.deepEqual(s.raiseFloors(floors([['b.test', T]])), [], 'equal to the serial is not below it');
      assert.deepEqual(s.raiseFloors(floors([['b.test', T + 1]])), ['b.test']);
      await s.close();
    }));

  test('bump moves the serial past the floor, keeps the records, writes the file, reserves before listeners hear it', () =>
    withDir(async (dir) => {
      const order: string[] = [];
      const s = store(dir, { reserveSerial: (zone, serial) => Promise.resolve(void order.push(`reserve ${zone}@${serial}`)) });
      await s.open();
      await s.commit(put(A));
      const before = s.content('example.org');
      const heard: ZoneContent[] = [];
      s.addListener({ zoneChanged: (z) => void (heard.push(z), order.push(`heard ${z.origin}@${z.soa.serial}`)) });
      order.length = 0;
      heard.length = 0;
      s.raiseFloors(floors([['example.org', T + 100]]));
      assert.equal(await s.bump('example.org'), T + 101);
      const after = s.content('example.org');
      assert.equal(after.soa.serial, T + 101);
      assert.deepEqual(after.rrsets, before.rrsets);
      assert.notEqual(after.provisional, true);
      assert.deepEqual(order, [`reserve example.org@${T + 101}`, `heard example.org@${T + 101}`]);
      assert.equal(heard.length, 1);
      assert.equal(serialIn(await readFile(s.filePath('example.org'), 'utf8')), T + 101);
      // Without a floor above it, a bump is one past the current serial.
      assert.equal(await s.bump('example.org'), T + 102);
      await s.close();
    }));

  test('a reserveSerial that rejects does not fail the bump or the commit', () =>
    withDir(async (dir) => {
      const s = store(dir, { reserveSerial: () => Promise.reject(new Error('cluster away')) });
      await s.open();
      await s.commit(put(A));
      assert.equal(s.content('example.org').soa.serial, T + 1);
      assert.equal(await s.bump('example.org'), T + 2);
      assert.equal(serialIn(await readFile(s.filePath('example.org'), 'utf8')), T + 2);
      await s.close();
    }));

  test('commit reserves each new serial before writing the file', () =>
    withDir(async (dir) => {
      const seen: { serial: number; inFile: number }[] = [];
      const file = join(dir, 'data', 'example.org.zone');
      const s = store(dir, { reserveSerial: async (_zone, serial) => void seen.push({ serial, inFile: serialIn(await readFile(file, 'utf8')) }) });
      await s.open();
      await s.commit(put(A));
      assert.deepEqual(seen, [{ serial: T + 1, inFile: T }], 'reserved while the file still held the old serial');
      assert.equal(serialIn(await readFile(file, 'utf8')), T + 1);
      await s.close();
    }));

  test('replace writes and serves the content as given, serial included; a second store reads it back', () =>
    withDir(async (dir) => {
      const s = store(dir, { reserveSerial: () => Promise.reject(new Error('a follower reserves nothing')) });
      await s.open();
      const heard: ZoneContent[] = [];
      s.addListener({ zoneChanged: (z) => void heard.push(z) });
      heard.length = 0;
      const copy: ZoneContent = {
        origin: 'example.org',
        soa: { ...s.content('example.org').soa, serial: 42, mname: 'ns.leader.example' },
        rrsets: [
          { name: 'example.org', type: 'NS', ttl: 300, rdata: ['ns.leader.example'] },
          { name: 'www.example.org', type: 'A', ttl: 60, rdata: ['192.0.2.7', '192.0.2.8'] },
        ],
      };
      await s.replace(copy);
      assert.deepEqual(s.content('example.org'), copy);
      assert.equal(heard.length, 1);
      assert.equal(heard[0]?.soa.serial, 42, 'served under the leader serial, even below the clock');
      assert.notEqual(heard[0]?.provisional, true);
      await s.close();
      const again = store(dir, { now: () => 0 });
      await again.open();
      assert.deepEqual(again.content('example.org'), copy);
      await again.close();
    }));

  test('a zone created at open is provisional; its first commit is not', () =>
    withDir(async (dir) => {
      const s = store(dir, { zones: ['example.org', 'b.test'] });
      await s.open();
      assert.equal(s.content('example.org').provisional, true);
      await s.commit(put(A));
      assert.notEqual(s.content('example.org').provisional, true);
      assert.equal(s.content('b.test').provisional, true, 'untouched zones stay provisional');
      await s.bump('b.test');
      assert.notEqual(s.content('b.test').provisional, true, 'a bumped zone is the leader content');
      await s.close();
      const again = store(dir, { zones: ['example.org', 'b.test'] });
      await again.open();
      assert.notEqual(again.content('example.org').provisional, true, 'a zone read from its file is not made up');
      await again.close();
    }));
});
