/**
 * The DNS thread: by default the server answers on a worker thread of its own, so that nothing the
 * sync loop does (parsing manifests, planning, writing zone files, collecting garbage in its heap)
 * delays an answer. The thread binds the sockets and runs a LocalDnsServer; this side hands it
 * each zone as one packed buffer (zone-pack.ts), moved rather than copied, and the thread indexes
 * it in slices between queries. The thread's log lines come back here and go out through the
 * server's logger; its query counters are fetched when /metrics is scraped.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../log.ts';
import type { ListenAddresses } from './local-server.ts';
import type { MetricsSnapshot } from './metrics.ts';
import type { TcpLimits } from './tcp.ts';
import type { PacketCacheOptions } from './native/udp-native.ts';
import type { ZoneApplied } from './zone-loader.ts';
import type { ZoneContent } from '../zone-content.ts';
import { packZone } from './zone-pack.ts';

/** What the thread is started with (its workerData). */
export interface ThreadConfig {
  listen: string[];
  allowTransfer: string[];
  /** Secrets in base64. */
  tsigKeys: { name: string; algorithm: string; secret: string }[];
  udpSize: number;
  ixfrJournal: { changes: number; bytes: number };
  tcp: TcpLimits;
  packetCache: PacketCacheOptions;
  /** Resolved on this side, so the thread never falls back to another engine on its own. */
  udpEngine: 'native' | 'dgram';
  logLevel: string;
}

export type ToThread =
  | { type: 'zone'; origin: string; seq: number; packed: ArrayBuffer }
  | { type: 'remove'; origin: string; seq: number }
  | { type: 'start' }
  | { type: 'counters'; id: number }
  | { type: 'stop' };

export type FromThread =
  | { type: 'ready'; addresses: ListenAddresses }
  | { type: 'failed'; message: string }
  | { type: 'applied'; applied: ZoneApplied }
  | { type: 'counters'; id: number; snapshot: MetricsSnapshot }
  | { type: 'log'; line: string }
  | { type: 'stopped' };

const RESTART_DELAY_MS = 1000;
const READY_TIMEOUT_MS = 60_000;
/** Above TCP_FINISH_MS: the server's own stop lets TCP replies in flight finish first. */
const STOP_GRACE_MS = 4000;
/** A scrape does not wait longer than this for the thread's counters. */
const COUNTERS_TIMEOUT_MS = 1000;
const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;

export class DnsThread {
  private readonly config: ThreadConfig;
  private readonly logger: Logger;
  private readonly onApplied: (a: ZoneApplied) => void;
  /** The newest content of each zone and its sequence number, sent again to a restarted thread. */
  private readonly latest = new Map<string, { seq: number; zone: ZoneContent }>();
  private readonly counterWaiters = new Map<number, (s: MetricsSnapshot | undefined) => void>();
  /** The running thread; changes go to it at once (it queues messages until it reads them). */
  private worker: Worker | undefined;
  private stopping = false;
  private nextId = 0;

  constructor(args: { config: ThreadConfig; logger: Logger; onApplied: (a: ZoneApplied) => void }) {
    this.config = args.config;
    this.logger = args.logger;
    this.onApplied = args.onApplied;
  }

  zoneChanged(origin: string, seq: number, zone: ZoneContent): void {
    this.latest.set(origin, { seq, zone });
    if (this.worker !== undefined) this.sendZone(origin, seq, zone);
  }

  zoneRemoved(origin: string, seq: number): void {
    this.latest.delete(origin);
    this.worker?.postMessage({ type: 'remove', origin, seq } satisfies ToThread);
  }

  /** Starts the thread with the zones given so far; resolves when it listens (and serves them). */
  async start(): Promise<ListenAddresses> {
    const addresses = await this.spawn();
    // A restarted thread binds the very ports the first one got (port 0 picks one only once).
    this.config.listen = addresses.map((a) => (a.udp.host.includes(':') ? `[${a.udp.host}]:${a.udp.port}` : `${a.udp.host}:${a.udp.port}`));
    return addresses;
  }

  /** The thread's query counters since the last call; undefined when it does not answer in time. */
  counters(): Promise<MetricsSnapshot | undefined> {
    const worker = this.worker;
    if (worker === undefined) return Promise.resolve(undefined);
    const id = ++this.nextId;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.counterWaiters.delete(id);
        resolve(undefined);
      }, COUNTERS_TIMEOUT_MS);
      this.counterWaiters.set(id, (s) => {
        clearTimeout(timer);
        resolve(s);
      });
      worker.postMessage({ type: 'counters', id } satisfies ToThread);
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const worker = this.worker;
    if (worker === undefined) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, STOP_GRACE_MS);
      worker.on('message', (m: FromThread) => {
        if (m.type === 'stopped') {
          clearTimeout(timer);
          resolve();
        }
      });
      worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      worker.postMessage({ type: 'stop' } satisfies ToThread);
    });
    await worker.terminate();
  }

  private spawn(): Promise<ListenAddresses> {
    const worker = startWorker(this.config);
    this.worker = worker;
    for (const [origin, { seq, zone }] of this.latest) this.sendZone(origin, seq, zone);
    worker.postMessage({ type: 'start' } satisfies ToThread);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the DNS thread did not start in time')), READY_TIMEOUT_MS);
      let started = false;
      worker.on('message', (m: FromThread) => {
        if (m.type === 'ready') {
          clearTimeout(timer);
          started = true;
          resolve(m.addresses);
        } else if (m.type === 'failed') {
          clearTimeout(timer);
          this.stopping = true;
          void worker.terminate();
          reject(new Error(m.message));
        } else this.onMessage(m);
      });
      worker.on('error', (err) => this.logger.error({ err }, 'DNS thread failed'));
      worker.on('exit', (code) => {
        clearTimeout(timer);
        if (this.worker === worker) this.worker = undefined;
        for (const w of this.counterWaiters.values()) w(undefined);
        this.counterWaiters.clear();
        if (this.stopping) return;
        if (!started) return reject(new Error(`the DNS thread exited with code ${code} while starting`));
        this.logger.error({ code }, 'DNS thread exited; restarting');
        setTimeout(() => {
          if (!this.stopping) this.spawn().catch((err: unknown) => this.logger.error({ err }, 'DNS thread restart failed'));
        }, RESTART_DELAY_MS).unref();
      });
    });
  }

  private onMessage(m: FromThread): void {
    if (m.type === 'applied') this.onApplied(m.applied);
    else if (m.type === 'counters') {
      this.counterWaiters.get(m.id)?.(m.snapshot);
      this.counterWaiters.delete(m.id);
    } else if (m.type === 'log') this.relay(m.line);
  }

  private sendZone(origin: string, seq: number, zone: ZoneContent): void {
    let packed: ArrayBuffer;
    try {
      packed = packZone(zone);
    } catch (err) {
      this.logger.error({ err, zone: origin }, 'could not load zone into the DNS server');
      this.onApplied({ origin, seq, records: 0, error: String(err) });
      return;
    }
    this.worker?.postMessage({ type: 'zone', origin, seq, packed } satisfies ToThread, [packed]);
  }

  /** A JSON log line of the thread, logged again here with this logger's bindings and format. */
  private relay(line: string): void {
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    const { level, time: _time, msg, ...fields } = record;
    const name = LEVELS[Math.min(5, Math.max(0, Math.floor((Number(level) || 30) / 10) - 1))] ?? 'info';
    this.logger[name](fields, typeof msg === 'string' ? msg : '');
  }
}

/**
 * The thread runs thread-main.js next to this file when compiled. From the TypeScript sources it
 * needs tsx, and a Node 20 worker neither inherits module hooks registered with register() (as
 * bin/hostwarden does) nor applies an --import before loading its entry: the thread registers tsx
 * itself and then imports the entry.
 */
function startWorker(config: ThreadConfig): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./thread-main.js', here), { workerData: config });
  const entry = new URL('./thread-main.ts', here).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(code, { eval: true, workerData: config });
}
