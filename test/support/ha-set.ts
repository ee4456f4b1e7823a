/**
 * A set of `hostwarden run` replicas serving one embedded zone from one test API server, as the
 * Deployment's pods would (issue 26): each with its own data directory and DNS port, leader
 * election with short timings, and the follower role transferring from the published leader.
 * Shared by the replica-set test and `bench:dns-ha`; every wait is bounded.
 *
 *   const set = await HaSet.start({ api, root });
 *   await set.waitAllReady();
 *   await set.kill(set.leaderIndex()!, 'SIGKILL');
 *   await set.restart(1);
 *   await set.stop();
 *
 * Replicas are spawned here rather than with startHostwarden: that one listens on port 0, and a
 * replica must know its DNS port before it starts, to publish it as its transfer address.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import dnsPacket from 'dns-packet';
import { BIN, REPO_ROOT } from './cli.ts';
import type { TestApiServer } from './kube-apiserver/server.ts';

export const HA_ZONE = 'example.org';
const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'default', name: 'hostwarden-leader' };
/** Where the leader publishes its transfer address (the follower contract of issue 26). */
export const PEER_ANNOTATION = 'hostwarden.io/embedded-peer-address';
export const LEASE_DURATION_MS = 3000;
export const RETRY_PERIOD_MS = 500;

/** One process of a replica: a restart makes a new incarnation with a fresh data dir and port. */
export interface Incarnation {
  readonly index: number;
  /** Counts the starts of all replicas of the set: unique per process. */
  readonly id: number;
  readonly dnsPort: number;
  readonly metricsPort: number;
  readonly dataDir: string;
  readonly child: ChildProcess;
  readonly logs: Record<string, unknown>[];
  readonly exited: Promise<number | null>;
  readonly startedAt: number;
  alive(): boolean;
  /** True once the set sent it a signal: a stopping replica no longer counts as one of the set. */
  signalled(): boolean;
  /** This process's Lease identity, once it logged one (its elector logs it when it leads). */
  identity(): string | undefined;
}

export interface HaSetOptions {
  api: TestApiServer;
  /** A temp directory the set may write to (data dirs, the kubeconfig, each process's log as `replica-<i>-<id>.log`). */
  root: string;
  size?: number;
  /** More `run` flags for every replica. */
  extraArgs?: readonly string[];
  /** Bound of a replica's start (until /metrics serves). Default 60 s. */
  startTimeoutMs?: number;
}

/** A free port on 127.0.0.1 for both TCP and UDP (DNS listens on both). */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const tcp = createServer();
    const port = await new Promise<number>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(0, '127.0.0.1', () => resolve((tcp.address() as AddressInfo).port));
    });
    const udp = createSocket('udp4');
    const udpFree = await new Promise<boolean>((resolve) => {
      udp.once('error', () => resolve(false));
      udp.bind(port, '127.0.0.1', () => resolve(true));
    });
    await new Promise<void>((resolve) => tcp.close(() => resolve()));
    await new Promise<void>((resolve) => (udpFree ? udp.close(() => resolve()) : resolve()));
    if (udpFree) return port;
  }
  throw new Error('no port free for both TCP and UDP on 127.0.0.1 after 20 attempts');
}

interface Spawned {
  child: ChildProcess;
  logs: Record<string, unknown>[];
  exited: Promise<number | null>;
  waitForLog(pred: (l: Record<string, unknown>) => boolean, timeoutMs: number): Promise<Record<string, unknown>>;
}

/** `hostwarden run` with JSON logs on stderr, kept as parsed lines and written to `logFile`. */
function spawnRun(args: readonly string[], logFile: string): Spawned {
  const child = spawn(process.execPath, [BIN, 'run', '--log-format', 'json', ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  const file = createWriteStream(logFile);
  let buffer = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    file.write(chunk);
    buffer += chunk.toString();
    let nl = buffer.indexOf('\n');
    while (nl !== -1) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf('\n');
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ msg: line });
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.stderr?.on('end', () => file.end());
  const waitForLog = async (pred: (l: Record<string, unknown>) => boolean, timeoutMs: number): Promise<Record<string, unknown>> => {
    const deadline = Date.now() + timeoutMs;
    let gone = false;
    void exited.then(() => (gone = true));
    while (Date.now() < deadline) {
      const found = logs.find(pred);
      if (found !== undefined) return found;
      if (gone) break;
      await sleep(20);
    }
    throw new Error(`no matching log line within ${timeoutMs} ms (exited: ${gone}); last lines:\n${tailOf(logs, 30)}`);
  };
  return { child, logs, exited, waitForLog };
}

export function tailOf(logs: readonly Record<string, unknown>[], n: number): string {
  return logs
    .slice(-n)
    .map((l) => JSON.stringify(l))
    .join('\n');
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `fn` every `everyMs` until it returns a value other than undefined, for at most `ms`. */
export async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, ms: number, everyMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v !== undefined) return v;
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

export class HaSet {
  readonly size: number;
  readonly kubeconfig: string;
  private readonly opts: HaSetOptions;
  private readonly current: (Incarnation | undefined)[];
  /** Every process ever started, for identities of past leaders and for logs after a failure. */
  readonly history: Incarnation[] = [];
  private nextId = 0;
  private readonly signalled = new Set<number>();

  private constructor(opts: HaSetOptions, kubeconfig: string) {
    this.opts = opts;
    this.size = opts.size ?? 3;
    this.kubeconfig = kubeconfig;
    this.current = new Array<Incarnation | undefined>(this.size).fill(undefined);
  }

  /** Starts every replica at once (as a Deployment does) and returns when each serves /metrics. */
  static async start(opts: HaSetOptions): Promise<HaSet> {
    const set = new HaSet(opts, await opts.api.writeKubeconfig(opts.root));
    try {
      await Promise.all(Array.from({ length: set.size }, (_, i) => set.start(i)));
    } catch (err) {
      await set.stop();
      throw err;
    }
    return set;
  }

  replica(i: number): Incarnation | undefined {
    return this.current[i];
  }

  /** Starts replica `i` with a fresh data dir and DNS port (an emptyDir and a new Pod IP). */
  async start(i: number): Promise<Incarnation> {
    if (this.current[i]?.alive() === true) throw new Error(`replica ${i} is running`);
    const id = this.nextId++;
    const dataDir = join(this.opts.root, `replica-${i}-${id}`);
    await mkdir(dataDir, { recursive: true });
    const dnsPort = await freePort();
    const spawned = spawnRun(
      [
        '--source',
        'service',
        '--kubeconfig',
        this.kubeconfig,
        '--embedded-zone',
        HA_ZONE,
        '--txt-owner-id',
        'ha',
        '--embedded-data-dir',
        dataDir,
        '--dns-listen',
        `127.0.0.1:${dnsPort}`,
        '--embedded-peer-address',
        `127.0.0.1:${dnsPort}`,
        '--leader-elect',
        '--leader-election-namespace',
        LEASE.namespace,
        '--leader-election-lease-duration',
        `${LEASE_DURATION_MS}ms`,
        '--leader-election-renew-deadline',
        '2s',
        '--leader-election-retry-period',
        `${RETRY_PERIOD_MS}ms`,
        '--min-event-sync-interval',
        '10ms',
        '--metrics-address',
        '127.0.0.1:0',
        '--shutdown-drain',
        '300ms',
        ...(this.opts.extraArgs ?? []),
      ],
      `${dataDir}.log`,
    );
    let exitedNow = false;
    void spawned.exited.then(() => (exitedNow = true));
    try {
      const ops = await spawned.waitForLog((l) => l['msg'] === 'serving /metrics and /healthz', this.opts.startTimeoutMs ?? 60_000);
      const address = String(ops['address']);
      const logs = spawned.logs;
      const inc: Incarnation = {
        index: i,
        id,
        dnsPort,
        metricsPort: Number(address.slice(address.lastIndexOf(':') + 1)),
        dataDir,
        child: spawned.child,
        logs,
        exited: spawned.exited,
        startedAt: Date.now(),
        alive: () => !exitedNow,
        signalled: () => this.signalled.has(id),
        identity: () => logs.find((l) => typeof l['identity'] === 'string')?.['identity'] as string | undefined,
      };
      this.current[i] = inc;
      this.history.push(inc);
      return inc;
    } catch (err) {
      spawned.child.kill('SIGKILL');
      throw err;
    }
  }

  /** Sends `signal` to replica `i` and waits for the process to exit (SIGKILL after `ms`). */
  async kill(i: number, signal: NodeJS.Signals, ms = 15_000): Promise<number | null> {
    const inc = this.current[i];
    if (inc === undefined || !inc.alive()) return null;
    this.signalled.add(inc.id);
    inc.child.kill(signal);
    const timer = setTimeout(() => inc.child.kill('SIGKILL'), ms);
    const code = await inc.exited;
    clearTimeout(timer);
    return code;
  }

  /** A new process for replica `i` on a fresh (empty) data dir, as a Pod with an emptyDir restarts. */
  async restart(i: number, signal: NodeJS.Signals = 'SIGTERM'): Promise<Incarnation> {
    await this.kill(i, signal);
    return this.start(i);
  }

  /** GET /readyz of replica `i` (false when it is down or does not answer within `ms`). */
  async ready(i: number, ms = 500): Promise<boolean> {
    const inc = this.current[i];
    return inc !== undefined && inc.alive() && (await readyz(inc.metricsPort, ms)) === 'ready';
  }

  async waitReady(i: number, ms = 30_000): Promise<void> {
    await until(`replica ${i} Ready`, async () => ((await this.ready(i)) ? true : undefined), ms, 50).catch((err: unknown) => {
      throw new Error(`${String(err)}; its last log lines:\n${tailOf(this.current[i]?.logs ?? [], 30)}`);
    });
  }

  async waitAllReady(ms = 30_000): Promise<void> {
    await Promise.all(Array.from({ length: this.size }, (_, i) => this.waitReady(i, ms)));
  }

  /** The zone's SOA serial as replica `i` answers it over UDP; undefined without an answer. */
  async soaSerial(i: number, client?: DnsClient): Promise<number | undefined> {
    const inc = this.current[i];
    if (inc === undefined || !inc.alive()) return undefined;
    const own = client ?? (await DnsClient.open());
    try {
      return (await own.query(inc.dnsPort, HA_ZONE, 'SOA', 1000))?.serial;
    } finally {
      if (client === undefined) own.close();
    }
  }

  /**
   * The replica whose running process holds an unexpired Lease, from the Lease in the API server;
   * undefined while none does (no holder, expired, or the holder is a process that is gone).
   */
  leaderIndex(now = Date.now()): number | undefined {
    const spec = this.opts.api.get(LEASE)?.['spec'] as { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number } | undefined;
    const holder = spec?.holderIdentity ?? '';
    if (holder === '' || spec?.renewTime === undefined) return undefined;
    if (Date.parse(spec.renewTime) + (spec.leaseDurationSeconds ?? 0) * 1000 < now) return undefined;
    const inc = this.current.find((c) => c !== undefined && c.alive() && c.identity() === holder);
    return inc?.index;
  }

  /** The transfer address the leader published on the Lease, if any. */
  publishedPeer(): string | undefined {
    const metadata = this.opts.api.get(LEASE)?.['metadata'] as { annotations?: Record<string, string> } | undefined;
    return metadata?.annotations?.[PEER_ANNOTATION];
  }

  /** Every replica's process ends with SIGKILL (tests end here whatever happened). */
  async stop(): Promise<void> {
    await Promise.all(this.current.map((_, i) => this.kill(i, 'SIGKILL')));
  }
}

/** GET /readyz: 'ready' on 200, 'not-ready' on any other status, 'no-answer' on no answer within `ms`. */
export async function readyz(port: number, ms: number): Promise<'ready' | 'not-ready' | 'no-answer'> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(ms) });
    await res.text();
    return res.ok ? 'ready' : 'not-ready';
  } catch {
    return 'no-answer';
  }
}

/** What a replica answered: the RCODE name, the A addresses, the SOA serial, the round-trip time. */
export interface DnsAnswer {
  rcode: 'NOERROR' | 'NXDOMAIN' | 'REFUSED' | 'SERVFAIL' | 'OTHER';
  addresses: string[];
  serial: number | undefined;
  ms: number;
}

const RCODES: Record<number, DnsAnswer['rcode']> = { 0: 'NOERROR', 2: 'SERVFAIL', 3: 'NXDOMAIN', 5: 'REFUSED' };

/**
 * Many concurrent UDP queries from one socket, matched by ID, each with its own timeout: the
 * client of both the test and the benchmark (thousands of queries a second).
 */
export class DnsClient {
  private readonly sock: Socket;
  private readonly pending = new Map<number, { resolve: (a: DnsAnswer | undefined) => void; sentAt: number; timer: NodeJS.Timeout }>();
  private nextId = 0;

  private constructor(sock: Socket) {
    this.sock = sock;
    sock.on('message', (m) => this.onMessage(m));
  }

  static async open(): Promise<DnsClient> {
    const sock = createSocket({ type: 'udp4', recvBufferSize: 1 << 20 });
    await new Promise<void>((resolve) => sock.bind({ address: '127.0.0.1', port: 0 }, () => resolve()));
    return new DnsClient(sock);
  }

  /** Resolves with the answer, or undefined after `timeoutMs` (a lost answer). */
  query(port: number, name: string, type: 'A' | 'SOA', timeoutMs: number): Promise<DnsAnswer | undefined> {
    let id = this.nextId;
    // Skip IDs still in flight; at most 65536 tries, and far fewer are ever in flight.
    for (let n = 0; n < 0x10000 && this.pending.has(id); n++) id = (id + 1) & 0xffff;
    if (this.pending.has(id)) return Promise.resolve(undefined);
    this.nextId = (id + 1) & 0xffff;
    const msg = dnsPacket.encode({ type: 'query', id, flags: 0, questions: [{ type, name }] });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve(undefined);
      }, timeoutMs);
      this.pending.set(id, { resolve, sentAt: performance.now(), timer });
      this.sock.send(msg, port, '127.0.0.1');
    });
  }

  inFlight(): number {
    return this.pending.size;
  }

  close(): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.resolve(undefined);
    }
    this.pending.clear();
    this.sock.close();
  }

  private onMessage(m: Buffer): void {
    if (m.length < 12) return;
    const id = m.readUInt16BE(0);
    const p = this.pending.get(id);
    if (p === undefined) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    const ms = performance.now() - p.sentAt;
    const rcode = RCODES[m.readUInt16BE(2) & 0xf] ?? 'OTHER';
    const addresses: string[] = [];
    let serial: number | undefined;
    try {
      const answers = dnsPacket.decode(m).answers ?? [];
      for (const a of answers) {
        if (a.type === 'A') addresses.push(a.data);
        else if (a.type === 'SOA') serial = a.data.serial;
      }
    } catch {
      // A reply that does not decode counts as one without records.
    }
    p.resolve({ rcode, addresses, serial, ms });
  }
}

/**
 * /readyz of every replica, polled in the background: the test counts answers only from replicas
 * last seen Ready, and the benchmark sends only to them, as a Service does after endpoint removal.
 */
export class ReadinessWatch {
  private readonly set: HaSet;
  private readonly everyMs: number;
  /** By incarnation id: the last poll's result. A new incarnation starts not Ready. */
  private readonly last = new Map<number, boolean>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(set: HaSet, everyMs: number) {
    this.set = set;
    this.everyMs = everyMs;
  }

  start(): void {
    this.timer = setInterval(() => void this.poll(), this.everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The incarnation of replica `i` if it was Ready at the last poll and is still running. */
  readyIncarnation(i: number): Incarnation | undefined {
    const inc = this.set.replica(i);
    return inc !== undefined && inc.alive() && this.last.get(inc.id) === true ? inc : undefined;
  }

  private async poll(): Promise<void> {
    // A slow poll is skipped over, not stacked: the timeouts stay under the period.
    if (this.polling) return;
    this.polling = true;
    try {
      await Promise.all(
        Array.from({ length: this.set.size }, async (_, i) => {
          const inc = this.set.replica(i);
          if (inc === undefined) return;
          // A probe without an answer keeps the last state, as kubelet's failureThreshold does; a 503
          // (the stop signal, zones not current) and a gone process count at once.
          const state = inc.alive() ? await readyz(inc.metricsPort, Math.max(50, this.everyMs - 10)) : 'not-ready';
          if (state !== 'no-answer') this.last.set(inc.id, state === 'ready' && inc.alive());
        }),
      );
    } finally {
      this.polling = false;
    }
  }
}
