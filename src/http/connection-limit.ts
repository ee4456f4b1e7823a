/**
 * Bounded resources for every HTTP(S) listener (metrics, webhook provider, the four admission
 * webhooks): timeouts for each stage of a connection and a cap on open connections. Without them
 * 20k idle connections to the metrics port used up the process's file descriptors (every sync then
 * failed with EMFILE), and a connection that never started TLS stayed open for Node's 120 s.
 *
 * Node closes a connection that sent part of a request and stalls (headersTimeout, requestTimeout),
 * but not one that sends nothing at all, before or between requests; the guard closes those, and
 * at the cap closes the connection idle the longest to admit a new one.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../log.ts';
import { RateLimitedLog } from '../log.ts';

export interface ConnectionLimits {
  /** Open connections at most; at the cap the longest-idle one is closed for a new one, or the new one is refused when none is idle. */
  maxConnections: number;
  /** HTTPS: time to complete the TLS handshake. */
  handshakeTimeoutMs: number;
  /** Time to receive a request's headers, from the connection (or the end of the previous response). */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included. */
  requestTimeoutMs: number;
  /** A kept-alive connection without a request for this long is closed. */
  idleTimeoutMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: Readonly<ConnectionLimits> = {
  maxConnections: 1024,
  handshakeTimeoutMs: 5_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 10_000,
  idleTimeoutMs: 30_000,
};

/** The limits with `overrides` applied; values that are not positive numbers keep the default. */
export function connectionLimits(overrides: Partial<ConnectionLimits> = {}): ConnectionLimits {
  const out = { ...DEFAULT_CONNECTION_LIMITS };
  for (const key of Object.keys(out) as (keyof ConnectionLimits)[]) {
    const v = overrides[key];
    if (v !== undefined && Number.isFinite(v) && v > 0) out[key] = v;
  }
  return out;
}

/** How often stalled connections are looked for: often enough for the shortest timeout. */
function checkIntervalMs(l: ConnectionLimits): number {
  return Math.max(20, Math.min(1000, Math.floor(Math.min(l.headersTimeoutMs, l.idleTimeoutMs, l.requestTimeoutMs) / 4)));
}

/** Options for node:http's createServer (node:https takes them too). */
export function httpServerOptions(l: ConnectionLimits): {
  requestTimeout: number;
  headersTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
} {
  return {
    requestTimeout: l.requestTimeoutMs,
    // Node refuses a headers timeout longer than the request timeout.
    headersTimeout: Math.min(l.headersTimeoutMs, l.requestTimeoutMs),
    keepAliveTimeout: l.idleTimeoutMs,
    connectionsCheckingInterval: checkIntervalMs(l),
  };
}

/** Options for node:https's createServer, besides the certificate. */
export function httpsServerOptions(l: ConnectionLimits): ReturnType<typeof httpServerOptions> & { handshakeTimeout: number } {
  return { ...httpServerOptions(l), handshakeTimeout: l.handshakeTimeoutMs };
}

interface Connection {
  socket: Socket;
  /** Requests in flight; only a connection without any is idle and may be evicted or timed out. */
  busy: number;
  /** When an idle connection is closed. */
  deadline: number;
}

/**
 * Watches a server's connections: closes idle ones past their deadline and keeps the count under
 * the cap. Attach it before the server listens; it stops with the server.
 */
export class ConnectionGuard {
  private readonly limits: ConnectionLimits;
  private readonly log: RateLimitedLog;
  private readonly now: () => number;
  /** Every open connection, by its TCP socket (the one under TLS for HTTPS). */
  private readonly open = new Map<Socket, Connection>();
  /** Idle connections, longest idle first (a Map keeps insertion order). */
  private readonly idle = new Map<Socket, Connection>();
  /** TLS sockets and their TCP connection, for requests (which see the TLS socket). */
  private readonly byTlsSocket = new WeakMap<object, Connection>();
  private readonly byPeer = new Map<string, Connection>();
  private sweeper: NodeJS.Timeout | undefined;
  /** Connections closed to stay under the cap, and ones refused because every connection was busy. */
  readonly counts = { evicted: 0, refused: 0, timedOut: 0 };

  constructor(server: Server, limits: ConnectionLimits, logger: Logger, now: () => number = Date.now) {
    this.limits = limits;
    this.log = new RateLimitedLog(logger);
    this.now = now;
    server.on('connection', (socket: Socket) => this.admit(socket));
    // Only HTTPS servers emit it: the TLS socket that requests will name.
    server.on('secureConnection', (tls: Socket) => {
      const conn = this.byPeer.get(peer(tls));
      if (conn !== undefined) this.byTlsSocket.set(tls, conn);
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.onRequest(req, res));
    server.on('listening', () => {
      this.sweeper ??= setInterval(() => this.sweep(), checkIntervalMs(limits));
      this.sweeper.unref();
    });
    server.on('close', () => {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
      this.log.flush();
    });
  }

  /** Open connections now. */
  get size(): number {
    return this.open.size;
  }

  private admit(socket: Socket): void {
    if (this.open.size >= this.limits.maxConnections) {
      const oldest = this.idle.values().next();
      if (oldest.done === true) {
        this.counts.refused++;
        this.log.warn({ max: this.limits.maxConnections }, 'connection limit reached and every connection is busy: new connection refused');
        socket.destroy();
        return;
      }
      this.counts.evicted++;
      this.log.info({ max: this.limits.maxConnections }, 'connection limit reached: closed the longest-idle connection');
      this.drop(oldest.value);
    }
    const conn: Connection = { socket, busy: 0, deadline: this.now() + this.limits.headersTimeoutMs };
    const key = peer(socket);
    this.open.set(socket, conn);
    this.idle.set(socket, conn);
    this.byPeer.set(key, conn);
    socket.once('close', () => {
      this.open.delete(socket);
      this.idle.delete(socket);
      if (this.byPeer.get(key) === conn) this.byPeer.delete(key);
    });
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const conn = this.open.get(req.socket) ?? this.byTlsSocket.get(req.socket);
    if (conn === undefined) return;
    conn.busy++;
    this.idle.delete(conn.socket);
    res.once('close', () => {
      conn.busy--;
      if (conn.busy > 0 || !this.open.has(conn.socket)) return;
      conn.deadline = this.now() + this.limits.idleTimeoutMs;
      this.idle.set(conn.socket, conn);
    });
  }

  private sweep(): void {
    const now = this.now();
    for (const conn of [...this.idle.values()]) {
      if (now < conn.deadline) continue;
      this.counts.timedOut++;
      this.drop(conn);
    }
  }

  private drop(conn: Connection): void {
    this.open.delete(conn.socket);
    this.idle.delete(conn.socket);
    conn.socket.destroy();
  }
}

function peer(socket: Socket): string {
  return `${socket.remoteAddress ?? ''}|${socket.remotePort ?? ''}`;
}
