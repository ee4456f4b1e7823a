/**
 * DNS server metrics. Per-query counting goes into plain counters keyed by a number and is moved
 * into prom-client only at scrape time, because label lookups on every query cost more than the
 * rest of the answer path. Worker processes ship the same counters to the primary (see cluster.ts).
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import { RCODE_NAMES, TYPE_NAMES } from './wire.ts';

const BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05];

/** Counts and histogram buckets since the last snapshot, in a form that survives IPC. */
export interface MetricsSnapshot {
  queries: [number, number][];
  buckets: number[];
  sum: number;
  /** UDP replies the native engine could not send (socket send buffer full). */
  udpDropped?: number;
}

const TRANSPORTS = ['udp', 'tcp'] as const;

export class DnsMetrics {
  /** Counters of this process; the server records into them directly. */
  readonly local = new QueryCounters();
  private readonly queries: Counter;
  private readonly duration: Histogram;
  private readonly zones: Gauge;
  private readonly records: Gauge;
  private readonly udpDropped: Counter;

  constructor(registry: Registry) {
    const flush = (): void => this.flushInto();
    this.queries = new Counter({
      name: 'hostwarden_dns_queries_total',
      help: 'DNS messages answered, by response code, query type and transport.',
      labelNames: ['rcode', 'qtype', 'transport'],
      registers: [registry],
      collect: flush,
    });
    this.duration = new Histogram({
      name: 'hostwarden_dns_query_duration_seconds',
      help: 'Time from receiving a DNS message to handing its answer to the socket.',
      buckets: BUCKETS,
      registers: [registry],
      collect: flush,
    });
    this.zones = new Gauge({ name: 'hostwarden_dns_zones', help: 'Zones served.', registers: [registry] });
    this.udpDropped = new Counter({
      name: 'hostwarden_dns_udp_replies_dropped_total',
      help: 'UDP replies not sent because the socket send buffer was full (native UDP engine); clients retry as after a lost packet.',
      registers: [registry],
      collect: flush,
    });
    this.records = new Gauge({ name: 'hostwarden_dns_records', help: 'Resource records served, SOA included.', registers: [registry] });
  }

  setZones(zones: number, records: number): void {
    this.zones.set(zones);
    this.records.set(records);
  }

  private flushInto(): void {
    this.merge(this.local.snapshot());
  }

  /** Adds counts gathered elsewhere (a worker process) to the exported metrics. */
  merge(s: MetricsSnapshot): void {
    if ((s.udpDropped ?? 0) > 0) this.udpDropped.inc(s.udpDropped);
    for (const [key, n] of s.queries) {
      const transport = TRANSPORTS[key & 1] ?? 'udp';
      const qtype = (key >> 1) & 0xffff;
      const rcode = key >>> 17;
      this.queries.inc({ rcode: RCODE_NAMES[rcode] ?? String(rcode), qtype: TYPE_NAMES.get(qtype) ?? `TYPE${qtype}`, transport }, n);
    }
    // prom-client has no bulk observe: replay each bucket at its upper bound. Bucket counts stay
    // exact; only the histogram's sum is approximate.
    s.buckets.forEach((n, i) => {
      const value = BUCKETS[i] ?? 2 * (BUCKETS[BUCKETS.length - 1] ?? 1);
      for (let k = 0; k < n; k++) this.duration.observe(value);
    });
  }
}

/** Per-process query counters; cheap enough to call on every query. */
export class QueryCounters {
  readonly counts = new Map<number, number>();
  readonly buckets = new Array<number>(BUCKETS.length + 1).fill(0);
  sum = 0;
  udpDropped = 0;
  /** Called first by snapshot(), so counts kept elsewhere (the native sockets' drops) are current. */
  beforeSnapshot: (() => void) | undefined;

  record(rcode: number, qtype: number, tcp: boolean, seconds: number): void {
    const key = (rcode << 17) + ((qtype & 0xffff) << 1) + (tcp ? 1 : 0);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    let i = 0;
    while (i < BUCKETS.length && seconds > (BUCKETS[i] ?? 0)) i++;
    this.buckets[i] = (this.buckets[i] ?? 0) + 1;
    this.sum += seconds;
  }

  snapshot(): MetricsSnapshot {
    this.beforeSnapshot?.();
    const s = { ...takeSnapshot(this.counts, this.buckets, this.sum), udpDropped: this.udpDropped };
    this.sum = 0;
    this.udpDropped = 0;
    return s;
  }
}

function takeSnapshot(counts: Map<number, number>, buckets: number[], sum: number): MetricsSnapshot {
  const s: MetricsSnapshot = { queries: [...counts], buckets: [...buckets], sum };
  counts.clear();
  buckets.fill(0);
  return s;
}
