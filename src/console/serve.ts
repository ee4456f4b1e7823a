/**
 * The web console's HTTP side, all read-only GETs under /ui/: the page and its assets (read once at
 * start from src/console/assets), the JSON API and the server-sent event stream. Every answer
 * carries a strict Content-Security-Policy: the page loads only its own script and style and talks
 * only to this origin. index.html names each asset with `?v=<content hash>` (its `{{file}}`
 * placeholders), so the assets are cached for a year and a new release is fetched at once.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { normalizeDnsName } from '../endpoint/name.ts';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { ConsoleHistory } from './history.ts';
import type { ConsoleState } from './state.ts';

export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const ASSET_FILES = ['index.html', 'app.js', 'style.css'] as const;
const TYPES: Readonly<Record<string, string>> = { html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };
const DEFAULT_MAX_STREAMS = 32;
const PING_MS = 15_000;

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

export interface ConsoleServerOptions {
  state: ConsoleState;
  history: ConsoleHistory;
  logger: Logger;
  maxStreams?: number;
  /** Where index.html, app.js and style.css are (tests); the package's own by default. */
  assetsDir?: string;
}

export class ConsoleServer {
  private readonly assets = new Map<string, Asset>();
  private readonly streams = new Set<ServerResponse>();
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(private readonly opts: ConsoleServerOptions) {
    this.loadAssets(opts.assetsDir ?? fileURLToPath(new URL('./assets/', import.meta.url)));
    this.timers.push(setInterval(() => void this.tick(), 10_000).unref(), setInterval(() => this.send(': ping\n\n'), PING_MS).unref());
  }

  /** Answers a GET under /ui (true), or leaves it to the caller (false). */
  handle(path: string, req: IncomingMessage, res: ServerResponse): boolean {
    if (path !== '/ui' && !path.startsWith('/ui/')) return false;
    for (const [k, v] of Object.entries({ 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' }))
      res.setHeader(k, v);
    if (req.method !== 'GET' && req.method !== 'HEAD') return (void res.writeHead(405, { allow: 'GET, HEAD' }).end(), true);
    if (path === '/ui') return (void res.writeHead(308, { location: '/ui/' }).end(), true);
    try {
      if (path.startsWith('/ui/api/')) this.api(path.slice('/ui/api/'.length), new URL(req.url ?? '/', 'http://console').searchParams, req, res);
      else this.asset(path === '/ui/' ? 'index.html' : path.slice('/ui/assets/'.length), path.startsWith('/ui/assets/') || path === '/ui/', req, res);
    } catch (err) {
      this.opts.logger.warn({ path, err: errorMessage(err) }, 'console request failed');
      if (!res.headersSent) json(res, 500, { error: 'internal error' });
    }
    return true;
  }

  /** A sync finished (or failed): open pages get the new state. */
  changed(): void {
    if (this.streams.size > 0) this.send(`event: state\ndata: ${JSON.stringify(this.opts.state.state())}\n\n`);
  }

  close(): void {
    for (const t of this.timers) clearInterval(t);
    for (const res of this.streams) res.end();
    this.streams.clear();
  }

  private async tick(): Promise<void> {
    await this.opts.history.tick();
    if (this.streams.size > 0) this.send(`event: history\ndata: ${JSON.stringify(this.opts.history.body())}\n\n`);
  }

  private api(route: string, q: URLSearchParams, req: IncomingMessage, res: ServerResponse): void {
    const { state, history } = this.opts;
    if (route === 'state') return json(res, 200, state.state());
    if (route === 'history') return json(res, 200, history.body());
    if (route === 'sources') return json(res, 200, state.sources());
    if (route === 'records') return json(res, 200, state.records(recordFilter(q)));
    if (route === 'explain') return this.explain(q.get('name') ?? '', res);
    if (route === 'events') return this.openStream(req, res);
    json(res, 404, { error: `no such console API: ${route}` });
  }

  private explain(raw: string, res: ServerResponse): void {
    let name: string;
    try {
      name = normalizeDnsName(raw.trim());
    } catch (err) {
      return json(res, 400, { error: `not a DNS name: ${errorMessage(err)}` });
    }
    const answer = this.opts.state.explain(name);
    if (answer === undefined) return json(res, 503, { error: 'no synchronisation has finished yet' });
    json(res, 200, answer);
  }

  private openStream(req: IncomingMessage, res: ServerResponse): void {
    if (this.streams.size >= (this.opts.maxStreams ?? DEFAULT_MAX_STREAMS)) return json(res, 503, { error: 'too many open event streams' });
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write(`event: state\ndata: ${JSON.stringify(this.opts.state.state())}\n\n`);
    res.write(`event: history\ndata: ${JSON.stringify(this.opts.history.body())}\n\n`);
    this.streams.add(res);
    req.socket.setTimeout(0);
    const drop = (): void => void this.streams.delete(res);
    req.on('close', drop);
    res.on('error', drop);
  }

  private send(text: string): void {
    for (const res of this.streams) res.write(text);
  }

  private asset(name: string, known: boolean, req: IncomingMessage, res: ServerResponse): void {
    const asset = known ? this.assets.get(name) : undefined;
    if (asset === undefined) return void res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
    const versioned = name !== 'index.html' && new URL(req.url ?? '/', 'http://console').searchParams.has('v');
    const headers = { 'content-type': asset.type, etag: asset.etag, 'cache-control': versioned ? 'public, max-age=31536000, immutable' : 'no-cache' };
    if (req.headers['if-none-match'] === asset.etag) return void res.writeHead(304, headers).end();
    res.writeHead(200, headers).end(req.method === 'HEAD' ? undefined : asset.body);
  }

  private loadAssets(dir: string): void {
    const text = new Map(ASSET_FILES.map((f) => [f, readFileSync(`${dir}${f}`, 'utf8')]));
    const hash = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 16);
    const index = (text.get('index.html') ?? '').replace(/\{\{([\w.-]+)\}\}/g, (_, file: string) => hash(text.get(file as (typeof ASSET_FILES)[number]) ?? ''));
    text.set('index.html', index);
    for (const [file, body] of text) {
      this.assets.set(file, {
        body: Buffer.from(body),
        type: TYPES[file.slice(file.lastIndexOf('.') + 1)] ?? 'application/octet-stream',
        etag: `"${hash(body)}"`,
      });
    }
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

function recordFilter(q: URLSearchParams): Parameters<ConsoleState['records']>[0] {
  const int = (key: string, def: number, max: number): number => {
    const n = Number(q.get(key) ?? def);
    return Number.isInteger(n) && n >= 0 ? Math.min(n, max) : def;
  };
  return {
    name: q.get('name') ?? '',
    type: q.get('type') ?? '',
    owner: q.get('owner') ?? '',
    source: q.get('source') ?? '',
    ownership: q.get('ownership') ?? '',
    limit: int('limit', 500, 5000) || 500,
    offset: int('offset', 0, Number.MAX_SAFE_INTEGER),
  };
}
