/**
 * The HTTPS plumbing the project's webhooks share (Service externalIPs admission, DNSRecord,
 * ExternalDNS operator, ClusterDeployment PrivateLink): TLS material that can be replaced while
 * serving, bounded handshake, header, request and idle times and a cap on connections
 * (connection-limit.ts), health paths, and a last-resort 500 so that no request can take the
 * process down. Each webhook extends it (or wraps it) and supplies `handle` for its own paths.
 */
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TlsMaterial } from './tls.ts';
import { errorMessage } from '../errors.ts';
import { RateLimitedLog } from '../log.ts';
import type { Logger } from '../log.ts';
import { ConnectionGuard, connectionLimits, httpsServerOptions } from './connection-limit.ts';
import type { ConnectionLimits } from './connection-limit.ts';
import { closeServer, listen } from './listen.ts';

export const DEFAULT_HEALTH_PATHS: readonly string[] = ['/healthz', '/readyz'];

export interface HttpsServerOptions {
  tls: TlsMaterial;
  logger: Logger;
  /** What is listening, for the log line: `<name> listening (HTTPS)`. */
  name: string;
  /** Answers every path but the health paths; `path` is the URL without its query. */
  handle: (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void>;
  /** Prefix of the log line for a request that threw: `<requestLabel> request failed unexpectedly`. */
  requestLabel?: string;
  /** Extra fields for the listening log line (e.g. the webhook path). */
  logFields?: Record<string, unknown>;
  /** Paths answered 200 `ok` without calling `handle`. */
  healthPaths?: readonly string[];
  /** Time allowed to receive the whole request (the request timeout of `limits`). */
  readTimeoutMs?: number;
  /** Connection cap and timeouts; unset ones keep DEFAULT_CONNECTION_LIMITS. */
  limits?: Partial<ConnectionLimits>;
}

export class HttpsServer {
  private readonly httpsOptions: HttpsServerOptions;
  private readonly healthPaths: readonly string[];
  private server: Server | undefined;
  private guard: ConnectionGuard | undefined;
  /**
   * For log lines a request can cause (a denial, a failure): anyone who can connect can send
   * requests, so a flood of them is summarised rather than logged line by line.
   */
  protected readonly requestLog: RateLimitedLog;

  constructor(opts: HttpsServerOptions) {
    this.httpsOptions = opts;
    this.healthPaths = opts.healthPaths ?? DEFAULT_HEALTH_PATHS;
    this.requestLog = new RateLimitedLog(opts.logger, { perInterval: 50 });
  }

  /** Connections open now (0 when not serving). */
  get connections(): number {
    return this.guard?.size ?? 0;
  }

  async start(host: string, port: number): Promise<AddressInfo> {
    const log = this.httpsOptions.logger;
    const limits = connectionLimits({
      ...this.httpsOptions.limits,
      ...(this.httpsOptions.readTimeoutMs === undefined ? {} : { requestTimeoutMs: this.httpsOptions.readTimeoutMs }),
    });
    const server = createServer({ key: this.httpsOptions.tls.key, cert: this.httpsOptions.tls.cert, ...httpsServerOptions(limits) }, (req, res) => {
      this.dispatch(req, res).catch((err: unknown) => {
        this.requestLog.error({ err: errorMessage(err) }, `${this.httpsOptions.requestLabel ?? this.httpsOptions.name} request failed unexpectedly`);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('internal error\n');
        else res.destroy();
      });
    });
    this.guard = new ConnectionGuard(server, limits, log);
    server.on('tlsClientError', (err) => this.requestLog.debug({ err: errorMessage(err) }, 'TLS handshake failed'));
    this.server = server;
    const address = await listen(server, host, port);
    log.info({ address: `${address.address}:${address.port}`, ...this.httpsOptions.logFields }, `${this.httpsOptions.name} listening (HTTPS)`);
    return address;
  }

  /** New connections get the new certificate; open ones keep theirs. */
  setCertificate(material: TlsMaterial): void {
    this.server?.setSecureContext({ key: material.key, cert: material.cert });
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) await closeServer(server);
    this.requestLog.flush();
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (this.healthPaths.includes(path)) {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('ok\n');
      return;
    }
    await this.httpsOptions.handle(req, res, path);
  }
}

/** The body as text, or undefined when it is larger than `maxBytes` (the rest is drained, not kept). */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > maxBytes ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * The body of a POST within `maxBytes`; otherwise answers 405 (not a POST) or 413 (too large) and
 * returns undefined, so a handler only goes on with a body it may read.
 */
export async function readPost(req: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<string | undefined> {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST', 'content-type': 'text/plain; charset=utf-8' }).end('POST a review\n');
    return undefined;
  }
  const body = await readBody(req, maxBytes);
  if (body === undefined)
    res.writeHead(413, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end(`request body larger than ${maxBytes} bytes: denied\n`);
  return body;
}

export function notFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
}
