/** The DNS thread (the default): its logs reach the server's logger, and a thread that dies is replaced on the same port. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { DnsServer } from '../../src/dns/server/server.ts';
import { udpExchange } from '../support/udp.ts';
import { aQuery } from '../support/udp-prober.ts';
import { sampleZone } from './sample-zone.ts';

async function answers(port: number, name: string): Promise<number> {
  const reply = await udpExchange(port, aQuery(3, name), 500);
  return reply === undefined ? -1 : reply.readUInt16BE(6);
}

test('the thread logs through the server logger; a change is served when zoneChanged resolves; a dead thread is restarted', { timeout: 60_000 }, async () => {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info', base: undefined }, { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) }).child({
    component: 'dns',
  });
  const server = new DnsServer({ listen: ['127.0.0.1:0'], logger });
  const zone = sampleZone();
  zone.rrsets.push({ name: 'bad.example.test', type: 'A', ttl: 60, rdata: ['not-an-address'] });
  void server.zoneChanged(zone);
  try {
    const port = (await server.start()).addresses[0]?.udp.port ?? 0;
    assert.equal(await answers(port, 'www.example.test'), 2);
    const warning = lines.find((l) => l['msg'] === 'skipping invalid record');
    assert.equal(warning?.['component'], 'dns', 'logged by the thread, through the server logger');
    assert.equal(warning?.['level'], 40);
    assert.equal(lines.find((l) => l['msg'] === 'DNS server listening')?.['answeredOn'], 'thread');

    const next = sampleZone('example.test', 2);
    next.rrsets.push({ name: 'new.example.test', type: 'A', ttl: 60, rdata: ['192.0.2.7'] });
    await server.zoneChanged(next);
    assert.equal(await answers(port, 'new.example.test'), 1, 'served once zoneChanged resolved');

    // Nothing in the product ends the thread; reach in as a crash would.
    const worker = (server as unknown as { backend: { worker?: Worker } }).backend.worker;
    await worker?.terminate();
    assert.ok(lines.some((l) => l['msg'] === 'DNS thread exited; restarting'));
    let after = -1;
    for (let i = 0; i < 50 && after !== 1; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await answers(port, 'new.example.test');
    }
    assert.equal(after, 1, 'the new thread serves the newest content on the same port');
  } finally {
    await server.stop();
  }
});

test('on the DNS thread a zone change is answered on the next query, past the native packet cache', { timeout: 60_000 }, async () => {
  const server = new DnsServer({ listen: ['127.0.0.1:0'], logger: pino({ level: 'silent' }) });
  void server.zoneChanged(sampleZone());
  try {
    const port = (await server.start()).addresses[0]?.udp.port ?? 0;
    // The second answer comes from the packet cache when the native engine is built.
    assert.equal(await answers(port, 'www.example.test'), 2);
    assert.equal(await answers(port, 'www.example.test'), 2);
    const next = sampleZone('example.test', 2);
    next.rrsets = next.rrsets.filter((r) => r.name !== 'www.example.test');
    next.rrsets.push({ name: 'www.example.test', type: 'A', ttl: 60, rdata: ['192.0.2.9'] });
    await server.zoneChanged(next);
    assert.equal(await answers(port, 'www.example.test'), 1);
  } finally {
    await server.stop();
  }
});
