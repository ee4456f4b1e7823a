/** NOTIFY to secondaries, IPv6 and several listen addresses, and the multi-process mode. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { Registry } from 'prom-client';
import { DnsServer } from '../../src/dns/server/server.ts';
import { silentLogger } from '../../src/log.ts';
import { dig, digAvailable } from '../support/dig.ts';
import { sampleZone } from './sample-zone.ts';

function ipv6Loopback(): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createSocket('udp6');
    s.once('error', () => resolve(false));
    s.bind({ address: '::1', port: 0 }, () => s.close(() => resolve(true)));
  });
}

describe('DnsServer extras', async () => {
  const hasDig = await digAvailable();
  const hasV6 = await ipv6Loopback();

  test('sends NOTIFY for a changed zone and stops once acknowledged', async () => {
    const received: Buffer[] = [];
    const secondary = createSocket('udp4');
    secondary.on('message', (m, r) => {
      received.push(m);
      // Acknowledge only the second attempt so that the retry path runs too.
      if (received.length < 2) return;
      const ack = Buffer.from(m.subarray(0, 12));
      ack[2] = (ack[2] ?? 0) | 0x80;
      ack.writeUInt16BE(0, 4);
      ack.writeUInt16BE(0, 6);
      secondary.send(ack, r.port, r.address);
    });
    const port = await new Promise<number>((r) => secondary.bind({ address: '127.0.0.1', port: 0 }, () => r(secondary.address().port)));
    const server = new DnsServer({ listen: ['127.0.0.1:0'], notify: [`127.0.0.1:${port}`], logger: silentLogger() });
    try {
      await server.start();
      server.zoneChanged(sampleZone('example.test', 42));
      for (let i = 0; i < 100 && received.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(received.length, 2);
      const m = received[0] as Buffer;
      assert.equal(((m[2] ?? 0) >> 3) & 0xf, 4, 'opcode NOTIFY');
      assert.ok(((m[2] ?? 0) & 0x04) !== 0, 'AA set');
      assert.equal(m.readUInt32BE(m.length - 20), 42, 'SOA serial in the answer section');
    } finally {
      await server.stop();
      secondary.close();
    }
  });

  test('serves IPv6 and IPv4 listeners at once', { skip: hasDig && hasV6 ? false : 'needs dig and ::1' }, async () => {
    const server = new DnsServer({ listen: ['127.0.0.1:0', '[::1]:0'], logger: silentLogger() });
    server.zoneChanged(sampleZone());
    try {
      const { addresses } = await server.start();
      assert.equal(addresses.length, 2);
      const v4 = await dig(addresses[0]?.udp.port ?? 0, ['www.example.test', 'AAAA']);
      const v6 = await dig(addresses[1]?.udp.port ?? 0, ['www.example.test', 'AAAA'], '::1');
      assert.deepEqual(v6.answer, v4.answer);
      const tcp6 = await dig(addresses[1]?.tcp.port ?? 0, ['+tcp', 'www.example.test', 'A'], '::1');
      assert.equal(tcp6.answer.length, 2);
    } finally {
      await server.stop();
    }
  });

  test('worker processes share the sockets and receive zone updates', { skip: hasDig ? false : 'needs dig', timeout: 60_000 }, async () => {
    const metrics = new Registry();
    const server = new DnsServer({ listen: ['127.0.0.1:0'], workers: 2, allowTransfer: ['127.0.0.1/32'], logger: silentLogger(), metrics });
    server.zoneChanged(sampleZone('example.test', 1));
    try {
      const { addresses } = await server.start();
      const port = addresses[0]?.udp.port ?? 0;
      assert.ok(port > 0);
      const r = await dig(port, ['www.example.test', 'A']);
      assert.equal(r.answer.length, 2);
      const zone = sampleZone('example.test', 2);
      zone.rrsets.push({ name: 'later.example.test', type: 'A', ttl: 30, rdata: ['192.0.2.44'] });
      server.zoneChanged(zone);
      let seen = 0;
      // Several queries, so that both workers (and TCP through the primary) are exercised.
      for (let i = 0; i < 50 && seen < 6; i++) {
        const a = await dig(port, [i % 2 === 0 ? '+tcp' : '+notcp', 'later.example.test', 'A']);
        if (a.answer.length === 1) seen++;
        else await new Promise((res) => setTimeout(res, 50));
      }
      assert.equal(seen, 6);
      // Workers ship their counters once a second; TCP is counted at once by the primary, so wait
      // for both transports (waiting for TCP alone raced the workers' first shipment).
      let text = '';
      const both = (t: string): boolean => /transport="tcp"\} [1-9]/.test(t) && /transport="udp"\} [1-9]/.test(t);
      for (let i = 0; i < 100 && !both(text); i++) {
        await new Promise((res) => setTimeout(res, 100));
        text = await metrics.metrics();
      }
      assert.match(text, /hostwarden_dns_queries_total\{rcode="NOERROR",qtype="A",transport="udp"\} [1-9]/);
      assert.match(text, /hostwarden_dns_queries_total\{rcode="NOERROR",qtype="A",transport="tcp"\} [1-9]/);
    } finally {
      await server.stop();
    }
  });
});
