/**
 * Shutdown does not cut a zone transfer in flight: stop() closes the listeners, and a TCP reply
 * already being written (an AXFR to a secondary reading slowly) still arrives whole before the
 * connection closes, within the stop's bound.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { silentLogger } from '../../src/log.ts';
import { DnsServer } from '../../src/dns/server/server.ts';
import type { ZoneContent } from '../../src/dns/zone-content.ts';
import { hostsZone } from '../support/large-zone.ts';

const ORIGIN = 'xfr.test';
const RECORDS = 200_000;

const zone = (): ZoneContent => hostsZone(ORIGIN, RECORDS, 1);

/** An AXFR query for ORIGIN, length-prefixed for TCP. */
function axfrQuery(): Buffer {
  const labels = ORIGIN.split('.').flatMap((l) => [Buffer.from([l.length]), Buffer.from(l)]);
  const msg = Buffer.concat([Buffer.from([0x12, 0x34, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), ...labels, Buffer.from([0, 0, 252, 0, 1])]);
  const head = Buffer.alloc(2);
  head.writeUInt16BE(msg.length);
  return Buffer.concat([head, msg]);
}

for (const inline of [true, false]) {
  test(`${inline ? 'inline' : 'thread'}: stop() lets an AXFR in flight to a slow reader finish, then closes`, { timeout: 60_000 }, async () => {
    const server = new DnsServer({ listen: ['127.0.0.1:0'], logger: silentLogger(), udpEngine: 'dgram', allowTransfer: ['127.0.0.1/32'], inline });
    void server.zoneChanged(zone());
    const port = (await server.start()).addresses[0]?.tcp.port ?? 0;
    const sock = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let stopping: Promise<void> | undefined;
    let stoppedAfterMs = -1;
    const ended = new Promise<string>((resolve) => {
      sock.on('data', (c: Buffer) => {
        chunks.push(c);
        if (stopping !== undefined) return;
        // The first bytes are here: the rest is still queued on the server. Read nothing for a
        // moment while the server stops, as a slow secondary would.
        sock.pause();
        const t0 = performance.now();
        stopping = server.stop().then(() => {
          stoppedAfterMs = performance.now() - t0;
        });
        setTimeout(() => sock.resume(), 300);
      });
      sock.on('end', () => resolve('end'));
      sock.on('error', (err) => resolve(`error: ${err.message}`));
    });
    sock.write(axfrQuery());
    assert.equal(await ended, 'end', 'closed cleanly, not reset');
    sock.destroy();
    await stopping;
    const data = Buffer.concat(chunks);
    let answers = 0;
    let messages = 0;
    for (let at = 0; at + 2 <= data.length;) {
      const len = data.readUInt16BE(at);
      assert.ok(at + 2 + len <= data.length, 'no message cut short');
      answers += data.readUInt16BE(at + 2 + 6);
      messages++;
      at += 2 + len;
    }
    assert.ok(messages > 1, `the transfer took ${messages} message(s)`);
    assert.equal(answers, RECORDS + 3, 'SOA, NS, every A record and the closing SOA');
    assert.ok(stoppedAfterMs >= 0 && stoppedAfterMs < 5000, `stop took ${Math.round(stoppedAfterMs)} ms`);
  });
}
