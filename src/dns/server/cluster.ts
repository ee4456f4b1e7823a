/**
 * Multi-core serving with node:cluster. With the native UDP engine each worker binds its own
 * SO_REUSEPORT socket on the port resolved here, and the kernel spreads datagrams over them by
 * 4-tuple hash. Node 20 has no SO_REUSEPORT option for dgram or net, so otherwise the primary owns
 * the listening handles: every worker that binds the same UDP address receives the shared socket
 * (the kernel hands each datagram to one reader), and TCP connections are always accepted by the
 * primary and passed round-robin to workers, so TCP connections wait for the primary's event loop.
 * Each worker builds its own zone index, in slices between queries, from a packed zone
 * (zone-pack.ts) sent over IPC after every change (advanced serialization, so the buffer travels as
 * bytes), says when it serves it, and ships query counters back once a second so that the
 * primary's metrics registry covers all workers.
 */
import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../log.ts';
import type { ZoneContent } from '../zone-content.ts';
import type { ListenAddresses } from './local-server.ts';
import type { MetricsSnapshot } from './metrics.ts';
import { parseHostPort } from './notify.ts';
import type { ThreadConfig } from './thread.ts';
import type { ZoneApplied } from './zone-loader.ts';
import { packZone } from './zone-pack.ts';

/** Messages from primary to worker. */
export type ToWorker =
  | { type: 'config'; config: WorkerConfig }
  | { type: 'zone'; origin: string; seq: number; packed: ArrayBuffer }
  | { type: 'remove'; origin: string; seq: number }
  | { type: 'stop' };

/** Messages from worker to primary. */
export type FromWorker =
  | { type: 'hello' }
  | { type: 'ready'; addresses: ListenAddresses }
  | { type: 'failed'; message: string }
  | { type: 'applied'; applied: ZoneApplied }
  | { type: 'metrics'; snapshot: MetricsSnapshot };

/** The same settings as the DNS thread's; `tcp.maxConnections` is this worker's share. */
export type WorkerConfig = ThreadConfig;

const RESTART_DELAY_MS = 1000;
/** Above TCP_FINISH_MS: the server's own stop lets TCP replies in flight finish first. */
const STOP_GRACE_MS = 4000;
const READY_TIMEOUT_MS = 20_000;

export class WorkerPool {
  /** Settings shared by every worker, except that `listen` has port 0 resolved at start. */
  private readonly config: WorkerConfig;
  private readonly count: number;
  private readonly logger: Logger;
  private readonly merge: (s: MetricsSnapshot) => void;
  private readonly onApplied: (a: ZoneApplied) => void;
  /** The newest content of each zone, with its sequence number, for workers that start later. */
  private readonly zones = new Map<string, { seq: number; zone: ZoneContent }>();
  /** Every forked worker that has not exited, and those that were sent their configuration. */
  private readonly workers = new Set<Worker>();
  private readonly configured = new Set<Worker>();
  /** Workers that listen and, per zone, the newest change each one serves. */
  private readonly serving = new Map<Worker, Map<string, number>>();
  /** Records per zone, as the last worker to apply a change counted them. */
  private readonly records = new Map<string, number>();
  /** Queries answered per worker (by fork order), from the counters each worker ships. */
  private readonly answered: number[] = [];
  private stopping = false;

  constructor(args: { config: WorkerConfig; workers: number; logger: Logger; merge: (s: MetricsSnapshot) => void; onApplied: (a: ZoneApplied) => void }) {
    this.config = args.config;
    this.count = args.workers;
    this.logger = args.logger;
    this.merge = args.merge;
    this.onApplied = args.onApplied;
  }

  zoneChanged(origin: string, seq: number, zone: ZoneContent): void {
    this.zones.set(origin, { seq, zone });
    if (this.configured.size === 0) return;
    let packed: ArrayBuffer;
    try {
      packed = packZone(zone);
    } catch (err) {
      this.logger.error({ err, zone: origin }, 'could not load zone into the DNS server');
      this.onApplied({ origin, seq, records: 0, error: String(err) });
      return;
    }
    this.broadcast({ type: 'zone', origin, seq, packed });
  }

  zoneRemoved(origin: string, seq: number): void {
    this.zones.delete(origin);
    this.broadcast({ type: 'remove', origin, seq });
  }

  queriesPerWorker(): number[] {
    return [...this.answered];
  }

  private broadcast(msg: ToWorker): void {
    for (const w of this.configured) if (w.isConnected()) w.send(msg);
  }

  /** A change counts as applied once every live worker serves it (or a newer one). */
  private settle(origin: string, error?: string): void {
    let seq = Infinity;
    for (const served of this.serving.values()) seq = Math.min(seq, served.get(origin) ?? 0);
    if (seq > 0 && seq !== Infinity) this.onApplied({ origin, seq, records: this.records.get(origin) ?? 0, ...(error === undefined ? {} : { error }) });
  }

  async start(): Promise<ListenAddresses> {
    // Workers must agree on one port, so port 0 is resolved here first.
    const listen: string[] = [];
    for (const spec of this.config.listen) {
      const { host, port } = parseHostPort(spec, 53, '--dns-listen');
      const p = port === 0 ? await freePort(host === '' ? '::' : host) : port;
      listen.push(host.includes(':') ? `[${host}]:${p}` : `${host}:${p}`);
    }
    this.config.listen = listen;
    const execArgv =
      process.execArgv.includes('tsx') || process.execArgv.some((a) => a.includes('tsx')) ? process.execArgv : [...process.execArgv, '--import', 'tsx'];
    // Advanced (structured clone) serialization carries the packed zones as bytes, not as JSON arrays.
    cluster.setupPrimary({ exec: fileURLToPath(new URL('./worker-main.ts', import.meta.url)), execArgv, serialization: 'advanced' });
    const ready = await Promise.all(Array.from({ length: this.count }, () => this.fork()));
    return ready[0] ?? [];
  }

  private fork(): Promise<ListenAddresses> {
    const worker = cluster.fork({ HOSTWARDEN_DNS_WORKER: '1' });
    const slot = this.answered.length;
    this.answered.push(0);
    const served = new Map<string, number>();
    this.workers.add(worker);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('DNS worker did not start in time')), READY_TIMEOUT_MS);
      worker.on('message', (msg: FromWorker) => {
        if (msg.type === 'hello') {
          // Zones before the config: the worker queues them, loads them and only then binds, so it
          // never answers REFUSED for a zone it was given (IPC keeps the order of messages).
          for (const [origin, { seq, zone }] of this.zones) {
            try {
              const packed = packZone(zone);
              worker.send({ type: 'zone', origin, seq, packed } satisfies ToWorker);
            } catch (err) {
              this.logger.error({ err, zone: origin }, 'could not load zone into the DNS server');
            }
          }
          worker.send({ type: 'config', config: this.config } satisfies ToWorker);
          this.configured.add(worker);
        } else if (msg.type === 'ready') {
          clearTimeout(timer);
          // Counted for `settle` only once it serves: the zones it was sent are loaded by then.
          this.serving.set(worker, served);
          for (const origin of this.zones.keys()) this.settle(origin);
          resolve(msg.addresses);
        } else if (msg.type === 'applied') {
          const a = msg.applied;
          served.set(a.origin, Math.max(served.get(a.origin) ?? 0, a.seq));
          this.records.set(a.origin, a.records);
          if (this.serving.has(worker)) this.settle(a.origin, a.error);
        } else if (msg.type === 'failed') {
          clearTimeout(timer);
          reject(new Error(`DNS worker failed: ${msg.message}`));
        } else if (msg.type === 'metrics') {
          this.merge(msg.snapshot);
          this.answered[slot] = (this.answered[slot] ?? 0) + msg.snapshot.queries.reduce((n, [, c]) => n + c, 0);
        }
      });
      worker.on('exit', (code, signal) => {
        clearTimeout(timer);
        this.workers.delete(worker);
        this.configured.delete(worker);
        this.serving.delete(worker);
        if (this.stopping) return;
        // Changes this worker had not applied yet no longer wait for it.
        for (const origin of this.zones.keys()) this.settle(origin);
        this.logger.error({ pid: worker.process.pid, code, signal }, 'DNS worker exited; restarting');
        setTimeout(() => {
          if (!this.stopping) this.fork().catch((err: unknown) => this.logger.error({ err }, 'DNS worker restart failed'));
        }, RESTART_DELAY_MS).unref();
      });
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.workers].map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.isDead()) return resolve();
            const timer = setTimeout(() => {
              w.process.kill('SIGKILL');
              resolve();
            }, STOP_GRACE_MS);
            w.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            if (w.isConnected()) w.send({ type: 'stop' } satisfies ToWorker);
            else w.process.kill('SIGTERM');
          }),
      ),
    );
  }
}

/** A port free for both UDP and TCP on `host` (released again before returning). */
async function freePort(host: string): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const udp = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    const port = await new Promise<number>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind({ address: host, port: 0, exclusive: true }, () => resolve(udp.address().port));
    });
    const ok = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen({ host, port, exclusive: true }, () => s.close(() => resolve(true)));
    });
    await new Promise<void>((r) => udp.close(() => r()));
    if (ok) return port;
  }
  throw new Error(`no free port on ${host}`);
}
