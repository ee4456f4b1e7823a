/**
 * The operations endpoint: /metrics in Prometheus text format, /healthz (liveness) and /readyz
 * (readiness). It serves nothing else, so it can stay open to the cluster's scrapers; it is
 * bounded like every listener (connection-limit.ts), so a flood of idle connections cannot use up
 * the process's file descriptors.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry as MetricsRegistry } from 'prom-client';
import type { Logger } from '../log.ts';
import { ConnectionGuard, connectionLimits, httpServerOptions } from './connection-limit.ts';
import type { ConnectionLimits } from './connection-limit.ts';
import { closeServer, listen } from './listen.ts';

export interface HealthReport {
  ok: boolean;
  /** One short line: `ok`, or why not (answered with 503). */
  detail: string;
}

export interface OpsServerOptions {
  host: string;
  port: number;
  metrics: MetricsRegistry;
  /** /healthz: is the process working (a failing liveness probe restarts it). */
  health: () => HealthReport;
  /** /readyz: should it get traffic yet; /healthz's answer when not given. */
  ready?: () => HealthReport;
  logger: Logger;
  /** Connection cap and timeouts; unset ones keep DEFAULT_CONNECTION_LIMITS. */
  limits?: Partial<ConnectionLimits>;
  /** More read-only GET routes (the web console under /ui/): true when the request was answered. */
  routes?: (path: string, req: IncomingMessage, res: ServerResponse) => boolean;
}

export class OpsServer {
  private readonly opts: OpsServerOptions;
  private server: Server | undefined;
  private guard: ConnectionGuard | undefined;

  constructor(opts: OpsServerOptions) {
    this.opts = opts;
  }

  /** Connections open now (0 when not serving). */
  get connections(): number {
    return this.guard?.size ?? 0;
  }

  async start(): Promise<AddressInfo> {
    const limits = connectionLimits(this.opts.limits);
    const server = createServer(httpServerOptions(limits), (req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET, HEAD' }).end();
        return;
      }
      if (path === '/metrics') {
        this.opts.metrics.metrics().then(
          (text) => res.writeHead(200, { 'content-type': this.opts.metrics.contentType }).end(text),
          (err: unknown) => res.writeHead(500).end(String(err)),
        );
        return;
      }
      if (path === '/healthz' || path === '/readyz') {
        const report = path === '/readyz' && this.opts.ready !== undefined ? this.opts.ready() : this.opts.health();
        res.writeHead(report.ok ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8' }).end(`${report.detail}\n`);
        return;
      }
      if (this.opts.routes?.(path ?? '/', req, res) === true) return;
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
    });
    this.guard = new ConnectionGuard(server, limits, this.opts.logger);
    this.server = server;
    const address = await listen(server, this.opts.host, this.opts.port);
    this.opts.logger.info({ address: `${address.address}:${address.port}` }, 'serving /metrics and /healthz');
    return address;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    await closeServer(server);
  }
}
