/**
 * Issue 16, item 3: query content must not choose metric series. The real process gets a query of
 * every one of the 65,536 query types; /metrics must stay small, with qtype and rcode labels from
 * fixed lists. Before, this made 65,552 hostwarden_dns_queries_total series and 5.4 MB of metrics.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QTYPE_LABELS, RCODE_LABELS } from '../../src/dns/server/metrics.ts';
import { startHostwarden } from '../support/hostwarden-process.ts';
import type { RunningHostwarden } from '../support/hostwarden-process.ts';
import { loadBalancerService } from '../support/manifests.ts';

function query(id: number, qtype: number): Buffer {
  const name = Buffer.from([3, ...Buffer.from('www'), 7, ...Buffer.from('example'), 3, ...Buffer.from('org'), 0]);
  const head = Buffer.alloc(12);
  head.writeUInt16BE(id, 0);
  head.writeUInt16BE(1, 4);
  const tail = Buffer.alloc(4);
  tail.writeUInt16BE(qtype, 0);
  tail.writeUInt16BE(1, 2);
  return Buffer.concat([head, name, tail]);
}

/** Sends every query type once, in bursts that the socket buffers hold; resolves with the replies counted. */
async function everyQueryType(port: number): Promise<number> {
  const sock = createSocket({ type: 'udp4', recvBufferSize: 4 << 20 });
  await new Promise<void>((r) => sock.bind({ address: '127.0.0.1', port: 0 }, () => r()));
  let replies = 0;
  let waiting: (() => void) | undefined;
  let expected = 0;
  sock.on('message', () => {
    replies++;
    if (replies >= expected) waiting?.();
  });
  const BURST = 256;
  try {
    for (let start = 0; start < 65536; start += BURST) {
      expected = start + BURST;
      const done = new Promise<void>((resolve) => {
        waiting = resolve;
        setTimeout(resolve, 200);
      });
      for (let qtype = start; qtype < start + BURST; qtype++) sock.send(query(qtype, qtype), port, '127.0.0.1');
      await done;
    }
    await new Promise((r) => setTimeout(r, 200));
    return replies;
  } finally {
    sock.close();
  }
}

test('65,536 query types make a bounded set of hostwarden_dns_queries_total series', { timeout: 180_000 }, async () => {
  const root = await mkdtemp(join(tmpdir(), 'hw-qtypes-'));
  const manifests = join(root, 'manifests');
  await mkdir(manifests);
  await writeFile(join(manifests, 'web.yaml'), loadBalancerService('web', 'www.example.org', '192.0.2.1'));
  let hw: RunningHostwarden | undefined;
  try {
    hw = await startHostwarden(['--manifests-dir', manifests, '--embedded-data-dir', join(root, 'data'), '--embedded-zone', 'example.org']);
    await hw.waitForLog((l) => l['msg'] === 'changes committed to zone files');
    const replies = await everyQueryType(hw.dnsPort);
    // A few replies may be lost to full socket buffers on a busy machine; nearly all arrive.
    assert.ok(replies > 60_000, `${replies} replies`);
    const res = await fetch(`http://127.0.0.1:${hw.metricsPort}/metrics`);
    const text = await res.text();
    const series = text.split('\n').filter((l) => l.startsWith('hostwarden_dns_queries_total{'));
    assert.ok(series.length <= QTYPE_LABELS.length * RCODE_LABELS.length * 2, `${series.length} series`);
    const counted = series.reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    assert.ok(counted >= replies, `${counted} queries counted, ${replies} replies seen`);
    assert.match(text, /hostwarden_dns_queries_total\{rcode="NOERROR",qtype="other",transport="udp"\} \d{4,}/);
    assert.ok(text.length < 100_000, `/metrics is ${text.length} bytes`);
  } finally {
    await hw?.stop();
    await rm(root, { recursive: true, force: true });
  }
});
