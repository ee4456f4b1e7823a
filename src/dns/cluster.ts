/**
 * Multi-core serving with node:cluster. With the native UDP engine each worker binds its own
 * SO_REUSEPORT socket on the port resolved here, and the kernel spreads datagrams over them by
 * 4-tuple hash. Node 20 has no SO_REUSEPORT option for dgram or net, so otherwise the primary owns
 * the listening handles: every worker that binds the same UDP address receives the shared socket
 * (the kernel hands each datagram to one reader), and TCP connections are always accepted by the
 * primary and passed round-robin to workers. Each worker builds its own zone index
 * from ZoneContent messages sent over IPC after every change, and ships query counters back once
 * a second so that the primary's metrics registry covers all workers.
 */
import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../log.ts';
import type { ZoneContent } from './zone-content.ts';
import type { MetricsSnapshot } from './metrics.ts';
import { parseHostPort } from './notify.ts';
import type { BoundAddress, DnsServerOptions } from './server.ts';

/** Messages from primary to worker. */
export type ToWorker =
  | { type: 'config'; config: WorkerConfig }
  | { type: 'zone'; zone: ZoneContent }
  | { type: 'remove'; origin: string }
  | { type: 'stop' };

/** Messages from worker to primary. */
export type FromWorker =
  | { type: 'hello' }
  | { type: 'ready'; addresses: { udp: BoundAddress; tcp: BoundAddress }[] }
  | { type: 'failed'; message: string }
  | { type: 'metrics'; snapshot: MetricsSnapshot };

export interface WorkerConfig {
  listen: string[];
  allowTransfer: string[];
  tsigKeys: { name: string; algorithm: string; secret: string }[];
  udpSize: number;
  tcpIdleTimeoutMs?: number;
  logLevel: string;
  /** Resolved by the primary, so a worker never falls back to another engine on its own. */
  udpEngine: 'native' | 'dgram';
}

const RESTART_DELAY_MS = 1000;
const STOP_GRACE_MS = 2000;
const READY_TIMEOUT_MS = 20_000;

export class WorkerPool {
  private readonly options: DnsServerOptions;
  private readonly count: number;
  private readonly logger: Logger;
  private readonly merge: (s: MetricsSnapshot) => void;
  private readonly zones = new Map<string, ZoneContent>();
  private readonly workers = new Set<Worker>();
  private readonly udpEngine: 'native' | 'dgram';
  /** Queries answered per worker (by fork order), from the counters each worker ships. */
  private readonly answered: number[] = [];
  private config: WorkerConfig | undefined;
  private stopping = false;

  constructor(args: { options: DnsServerOptions; workers: number; udpEngine: 'native' | 'dgram'; logger: Logger; merge: (s: MetricsSnapshot) => void }) {
    this.options = args.options;
    this.udpEngine = args.udpEngine;
    this.count = args.workers;
    this.logger = args.logger;
    this.merge = args.merge;
  }

  zoneChanged(zone: ZoneContent): void {
    this.zones.set(zone.origin, zone);
    this.broadcast({ type: 'zone', zone });
  }

  zoneRemoved(origin: string): void {
    this.zones.delete(origin);
    this.broadcast({ type: 'remove', origin });
  }

  queriesPerWorker(): number[] {
    return [...this.answered];
  }

  private broadcast(msg: ToWorker): void {
    for (const w of this.workers) if (w.isConnected()) w.send(msg);
  }

  async start(): Promise<{ udp: BoundAddress; tcp: BoundAddress }[]> {
    // Workers must agree on one port, so port 0 is resolved here first.
    const listen: string[] = [];
    for (const spec of this.options.listen) {
      const { host, port } = parseHostPort(spec, 53, '--dns-listen');
      const p = port === 0 ? await freePort(host === '' ? '::' : host) : port;
      listen.push(host.includes(':') ? `[${host}]:${p}` : `${host}:${p}`);
    }
    this.config = {
      listen,
      allowTransfer: this.options.allowTransfer ?? [],
      tsigKeys: (this.options.tsigKeys ?? []).map((k) => ({ name: k.name, algorithm: k.algorithm, secret: k.secret.toString('base64') })),
      udpSize: this.options.udpSize ?? 1232,
      ...(this.options.tcpIdleTimeoutMs === undefined ? {} : { tcpIdleTimeoutMs: this.options.tcpIdleTimeoutMs }),
      logLevel: this.logger.level,
      udpEngine: this.udpEngine,
    };
    const execArgv = process.execArgv.includes('tsx') || process.execArgv.some((a) => a.includes('tsx')) ? process.execArgv : [...process.execArgv, '--import', 'tsx'];
    cluster.setupPrimary({ exec: fileURLToPath(new URL('./worker-main.ts', import.meta.url)), execArgv });
    const ready = await Promise.all(Array.from({ length: this.count }, () => this.fork()));
    return ready[0] ?? [];
  }

  private fork(): Promise<{ udp: BoundAddress; tcp: BoundAddress }[]> {
    const worker = cluster.fork({ HOSTWARDEN_DNS_WORKER: '1' });
    const slot = this.answered.length;
    this.answered.push(0);
    this.workers.add(worker);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('DNS worker did not start in time')), READY_TIMEOUT_MS);
      worker.on('message', (msg: FromWorker) => {
        if (msg.type === 'hello') {
          if (this.config === undefined) return;
          worker.send({ type: 'config', config: this.config } satisfies ToWorker);
          for (const zone of this.zones.values()) worker.send({ type: 'zone', zone } satisfies ToWorker);
        } else if (msg.type === 'ready') {
          clearTimeout(timer);
          resolve(msg.addresses);
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
        if (this.stopping) return;
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
