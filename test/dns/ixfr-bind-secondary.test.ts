/**
 * Real BIND 9 as a secondary of the embedded DNS server (thread mode, as `run` starts it): after
 * the first AXFR, NOTIFY-triggered changes arrive by IXFR; `dig IXFR=serial` shows the
 * incremental format; a secondary that missed more changes than the journal keeps falls back to a
 * full transfer and still ends with the right zone.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DnsServer } from '../../src/dns/server/server.ts';
import { silentLogger } from '../../src/log.ts';
import type { ZoneContent } from '../../src/dns/zone-content.ts';
import { freePort, namedAvailable } from '../support/bind.ts';
import { BindSecondary, transfers } from '../support/bind-secondary.ts';
import { dig, digAvailable } from '../support/dig.ts';
import { sampleZone } from './sample-zone.ts';

const run = promisify(execFile);
const ORIGIN = 'example.test';

/** The sample zone at `serial` with hosts h0..h(n-1) and www pointing at .serial. */
function version(serial: number, hosts: number): ZoneContent {
  const z = sampleZone(ORIGIN, serial);
  z.rrsets = z.rrsets.filter((s) => !(s.name === `www.${ORIGIN}` && s.type === 'A'));
  z.rrsets.push({ name: `www.${ORIGIN}`, type: 'A', ttl: 60, rdata: [`192.0.2.${serial % 250}`] });
  for (let i = 0; i < hosts; i++) z.rrsets.push({ name: `h${i}.${ORIGIN}`, type: 'A', ttl: 60, rdata: [`198.51.100.${i}`] });
  return z;
}

describe('BIND 9 secondary of the embedded server: IXFR', async () => {
  const skip = (await namedAvailable()) && (await digAvailable()) ? false : 'named or dig not installed';
  let server: DnsServer | undefined;
  let bind: BindSecondary | undefined;
  let dir = '';
  let port = 0;

  before(async () => {
    if (skip !== false) return;
    dir = await mkdtemp(join(tmpdir(), 'hw-ixfr-'));
    const bindPort = await freePort();
    server = new DnsServer({
      listen: ['127.0.0.1:0'],
      allowTransfer: ['127.0.0.0/8'],
      notify: [`127.0.0.1:${bindPort}`],
      ixfrJournal: { changes: 3, bytes: 1 << 20 },
      logger: silentLogger(),
    });
    void server.zoneChanged(version(100, 3));
    port = (await server.start()).addresses[0]?.tcp.port ?? 0;
    bind = new BindSecondary({ dir, port: bindPort, origin: ORIGIN, primary: { host: '127.0.0.1', port } });
    await bind.start();
  });

  after(async () => {
    await bind?.stop();
    await server?.stop();
    if (dir !== '') await rm(dir, { recursive: true, force: true });
  });

  test('first AXFR, then IXFR per change; dig IXFR shows the differences; too far behind: full transfer', { skip }, async () => {
    assert.ok(server !== undefined && bind !== undefined);
    await bind.serving(100);
    let mark = (await bind.log()).length;
    // Small changes: add a host, change www, remove a host.
    await server.zoneChanged(version(101, 4));
    await bind.serving(101);
    await server.zoneChanged(version(102, 4));
    await bind.serving(102);
    await server.zoneChanged(version(103, 2));
    await bind.serving(103);
    const incremental = transfers(await bind.log(), mark);
    console.log(`BIND after changes 101..103:\n${incremental.join('\n')}`);
    assert.equal(incremental.filter((l) => l.includes('got incremental response')).length, 3, incremental.join('\n'));
    assert.ok(!incremental.some((l) => l.includes('got nonincremental response')), incremental.join('\n'));
    assert.deepEqual((await dig(bind.port, [`www.${ORIGIN}`, 'A', '+norec'])).answer, [`www.${ORIGIN}. 60 IN A 192.0.2.103`]);
    assert.equal((await dig(bind.port, [`h3.${ORIGIN}`, 'A', '+norec'])).status, 'NXDOMAIN');
    assert.deepEqual((await dig(bind.port, [`h1.${ORIGIN}`, 'A', '+norec'])).answer, [`h1.${ORIGIN}. 60 IN A 198.51.100.1`]);

    // dig IXFR=101 from Hostwarden: current SOA, (old SOA, removed, new SOA, added) per change, current SOA.
    const { stdout } = await run('dig', [`@127.0.0.1`, '-p', String(port), '+time=2', '+tries=1', ORIGIN, 'IXFR=101'], { timeout: 15_000 });
    const records = stdout.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(';'));
    const soas = records.filter((l) => /\sSOA\s/.test(l)).map((l) => l.trim().split(/\s+/)[6]);
    assert.deepEqual(soas, ['103', '101', '102', '102', '103', '103'], stdout);
    // 101→102: www changed; 102→103: www changed, h2 and h3 removed.
    assert.equal(records.length, 6 + 2 + 4, stdout);
    assert.ok(records.some((l) => /^h3\.example\.test\.\s+60\s+IN\s+A\s+198\.51\.100\.3/.test(l)));

    // BIND misses five changes (the journal keeps three), then hears of a sixth: a full transfer.
    await bind.stop();
    for (let s = 104; s <= 108; s++) await server.zoneChanged(version(s, 5 + s - 104));
    mark = (await bind.log()).length;
    await bind.start();
    await server.zoneChanged(version(109, 10));
    await bind.serving(109);
    const fallback = transfers(await bind.log(), mark);
    console.log(`BIND after missing 104..108:\n${fallback.join('\n')}`);
    assert.ok(
      fallback.some((l) => l.includes('requesting IXFR for serial 103')),
      fallback.join('\n'),
    );
    assert.ok(
      fallback.some((l) => l.includes('got nonincremental response')),
      fallback.join('\n'),
    );
    assert.deepEqual((await dig(bind.port, [`h9.${ORIGIN}`, 'A', '+norec'])).answer, [`h9.${ORIGIN}. 60 IN A 198.51.100.9`]);
    assert.deepEqual((await dig(bind.port, [`www.${ORIGIN}`, 'A', '+norec'])).answer, [`www.${ORIGIN}. 60 IN A 192.0.2.109`]);
    const axfr = await run('dig', ['@127.0.0.1', '-p', String(bind.port), '+time=2', '+tries=1', ORIGIN, 'AXFR'], { timeout: 15_000 });
    const ours = await run('dig', ['@127.0.0.1', '-p', String(port), '+time=2', '+tries=1', ORIGIN, 'AXFR'], { timeout: 15_000 });
    const zone = (out: string): string[] =>
      out
        .split('\n')
        .filter((l) => l.trim() !== '' && !l.startsWith(';'))
        .map((l) => l.trim().split(/\s+/).join(' '))
        .sort();
    assert.deepEqual(zone(axfr.stdout), zone(ours.stdout), 'BIND holds the same zone');
  });
});

const digSkip = (await digAvailable()) ? false : 'dig not installed';

test('--dns-workers: every worker journals every change (dig IXFR over TCP, several connections)', { skip: digSkip, timeout: 60_000 }, async () => {
  const server = new DnsServer({ listen: ['127.0.0.1:0'], workers: 2, allowTransfer: ['127.0.0.0/8'], logger: silentLogger() });
  try {
    void server.zoneChanged(version(200, 1));
    const port = (await server.start()).addresses[0]?.tcp.port ?? 0;
    await server.zoneChanged(version(201, 2));
    for (let i = 0; i < 4; i++) {
      const { stdout } = await run('dig', ['@127.0.0.1', '-p', String(port), '+time=2', '+tries=1', ORIGIN, 'IXFR=200'], { timeout: 15_000 });
      const soas = stdout
        .split('\n')
        .filter((l) => /\sSOA\s/.test(l) && !l.startsWith(';'))
        .map((l) => l.trim().split(/\s+/)[6]);
      assert.deepEqual(soas, ['201', '200', '201', '201'], stdout);
    }
  } finally {
    await server.stop();
  }
});
