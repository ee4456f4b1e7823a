import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as dnsPacket from 'dns-packet';
import { fuzz } from '../../../test/dns/fuzz-packets.ts';

test('100k random and mutated packets: no throw, every reply decodes and carries the query ID', () => {
  const stats = fuzz(100_000, 20261122, (b) => dnsPacket.decode(b));
  assert.deepEqual(stats.failures, []);
  assert.equal(stats.packets, 100_000);
  assert.ok(stats.replies > 30_000, `only ${stats.replies} replies`);
  assert.ok(stats.dropped > 1000, 'short and QR=1 packets are dropped');
});
