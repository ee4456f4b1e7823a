/**
 * A stand-in for the web console's backend (the HTTP contract of docs/console.md): serves
 * src/console/assets under /ui/ with the same headers, and canned JSON and server-sent events the
 * test controls. The browser test of rendering edge cases runs against it in a fraction of the
 * time a real `hostwarden run` takes.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { CSP } from '../../src/console/serve.ts';
import type { Rec } from '../../src/console/state.ts';

export const ASSETS_DIR = fileURLToPath(new URL('../../src/console/assets/', import.meta.url));
const ASSETS = ['index.html', 'app.js', 'style.css'];
const TYPES: Record<string, string> = { html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

export type { Rec };

export interface ChangeSet {
  creates: Rec[];
  updates: { old: Rec; new: Rec; fields: { field: string; old: string; new: string }[] }[];
  deletes: Rec[];
}

export interface ConsoleStateBody {
  instance: { ownerId: string; provider: string; sources: string[]; policy: string; registry: string; dryRun: boolean; version: string };
  sync: {
    lastAttemptAt: number | null;
    lastSuccessAt: number | null;
    nextAt: number | null;
    outcome: 'none' | 'ok' | 'failed';
    error: string | null;
    consecutiveFailures: number;
    applying: boolean;
  };
  plan: ChangeSet;
  /** What the last sync applied; null when it applied nothing (the backend's addition to the first contract). */
  lastApplied: ChangeSet | null;
  zones: string[];
}

export interface SourcesBody {
  objects: { resource: string; records: { name: string; type: string; targets: string[]; action: string; reason: string }[] }[];
}

export interface ExplainBody {
  name: string;
  decisions: Record<string, unknown>[];
  problems: string[];
}

export interface HistoryBody {
  stepSeconds: number;
  end: number;
  series: { syncs: number[]; changes: number[]; errors: number[]; dnsQueries: number[] | null };
}

export interface ConsoleData {
  state: ConsoleStateBody;
  records: Rec[];
  sources: SourcesBody;
  explain: Record<string, ExplainBody>;
  history: HistoryBody;
}

export interface ConsoleFixture {
  /** http://127.0.0.1:<port>/ui/ */
  url: string;
  /** Change it, then pushState()/pushHistory() to send it to the open pages. */
  data: ConsoleData;
  /** Paths of the requests seen, in order. */
  requests: string[];
  pushState(): void;
  pushHistory(): void;
  /** Ends every open event stream; with `refuse`, new ones get 503 until called with false. */
  dropStreams(refuse?: boolean): void;
  close(): Promise<void>;
}

export async function startConsoleFixture(data: ConsoleData = sampleData(Date.now())): Promise<ConsoleFixture> {
  const assets = await loadAssets();
  const streams = new Set<ServerResponse>();
  const requests: string[] = [];
  let refuse = false;
  const fixture = { data, requests } as ConsoleFixture;
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    for (const [k, v] of Object.entries({ 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' }))
      res.setHeader(k, v);
    if (req.method !== 'GET') return send(res, 405, { error: 'method not allowed' });
    const url = new URL(req.url ?? '/', 'http://fixture');
    if (url.pathname === '/ui/api/events') {
      if (refuse || streams.size >= 32) return send(res, 503, { error: 'too many event streams' });
      return openStream(req, res, streams, fixture.data);
    }
    if (url.pathname.startsWith('/ui/api/')) return api(url, res, fixture.data);
    const asset = url.pathname === '/ui/' ? 'index.html' : url.pathname.startsWith('/ui/assets/') ? url.pathname.slice('/ui/assets/'.length) : '';
    const body = assets.get(asset);
    if (body === undefined) return send(res, 404, { error: 'not found' });
    res.writeHead(200, { 'content-type': TYPES[asset.slice(asset.lastIndexOf('.') + 1)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const broadcast = (event: string, body: unknown): void => {
    for (const res of streams) res.write(`event: ${event}\ndata: ${JSON.stringify(body)}\n\n`);
  };
  return Object.assign(fixture, {
    url: `http://127.0.0.1:${port}/ui/`,
    pushState: () => broadcast('state', fixture.data.state),
    pushHistory: () => broadcast('history', fixture.data.history),
    dropStreams: (refuseNew = false) => {
      refuse = refuseNew;
      for (const res of streams) res.destroy();
      streams.clear();
    },
    close: async () => {
      for (const res of streams) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/** index.html gets each asset's content hash in place of `{{<file>}}`, as the backend does. */
async function loadAssets(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const name of ASSETS) files.set(name, await readFile(`${ASSETS_DIR}${name}`, 'utf8'));
  const hash = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);
  files.set(
    'index.html',
    (files.get('index.html') ?? '').replace(/\{\{([\w.-]+)\}\}/g, (_, name: string) => hash(files.get(name) ?? '')),
  );
  return files;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

function openStream(req: IncomingMessage, res: ServerResponse, streams: Set<ServerResponse>, data: ConsoleData): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(`event: state\ndata: ${JSON.stringify(data.state)}\n\n`);
  streams.add(res);
  req.on('close', () => streams.delete(res));
}

function api(url: URL, res: ServerResponse, data: ConsoleData): void {
  const q = url.searchParams;
  switch (url.pathname) {
    case '/ui/api/state':
      return send(res, 200, data.state);
    case '/ui/api/records':
      return send(res, 200, filterRecords(data.records, q));
    case '/ui/api/sources':
      return send(res, 200, data.sources);
    case '/ui/api/history':
      return send(res, 200, data.history);
    case '/ui/api/explain': {
      const name = (q.get('name') ?? '').trim().toLowerCase().replace(/\.$/, '');
      if (name === '' || !/^(\*\.)?[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(name)) return send(res, 400, { error: `"${q.get('name') ?? ''}" is not a DNS name` });
      return send(res, 200, data.explain[name] ?? { name, decisions: [], problems: [] });
    }
    default:
      return send(res, 404, { error: 'not found' });
  }
}

/** The contract's filters: substring (case-insensitive) for name, owner and source; exact for type and ownership. */
export function filterRecords(records: readonly Rec[], q: URLSearchParams): { total: number; records: Rec[] } {
  const has = (value: string | null, part: string | null): boolean => part === null || part === '' || (value ?? '').toLowerCase().includes(part.toLowerCase());
  const type = (q.get('type') ?? '').toUpperCase();
  const ownership = q.get('ownership') ?? '';
  const matching = records.filter(
    (r) =>
      has(r.name, q.get('name')) &&
      has(r.owner, q.get('owner')) &&
      has(r.resource, q.get('source')) &&
      (type === '' || r.type === type) &&
      (ownership === '' || r.ownership === ownership),
  );
  const limit = Math.min(Math.max(Number(q.get('limit') ?? 500) || 500, 1), 5000);
  const offset = Math.max(Number(q.get('offset') ?? 0) || 0, 0);
  return { total: matching.length, records: matching.slice(offset, offset + limit) };
}

const rec = (
  name: string,
  type: string,
  targets: string[],
  ownership: Rec['ownership'],
  owner: string | null,
  resource: string | null,
  ttl: number | null = null,
): Rec => ({
  name,
  type,
  setIdentifier: '',
  targets,
  ttl,
  owner,
  resource,
  ownership,
});

/** The example manifests after a sync, a record of another owner blocking api.example.org, and a pending plan. */
export function sampleData(now: number): ConsoleData {
  const records = [
    rec('api.example.org', 'CNAME', ['lb.team-b.example.net'], 'other', 'cluster-b', 'ingress/team-b/api', 300),
    rec('app.example.org', 'CNAME', ['lb.example.net'], 'this', 'default', 'ingress/default/app'),
    rec('db.example.org', 'A', ['192.0.2.20'], 'this', 'default', 'crd/default/records', 60),
    rec('legacy.example.org', 'A', ['192.0.2.99', '192.0.2.98'], 'none', null, null, 3600),
    rec('mail.example.org', 'A', ['192.0.2.25'], 'this', 'default', 'crd/default/records'),
    rec('note.example.org', 'TXT', ['"<b>not bold</b><script>document.title=1</script>"'], 'none', null, null, 300),
    rec('v6.example.org', 'AAAA', ['2001:db8::20'], 'this', 'default', 'crd/default/records'),
    rec('www.example.org', 'A', ['192.0.2.10'], 'this', 'default', 'service/default/web', 300),
  ];
  const www = records[7] as Rec;
  const steps = 360;
  const wave = (i: number, period: number, every: number): number => (i % period === every ? 1 : 0);
  return {
    state: {
      instance: { ownerId: 'default', provider: 'embedded', sources: ['manifest'], policy: 'sync', registry: 'txt', dryRun: false, version: '0.1.0' },
      sync: {
        lastAttemptAt: now - 12_000,
        lastSuccessAt: now - 12_000,
        nextAt: now + 48_000,
        outcome: 'ok',
        error: null,
        consecutiveFailures: 0,
        applying: true,
      },
      plan: {
        creates: [rec('blog.example.org', 'A', ['192.0.2.30'], 'this', 'default', 'service/default/blog')],
        updates: [
          {
            old: www,
            new: { ...www, targets: ['192.0.2.11'], ttl: 600 },
            fields: [
              { field: 'targets', old: '192.0.2.10', new: '192.0.2.11' },
              { field: 'ttl', old: '300', new: '600' },
            ],
          },
        ],
        deletes: [rec('old.example.org', 'CNAME', ['gone.example.net'], 'this', 'default', 'ingress/default/old')],
      },
      lastApplied: null,
      zones: ['example.org'],
    },
    records,
    sources: {
      objects: [
        {
          resource: 'crd/default/records',
          records: [
            { name: 'db.example.org', type: 'A', targets: ['192.0.2.20'], action: 'keep', reason: 'up to date' },
            {
              name: 'shop.example.org',
              type: 'MX',
              targets: ['10 mail.example.org'],
              action: 'skip',
              reason: 'type MX is not managed (--managed-record-types)',
            },
          ],
        },
        {
          resource: 'ingress/default/app',
          records: [
            { name: 'api.example.org', type: 'CNAME', targets: ['lb.example.net'], action: 'skip', reason: 'owned by another owner "cluster-b"' },
            { name: 'app.example.org', type: 'CNAME', targets: ['lb.example.net'], action: 'keep', reason: 'up to date' },
          ],
        },
        {
          resource: 'service/default/web',
          records: [{ name: 'www.example.org', type: 'A', targets: ['192.0.2.11'], action: 'update', reason: 'targets changed' }],
        },
      ],
    },
    explain: {
      'api.example.org': {
        name: 'api.example.org',
        decisions: [
          {
            dnsName: 'api.example.org',
            recordType: 'CNAME',
            setIdentifier: '',
            action: 'skip',
            reason: 'owned by another owner "cluster-b"',
            reasonCode: 'owned-by-other',
            resource: 'ingress/default/app',
            owner: 'cluster-b',
          },
        ],
        problems: [],
      },
      'bad.example.org': {
        name: 'bad.example.org',
        decisions: [],
        problems: ['service/default/bad: annotation external-dns.alpha.kubernetes.io/ttl: "soon" is not a duration'],
      },
    },
    history: {
      stepSeconds: 10,
      end: now,
      series: {
        syncs: Array.from({ length: steps }, (_, i) => wave(i, 6, 0) + wave(i, 45, 3)),
        changes: Array.from({ length: steps }, (_, i) => (i % 45 === 3 ? 1 + (i % 4) : 0)),
        errors: Array.from({ length: steps }, (_, i) => (i > 200 && i < 215 && i % 6 === 0 ? 1 : 0)),
        dnsQueries: Array.from({ length: steps }, (_, i) => Math.round(40 + 30 * Math.sin(i / 25) + (i % 7) * 3)),
      },
    },
  };
}
