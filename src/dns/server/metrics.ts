/**
 * DNS server metrics. Per-query counting goes into plain counters keyed by a number and is moved
 * into prom-client only at scrape time, because label lookups on every query cost more than the
 * rest of the answer path. Worker processes and the DNS thread ship the same counters to the
 * process that owns the registry (see cluster.ts, thread.ts).
 *
 * Label values never come from a query as sent: the query type and the response code are mapped
 * onto fixed lists (the types the server holds records of, the transfer and ANY queries, `other`),
 * so no client can create series (65,536 query types once made 65,552 series and 5 MB of /metrics).
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import { RR_TYPES } from '../zone-content.ts';
import { RCODE_NAMES, TYPE_CODES } from '../wire.ts';

const BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05];

/** Counts and histogram buckets since the last snapshot, in a form that survives IPC. */
export interface MetricsSnapshot {
  /** [slot, count] of the (rcode, qtype, transport) slots counted since the last snapshot. */
  queries: [number, number][];
  buckets: number[];
  sum: number;
  /** UDP replies the native engine could not send (socket send buffer full). */
  udpDropped?: number;
  /** TCP connections closed for a new one at the cap, and for completing no message in time. */
  tcpEvicted?: number;
  tcpTimedOut?: number;
  /** Native packet cache: queries answered from it, and queries it handed to JavaScript. */
  packetCacheHits?: number;
  packetCacheMisses?: number;
}

const TRANSPORTS = ['udp', 'tcp'] as const;

/** The `qtype` label values: every type a zone can hold, the query-only types served, then `other`. */
export const QTYPE_LABELS: readonly string[] = [...RR_TYPES, 'ANY', 'AXFR', 'IXFR', 'other'];
/** The `rcode` label values: every response code the server sends, then `other`. */
export const RCODE_LABELS: readonly string[] = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED', 'NOTAUTH', 'BADVERS', 'other'];

const QTYPE_INDEX: ReadonlyMap<number, number> = new Map(
  QTYPE_LABELS.flatMap((label, i) => {
    const code = TYPE_CODES.get(label);
    return code === undefined ? [] : [[code, i] as const];
  }),
);
const RCODE_INDEX: ReadonlyMap<number, number> = new Map(
  RCODE_LABELS.flatMap((label, i) => {
    const code = RCODE_NAMES.indexOf(label);
    return code === -1 ? [] : [[code, i] as const];
  }),
);
const OTHER_QTYPE = QTYPE_LABELS.length - 1;
const OTHER_RCODE = RCODE_LABELS.length - 1;
/** The two maps above as arrays for small codes: a Map lookup per query and label cost about 1 % of the server's CPU. */
const slotTable = (index: ReadonlyMap<number, number>, size: number, other: number): Uint8Array => {
  const table = new Uint8Array(size).fill(other);
  for (const [code, i] of index) if (code < size) table[code] = i;
  return table;
};
const QTYPE_SLOT = slotTable(QTYPE_INDEX, 256, OTHER_QTYPE);
const RCODE_SLOT = slotTable(RCODE_INDEX, 32, OTHER_RCODE);
/** Counter slots: every (rcode, qtype, transport) combination, so the count of series is fixed. */
const SLOTS = RCODE_LABELS.length * QTYPE_LABELS.length * TRANSPORTS.length;

export class DnsMetrics {
  /** Counters of this process; the server records into them directly. */
  readonly local = new QueryCounters();
  private readonly queries: Counter;
  private readonly duration: Histogram;
  private readonly zones: Gauge;
  private readonly records: Gauge;
  private readonly udpDropped: Counter;
  private readonly tcpClosed: Counter;
  private readonly packetCache: Counter;

  /**
   * Fetches the counters of a DNS thread at scrape time (set by the server that runs one), so that
   * a scrape is current without the thread posting its counters on a timer.
   */
  pull: (() => Promise<MetricsSnapshot | undefined>) | undefined;
  private pulling: Promise<void> | undefined;

  constructor(registry: Registry) {
    const flush = (): Promise<void> => this.flush();
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
    this.tcpClosed = new Counter({
      name: 'hostwarden_dns_tcp_connections_closed_total',
      help: 'DNS TCP connections the server closed: evicted (the one idle longest, for a new connection at --dns-tcp-max-connections) or timeout (no whole message for --dns-tcp-idle-timeout).',
      labelNames: ['reason'],
      registers: [registry],
      collect: flush,
    });
    for (const reason of ['evicted', 'timeout']) this.tcpClosed.inc({ reason }, 0);
    this.packetCache = new Counter({
      name: 'hostwarden_dns_packet_cache_queries_total',
      help: 'UDP queries the native packet cache answered (result="hit") or handed to the answer path (result="miss"); both are also in hostwarden_dns_queries_total.',
      labelNames: ['result'],
      registers: [registry],
      collect: flush,
    });
    for (const result of ['hit', 'miss']) this.packetCache.inc({ result }, 0);
    this.records = new Gauge({ name: 'hostwarden_dns_records', help: 'Resource records served, SOA included.', registers: [registry] });
  }

  setZones(zones: number, records: number): void {
    this.zones.set(zones);
    this.records.set(records);
  }

  /** One pull serves every metric of a scrape (prom-client collects them concurrently). */
  private flush(): Promise<void> {
    this.merge(this.local.snapshot());
    const pull = this.pull;
    if (pull === undefined) return Promise.resolve();
    this.pulling ??= pull()
      .then(
        (s) => {
          if (s !== undefined) this.merge(s);
        },
        () => {},
      )
      .finally(() => {
        this.pulling = undefined;
      });
    return this.pulling;
  }

  /** Adds counts gathered elsewhere (a worker process) to the exported metrics. */
  merge(s: MetricsSnapshot): void {
    if ((s.udpDropped ?? 0) > 0) this.udpDropped.inc(s.udpDropped);
    if ((s.tcpEvicted ?? 0) > 0) this.tcpClosed.inc({ reason: 'evicted' }, s.tcpEvicted);
    if ((s.tcpTimedOut ?? 0) > 0) this.tcpClosed.inc({ reason: 'timeout' }, s.tcpTimedOut);
    if ((s.packetCacheHits ?? 0) > 0) this.packetCache.inc({ result: 'hit' }, s.packetCacheHits);
    if ((s.packetCacheMisses ?? 0) > 0) this.packetCache.inc({ result: 'miss' }, s.packetCacheMisses);
    for (const [key, n] of s.queries) {
      if (!Number.isInteger(key) || key < 0 || key >= SLOTS || !(n > 0)) continue;
      const transport = TRANSPORTS[key % TRANSPORTS.length] ?? 'udp';
      const qtype = QTYPE_LABELS[Math.floor(key / TRANSPORTS.length) % QTYPE_LABELS.length] ?? 'other';
      const rcode = RCODE_LABELS[Math.floor(key / (TRANSPORTS.length * QTYPE_LABELS.length))] ?? 'other';
      this.queries.inc({ rcode, qtype, transport }, n);
    }
    // prom-client has no bulk observe: replay each bucket at its upper bound. Bucket counts stay
    // exact; only the histogram's sum is approximate.
    s.buckets.forEach((n, i) => {
      const value = BUCKETS[i] ?? 2 * (BUCKETS[BUCKETS.length - 1] ?? 1);
      for (let k = 0; k < n; k++) this.duration.observe(value);
    });
  }
}

/** Per-process query counters; cheap enough to call on every query, and of a fixed size. */
export class QueryCounters {
  /** Queries by slot (see `slot()`); a slot's count is reset when a snapshot takes it. */
  readonly counts = new Float64Array(SLOTS);
  readonly buckets = new Array<number>(BUCKETS.length + 1).fill(0);
  sum = 0;
  udpDropped = 0;
  tcpEvicted = 0;
  tcpTimedOut = 0;
  packetCacheHits = 0;
  packetCacheMisses = 0;
  /** Called first by snapshot(), so counts kept elsewhere (the native sockets' drops) are current. */
  beforeSnapshot: (() => void) | undefined;

  /** The counter slot of a (rcode, qtype, transport), as `record` and `addHits` use it. */
  slotOf(rcode: number, qtype: number, tcp: boolean): number {
    const r = rcode >= 0 && rcode < RCODE_SLOT.length ? (RCODE_SLOT[rcode] ?? OTHER_RCODE) : (RCODE_INDEX.get(rcode) ?? OTHER_RCODE);
    const t = qtype >= 0 && qtype < QTYPE_SLOT.length ? (QTYPE_SLOT[qtype] ?? OTHER_QTYPE) : (QTYPE_INDEX.get(qtype) ?? OTHER_QTYPE);
    return (r * QTYPE_LABELS.length + t) * TRANSPORTS.length + (tcp ? 1 : 0);
  }

  record(rcode: number, qtype: number, tcp: boolean, seconds: number): void {
    const key = this.slotOf(rcode, qtype, tcp);
    this.counts[key] = (this.counts[key] ?? 0) + 1;
    let i = 0;
    while (i < BUCKETS.length && seconds > (BUCKETS[i] ?? 0)) i++;
    this.buckets[i] = (this.buckets[i] ?? 0) + 1;
    this.sum += seconds;
  }

  /**
   * Moves the native packet cache's hit counts (by counter slot) into the counters and zeroes
   * them. A hit is answered in C in well under the first bucket's 50 µs, so it is counted there
   * with no time added to the sum.
   */
  addHits(hits: Float64Array): void {
    for (let key = 0; key < hits.length && key < SLOTS; key++) {
      const n = hits[key] ?? 0;
      if (n === 0) continue;
      this.counts[key] = (this.counts[key] ?? 0) + n;
      this.buckets[0] = (this.buckets[0] ?? 0) + n;
      hits[key] = 0;
    }
  }

  snapshot(): MetricsSnapshot {
    this.beforeSnapshot?.();
    const s = {
      ...takeSnapshot(this.counts, this.buckets, this.sum),
      udpDropped: this.udpDropped,
      tcpEvicted: this.tcpEvicted,
      tcpTimedOut: this.tcpTimedOut,
      packetCacheHits: this.packetCacheHits,
      packetCacheMisses: this.packetCacheMisses,
    };
    this.sum = 0;
    this.packetCacheHits = 0;
    this.packetCacheMisses = 0;
    this.udpDropped = 0;
    this.tcpEvicted = 0;
    this.tcpTimedOut = 0;
    return s;
  }
}

function takeSnapshot(counts: Float64Array, buckets: number[], sum: number): MetricsSnapshot {
  const queries: [number, number][] = [];
  counts.forEach((n, key) => {
    if (n > 0) queries.push([key, n]);
  });
  const s: MetricsSnapshot = { queries, buckets: [...buckets], sum };
  counts.fill(0);
  buckets.fill(0);
  return s;
}
