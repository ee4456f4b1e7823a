/**
 * The operations endpoint: /metrics in Prometheus text format and /healthz. It serves nothing
 * else, so it can stay open to the cluster's scrapers.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry as MetricsRegistry } from 'prom-client';
import type { Logger } from '../log.ts';
import { closeServer, listen } from './listen.ts';

export interface HealthReport {
  ok: boolean;
  detail: string;
}

export interface OpsServerOptions {
  host: string;
  port: number;
  metrics: MetricsRegistry;
  health: () => HealthReport;
  logger: Logger;
}

export class OpsServer {
  private readonly opts: OpsServerOptions;
  private server: Server | undefined;

  constructor(opts: OpsServerOptions) {
    this.opts = opts;
  }

  async start(): Promise<AddressInfo> {
    const server = createServer((req, res) => {
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
        const report = this.opts.health();
        res.writeHead(report.ok ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8' }).end(`${report.detail}\n`);
        return;
      }
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
    });
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
