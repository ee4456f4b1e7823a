import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { DnsMetrics, QTYPE_LABELS, QueryCounters, RCODE_LABELS } from './metrics.ts';

test('labels come from fixed lists: 65,536 query types and every rcode make a bounded set of series', async () => {
  const registry = new Registry();
  const metrics = new DnsMetrics(registry);
  // A worker's counters too, merged as cluster.ts and thread.ts do.
  const worker = new QueryCounters();
  for (let qtype = 0; qtype < 65536; qtype++) {
    metrics.local.record(qtype % 24, qtype, qtype % 2 === 0, 0.0001);
    worker.record(5, qtype, false, 0.0001);
  }
  metrics.merge(worker.snapshot());
  const text = await registry.metrics();
  const series = text.split('\n').filter((l) => l.startsWith('hostwarden_dns_queries_total{'));
  assert.ok(series.length <= QTYPE_LABELS.length * RCODE_LABELS.length * 2, `${series.length} series`);
  assert.ok(series.length > 20);
  const total = series.reduce((n, l) => n + Number(l.split(' ')[1]), 0);
  assert.equal(total, 2 * 65536, 'every query is counted once');
  assert.match(text, /hostwarden_dns_queries_total\{rcode="FORMERR",qtype="A",transport="udp"\} 1\n/);
  assert.match(text, /hostwarden_dns_queries_total\{rcode="REFUSED",qtype="A",transport="udp"\} 1\n/);
  assert.match(text, /\{rcode="REFUSED",qtype="other",transport="udp"\} \d+/);
  assert.match(text, /\{rcode="other",qtype="other",transport="tcp"\} \d+/);
  for (const l of series) {
    const m = /rcode="([^"]+)",qtype="([^"]+)",transport="(udp|tcp)"/.exec(l);
    assert.ok(m !== null && RCODE_LABELS.includes(m[1] ?? '') && QTYPE_LABELS.includes(m[2] ?? ''), l);
  }
  assert.ok(text.length < 50_000, `${text.length} bytes of metrics`);
});

test('a snapshot takes the counts and leaves the counters empty; unknown slots are ignored', async () => {
  const c = new QueryCounters();
  c.record(0, 1, false, 0.001);
  c.record(0, 1, false, 0.001);
  const s = c.snapshot();
  assert.equal(s.queries.length, 1);
  assert.equal(s.queries[0]?.[1], 2);
  assert.deepEqual(c.snapshot().queries, []);
  const registry = new Registry();
  new DnsMetrics(registry).merge({
    queries: [
      [-1, 5],
      [1e9, 5],
      [0.5, 1],
    ],
    buckets: [],
    sum: 0,
  });
  assert.doesNotMatch(await registry.metrics(), /hostwarden_dns_queries_total\{/);
});
