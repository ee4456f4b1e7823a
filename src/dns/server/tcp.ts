/**
 * DNS over TCP (RFC 7766): length-prefixed messages, several per connection, answered in order,
 * with two bounds that keep slow or idle clients from holding every slot:
 * - at most `maxConnections` at once; a new connection closes the one that has been idle longest
 *   (least recently completed a message), preferring connections with no reply still leaving;
 * - a connection that completes no message for `idleTimeoutMs` is closed. Bytes of a message do
 *   not reset the timer, only a whole message does (RFC 7766 6.2.3), so a client trickling a byte
 *   every few seconds is closed as an idle one is. A reply still leaving and making progress (a
 *   zone transfer to a slow secondary) keeps its connection.
 */
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { QueryCounters } from './metrics.ts';
import type { Responder } from './responder.ts';

export interface TcpLimits {
  maxConnections: number;
  idleTimeoutMs: number;
}

export const DEFAULT_TCP_LIMITS: Readonly<TcpLimits> = Object.freeze({ maxConnections: 256, idleTimeoutMs: 10_000 });

/** How long stop() lets replies already being written (a zone transfer) finish before it cuts them. */
export const TCP_FINISH_MS = 2000;

/** A client that sends but does not read must not grow our buffers without bound. */
const MAX_BACKLOG_BYTES = 4 << 20;
/** How many of the least recently active connections eviction looks at for one without a pending reply. */
const EVICTION_SCAN = 64;

interface Connection {
  socket: Socket;
  timer: NodeJS.Timeout;
  /** Reply bytes not yet taken by the kernel at the last timeout check. */
  unsent: number;
}

export class TcpConnections {
  private readonly responder: Responder;
  private readonly counters: QueryCounters;
  private readonly limits: TcpLimits;
  /** In order of last activity, least recent first: a touched connection is moved to the end. */
  private readonly open = new Map<Socket, Connection>();

  constructor(args: { responder: Responder; counters: QueryCounters; limits: TcpLimits }) {
    this.responder = args.responder;
    this.counters = args.counters;
    this.limits = args.limits;
  }

  get size(): number {
    return this.open.size;
  }

  accept(socket: Socket): void {
    if (this.open.size >= this.limits.maxConnections) this.evict();
    const conn: Connection = { socket, timer: setTimeout(() => this.timedOut(conn), this.limits.idleTimeoutMs), unsent: Infinity };
    this.open.set(socket, conn);
    socket.setNoDelay(true);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      clearTimeout(conn.timer);
      this.open.delete(socket);
    });
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
        this.touch(conn);
        this.answer(socket, msg, remote);
      }
      process.nextTick(() => socket.uncork());
      if (socket.writableLength > MAX_BACKLOG_BYTES) {
        socket.pause();
        socket.once('drain', () => socket.resume());
      }
    });
  }

  closeAll(): void {
    for (const socket of [...this.open.keys()]) socket.destroy();
  }

  /**
   * Shutdown: each connection is half-closed once the replies already written have left (a zone
   * transfer in flight completes), and whatever is still open after `graceMs` is cut.
   */
  async finish(graceMs: number): Promise<void> {
    const closing = [...this.open.keys()].map(
      (socket) =>
        new Promise<void>((resolve) => {
          if (socket.destroyed) return resolve();
          socket.once('close', () => resolve());
          // FIN once the written replies have left; the client's own FIN then closes it. Not
          // destroy(): unread input would make the kernel reset and drop a reply still queued.
          socket.end();
        }),
    );
    let timer: NodeJS.Timeout | undefined;
    const cut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.all(closing), cut]);
    clearTimeout(timer);
    this.closeAll();
  }

  private answer(socket: Socket, msg: Buffer, remote: string): void {
    const t0 = performance.now();
    const reply = this.responder.handle(msg, 'tcp', remote);
    if (reply === undefined) return;
    for (const r of Array.isArray(reply) ? reply : [reply]) {
      const head = Buffer.allocUnsafe(2);
      head.writeUInt16BE(r.length);
      socket.write(head);
      socket.write(r);
    }
    this.counters.record(this.responder.last.rcode, this.responder.last.qtype, true, (performance.now() - t0) / 1000);
  }

  /** A whole message arrived: the connection is the most recently active, and its timer restarts. */
  private touch(conn: Connection): void {
    this.open.delete(conn.socket);
    this.open.set(conn.socket, conn);
    conn.unsent = Infinity;
    conn.timer.refresh();
  }

  private timedOut(conn: Connection): void {
    const unsent = conn.socket.writableLength;
    if (unsent > 0 && unsent < conn.unsent) {
      conn.unsent = unsent;
      conn.timer.refresh();
      return;
    }
    this.counters.tcpTimedOut++;
    conn.socket.destroy();
  }

  private evict(): void {
    let victim: Connection | undefined;
    let scanned = 0;
    for (const conn of this.open.values()) {
      victim ??= conn;
      if (conn.socket.writableLength === 0) {
        victim = conn;
        break;
      }
      if (++scanned >= EVICTION_SCAN) break;
    }
    if (victim === undefined) return;
    // Gone from the table now, so the new connection is never counted against the cap twice.
    this.open.delete(victim.socket);
    clearTimeout(victim.timer);
    this.counters.tcpEvicted++;
    victim.socket.destroy();
  }
}
