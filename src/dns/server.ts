/**
 * The embedded authoritative DNS server: UDP and TCP (RFC 7766) listeners in front of a Responder,
 * fed by the zone store as a ZoneListener. With `workers` > 0 the sockets are served by worker
 * processes instead (see cluster.ts) and this object only forwards zones and gathers metrics.
 */
import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { createServer, isIP } from 'node:net';
import type { Server as TcpServer, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Registry } from 'prom-client';
import { ConfigError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { ZoneContent, ZoneListener } from './zone-content.ts';
import { DnsMetrics, QueryCounters } from './metrics.ts';
import { Notifier, parseHostPort } from './notify.ts';
import { Responder } from './responder.ts';
import { parseTsigKey } from './tsig.ts';
import type { TsigKey } from './tsig.ts';
import { WorkerPool } from './cluster.ts';
import { NativeUdpSocket, loadNativeUdp } from './native/udp-native.ts';
import type { NativeUdpAddon } from './native/udp-native.ts';

export interface BoundAddress {
  host: string;
  port: number;
}

export interface DnsServerOptions {
  /** "127.0.0.1:5353", "[::1]:5353", ":53" (all interfaces); port 0 picks a free port. */
  listen: string[];
  allowTransfer?: string[];
  tsigKeys?: TsigKey[];
  /** host:port of secondaries to NOTIFY after each zone change. */
  notify?: string[];
  udpSize?: number;
  tcpIdleTimeoutMs?: number;
  /** Worker processes sharing the sockets; 0 answers in this process. */
  workers?: number;
  /** `--dns-udp-engine`: auto (native when built), native (required), dgram. */
  udpEngine?: UdpEngineChoice;
  /** Bind UDP with SO_REUSEPORT (native engine): set in worker processes, which bind one port each. */
  reusePort?: boolean;
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
  dnsTcpIdleTimeoutMs?: number;
  dnsUdpEngine?: string;
}

export type UdpEngineChoice = 'auto' | 'native' | 'dgram';
const ENGINES: readonly string[] = ['auto', 'native', 'dgram'];

const DEFAULT_TCP_IDLE_MS = 10_000;
const MAX_TCP_CONNECTIONS = 1024;
const MAX_TCP_BACKLOG_BYTES = 4 << 20;

export class DnsServer implements ZoneListener {
  private readonly options: DnsServerOptions;
  private readonly logger: Logger;
  private readonly responder: Responder;
  private readonly metrics: DnsMetrics | undefined;
  private readonly counters: QueryCounters;
  private readonly notifier: Notifier;
  /** The addon when UDP is served natively; undefined means node:dgram. */
  private readonly native: NativeUdpAddon | undefined;
  /** Closers of the bound UDP sockets, whichever engine bound them. */
  private readonly udp: (() => Promise<void>)[] = [];
  private readonly nativeSockets = new Set<NativeUdpSocket>();
  private readonly tcp: TcpServer[] = [];
  private readonly connections = new Set<Socket>();
  private pool: WorkerPool | undefined;

  constructor(options: DnsServerOptions) {
    this.options = options;
    this.logger = options.logger;
    for (const l of options.listen) parseHostPort(l, 53, '--dns-listen');
    this.native = this.loadEngine(options.udpEngine ?? 'auto', options.loadNativeUdp ?? loadNativeUdp);
    this.responder = new Responder({
      logger: options.logger,
      udpSize: options.udpSize ?? 1232,
      allowTransfer: options.allowTransfer ?? [],
      tsigKeys: options.tsigKeys ?? [],
    });
    this.notifier = new Notifier({
      targets: (options.notify ?? []).map((n) => parseHostPort(n, 53, '--dns-notify')),
      logger: options.logger,
    });
    // Last, so that a configuration error leaves the registry untouched.
    this.metrics = options.metrics === undefined ? undefined : new DnsMetrics(options.metrics);
    this.counters = this.metrics?.local ?? new QueryCounters();
    this.counters.beforeSnapshot = () => {
      for (const sock of this.nativeSockets) this.counters.udpDropped += sock.takeSendDrops();
    };
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
      throw new ConfigError('--dns-udp-engine=native: the native UDP addon is not built (run `npm run build:native`; it needs cc and Linux)', '--dns-udp-engine');
    }
    return addon;
  }

  static fromConfig(cfg: DnsServerConfig, deps: { logger: Logger; metrics?: Registry }): DnsServer {
    if (cfg.dnsListen.length === 0) throw new ConfigError('at least one --dns-listen address is needed', '--dns-listen');
    const workers = cfg.dnsWorkers ?? 0;
    if (!Number.isInteger(workers) || workers < 0 || workers > 64) throw new ConfigError('--dns-workers must be 0..64', '--dns-workers');
    const udpSize = cfg.dnsUdpSize ?? 1232;
    if (!Number.isInteger(udpSize) || udpSize < 512 || udpSize > 65535) throw new ConfigError('--dns-udp-size must be 512..65535', '--dns-udp-size');
    const udpEngine = cfg.dnsUdpEngine ?? 'auto';
    if (!ENGINES.includes(udpEngine)) throw new ConfigError('--dns-udp-engine must be auto, native or dgram', '--dns-udp-engine');
    for (const cidr of cfg.dnsAllowTransfer ?? []) {
      if (!/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(cidr)) throw new ConfigError(`bad CIDR "${cidr}"`, '--dns-allow-transfer');
    }
    return new DnsServer({
      listen: cfg.dnsListen,
      allowTransfer: cfg.dnsAllowTransfer ?? [],
      tsigKeys: (cfg.dnsTsigKey ?? []).map((k) => parseTsigKey(k)),
      notify: cfg.dnsNotify ?? [],
      udpSize,
      workers,
      udpEngine: udpEngine as UdpEngineChoice,
      ...(cfg.dnsTcpIdleTimeoutMs === undefined ? {} : { tcpIdleTimeoutMs: cfg.dnsTcpIdleTimeoutMs }),
      logger: deps.logger,
      ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
    });
  }

  zoneChanged(zone: ZoneContent): void {
    // The store calls this right after a durable commit; a bad zone must not fail that commit.
    try {
      const idx = this.responder.setZone(zone);
      this.pool?.zoneChanged(zone);
      this.updateGauges();
      this.logger.debug({ zone: idx.origin, serial: idx.serial, records: idx.recordCount }, 'zone loaded');
      this.notifier.zoneChanged(idx.origin, zone.soa);
    } catch (err) {
      this.logger.error({ err, zone: zone.origin }, 'could not load zone into the DNS server');
    }
  }

  zoneRemoved(origin: string): void {
    this.responder.removeZone(origin);
    this.pool?.zoneRemoved(origin);
    this.updateGauges();
  }

  private updateGauges(): void {
    const zones = this.responder.zoneList();
    this.metrics?.setZones(zones.length, zones.reduce((n, z) => n + z.recordCount, 0));
  }

  /** Query counters gathered since the last call (worker processes ship these to the primary). */
  takeCounters(): ReturnType<QueryCounters['snapshot']> {
    return this.counters.snapshot();
  }

  /** The UDP path this server (or its workers) uses. */
  get udpEngine(): 'native' | 'dgram' {
    return this.native === undefined ? 'dgram' : 'native';
  }

  /** Queries answered by each worker process since start (empty without workers). */
  workerQueries(): number[] {
    return this.pool?.queriesPerWorker() ?? [];
  }

  /** Answers one message in-process (tests, fuzzing); the socket paths use the same code. */
  handleMessage(msg: Buffer, transport: 'udp' | 'tcp', remoteAddress = '127.0.0.1'): Buffer | Buffer[] | undefined {
    return this.responder.handle(msg, transport, remoteAddress);
  }

  async start(): Promise<{ addresses: { udp: BoundAddress; tcp: BoundAddress }[] }> {
    const workers = this.options.workers ?? 0;
    if (workers > 0) {
      this.pool = new WorkerPool({ options: this.options, workers, udpEngine: this.udpEngine, logger: this.logger, merge: (s) => this.metrics?.merge(s) });
      for (const z of this.responder.zoneList()) this.pool.zoneChanged(z.content);
      const pooled = await this.pool.start();
      this.logger.info({ addresses: pooled.map((a) => `${a.udp.host}:${a.udp.port}`), workers, udpEngine: this.udpEngine }, 'DNS workers listening');
      return { addresses: pooled };
    }
    const addresses: { udp: BoundAddress; tcp: BoundAddress }[] = [];
    try {
      for (const spec of this.options.listen) addresses.push(await this.listenPair(spec));
    } catch (err) {
      await this.stop();
      throw err;
    }
    this.logger.info({ addresses: addresses.map((a) => `${a.udp.host}:${a.udp.port}`), udpEngine: this.udpEngine }, 'DNS server listening');
    return { addresses };
  }

  async stop(): Promise<void> {
    await this.notifier.stop();
    await this.pool?.stop();
    for (const close of this.udp.splice(0)) await close();
    for (const c of this.connections) c.destroy();
    for (const s of this.tcp.splice(0)) await new Promise<void>((r) => s.close(() => r()));
  }

  /** Binds UDP and TCP on the same address and port (a free one for port 0). */
  private async listenPair(spec: string): Promise<{ udp: BoundAddress; tcp: BoundAddress }> {
    const { host: rawHost, port } = parseHostPort(spec, 53, '--dns-listen');
    let host = rawHost === '' ? '::' : rawHost;
    for (let attempt = 0; ; attempt++) {
      const udp = await this.bindUdp(host, port).catch((err: NodeJS.ErrnoException) => {
        // ":53" means every interface: without IPv6 in the kernel, every IPv4 interface.
        if (rawHost !== '' || (err.code !== 'EAFNOSUPPORT' && err.code !== 'EADDRNOTAVAIL')) throw err;
        host = '0.0.0.0';
        return this.bindUdp(host, port);
      });
      try {
        const tcp = await this.bindTcp(host, udp.port);
        return { udp: { host, port: udp.port }, tcp: { host, port: tcp } };
      } catch (err) {
        // With port 0 the UDP port may be taken for TCP by someone else: try another one.
        if (port !== 0 || attempt >= 10) throw err;
        await this.udp.pop()?.();
      }
    }
  }

  private async bindUdp(host: string, port: number): Promise<{ port: number }> {
    if (this.native === undefined) return this.bindDgram(host, port);
    // The addon takes IP literals only; dgram would resolve a name the same way.
    const address = isIP(host) === 0 ? (await lookup(host)).address : host;
    const sock = new NativeUdpSocket(this.native, {
      host: address, port, reusePort: this.options.reusePort ?? false, responder: this.responder, counters: this.counters,
    });
    this.nativeSockets.add(sock);
    this.udp.push(() => {
      this.counters.udpDropped += sock.takeSendDrops();
      this.nativeSockets.delete(sock);
      sock.close();
      return Promise.resolve();
    });
    return { port: sock.port };
  }

  private bindDgram(host: string, port: number): Promise<{ port: number }> {
    const v6 = host.includes(':');
    const sock = createSocket({ type: v6 ? 'udp6' : 'udp4', ipv6Only: false, recvBufferSize: 4 << 20 } as Parameters<typeof createSocket>[0]);
    const counters = this.counters;
    const responder = this.responder;
    sock.on('message', (msg, rinfo) => {
      const t0 = performance.now();
      const reply = responder.handle(msg, 'udp', rinfo.address);
      if (reply === undefined) return;
      sock.send(Array.isArray(reply) ? (reply[0] ?? Buffer.alloc(0)) : reply, rinfo.port, rinfo.address);
      counters.record(responder.last.rcode, responder.last.qtype, false, (performance.now() - t0) / 1000);
    });
    return new Promise((resolve, reject) => {
      sock.once('error', reject);
      sock.bind({ address: host, port }, () => {
        sock.off('error', reject);
        sock.on('error', (err) => this.logger.warn({ err }, 'UDP socket error'));
        this.udp.push(() => new Promise<void>((r) => sock.close(() => r())));
        resolve({ port: sock.address().port });
      });
    });
  }

  private bindTcp(host: string, port: number): Promise<number> {
    const server = createServer((socket) => this.onConnection(socket));
    server.maxConnections = MAX_TCP_CONNECTIONS;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port, ipv6Only: false }, () => {
        server.off('error', reject);
        server.on('error', (err) => this.logger.warn({ err }, 'TCP server error'));
        this.tcp.push(server);
        const addr = server.address();
        resolve(typeof addr === 'object' && addr !== null ? addr.port : port);
      });
    });
  }

  /** RFC 7766: length-prefixed messages, several per connection, answered in order. */
  private onConnection(socket: Socket): void {
    this.connections.add(socket);
    socket.setNoDelay(true);
    socket.setTimeout(this.options.tcpIdleTimeoutMs ?? DEFAULT_TCP_IDLE_MS, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.connections.delete(socket));
    const remote = socket.remoteAddress ?? '';
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      socket.cork();
      while (pending.length >= 2) {
        const len = pending.readUInt16BE(0);
        if (pending.length < 2 + len) break;
        const msg = pending.subarray(2, 2 + len);
        pending = pending.subarray(2 + len);
        const t0 = performance.now();
        const reply = this.responder.handle(msg, 'tcp', remote);
        if (reply === undefined) continue;
        for (const r of Array.isArray(reply) ? reply : [reply]) {
          const head = Buffer.allocUnsafe(2);
          head.writeUInt16BE(r.length);
          socket.write(head);
          socket.write(r);
        }
        this.counters.record(this.responder.last.rcode, this.responder.last.qtype, true, (performance.now() - t0) / 1000);
      }
      process.nextTick(() => socket.uncork());
      // A client that sends but does not read must not grow our buffers without bound.
      if (socket.writableLength > MAX_TCP_BACKLOG_BYTES) {
        socket.pause();
        socket.once('drain', () => socket.resume());
      }
    });
  }
}
