/**
 * The DNS server proper, on the calling thread's event loop: a Responder, the zone loader that
 * feeds it in slices, and the UDP (native or node:dgram) and TCP listeners. DnsServer (server.ts)
 * runs one on a thread of its own, in worker processes, or, when asked to, on its own loop.
 */
import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { createServer, isIP } from 'node:net';
import type { Server as TcpServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../../log.ts';
import type { QueryCounters } from './metrics.ts';
import { parseHostPort } from './notify.ts';
import { Responder } from './responder.ts';
import { TCP_FINISH_MS, TcpConnections } from './tcp.ts';
import type { TcpLimits } from './tcp.ts';
import type { TsigKey } from '../tsig.ts';
import { ZoneLoader } from './zone-loader.ts';
import type { ZoneApplied } from './zone-loader.ts';
import type { ZoneSource } from './zone-pack.ts';
import { NativeUdpSocket } from './native/udp-native.ts';
import type { NativeUdpAddon, PacketCacheOptions } from './native/udp-native.ts';

export interface BoundAddress {
  host: string;
  port: number;
}

export type ListenAddresses = { udp: BoundAddress; tcp: BoundAddress }[];

export interface LocalServerOptions {
  listen: readonly string[];
  allowTransfer: readonly string[];
  tsigKeys: readonly TsigKey[];
  udpSize: number;
  /** IXFR journal bounds per zone (see ixfr-journal.ts); default when absent. */
  ixfrJournal?: { changes: number; bytes: number };
  tcp: TcpLimits;
  /** The native UDP addon, or undefined for node:dgram. */
  native: NativeUdpAddon | undefined;
  /** Bind UDP with SO_REUSEPORT (native engine): set in worker processes, which bind one port each. */
  reusePort: boolean;
  /** The native engine's packet cache (`--dns-packet-cache-size`); dgram has none. */
  packetCache: PacketCacheOptions;
  counters: QueryCounters;
  logger: Logger;
  onApplied?: (a: ZoneApplied) => void;
}

export class LocalDnsServer {
  private readonly options: LocalServerOptions;
  private readonly logger: Logger;
  private readonly responder: Responder;
  private readonly loader: ZoneLoader;
  private readonly counters: QueryCounters;
  private readonly tcpConnections: TcpConnections;
  /** Closers of the bound UDP sockets, whichever engine bound them. */
  private readonly udp: (() => Promise<void>)[] = [];
  private readonly nativeSockets = new Set<NativeUdpSocket>();
  private readonly tcp: TcpServer[] = [];

  constructor(options: LocalServerOptions) {
    this.options = options;
    this.logger = options.logger;
    this.counters = options.counters;
    this.responder = new Responder({
      logger: options.logger,
      udpSize: options.udpSize,
      allowTransfer: options.allowTransfer,
      tsigKeys: options.tsigKeys,
      ...(options.ixfrJournal === undefined ? {} : { ixfrJournal: options.ixfrJournal }),
    });
    this.loader = new ZoneLoader({
      responder: this.responder,
      logger: options.logger,
      ...(options.onApplied === undefined ? {} : { onApplied: options.onApplied }),
    });
    this.tcpConnections = new TcpConnections({ responder: this.responder, counters: this.counters, limits: options.tcp });
    this.counters.beforeSnapshot = () => {
      for (const sock of this.nativeSockets) {
        this.counters.udpDropped += sock.takeSendDrops();
        sock.takeHits();
      }
    };
  }

  /** Queues a zone's new content; queries see it once it is indexed (`onApplied` says when). */
  zoneChanged(origin: string, seq: number, source: () => ZoneSource): void {
    this.loader.load(origin, seq, source);
  }

  zoneRemoved(origin: string, seq: number): void {
    this.loader.remove(origin, seq);
  }

  /** Resolves once the changes given so far answer queries. */
  settled(): Promise<void> {
    return this.loader.idle();
  }

  get udpEngine(): 'native' | 'dgram' {
    return this.options.native === undefined ? 'dgram' : 'native';
  }

  get tcpConnectionCount(): number {
    return this.tcpConnections.size;
  }

  /** Loads the zones given so far, then binds: a listening server answers for its zones at once. */
  async start(): Promise<ListenAddresses> {
    await this.loader.idle();
    const addresses: ListenAddresses = [];
    try {
      for (const spec of this.options.listen) addresses.push(await this.listenPair(spec));
    } catch (err) {
      await this.stop();
      throw err;
    }
    return addresses;
  }

  /** Stops listening, lets TCP replies in flight finish for up to `tcpGraceMs`, then closes the rest. */
  async stop(tcpGraceMs = TCP_FINISH_MS): Promise<void> {
    for (const close of this.udp.splice(0)) await close();
    // close() stops accepting at once; its callback waits for the connections finish() ends.
    const listeners = this.tcp.splice(0).map((s) => new Promise<void>((r) => s.close(() => r())));
    await this.tcpConnections.finish(tcpGraceMs);
    await Promise.all(listeners);
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
    const native = this.options.native;
    if (native === undefined) return this.bindDgram(host, port);
    // The addon takes IP literals only; dgram would resolve a name the same way.
    const address = isIP(host) === 0 ? (await lookup(host)).address : host;
    const sock = new NativeUdpSocket(native, {
      host: address,
      port,
      reusePort: this.options.reusePort,
      responder: this.responder,
      counters: this.counters,
      packetCache: this.options.packetCache,
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
    const server = createServer((socket) => this.tcpConnections.accept(socket));
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
}
