/**
 * The native UDP engine (udp.c, built by bin/build-native.ts): loading the addon, and serving one
 * socket with a Responder a batch at a time. The addon is optional; `loadNativeUdp` returns
 * undefined when it was not built and the server falls back to node:dgram.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { QueryCounters } from '../metrics.ts';
import type { Responder } from '../responder.ts';

/** The addon's functions, as udp.c exports them. */
export interface NativeUdpAddon {
  readonly batch: number;
  open(
    host: string,
    port: number,
    reusePort: boolean,
    input: Buffer,
    output: Buffer,
    meta: Buffer,
    slotIn: number,
    slotOut: number,
    onBatch: (n: number) => void,
  ): unknown;
  port(handle: unknown): number;
  peer(handle: unknown, index: number): string;
  stats(handle: unknown): number[];
  close(handle: unknown): void;
  cache(handle: unknown, entries: number, maxBytes: number, insert: Buffer, hits: Buffer): void;
  flush(handle: unknown): void;
}

/** The native packet cache's bounds (see udp.c): `entries` 0 turns it off. */
export interface PacketCacheOptions {
  entries: number;
  maxBytes: number;
}

/** `--dns-packet-cache-size`'s default: room for every name of a 10k-host zone's working set. */
export const DEFAULT_PACKET_CACHE_ENTRIES = 65536;

/**
 * The cache's memory bound per socket: 256 bytes per entry on average (a key and a reply of a
 * typical A answer take about 100-150), so 16 MiB at the default size; once reached, new replies
 * are kept only in place of old ones.
 */
export function packetCacheOptions(entries: number): PacketCacheOptions {
  return { entries, maxBytes: entries * 256 };
}

/**
 * A slot holds any UDP datagram (65,507 bytes over IPv4), so nothing a dgram socket would accept is
 * cut. The buffers are allocated uninitialised, so the kernel backs only the pages packets touch:
 * 64 slots of 64 KiB reserve 4 MiB of address space per direction but cost a few hundred KiB.
 */
const SLOT = 65536;

/**
 * src/dns/server/native/ under tsx and dist/dns/server/native/ after `npm run build` are both four
 * levels below the package root, so one relative path finds build/native/ from either.
 */
export function defaultAddonPath(): string {
  return fileURLToPath(new URL('../../../../build/native/hostwarden_udp.node', import.meta.url));
}

export function loadNativeUdp(path = defaultAddonPath()): NativeUdpAddon | undefined {
  if (process.platform !== 'linux' || !existsSync(path)) return undefined;
  return createRequire(import.meta.url)(path) as NativeUdpAddon;
}

export interface NativeUdpOptions {
  host: string;
  port: number;
  /** SO_REUSEPORT: set for worker processes, which each bind their own socket on one port. */
  reusePort: boolean;
  responder: Responder;
  counters: QueryCounters;
  packetCache: PacketCacheOptions;
}

export interface NativeUdpStats {
  /** Replies not sent because the socket's send buffer was full (or the destination failed). */
  sendDrops: number;
  recvErrors: number;
  /** Datagrams larger than a slot; never more than 0 with 64 KiB slots, kept as a guard. */
  truncated: number;
  /** Packet cache: queries answered from it and queries handed to JS since open; replies held now. */
  cacheHits: number;
  cacheMisses: number;
  cacheEntries: number;
  cacheBytes: number;
}

export class NativeUdpSocket {
  private readonly addon: NativeUdpAddon;
  private readonly handle: unknown;
  private closed = false;
  private dropsTaken = 0;
  private hitsTaken = 0;
  private missesTaken = 0;
  /** Packet-cache hits by counter slot, written by udp.c; drained into the counters by takeHits(). */
  private readonly hits: Float64Array;
  private readonly counters: QueryCounters;
  private readonly unhook: () => void;

  constructor(addon: NativeUdpAddon, options: NativeUdpOptions) {
    this.addon = addon;
    const batch = addon.batch;
    const input = Buffer.allocUnsafeSlow(SLOT * batch);
    const output = Buffer.allocUnsafeSlow(SLOT * batch);
    const metaBytes = Buffer.allocUnsafeSlow(8 * batch);
    // meta[2i] = length of datagram i (-1 = too large), meta[2i+1] = length of its reply (0 = none).
    const meta = new Int32Array(metaBytes.buffer, metaBytes.byteOffset, 2 * batch);
    const { responder, counters } = options;
    this.counters = counters;
    const last = responder.last;
    // insert[i] = counter slot + 1 when reply i may be packet-cached (udp.c keeps it after the batch).
    const insertBytes = Buffer.allocUnsafeSlow(4 * batch);
    const insert = new Int32Array(insertBytes.buffer, insertBytes.byteOffset, batch);
    const hitBytes = Buffer.allocUnsafeSlow(8 * counters.counts.length).fill(0);
    this.hits = new Float64Array(hitBytes.buffer, hitBytes.byteOffset, counters.counts.length);
    const rcodes = new Int32Array(batch);
    const qtypes = new Int32Array(batch);
    let current = 0;
    // The peer's address is only needed for transfer and TSIG decisions: made into a string on demand.
    const peer = (): string => addon.peer(this.handle, current);
    const onBatch = (n: number): void => {
      const t0 = performance.now();
      let answered = 0;
      for (let i = 0; i < n; i++) {
        const len = meta[2 * i] ?? -1;
        if (len < 0) continue;
        current = i;
        // The reply is written straight into its slot of `output` (no Buffer per reply, no copy).
        const size = responder.handleInto(input.subarray(i * SLOT, i * SLOT + len), peer, output, i * SLOT, SLOT);
        if (size === 0) continue;
        meta[2 * i + 1] = size;
        if (last.cacheable) insert[i] = counters.slotOf(last.rcode, last.qtype, false) + 1;
        rcodes[answered] = last.rcode;
        qtypes[answered] = last.qtype;
        answered++;
      }
      // Every reply of a batch leaves with one sendmmsg after this returns, so each query's latency
      // is the batch's time in JS; one clock pair per batch instead of per query.
      const seconds = (performance.now() - t0) / 1000;
      for (let k = 0; k < answered; k++) counters.record(rcodes[k] ?? 0, qtypes[k] ?? 0, false, seconds);
    };
    this.handle = addon.open(options.host, options.port, options.reusePort, input, output, metaBytes, SLOT, SLOT, onBatch);
    // An addon built before the packet cache (no cache()) serves on without one until rebuilt.
    const cached = options.packetCache.entries > 0 && typeof addon.cache === 'function';
    if (cached) addon.cache(this.handle, options.packetCache.entries, options.packetCache.maxBytes, insertBytes, hitBytes);
    // Flushed synchronously in the zone swap, so the next batch is answered from the new zones.
    this.unhook = cached ? responder.onChange(() => addon.flush(this.handle)) : () => undefined;
  }

  get port(): number {
    return this.addon.port(this.handle);
  }

  stats(): NativeUdpStats {
    const [sendDrops = 0, recvErrors = 0, truncated = 0, cacheHits = 0, cacheMisses = 0, cacheEntries = 0, cacheBytes = 0] = this.addon.stats(this.handle);
    return { sendDrops, recvErrors, truncated, cacheHits, cacheMisses, cacheEntries, cacheBytes };
  }

  /**
   * Counts the packet-cache hits since the last call as answered queries (see QueryCounters.addHits)
   * and adds the cache's hits and misses since then to its own counters.
   */
  takeHits(): void {
    this.counters.addHits(this.hits);
    if (this.closed) return;
    const { cacheHits, cacheMisses } = this.stats();
    this.counters.packetCacheHits += cacheHits - this.hitsTaken;
    this.counters.packetCacheMisses += cacheMisses - this.missesTaken;
    this.hitsTaken = cacheHits;
    this.missesTaken = cacheMisses;
  }

  /** Send drops since the last call (for the metrics counter). */
  takeSendDrops(): number {
    if (this.closed) return 0;
    const total = this.stats().sendDrops;
    const delta = total - this.dropsTaken;
    this.dropsTaken = total;
    return delta;
  }

  /** Idempotent; the port is free again when this returns. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unhook();
    this.takeHits();
    this.addon.close(this.handle);
  }
}
