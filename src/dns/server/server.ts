/**
 * The embedded authoritative DNS server, fed by the zone store as a ZoneListener. Where queries
 * are answered:
 * - by default on a thread of its own (thread.ts), so the sync loop never delays an answer;
 * - with `workers` > 0, in that many worker processes (cluster.ts);
 * - with `inline`, on the caller's event loop (worker entry points, tests, debugging): anything
 *   else that runs there, a sync included, delays answers.
 * In every case this object keeps the newest content of each zone, resolves `zoneChanged` once the
 * change answers queries, sends NOTIFY, and owns the metrics.
 */
import type { Registry } from 'prom-client';
import { ConfigError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { ZoneContent, ZoneListener } from '../zone-content.ts';
import { WorkerPool } from './cluster.ts';
import { LocalDnsServer } from './local-server.ts';
import type { ListenAddresses } from './local-server.ts';
import { DnsMetrics, QueryCounters } from './metrics.ts';
import { Notifier, parseHostPort } from './notify.ts';
import { DEFAULT_TCP_LIMITS } from './tcp.ts';
import type { TcpLimits } from './tcp.ts';
import { DnsThread } from './thread.ts';
import type { ThreadConfig } from './thread.ts';
import { parseTsigKey } from '../tsig.ts';
import type { TsigKey } from '../tsig.ts';
import type { ZoneApplied } from './zone-loader.ts';
import { normalise } from './zone-index.ts';
import { DEFAULT_JOURNAL_BYTES, DEFAULT_JOURNAL_CHANGES } from './ixfr-journal.ts';
import { DEFAULT_PACKET_CACHE_ENTRIES, loadNativeUdp, packetCacheOptions } from './native/udp-native.ts';
import type { NativeUdpAddon } from './native/udp-native.ts';

export type { BoundAddress } from './local-server.ts';

export interface DnsServerOptions {
  /** "127.0.0.1:5353", "[::1]:5353", ":53" (all interfaces); port 0 picks a free port. */
  listen: string[];
  allowTransfer?: string[];
  tsigKeys?: TsigKey[];
  /** host:port of secondaries to NOTIFY after each zone change. */
  notify?: string[];
  udpSize?: number;
  /** `--dns-ixfr-journal-size` / `--dns-ixfr-journal-bytes`: IXFR journal bounds per zone. */
  ixfrJournal?: { changes: number; bytes: number };
  /** A TCP connection that completes no message for this long is closed (RFC 7766 6.2.3). */
  tcpIdleTimeoutMs?: number;
  /** TCP connections at once (over all workers); at the cap a new one closes the one idle longest. */
  tcpMaxConnections?: number;
  /** Worker processes sharing the sockets; 0 answers in this process. */
  workers?: number;
  /** With 0 workers, answer on the caller's event loop instead of a DNS thread (tests, debugging). */
  inline?: boolean;
  /** `--dns-udp-engine`: auto (native when built), native (required), dgram. */
  udpEngine?: UdpEngineChoice;
  /** `--dns-packet-cache-size`: replies the native engine answers without JS, per socket; 0 = off. */
  packetCacheSize?: number;
  /** Loads the native addon; tests replace it to act as if it were not built. */
  loadNativeUdp?: () => NativeUdpAddon | undefined;
  logger: Logger;
  metrics?: Registry;
}

/** The CLI's view of the DNS flags (`--dns-listen` etc.), already split into arrays. */
export interface DnsServerConfig {
  dnsListen: string[];
  dnsAllowTransfer?: string[];
  /** `[algorithm:]name:base64secret`, as `dig -y` takes it. */
  dnsTsigKey?: string[];
  dnsNotify?: string[];
  dnsWorkers?: number;
  dnsUdpSize?: number;
  dnsIxfrJournalSize?: number;
  dnsIxfrJournalBytes?: number;
  dnsTcpIdleTimeoutMs?: number;
  dnsTcpMaxConnections?: number;
  dnsUdpEngine?: string;
  dnsPacketCacheSize?: number;
}

export type UdpEngineChoice = 'auto' | 'native' | 'dgram';
const ENGINES: readonly string[] = ['auto', 'native', 'dgram'];

/**
 * How long the zone store waits for a change to be served before it acknowledges the change
 * anyway: a DNS thread that is stuck (or restarting) must not hold commits forever.
 */
const APPLY_WAIT_MS = 30_000;

/** What DnsServer.servingState() reports. */
export interface ServingState {
  listening: boolean;
  /** Zones given to the server. */
  zones: number;
  /** Zones whose latest change is not answered yet. */
  loading: string[];
  /** Zones whose latest change failed to load (the previous content, if any, still answers). */
  failed: { zone: string; error: string }[];
}

/** Where queries are answered: one of the three modes above. */
interface Backend {
  zoneChanged(origin: string, seq: number, zone: ZoneContent): void;
  zoneRemoved(origin: string, seq: number): void;
  start(): Promise<ListenAddresses>;
  stop(): Promise<void>;
}

export class DnsServer implements ZoneListener {
  private readonly options: DnsServerOptions;
  private readonly logger: Logger;
  private readonly metrics: DnsMetrics | undefined;
  private readonly notifier: Notifier;
  /** The addon when UDP is served natively; undefined means node:dgram. */
  private readonly native: NativeUdpAddon | undefined;
  private readonly backend: Backend;
  private readonly mode: 'thread' | 'processes' | 'inline';
  private readonly pool: WorkerPool | undefined;
  private readonly zones = new Map<string, ZoneContent>();
  private readonly records = new Map<string, number>();
  private readonly waiters = new Map<string, { seq: number; resolve: () => void }[]>();
  /** Per zone: the sequence number of its latest change, and of the latest one settled in the backend. */
  private readonly given = new Map<string, number>();
  private readonly settled = new Map<string, { seq: number; error?: string }>();
  private seq = 0;
  private started = false;
  private stopped = false;

  constructor(options: DnsServerOptions) {
    this.options = options;
    this.logger = options.logger;
    for (const l of options.listen) parseHostPort(l, 53, '--dns-listen');
    this.native = this.loadEngine(options.udpEngine ?? 'auto', options.loadNativeUdp ?? loadNativeUdp);
    this.notifier = new Notifier({
      targets: (options.notify ?? []).map((n) => parseHostPort(n, 53, '--dns-notify')),
      logger: options.logger,
    });
    // Last, so that a configuration error leaves the registry untouched.
    this.metrics = options.metrics === undefined ? undefined : new DnsMetrics(options.metrics);
    const workers = options.workers ?? 0;
    const onApplied = (a: ZoneApplied): void => this.applied(a);
    const tcp: TcpLimits = {
      maxConnections: options.tcpMaxConnections ?? DEFAULT_TCP_LIMITS.maxConnections,
      idleTimeoutMs: options.tcpIdleTimeoutMs ?? DEFAULT_TCP_LIMITS.idleTimeoutMs,
    };
    if (workers > 0) {
      this.mode = 'processes';
      // Each worker takes its connections from the primary in turn, so each gets a share of the cap.
      const config = this.threadConfig({ ...tcp, maxConnections: Math.max(1, Math.ceil(tcp.maxConnections / workers)) });
      this.pool = new WorkerPool({ config, workers, logger: this.logger, merge: (s) => this.metrics?.merge(s), onApplied });
      this.backend = this.pool;
    } else if (options.inline === true) {
      this.mode = 'inline';
      const local = new LocalDnsServer({
        listen: options.listen,
        allowTransfer: options.allowTransfer ?? [],
        tsigKeys: options.tsigKeys ?? [],
        udpSize: options.udpSize ?? 1232,
        ixfrJournal: this.ixfrJournal,
        tcp,
        packetCache: packetCacheOptions(options.packetCacheSize ?? DEFAULT_PACKET_CACHE_ENTRIES),
        native: this.native,
        reusePort: false,
        counters: this.metrics?.local ?? new QueryCounters(),
        logger: this.logger,
        onApplied,
      });
      this.backend = {
        zoneChanged: (origin, seq, zone) => local.zoneChanged(origin, seq, () => zone),
        zoneRemoved: (origin, seq) => local.zoneRemoved(origin, seq),
        start: () => local.start(),
        stop: () => local.stop(),
      };
    } else {
      this.mode = 'thread';
      const thread = new DnsThread({ config: this.threadConfig(tcp), logger: this.logger, onApplied });
      if (this.metrics !== undefined) this.metrics.pull = () => thread.counters();
      this.backend = thread;
    }
  }

  private threadConfig(tcp: TcpLimits): ThreadConfig {
    return {
      listen: [...this.options.listen],
      allowTransfer: this.options.allowTransfer ?? [],
      tsigKeys: (this.options.tsigKeys ?? []).map((k) => ({ name: k.name, algorithm: k.algorithm, secret: k.secret.toString('base64') })),
      udpSize: this.options.udpSize ?? 1232,
      ixfrJournal: this.ixfrJournal,
      tcp,
      packetCache: packetCacheOptions(this.options.packetCacheSize ?? DEFAULT_PACKET_CACHE_ENTRIES),
      udpEngine: this.udpEngine,
      logLevel: this.logger.level,
    };
  }

  private get ixfrJournal(): { changes: number; bytes: number } {
    return this.options.ixfrJournal ?? { changes: DEFAULT_JOURNAL_CHANGES, bytes: DEFAULT_JOURNAL_BYTES };
  }

  /** The addon for `auto` and `native`; a file that exists but does not load only fails `native`. */
  private loadEngine(engine: UdpEngineChoice, load: () => NativeUdpAddon | undefined): NativeUdpAddon | undefined {
    if (engine === 'dgram') return undefined;
    let addon: NativeUdpAddon | undefined;
    try {
      addon = load();
    } catch (err) {
      if (engine === 'native') throw new ConfigError(`--dns-udp-engine=native: the native UDP addon does not load: ${String(err)}`, '--dns-udp-engine');
      this.logger.warn({ err }, 'native UDP addon does not load; using node:dgram (npm run build:native rebuilds it)');
      return undefined;
    }
    if (engine === 'native' && addon === undefined) {
      throw new ConfigError(
        '--dns-udp-engine=native: the native UDP addon is not built (run `npm run build:native`; it needs cc and Linux)',
        '--dns-udp-engine',
      );
    }
    return addon;
  }

  /** `deps.tsigKeys`: keys accepted besides --dns-tsig-key (the replica set's own transfer key). */
  static fromConfig(cfg: DnsServerConfig, deps: { logger: Logger; metrics?: Registry; tsigKeys?: readonly TsigKey[] }): DnsServer {
    if (cfg.dnsListen.length === 0) throw new ConfigError('at least one --dns-listen address is needed', '--dns-listen');
    const workers = wholeIn(cfg.dnsWorkers ?? 0, 0, 64, '--dns-workers must be 0..64', '--dns-workers');
    const udpSize = wholeIn(cfg.dnsUdpSize ?? 1232, 512, 65535, '--dns-udp-size must be 512..65535', '--dns-udp-size');
    const packetCacheSize = wholeIn(
      cfg.dnsPacketCacheSize ?? DEFAULT_PACKET_CACHE_ENTRIES,
      0,
      1 << 24,
      '--dns-packet-cache-size must be 0..16777216',
      '--dns-packet-cache-size',
    );
    const ixfrJournal = {
      changes: wholeIn(
        cfg.dnsIxfrJournalSize ?? DEFAULT_JOURNAL_CHANGES,
        0,
        1_000_000,
        '--dns-ixfr-journal-size must be 0..1000000',
        '--dns-ixfr-journal-size',
      ),
      bytes: wholeIn(
        cfg.dnsIxfrJournalBytes ?? DEFAULT_JOURNAL_BYTES,
        0,
        2 ** 40,
        '--dns-ixfr-journal-bytes must be 0..1099511627776',
        '--dns-ixfr-journal-bytes',
      ),
    };
    const udpEngine = cfg.dnsUdpEngine ?? 'auto';
    if (!ENGINES.includes(udpEngine)) throw new ConfigError('--dns-udp-engine must be auto, native or dgram', '--dns-udp-engine');
    const maxConnections = wholeIn(
      cfg.dnsTcpMaxConnections ?? DEFAULT_TCP_LIMITS.maxConnections,
      1,
      65535,
      '--dns-tcp-max-connections must be 1..65535',
      '--dns-tcp-max-connections',
    );
    const idleMs = cfg.dnsTcpIdleTimeoutMs ?? DEFAULT_TCP_LIMITS.idleTimeoutMs;
    if (!(idleMs >= 100 && idleMs <= 3_600_000)) throw new ConfigError('--dns-tcp-idle-timeout must be between 100ms and 1h', '--dns-tcp-idle-timeout');
    for (const cidr of cfg.dnsAllowTransfer ?? []) {
      if (!/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(cidr)) throw new ConfigError(`bad CIDR "${cidr}"`, '--dns-allow-transfer');
    }
    return new DnsServer({
      listen: cfg.dnsListen,
      allowTransfer: cfg.dnsAllowTransfer ?? [],
      tsigKeys: [...(cfg.dnsTsigKey ?? []).map((k) => parseTsigKey(k)), ...(deps.tsigKeys ?? [])],
      notify: cfg.dnsNotify ?? [],
      udpSize,
      ixfrJournal,
      workers,
      udpEngine: udpEngine as UdpEngineChoice,
      packetCacheSize,
      tcpIdleTimeoutMs: idleMs,
      tcpMaxConnections: maxConnections,
      logger: deps.logger,
      ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
    });
  }

  /**
   * Called by the store right after a durable commit. Resolves once the change answers queries
   * (or after APPLY_WAIT_MS), never rejects: a bad zone must not fail the commit.
   */
  zoneChanged(zone: ZoneContent): Promise<void> {
    let origin: string;
    try {
      origin = normalise(zone.origin);
    } catch (err) {
      this.logger.error({ err }, 'could not load zone into the DNS server');
      return Promise.resolve();
    }
    const seq = ++this.seq;
    this.zones.set(origin, zone);
    this.given.set(origin, seq);
    const done = this.waitFor(origin, seq);
    try {
      this.backend.zoneChanged(origin, seq, zone);
    } catch (err) {
      this.logger.error({ err, zone: origin }, 'could not load zone into the DNS server');
      this.settled.set(origin, { seq, error: String(err) });
    }
    return done;
  }

  zoneRemoved(origin: string): Promise<void> {
    const name = normalise(origin);
    const seq = ++this.seq;
    this.zones.delete(name);
    this.given.delete(name);
    this.settled.delete(name);
    const done = this.waitFor(name, seq);
    this.backend.zoneRemoved(name, seq);
    return done;
  }

  /** Before start nothing is served yet, so there is nothing to wait for. */
  private waitFor(origin: string, seq: number): Promise<void> {
    if (!this.started) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.logger.warn({ zone: origin, waitedMs: APPLY_WAIT_MS }, 'the DNS server has not loaded a zone change yet; acknowledging it anyway');
        resolve();
      }, APPLY_WAIT_MS);
      const list = this.waiters.get(origin) ?? [];
      list.push({ seq, resolve: () => (clearTimeout(timer), resolve()) });
      this.waiters.set(origin, list);
    });
  }

  private applied(a: ZoneApplied): void {
    if (this.given.has(a.origin)) this.settled.set(a.origin, { seq: a.seq, ...(a.error === undefined ? {} : { error: a.error }) });
    if (this.zones.has(a.origin)) this.records.set(a.origin, a.records);
    else this.records.delete(a.origin);
    const served = [...this.records.values()].filter((n) => n > 0);
    this.metrics?.setZones(
      served.length,
      served.reduce((n, r) => n + r, 0),
    );
    const zone = this.zones.get(a.origin);
    if (a.error === undefined && zone !== undefined) {
      this.logger.debug({ zone: a.origin, serial: zone.soa.serial, records: a.records }, 'zone loaded');
      this.notifier.zoneChanged(a.origin, zone.soa);
    }
    const list = this.waiters.get(a.origin);
    if (list === undefined) return;
    const rest = list.filter((w) => w.seq > a.seq);
    for (const w of list) if (w.seq <= a.seq) w.resolve();
    if (rest.length === 0) this.waiters.delete(a.origin);
    else this.waiters.set(a.origin, rest);
  }

  /**
   * Whether queries are answered from every zone's latest content, for /readyz: listening, and
   * each zone given has its latest change loaded (a failed load is reported with its error).
   */
  servingState(): ServingState {
    const loading: string[] = [];
    const failed: { zone: string; error: string }[] = [];
    for (const [origin, seq] of this.given) {
      const s = this.settled.get(origin);
      if (s === undefined || s.seq < seq) loading.push(origin);
      else if (s.error !== undefined) failed.push({ zone: origin, error: s.error });
    }
    return { listening: this.started && !this.stopped, zones: this.given.size, loading, failed };
  }

  /** The UDP path this server (or its workers) uses. */
  get udpEngine(): 'native' | 'dgram' {
    return this.native === undefined ? 'dgram' : 'native';
  }

  /** Queries answered by each worker process since start (empty without workers). */
  workerQueries(): number[] {
    return this.pool?.queriesPerWorker() ?? [];
  }

  /** Serves the zones given so far, then listens; resolves with the bound addresses. */
  async start(): Promise<{ addresses: ListenAddresses }> {
    let addresses: ListenAddresses;
    try {
      addresses = await this.backend.start();
    } catch (err) {
      await this.stop();
      throw err;
    }
    this.started = true;
    const workers = this.options.workers ?? 0;
    this.logger.info(
      { addresses: addresses.map((a) => `${a.udp.host}:${a.udp.port}`), udpEngine: this.udpEngine, answeredOn: this.mode, ...(workers > 0 ? { workers } : {}) },
      'DNS server listening',
    );
    return { addresses };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.notifier.stop();
    await this.backend.stop();
    for (const list of this.waiters.values()) for (const w of list) w.resolve();
    this.waiters.clear();
  }
}

/** `value` when it is a whole number in [min, max]; else the ConfigError naming the flag. */
function wholeIn(value: number, min: number, max: number, message: string, flag: string): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(message, flag);
  return value;
}
