/**
 * PeerFollower against a real leader (Hostwarden's DnsServer on 127.0.0.1, transfers signed with
 * the set's TSIG key) and a real ZoneStore in a temporary directory as the follower's copy.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseZone, serializeZone } from '../../dns/master-file.ts';
import { DnsServer } from '../../dns/server/server.ts';
import type { TransferResult } from '../../dns/transfer/client.ts';
import type { Target } from '../../dns/transfer/net.ts';
import { tsigKey } from '../../dns/tsig.ts';
import type { ZoneContent } from '../../dns/zone-content.ts';
import { silentLogger } from '../../log.ts';
import { sampleZone } from '../../../test/dns/sample-zone.ts';
import { capturingLogger } from '../../../test/support/log-capture.ts';
import { transferZone } from '../../dns/transfer/client.ts';
import { PeerFollower } from './follower.ts';
import type { FollowerOptions } from './follower.ts';
import { ZoneStore } from './zone-store.ts';

const ZONE = 'example.test';
const S = 1_700_000_000;
const KEY = tsigKey('hmac-sha256', 'hostwarden-peer', Buffer.from('the-set-peer-secret-0123456789ab').toString('base64'));
const WRONG = tsigKey('hmac-sha256', 'hostwarden-peer', Buffer.from('not-the-set-secret-0123456789abc').toString('base64'));

/** The leader's content at `serial`: the sample zone plus one host per `hosts`. */
function leaderZone(serial: number, hosts: string[] = []): ZoneContent {
  const z = sampleZone(ZONE, serial);
  for (const [i, h] of hosts.entries()) z.rrsets.push({ name: `${h}.${ZONE}`, type: 'A', ttl: 60, rdata: [`198.51.100.${i + 1}`] });
  return z;
}

const text = (z: ZoneContent): string => serializeZone(parseZone(serializeZone(z), z.origin, 'expected'));

/** A port nothing listens on (UDP or TCP): bound once, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('PeerFollower', () => {
  let leader: DnsServer;
  let target: Target;
  const dirs: string[] = [];

  before(async () => {
    // Transfers only with the set's key: no CIDR admits the follower.
    leader = new DnsServer({ listen: ['127.0.0.1:0'], allowTransfer: [], tsigKeys: [KEY], inline: true, logger: silentLogger() });
    await leader.zoneChanged(leaderZone(S, ['a']));
    const port = (await leader.start()).addresses[0]?.tcp.port ?? 0;
    target = { host: '127.0.0.1', port };
  });
  after(async () => {
    await leader.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  /** A follower over a fresh store whose made-up serial is `freshSerial`. */
  async function follower(
    freshSerial: number,
    opts: Partial<FollowerOptions> = {},
    zones: string[] = [ZONE],
  ): Promise<{ f: PeerFollower; store: ZoneStore; kinds: (TransferResult['kind'] | 'failed')[] }> {
    const dir = await mkdtemp(join(tmpdir(), 'hostwarden-follower-'));
    dirs.push(dir);
    const store = new ZoneStore({ dataDir: dir, zones, logger: silentLogger(), now: () => freshSerial * 1000 });
    await store.open();
    assert.equal(store.content(ZONE).soa.serial, freshSerial);
    const kinds: (TransferResult['kind'] | 'failed')[] = [];
    const f = new PeerFollower({
      store,
      logger: silentLogger(),
      leader: () => target,
      tsig: KEY,
      refreshMs: 60_000,
      transferTimeoutMs: 5000,
      events: { transferred: (_zone, kind) => void kinds.push(kind) },
      ...opts,
    });
    return { f, store, kinds };
  }

  test("the first refresh adopts the leader's zone in full even when the fresh serial equals the leader's", async () => {
    const current = leaderZone(S, ['a']);
    await leader.zoneChanged(current);
    const { f, store, kinds } = await follower(S);
    assert.notEqual(text(store.content(ZONE)), text(current), 'same serial, other content');
    await f.refresh();
    assert.deepEqual(kinds, ['axfr']);
    assert.equal(text(store.content(ZONE)), text(current));
    assert.equal(f.notReady(), undefined);
    await store.close();
  });

  test("the first refresh adopts the leader's zone when the fresh serial is higher, then follows by IXFR", async () => {
    const current = leaderZone(S, ['a']);
    await leader.zoneChanged(current);
    const { f, store, kinds } = await follower(S + 1000);
    await f.refresh();
    assert.deepEqual(kinds, ['axfr']);
    assert.equal(store.content(ZONE).soa.serial, S);
    assert.equal(text(store.content(ZONE)), text(current));

    const next = leaderZone(S + 1, ['a', 'b']);
    await leader.zoneChanged(next);
    await f.refresh();
    assert.deepEqual(kinds, ['axfr', 'ixfr']);
    assert.equal(text(store.content(ZONE)), text(next));
    await f.refresh();
    assert.deepEqual(kinds, ['axfr', 'ixfr'], 'current: no transfer');
    await store.close();
  });

  test('once caught up, a leader with a lower serial is not followed; readiness stays', async () => {
    await leader.zoneChanged(leaderZone(S + 10, ['a']));
    const { f, store, kinds } = await follower(S);
    await f.refresh();
    const ours = text(store.content(ZONE));
    await leader.zoneChanged(leaderZone(S + 5, ['other']));
    await f.refresh();
    assert.deepEqual(kinds, ['axfr']);
    assert.equal(store.content(ZONE).soa.serial, S + 10);
    assert.equal(text(store.content(ZONE)), ours);
    assert.equal(f.notReady(), undefined);
    await store.close();
  });

  test('notReady: no leader, then behind, then undefined once caught up, and sticky', async () => {
    await leader.zoneChanged(leaderZone(S + 20, ['a']));
    let published: Target | undefined;
    let holder = '';
    const { f, store } = await follower(S, { leader: () => published, holder: () => holder });
    assert.equal(f.notReady(), 'waiting for the leader to publish its zones');
    await f.refresh();
    holder = 'old-pod_1234';
    // An older Hostwarden holding the Lease never publishes: the message names it.
    assert.equal(f.notReady(), 'waiting for the leader (old-pod_1234) to publish its zones');
    published = { host: '127.0.0.1', port: await closedPort() };
    assert.match(f.notReady() ?? '', /^catching up with the leader \(its zones\)$/);
    published = target;
    await f.refresh();
    assert.equal(f.notReady(), undefined);
    published = undefined;
    assert.equal(f.notReady(), undefined, 'sticky without a leader');
    published = { host: '127.0.0.1', port: await closedPort() };
    await f.refresh();
    assert.equal(f.notReady(), undefined, 'sticky while the leader does not answer');
    await store.close();
  });

  test("a wrong TSIG key fails the transfer (kind 'failed'), and notReady says why", async () => {
    await leader.zoneChanged(leaderZone(S + 30, ['a']));
    const { f, store, kinds } = await follower(S, { tsig: WRONG });
    await f.refresh();
    assert.deepEqual(kinds, ['failed']);
    assert.equal(store.content(ZONE).soa.serial, S, 'our copy unchanged');
    assert.match(f.notReady() ?? '', /^catching up with the leader \(example\.test\): .*(TSIG|BADSIG|NOTAUTH)/i);
    await store.close();
  });

  test('lookAgain is called when no leader is known, and when the leader does not answer', async () => {
    const published: { at?: Target } = {};
    let looks = 0;
    const { f, store, kinds } = await follower(S, { leader: () => published.at, lookAgain: () => void looks++ });
    await f.refresh();
    assert.equal(looks, 1, 'no leader published');
    published.at = { host: '127.0.0.1', port: await closedPort() };
    await f.refresh();
    assert.equal(looks, 2, 'a transport failure');
    assert.match(f.notReady() ?? '', /^catching up with the leader \(example\.test\): /);
    assert.deepEqual(kinds, ['failed'], 'counted as a failed refresh');
    await store.close();
  });

  test('wake() refreshes at once instead of at the end of the period', async () => {
    await leader.zoneChanged(leaderZone(S + 40, ['a']));
    let published: Target | undefined;
    const { f, store } = await follower(S, { leader: () => published, refreshMs: 60_000 });
    f.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(f.notReady(), 'waiting for the leader to publish its zones');
      published = target;
      f.wake();
      await waitFor('caught up after wake()', () => f.notReady() === undefined);
      assert.equal(store.content(ZONE).soa.serial, S + 40);
    } finally {
      await f.stop();
      await store.close();
    }
  });

  /** Our copy at the leader's serial with other records: the leader's next IXFR deletes what we lack. */
  const diverge = (store: ZoneStore, serial: number): Promise<void> => store.replace(leaderZone(serial, ['x']));

  test('an IXFR that does not fit our copy (diverged) falls back to a full transfer', async () => {
    await leader.zoneChanged(leaderZone(S + 50, ['a']));
    const { lines, logger } = capturingLogger();
    const { f, store, kinds } = await follower(S, { logger });
    await f.refresh();
    await diverge(store, S + 50);
    const next = leaderZone(S + 51, ['b']);
    await leader.zoneChanged(next);
    await f.refresh();
    assert.deepEqual(kinds, ['axfr', 'axfr']);
    assert.ok(
      lines.some((l) => l.msg.startsWith('our copy diverged') && /deletes a\.example\.test/.test(String(l['err']))),
      'the IXFR was tried and refused as diverged',
    );
    assert.equal(text(store.content(ZONE)), text(next));
    assert.equal(f.notReady(), undefined);
    await store.close();
  });

  test('notReady keeps why a zone is behind when a later zone is current (here: a zone the leader does not serve)', async () => {
    await leader.zoneChanged(leaderZone(S + 70, ['a']));
    // a.test sorts first and the leader answers REFUSED for it; example.test then succeeds.
    const { f, store, kinds } = await follower(S, {}, ['a.test', ZONE]);
    await f.refresh();
    assert.deepEqual(kinds, ['failed', 'axfr']);
    assert.match(f.notReady() ?? '', /^catching up with the leader \(a\.test\): .*REFUSED/);
    await f.refresh();
    assert.match(f.notReady() ?? '', /^catching up with the leader \(a\.test\): .*REFUSED/, 'still behind: never ready');
    await store.close();
  });

  test("a full transfer after a diverged IXFR that fails is counted as 'failed'", async () => {
    await leader.zoneChanged(leaderZone(S + 60, ['a']));
    // A byte limit the first full transfer fits exactly: the next zone is larger, its difference is not.
    const limit = (await transferZone(target, ZONE, { timeoutMs: 5000, maxBytes: 2 ** 20, tsig: KEY })).stats.bytes;
    const next = leaderZone(S + 61, ['b']);
    next.rrsets.push({ name: `pad.${ZONE}`, type: 'TXT', ttl: 60, rdata: Array.from({ length: 6 }, (_, i) => `${i}${'p'.repeat(200)}`) });
    const { lines, logger } = capturingLogger();
    const { f, store, kinds } = await follower(S, { logger, maxTransferBytes: limit });
    await f.refresh();
    assert.deepEqual(kinds, ['axfr']);
    await diverge(store, S + 60);
    await leader.zoneChanged(next);
    await f.refresh();
    assert.ok(
      lines.some((l) => l.msg.startsWith('our copy diverged')),
      'the IXFR fit the limit and was refused as diverged',
    );
    assert.deepEqual(kinds, ['axfr', 'failed']);
    assert.equal(store.content(ZONE).soa.serial, S + 60, 'our copy unchanged');
    await store.close();
  });
});
