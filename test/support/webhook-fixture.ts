/**
 * A minimal external-dns webhook provider written from the protocol description (not from our
 * server), with knobs for the odd cases a client must survive: scripted status codes, slow or
 * oversized answers, wrong media types. Records live in a plain list; every request is recorded.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const WEBHOOK_MEDIA_TYPE = 'application/external.dns.webhook+json;version=1';

export interface FixtureRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** An answer that overrides the protocol behaviour for one request. */
export interface ScriptedAnswer {
  status: number;
  body?: string;
  contentType?: string;
  delayMs?: number;
}

export interface WebhookFixture {
  url: string;
  requests: FixtureRequest[];
  /** The JSON the fixture answers GET / with (verbatim). */
  domainFilterJSON: string;
  /** Records as raw JSON objects, served by GET /records. */
  records: Record<string, unknown>[];
  /** Answers used, in order, before the protocol behaviour resumes (per "METHOD /path"). */
  script: Map<string, ScriptedAnswer[]>;
  stop(): Promise<void>;
}

export async function startWebhookFixture(options: { domainFilterJSON?: string } = {}): Promise<WebhookFixture> {
  const requests: FixtureRequest[] = [];
  const state = {
    domainFilterJSON: options.domainFilterJSON ?? '{}',
    records: [] as Record<string, unknown>[],
    script: new Map<string, ScriptedAnswer[]>(),
  };
  const timers = new Set<NodeJS.Timeout>();

  const send = (res: ServerResponse, status: number, body: string, contentType = WEBHOOK_MEDIA_TYPE): void => {
    res.writeHead(status, body === '' ? { vary: 'Content-Type' } : { 'content-type': contentType, vary: 'Content-Type' }).end(body);
  };

  const answer = (req: FixtureRequest, res: ServerResponse): void => {
    const scripted = state.script.get(`${req.method} ${req.path}`)?.shift();
    if (scripted !== undefined) {
      const reply = (): void => send(res, scripted.status, scripted.body ?? '', scripted.contentType);
      if (scripted.delayMs === undefined) reply();
      else {
        const t = setTimeout(() => {
          timers.delete(t);
          if (!res.destroyed) reply();
        }, scripted.delayMs);
        timers.add(t);
      }
      return;
    }
    if (req.method === 'GET' && req.path === '/') return send(res, 200, state.domainFilterJSON);
    if (req.method === 'GET' && req.path === '/records') return send(res, 200, JSON.stringify(state.records));
    if (req.method === 'POST' && req.path === '/adjustendpoints') return send(res, 200, req.body);
    if (req.method === 'POST' && req.path === '/records') {
      let changes: Record<string, unknown[] | null>;
      try {
        changes = JSON.parse(req.body) as Record<string, unknown[] | null>;
      } catch {
        return send(res, 400, '');
      }
      // Keys as the Go decoder reads them: any case.
      const list = (key: string): Record<string, unknown>[] => {
        const k = Object.keys(changes).find((c) => c.toLowerCase() === key.toLowerCase());
        return ((k === undefined ? null : changes[k]) ?? []) as Record<string, unknown>[];
      };
      const same = (a: Record<string, unknown>, b: Record<string, unknown>): boolean =>
        a['dnsName'] === b['dnsName'] && a['recordType'] === b['recordType'] && (a['setIdentifier'] ?? '') === (b['setIdentifier'] ?? '');
      const gone = [...list('delete'), ...list('updateOld')];
      state.records = state.records.filter((r) => !gone.some((g) => same(r, g)));
      state.records.push(...list('create'), ...list('updateNew'));
      return send(res, 204, '');
    }
    send(res, 404, '');
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: FixtureRequest = {
        method: req.method ?? 'GET',
        path: (req.url ?? '/').split('?')[0] ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(r);
      answer(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get domainFilterJSON() {
      return state.domainFilterJSON;
    },
    set domainFilterJSON(v: string) {
      state.domainFilterJSON = v;
    },
    get records() {
      return state.records;
    },
    set records(v: Record<string, unknown>[]) {
      state.records = v;
    },
    script: state.script,
    stop: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
