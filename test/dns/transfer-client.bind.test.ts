/**
 * The transfer client (src/dns/transfer) against a real BIND 9 primary: AXFR, IXFR from BIND's
 * journal after dynamic updates (nsupdate) applied to the old copy and compared with a fresh AXFR,
 * the up-to-date answer, TSIG with the right and a wrong key, and a transfer BIND refuses.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseZone, serializeZone } from '../../src/dns/master-file.ts';
import { querySoa, transferZone } from '../../src/dns/transfer/client.ts';
import { TransferError } from '../../src/dns/transfer/errors.ts';
import { tsigKey } from '../../src/dns/tsig.ts';
import type { ZoneContent } from '../../src/dns/zone-content.ts';
import { namedAvailable, startBind } from '../support/bind.ts';
import type { BindServer } from '../support/bind.ts';
import { sampleZone } from './sample-zone.ts';

const run = promisify(execFile);
const ZONE = 'example.test';
const SECRET = Buffer.from('transfer-client-secret-0123456789').toString('base64');
const KEY = tsigKey('hmac-sha256', 'xfr-key', SECRET);
const WRONG = tsigKey('hmac-sha256', 'xfr-key', Buffer.from('not-the-secret-at-all-0123456789').toString('base64'));
const LIMITS = { timeoutMs: 10_000, maxBytes: 16 << 20 };

/** The sample zone with enough records that BIND sends the transfer in several messages. */
function bigZone(): ZoneContent {
  const z = sampleZone(ZONE, 10);
  for (let i = 0; i < 1500; i++) z.rrsets.push({ name: `host-${i}.${ZONE}`, type: 'A', ttl: 300, rdata: [`198.51.${i >> 8}.${i & 255}`] });
  return z;
}

/** What the zone store would load: the zone through its own master-file form. */
function canonical(z: ZoneContent): ZoneContent {
  return parseZone(serializeZone(z), z.origin, 'expected');
}

async function nsupdate(port: number, lines: string[]): Promise<void> {
  const script = [`server 127.0.0.1 ${port}`, `zone ${ZONE}`, ...lines, 'send', ''].join('\n');
  const child = execFile('nsupdate', ['-t', '5'], { timeout: 15_000 });
  const done = new Promise<void>((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`nsupdate exited ${code}`)))));
  child.stdin?.end(script);
  await done;
}

describe('transfer client against BIND 9', async () => {
  const available =
    (await namedAvailable()) &&
    (await run('nsupdate', ['-V']).then(
      () => true,
      () => false,
    ));
  const skip = available ? false : 'named or nsupdate not installed (bind9, bind9-dnsutils)';
  let open: BindServer | undefined;
  let keyed: BindServer | undefined;
  const target = (b: BindServer | undefined): { host: string; port: number } => ({ host: '127.0.0.1', port: b?.port ?? 0 });

  before(async () => {
    if (!available) return;
    const extraOptions = 'allow-update { 127.0.0.1; }; ixfr-from-differences yes;';
    open = await startBind({ zones: [bigZone()], extraOptions });
    keyed = await startBind({ zones: [bigZone()], extraOptions, tsigKey: { name: KEY.name, algorithm: 'hmac-sha256', secret: SECRET } });
  });
  after(async () => {
    await open?.stop();
    await keyed?.stop();
  });

  test('AXFR equals the zone BIND loaded; querySoa gives its serial', { skip }, async () => {
    const soa = await querySoa(target(open), ZONE, { timeoutMs: 2000, retries: 2 });
    assert.equal(soa.serial, 10);
    const r = await transferZone(target(open), ZONE, LIMITS);
    assert.equal(r.kind, 'axfr');
    assert.equal(r.serial, 10);
    assert.ok(r.stats.messages > 1, `${r.stats.messages} messages`);
    assert.deepEqual(r.content, canonical(bigZone()));
  });

  test('IXFR after two dynamic updates: incremental, and the applied copy equals a fresh AXFR; then up to date', { skip }, async () => {
    const old = (await transferZone(target(open), ZONE, LIMITS)).content;
    await nsupdate(open?.port ?? 0, ['update delete www.example.test A 192.0.2.1', `update add new.${ZONE} 300 A 192.0.2.100`]);
    await nsupdate(open?.port ?? 0, [
      `update delete host-7.${ZONE} A`,
      `update add new.${ZONE} 300 TXT "added later"`,
      `update add www.${ZONE} 60 A 192.0.2.3`,
    ]);
    const r = await transferZone(target(open), ZONE, { ...LIMITS, current: old });
    assert.equal(r.kind, 'ixfr');
    assert.equal(r.serial, 12);
    assert.equal(r.stats.changes, 2);
    const fresh = await transferZone(target(open), ZONE, LIMITS);
    assert.equal(fresh.serial, 12);
    assert.deepEqual(r.content, fresh.content);
    assert.deepEqual(r.content.rrsets.find((s) => s.name === `www.${ZONE}` && s.type === 'A')?.rdata, ['192.0.2.2', '192.0.2.3']);
    const same = await transferZone(target(open), ZONE, { ...LIMITS, current: r.content });
    assert.equal(same.kind, 'current');
    assert.equal(same.serial, 12);
    assert.equal(same.content, r.content);
  });

  test('IXFR from a serial older than the journal: BIND answers the whole zone (AXFR form), equal to a fresh AXFR', { skip }, async () => {
    const older = canonical(sampleZone(ZONE, 5));
    const r = await transferZone(target(open), ZONE, { ...LIMITS, current: older });
    assert.equal(r.kind, 'axfr');
    const fresh = await transferZone(target(open), ZONE, LIMITS);
    assert.deepEqual(r.content, fresh.content);
  });

  test('TSIG: the right key transfers (AXFR and IXFR, every message verified)', { skip }, async () => {
    const soa = await querySoa(target(keyed), ZONE, { timeoutMs: 2000, retries: 1, tsig: KEY });
    const full = await transferZone(target(keyed), ZONE, { ...LIMITS, tsig: KEY });
    assert.equal(full.serial, soa.serial);
    assert.ok(full.stats.messages > 1, `${full.stats.messages} messages, each signed`);
    assert.deepEqual(full.content, canonical(bigZone()));
    await nsupdate(keyed?.port ?? 0, [`update add signed.${ZONE} 300 A 192.0.2.150`]);
    const inc = await transferZone(target(keyed), ZONE, { ...LIMITS, tsig: KEY, current: full.content });
    assert.equal(inc.kind, 'ixfr');
    assert.equal(inc.stats.changes, 1);
    const fresh = await transferZone(target(keyed), ZONE, { ...LIMITS, tsig: KEY });
    assert.deepEqual(inc.content, fresh.content);
    assert.equal((await transferZone(target(keyed), ZONE, { ...LIMITS, tsig: KEY, current: inc.content })).kind, 'current');
  });

  test('TSIG: a wrong key fails with a clear TSIG error', { skip }, async () => {
    await assert.rejects(transferZone(target(keyed), ZONE, { ...LIMITS, tsig: WRONG }), (err: unknown) => {
      assert.ok(err instanceof TransferError);
      assert.equal(err.reason, 'tsig');
      assert.equal(err.code, 'DNS_TRANSFER_FAILED');
      assert.equal(err.transient, false);
      assert.match(err.message, /NOTAUTH.*xfr-key.*BADSIG/);
      return true;
    });
  });

  test('a transfer BIND does not allow (no key) is REFUSED', { skip }, async () => {
    await assert.rejects(transferZone(target(keyed), ZONE, LIMITS), (err: unknown) => {
      assert.ok(err instanceof TransferError);
      assert.equal(err.reason, 'rcode');
      assert.equal(err.rcode, 'REFUSED');
      assert.match(err.message, /^example\.test: AXFR from 127\.0\.0\.1:\d+: the server answered REFUSED$/);
      return true;
    });
  });

  test('maxBytes bounds the answer', { skip }, async () => {
    await assert.rejects(transferZone(target(open), ZONE, { timeoutMs: 5000, maxBytes: 4096 }), (err: unknown) => {
      assert.ok(err instanceof TransferError);
      assert.equal(err.reason, 'too-large');
      return true;
    });
  });
});
