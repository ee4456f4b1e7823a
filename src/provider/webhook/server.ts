/**
 * The webhook server: any Hostwarden provider behind the external-dns webhook protocol v1, so an
 * unmodified external-dns (`--provider webhook`) can use it. Also answers /healthz and /metrics.
 * Requests that cannot be read are 400/413; provider failures are 500 when a retry may help and
 * 422 (with the message) when it will not. A POST must declare the protocol's media type (every
 * external-dns release sends it), or it is refused with 415: a web page can make a browser POST
 * text/plain or a form to a local port without asking, but not that type, so no page can change
 * records. Connections are bounded like every listener's (http/connection-limit.ts).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Histogram } from 'prom-client';
import type { Registry as MetricsRegistry } from 'prom-client';
import { InvalidEndpointError, errorMessage, isTransient } from '../../errors.ts';
import { RateLimitedLog } from '../../log.ts';
import type { Logger } from '../../log.ts';
import { ConnectionGuard, connectionLimits, httpServerOptions } from '../../http/connection-limit.ts';
import type { ConnectionLimits } from '../../http/connection-limit.ts';
import type { Provider } from '../provider.ts';
import { DEFAULT_MAX_BODY_BYTES } from './client.ts';
import { MEDIA_TYPE, changesFromWire, domainFilterToJSON, endpointsFromWire, endpointsToWire, isWebhookMediaType } from './protocol.ts';
import { closeServer, listen } from '../../http/listen.ts';

export interface WebhookServerOptions {
  provider: Provider;
  logger: Logger;
  metrics: MetricsRegistry;
  /** Whole-request read limit (headers and body). */
  readTimeoutMs: number;
  /** Socket inactivity limit while answering. */
  writeTimeoutMs: number;
  maxBodyBytes?: number;
  /** Connection cap and timeouts (the --http-* flags); the request timeout is readTimeoutMs. */
  limits?: Partial<ConnectionLimits>;
}

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export class WebhookServer {
  private readonly opts: WebhookServerOptions;
  private readonly maxBodyBytes: number;
  private readonly requests: Counter<'method' | 'path' | 'code'>;
  private readonly duration: Histogram<'path'>;
  private server: Server | undefined;
  private guard: ConnectionGuard | undefined;
  /** Lines any client can cause, one per request: a flood is summarised. */
  private readonly requestLog: RateLimitedLog;
  /** Changes are applied one batch at a time, in arrival order. */
  private applying: Promise<unknown> = Promise.resolve();

  constructor(opts: WebhookServerOptions) {
    this.opts = opts;
    this.maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.requestLog = new RateLimitedLog(opts.logger, { perInterval: 20 });
    const registers = [opts.metrics];
    this.requests = new Counter({
      name: 'hostwarden_webhook_requests_total',
      help: 'Webhook API requests, by method, path and status code.',
      labelNames: ['method', 'path', 'code'],
      registers,
    });
    this.duration = new Histogram({
      name: 'hostwarden_webhook_request_duration_seconds',
      help: 'Time to answer webhook API requests, by path.',
      labelNames: ['path'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers,
    });
  }

  async start(host: string, port: number): Promise<AddressInfo> {
    const limits = connectionLimits({ ...this.opts.limits, requestTimeoutMs: this.opts.readTimeoutMs });
    const server = createServer(httpServerOptions(limits), (req, res) => void this.handle(req, res));
    server.timeout = this.opts.writeTimeoutMs;
    this.guard = new ConnectionGuard(server, limits, this.opts.logger);
    this.server = server;
    const address = await listen(server, host, port);
    this.opts.logger.info({ address: `${address.address}:${address.port}`, provider: this.opts.provider.name }, 'webhook server listening');
    return address;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    await closeServer(server);
    this.requestLog.flush();
  }

  /** Connections open now (0 when not serving). */
  get connections(): number {
    return this.guard?.size ?? 0;
  }

  /** The request handler, usable on its own (tests, another server). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const method = req.method ?? 'GET';
    const known = ['/', '/records', '/adjustendpoints', '/healthz', '/metrics'].includes(path) ? path : 'other';
    const endTimer = this.duration.startTimer({ path: known });
    let status = 500;
    try {
      status = await this.route(method, path, req, res);
    } catch (err) {
      status = err instanceof HttpError ? err.status : isTransient(err) ? 500 : err instanceof InvalidEndpointError ? 400 : 422;
      if (status >= 500)
        this.requestLog.error({ err: errorMessage(err), method, path: known, code: (err as { code?: string }).code }, 'webhook request failed');
      else this.requestLog.warn({ err: errorMessage(err), method, path: known }, 'webhook request refused');
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(`${errorMessage(err)}\n`);
      else res.destroy();
    } finally {
      endTimer();
      this.requests.inc({ method, path: known, code: String(status) });
    }
  }

  private async route(method: string, path: string, req: IncomingMessage, res: ServerResponse): Promise<number> {
    const provider = this.opts.provider;
    const allow = (methods: string[]): void => {
      if (!methods.includes(method)) throw new HttpError(405, `${method} not allowed on ${path}; use ${methods.join(' or ')}`);
      if (method === 'POST' && !isWebhookMediaType(req.headers['content-type'])) throw new HttpError(415, `POST ${path} needs Content-Type ${MEDIA_TYPE}`);
    };
    switch (path) {
      case '/':
        allow(['GET']);
        return json(res, 200, domainFilterToJSON(provider.domainFilter()));
      case '/records':
        allow(['GET', 'POST']);
        if (method === 'GET') return json(res, 200, endpointsToWire(await provider.records()));
        {
          const changes = changesFromWire(await this.readJSON(req));
          const run = this.applying.then(() => provider.applyChanges(changes));
          this.applying = run.catch(() => undefined);
          await run;
          this.opts.logger.info({ create: changes.create.length, update: changes.updateNew.length, delete: changes.delete.length }, 'changes applied');
          res.writeHead(204).end();
          return 204;
        }
      case '/adjustendpoints': {
        allow(['POST']);
        const read = endpointsFromWire(await this.readJSON(req), 'endpoints');
        if (read.skipped.length > 0) throw new InvalidEndpointError(`unsupported record type in ${read.skipped.join(', ')}`);
        return json(res, 200, endpointsToWire(await provider.adjustEndpoints(read.endpoints)));
      }
      case '/healthz':
        allow(['GET', 'HEAD']);
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('ok\n');
        return 200;
      case '/metrics': {
        allow(['GET']);
        const text = await this.opts.metrics.metrics();
        res.writeHead(200, { 'content-type': this.opts.metrics.contentType }).end(text);
        return 200;
      }
      default:
        throw new HttpError(404, `no such path ${path}`);
    }
  }

  private async readJSON(req: IncomingMessage): Promise<unknown> {
    const declared = Number(req.headers['content-length'] ?? '-1');
    if (declared > this.maxBodyBytes) throw new HttpError(413, `request body of ${declared} bytes exceeds the ${this.maxBodyBytes}-byte limit`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > this.maxBodyBytes) throw new HttpError(413, `request body exceeds the ${this.maxBodyBytes}-byte limit`);
      chunks.push(chunk);
    }
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    } catch (err) {
      throw new HttpError(400, `request body is not JSON: ${errorMessage(err)}`);
    }
  }
}

function json(res: ServerResponse, status: number, body: unknown): number {
  res.writeHead(status, { 'content-type': MEDIA_TYPE, vary: 'Content-Type' }).end(JSON.stringify(body));
  return status;
}
