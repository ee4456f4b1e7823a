/**
 * The transfer client against Hostwarden's own server (DnsServer, in process): an AXFR equals the
 * zone, and an IXFR is answered in whichever form the server has (a full transfer today, RFC 1995
 * allows it; incremental once the server keeps a journal) and gives the same content either way.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseZone, serializeZone } from '../../src/dns/master-file.ts';
import { DnsServer } from '../../src/dns/server/server.ts';
import { querySoa, transferZone } from '../../src/dns/transfer/client.ts';
import { TransferError } from '../../src/dns/transfer/errors.ts';
import { tsigKey } from '../../src/dns/tsig.ts';
import type { ZoneContent } from '../../src/dns/zone-content.ts';
import { silentLogger } from '../../src/log.ts';
import { sampleZone } from './sample-zone.ts';

const ZONE = 'example.test';
const LIMITS = { timeoutMs: 10_000, maxBytes: 16 << 20 };
const KEY = tsigKey('hmac-sha256', 'xfr-key', Buffer.from('hostwarden-transfer-secret-012345').toString('base64'));

function zoneAt(serial: number, extra: number): ZoneContent {
  const z = sampleZone(ZONE, serial);
  for (let i = 0; i < extra; i++) z.rrsets.push({ name: `host-${i}.${ZONE}`, type: 'A', ttl: 300, rdata: [`198.51.${i >> 8}.${i & 255}`] });
  return z;
}

function canonical(z: ZoneContent): ZoneContent {
  return parseZone(serializeZone(z), z.origin, 'expected');
}

describe('transfer client against the embedded DNS server', () => {
  let open: DnsServer | undefined;
  let signed: DnsServer | undefined;
  const target = (s: 'open' | 'signed'): { host: string; port: number } => ({ host: '127.0.0.1', port: ports[s] });
  const ports = { open: 0, signed: 0 };

  before(async () => {
    open = new DnsServer({ listen: ['127.0.0.1:0'], allowTransfer: ['127.0.0.0/8'], logger: silentLogger() });
    await open.zoneChanged(zoneAt(1, 1200));
    ports.open = (await open.start()).addresses[0]?.tcp.port ?? 0;
    signed = new DnsServer({ listen: ['127.0.0.1:0'], allowTransfer: ['10.0.0.0/8'], tsigKeys: [KEY], logger: silentLogger() });
    await signed.zoneChanged(zoneAt(5, 1200));
    ports.signed = (await signed.start()).addresses[0]?.tcp.port ?? 0;
  });
  after(async () => {
    await open?.stop();
    await signed?.stop();
  });

  test('AXFR round trip equals the zone', async () => {
    assert.equal((await querySoa(target('open'), ZONE, { timeoutMs: 2000, retries: 2 })).serial, 1);
    const r = await transferZone(target('open'), ZONE, LIMITS);
    assert.equal(r.kind, 'axfr');
    assert.ok(r.stats.messages > 1);
    assert.deepEqual(r.content, canonical(zoneAt(1, 1200)));
  });

  test("IXFR from an older serial: the server's journal answers incrementally, and the applied copy equals the zone", async () => {
    const old = (await transferZone(target('open'), ZONE, LIMITS)).content;
    const next = zoneAt(2, 1200);
    next.rrsets = next.rrsets.filter((s) => s.name !== `host-3.${ZONE}`);
    next.rrsets.push({ name: `added.${ZONE}`, type: 'TXT', ttl: 60, rdata: ['hello'] });
    await open?.zoneChanged(next);
    const r = await transferZone(target('open'), ZONE, { ...LIMITS, current: old });
    assert.equal(r.kind, 'ixfr');
    assert.equal(r.stats.changes, 1);
    assert.equal(r.serial, 2);
    assert.deepEqual(r.content, canonical(next));
  });

  test('TSIG-signed AXFR from the server verifies on every message', async () => {
    const r = await transferZone(target('signed'), ZONE, { ...LIMITS, tsig: KEY });
    assert.ok(r.stats.messages > 1);
    assert.deepEqual(r.content, canonical(zoneAt(5, 1200)));
    await assert.rejects(transferZone(target('signed'), ZONE, LIMITS), (err: unknown) => err instanceof TransferError && err.rcode === 'REFUSED');
  });
});
