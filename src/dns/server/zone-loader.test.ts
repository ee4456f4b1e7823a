import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../log.ts';
import { sampleZone } from '../../../test/dns/sample-zone.ts';
import { Responder } from './responder.ts';
import type { ZoneContent } from '../zone-content.ts';
import { ZoneLoader } from './zone-loader.ts';
import type { ZoneApplied } from './zone-loader.ts';

function query(name: string): Buffer {
  const labels = name.split('.').flatMap((l) => [Buffer.from([l.length]), Buffer.from(l)]);
  const head = Buffer.alloc(12);
  head.writeUInt16BE(1, 4);
  return Buffer.concat([head, ...labels, Buffer.from([0, 0, 1, 0, 1])]);
}

function bigZone(serial: number, hosts: number): ZoneContent {
  const zone = sampleZone('example.test', serial);
  for (let i = 0; i < hosts; i++) zone.rrsets.push({ name: `h${i}.example.test`, type: 'A', ttl: 60, rdata: [`10.0.${(i >> 8) & 255}.${i & 255}`] });
  return zone;
}

test('a large zone is built in slices: queries meanwhile are answered from the previous content', async () => {
  const responder = new Responder({ logger: silentLogger() });
  const applied: ZoneApplied[] = [];
  const loader = new ZoneLoader({ responder, logger: silentLogger(), onApplied: (a) => applied.push(a) });
  loader.load('example.test', 1, () => sampleZone('example.test', 1));
  await loader.idle();
  assert.deepEqual(applied, [{ origin: 'example.test', seq: 1, records: responder.zoneList()[0]?.recordCount }]);

  loader.load('example.test', 2, () => bigZone(2, 20_000));
  let turns = 0;
  let answeredOld = 0;
  // Every event-loop turn while the build runs is a chance to answer (bounded: 20k sets take far fewer turns).
  while (applied.length === 1 && turns < 100_000) {
    await new Promise((r) => setImmediate(r));
    turns++;
    const reply = responder.handle(query('h1.example.test'), 'udp', '127.0.0.1');
    if (Buffer.isBuffer(reply) && (reply[3] ?? 0) % 16 === 3) answeredOld++;
  }
  assert.equal(applied[1]?.seq, 2);
  assert.ok(turns > 2, `built in ${turns} turns`);
  assert.ok(answeredOld > 0, 'the old content (NXDOMAIN for h1) answered while the new one was built');
  const after = responder.handle(query('h1.example.test'), 'udp', '127.0.0.1');
  assert.ok(Buffer.isBuffer(after) && after.readUInt16BE(6) === 1);
});

test('content superseded while it waited is never read; a failing zone keeps the previous content', async () => {
  const responder = new Responder({ logger: silentLogger() });
  const applied: ZoneApplied[] = [];
  const loader = new ZoneLoader({ responder, logger: silentLogger(), onApplied: (a) => applied.push(a) });
  const read: number[] = [];
  for (const seq of [1, 2, 3]) {
    loader.load('example.test', seq, () => {
      read.push(seq);
      return sampleZone('example.test', seq);
    });
  }
  loader.load('other.test', 4, () => sampleZone('other.test', 4));
  await loader.idle();
  assert.deepEqual(read, [3]);
  assert.deepEqual(
    applied.map((a) => [a.origin, a.seq]),
    [
      ['example.test', 3],
      ['other.test', 4],
    ],
  );

  loader.load('example.test', 5, () => ({ ...sampleZone('example.test', 5), soa: undefined as never }));
  await loader.idle();
  assert.equal(applied[2]?.seq, 5);
  assert.match(applied[2]?.error ?? '', /./);
  assert.equal(responder.zoneList().find((z) => z.origin === 'example.test')?.serial, 3);

  loader.remove('other.test', 6);
  await loader.idle();
  assert.deepEqual(applied[3], { origin: 'other.test', seq: 6, records: 0 });
  assert.deepEqual(
    responder.zoneList().map((z) => z.origin),
    ['example.test'],
  );
});
