/**
 * The JSON the web console reads, from a real `hostwarden run` (manifest source, embedded
 * provider) whose zone already holds another owner's api.example.org and an unowned record:
 * records with their ownership, the planner's reason for the blocked name (as `explain` gives
 * it), per-object outcomes, the headers, a state event after a manifest edit, --ui=false and
 * --ui-address.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { CSP } from '../../src/console/serve.ts';
import { BLOCKED_NAME, FOREIGN_OWNER, startConsoleRun } from '../support/console-run.ts';
import type { ConsoleRun } from '../support/console-run.ts';
import { freePort } from '../support/bind.ts';

interface Rec {
  name: string;
  type: string;
  owner: string | null;
  resource: string | null;
  ownership: string;
}

async function get(url: string, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The first `event: state` after `since` on the stream, bounded by `ms`. */
async function nextStateEvent(url: string, match: (data: string) => boolean, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (req.destroy(), reject(new Error('no matching state event'))), ms);
    const req = request(url, (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        buf += c;
        for (const block of buf.split('\n\n').slice(0, -1)) {
          const data = /^event: state\ndata: (.*)$/m.exec(block)?.[1];
          if (data !== undefined && match(data)) {
            clearTimeout(timer);
            req.destroy();
            resolve(data);
          }
        }
        buf = buf.slice(buf.lastIndexOf('\n\n') + 2);
      });
    });
    req.on('error', () => undefined);
    req.end();
  });
}

describe('web console API', () => {
  let run: ConsoleRun;
  let base: string;
  before(async () => {
    run = await startConsoleRun();
    base = run.url.replace(/\/ui\/$/, '');
    // The first sync, bounded.
    for (let i = 0; i < 200; i++) {
      const state = JSON.parse((await get(`${base}/ui/api/state`)).body) as { sync: { outcome: string } };
      if (state.sync.outcome === 'ok') break;
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  after(async () => run.stop());

  test('records: every record the provider holds, with owner, object and ownership this/other/none; filters', async () => {
    const all = JSON.parse((await get(`${base}/ui/api/records`)).body) as { total: number; records: Rec[] };
    const byName = new Map(all.records.map((r) => [`${r.name} ${r.type}`, r]));
    assert.equal(byName.get(`${BLOCKED_NAME} CNAME`)?.owner, FOREIGN_OWNER);
    assert.equal(byName.get(`${BLOCKED_NAME} CNAME`)?.ownership, 'other');
    assert.equal(byName.get('legacy.example.org A')?.ownership, 'none');
    assert.ok(all.records.some((r) => r.ownership === 'this' && r.resource === 'ingress/default/app'));
    const other = JSON.parse((await get(`${base}/ui/api/records?ownership=other`)).body) as { records: Rec[] };
    assert.deepEqual(
      other.records.map((r) => r.name),
      [BLOCKED_NAME],
    );
    const limited = JSON.parse((await get(`${base}/ui/api/records?limit=1`)).body) as { total: number; records: Rec[] };
    assert.equal(limited.records.length, 1);
    assert.equal(limited.total, all.total);
  });

  test("explain: the planner's reason for the name another owner holds, as `hostwarden explain` gives it; a bad name is 400", async () => {
    const r = JSON.parse((await get(`${base}/ui/api/explain?name=${BLOCKED_NAME}`)).body) as {
      decisions: { action: string; reason: string; owner?: string }[];
    };
    const d = r.decisions.find((x) => x.owner === FOREIGN_OWNER);
    assert.ok(d !== undefined, JSON.stringify(r));
    assert.equal(d.action, 'skip');
    assert.match(d.reason, new RegExp(FOREIGN_OWNER));
    assert.equal((await get(`${base}/ui/api/explain?name=${encodeURIComponent('bad name!')}`)).status, 400);
  });

  test('sources: per object, what it asked for and what became of it', async () => {
    const s = JSON.parse((await get(`${base}/ui/api/sources`)).body) as {
      objects: { resource: string; records: { name: string; action: string; reason: string }[] }[];
    };
    const ingress = s.objects.find((o) => o.resource === 'ingress/default/app');
    const blocked = ingress?.records.find((r) => r.name === BLOCKED_NAME);
    assert.equal(blocked?.action, 'skip');
    assert.match(blocked?.reason ?? '', new RegExp(FOREIGN_OWNER));
  });

  test('state and history shapes; headers: CSP, nosniff, caching; only GET', async () => {
    const state = JSON.parse((await get(`${base}/ui/api/state`)).body) as { sync: { outcome: string; applying: boolean }; instance: { ownerId: string } };
    assert.equal(state.sync.outcome, 'ok');
    assert.equal(state.sync.applying, true);
    const history = JSON.parse((await get(`${base}/ui/api/history`)).body) as { stepSeconds: number; series: Record<string, unknown[] | null> };
    assert.equal(history.stepSeconds, 10);
    assert.equal(history.series['syncs']?.length, 360);
    assert.equal(history.series['dnsQueries']?.length, 360);
    const page = await get(`${base}/ui/`);
    assert.equal(page.status, 200);
    assert.equal(page.headers['content-security-policy'], CSP);
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.equal(page.headers['cache-control'], 'no-cache');
    const script = /src="assets\/app\.js\?v=([0-9a-f]+)"/.exec(page.body)?.[1];
    assert.ok(script !== undefined, 'index.html names app.js with its hash');
    const asset = await get(`${base}/ui/assets/app.js?v=${script}`);
    assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal((await get(`${base}/ui/api/state`, 'POST')).status, 405);
    assert.equal((await get(`${base}/ui/assets/../../package.json`)).status, 404);
  });

  test('a manifest edit reaches an open event stream as a state event', async () => {
    const seen = nextStateEvent(`${base}/ui/api/events`, (d) => d.includes('added.example.org'), 10_000);
    await appendFile(
      join(run.manifestsDir, 'web.yaml'),
      '---\napiVersion: externaldns.k8s.io/v1alpha1\nkind: DNSEndpoint\nmetadata:\n  name: added\n  namespace: default\nspec:\n  endpoints:\n    - dnsName: added.example.org\n      recordType: A\n      targets: [192.0.2.77]\n',
    );
    assert.match(await seen, /added\.example\.org/);
  });
});

describe('web console switches', () => {
  test('--ui=false: /ui/ is 404; --ui-address: served on its own port, not on the metrics one', async () => {
    const off = await startConsoleRun(['--ui=false']);
    try {
      assert.equal((await get(off.url)).status, 404);
    } finally {
      await off.stop();
    }
    const port = await freePort();
    const own = await startConsoleRun(['--ui-address', `127.0.0.1:${port}`]);
    try {
      assert.equal((await get(own.url)).status, 404);
      assert.equal((await get(`http://127.0.0.1:${port}/ui/`)).status, 200);
    } finally {
      await own.stop();
    }
  });
});
