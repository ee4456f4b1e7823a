/**
 * Test API server, part three: wire details checked with plain fetch — watch timeouts, legacy
 * watch paths, initial-events bookmarks, abrupt drops, consistent pagination, deletecollection,
 * namespace deletion, Tables, tokens and refused dry runs.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { spawnTestApiServer } from '../support/kube-apiserver/process.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';

interface WatchLine {
  type: string;
  object: { metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> }; code?: number; reason?: string };
}

/** Reads a watch stream until it ends, `until` is satisfied, or `timeoutMs` passes. */
async function readWatch(
  url: string,
  until: (lines: WatchLine[]) => boolean,
  timeoutMs = 5000,
): Promise<{ lines: WatchLine[]; ended: boolean; failed: boolean }> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  const lines: WatchLine[] = [];
  let ended = false;
  let failed = false;
  try {
    const res = await fetch(url, { signal: ac.signal });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    for (let i = 0; i < 10_000 && !until(lines); i++) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      buf += decoder.decode(value, { stream: true });
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(buf.slice(0, nl)) as WatchLine);
        buf = buf.slice(nl + 1);
      }
    }
  } catch {
    failed = !ac.signal.aborted;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return { lines, ended, failed };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

describe('test API server wire details', () => {
  let api: TestApiServer;
  let cm: string;

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 50, namespaces: ['wire'] });
    cm = `${api.url}/api/v1/namespaces/wire/configmaps`;
  });
  after(async () => {
    await api.stop();
  });

  test('timeoutSeconds ends the stream; legacy /watch/ paths; initial-events-end bookmark', async () => {
    assert.equal((await post(cm, { metadata: { name: 'a' } })).status, 201);
    const timed = await readWatch(`${cm}?watch=true&timeoutSeconds=1`, () => false);
    assert.ok(timed.ended, 'the server ended the watch');
    assert.deepEqual(
      timed.lines.map((l) => l.type),
      ['ADDED'],
    );

    const legacy = await readWatch(`${api.url}/api/v1/watch/namespaces/wire/configmaps/a`, (l) => l.length >= 1);
    assert.equal(legacy.lines[0]?.object.metadata?.name, 'a');

    const initial = await readWatch(`${cm}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan`, (l) => l.length >= 2);
    assert.equal(initial.lines[1]?.type, 'BOOKMARK');
    assert.equal(initial.lines[1]?.object.metadata?.annotations?.['k8s.io/initial-events-end'], 'true');
  });

  test('an abrupt drop resets the connection; a clean drop ends the stream', async () => {
    // Streams the previous test aborted close asynchronously on the server side.
    for (let i = 0; i < 100 && api.openWatches() > 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(api.openWatches(), 0);
    const rv = api.resourceVersion();
    const clean = readWatch(`${cm}?watch=true&resourceVersion=${rv}`, () => false);
    for (let i = 0; i < 100 && api.openWatches() === 0; i++) await new Promise((r) => setTimeout(r, 10));
    api.dropWatches();
    assert.ok((await clean).ended);
    const abrupt = readWatch(`${cm}?watch=true&resourceVersion=${rv}`, () => false);
    for (let i = 0; i < 100 && api.openWatches() === 0; i++) await new Promise((r) => setTimeout(r, 10));
    api.dropWatches({ abrupt: true });
    const r = await abrupt;
    assert.ok(r.failed && !r.ended, 'the client sees an error, not a clean end');
  });

  test('a 410 Gone watch answers 200 with one ERROR event carrying Status Expired', async () => {
    const rv = Number(api.resourceVersion());
    await post(cm, { metadata: { name: 'b' } });
    api.compactHistory();
    const r = await readWatch(`${cm}?watch=true&resourceVersion=${rv}`, () => false);
    assert.equal(r.lines.length, 1);
    assert.equal(r.lines[0]!.type, 'ERROR');
    assert.equal(r.lines[0]!.object.code, 410);
    assert.equal(r.lines[0]!.object.reason, 'Expired');
  });

  test('continue tokens read a consistent snapshot; deletecollection; Tables', async () => {
    await post(`${api.url}/api/v1/namespaces`, { metadata: { name: 'snap' } });
    const url = `${api.url}/api/v1/namespaces/snap/configmaps`;
    for (const n of ['c1', 'c2', 'c3']) await post(url, { metadata: { name: n, labels: { g: 'x' } } });
    const first = (await (await fetch(`${url}?limit=1`)).json()) as { metadata: { continue: string; remainingItemCount: number } };
    assert.equal(first.metadata.remainingItemCount, 2);
    await post(url, { metadata: { name: 'c4' } });
    await fetch(`${url}/c2`, { method: 'DELETE' });
    const rest = (await (await fetch(`${url}?limit=10&continue=${first.metadata.continue}`)).json()) as { items: { metadata: { name: string } }[] };
    assert.deepEqual(
      rest.items.map((i) => i.metadata.name),
      ['c2', 'c3'],
      'the page shows the list as it was at the first page',
    );

    const table = (await (await fetch(url, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' } })).json()) as {
      kind: string;
      rows: { cells: unknown[] }[];
    };
    assert.equal(table.kind, 'Table');
    assert.deepEqual(
      table.rows.map((r) => r.cells[0]),
      ['c1', 'c3', 'c4'],
    );

    const deleted = await fetch(`${url}?labelSelector=g%3Dx`, { method: 'DELETE' });
    assert.equal(deleted.status, 200);
    const left = (await (await fetch(url)).json()) as { items: { metadata: { name: string } }[] };
    assert.deepEqual(
      left.items.map((i) => i.metadata.name),
      ['c4'],
    );
  });

  test('deleting a namespace deletes its objects', async () => {
    await post(`${api.url}/api/v1/namespaces`, { metadata: { name: 'doomed' } });
    await post(`${api.url}/api/v1/namespaces/doomed/configmaps`, { metadata: { name: 'x' } });
    assert.equal((await fetch(`${api.url}/api/v1/namespaces/doomed`, { method: 'DELETE' })).status, 200);
    assert.equal((await fetch(`${api.url}/api/v1/namespaces/doomed/configmaps/x`)).status, 404);
    assert.equal((await post(`${api.url}/api/v1/namespaces/doomed/configmaps`, { metadata: { name: 'y' } })).status, 404);
  });

  test('errors: 405 on a create-only resource, 400 on dry runs, 415 on protobuf, 404 on unknown paths', async () => {
    assert.equal((await fetch(`${api.url}/apis/authorization.k8s.io/v1/subjectaccessreviews`)).status, 405);
    assert.equal((await post(`${cm}?dryRun=All`, { metadata: { name: 'dry' } })).status, 400);
    assert.equal((await fetch(`${cm}/dry`)).status, 404, 'the dry run stored nothing');
    assert.equal((await post(cm, { metadata: { name: 'pb' } }, { 'content-type': 'application/vnd.kubernetes.protobuf' })).status, 415);
    assert.equal((await fetch(`${api.url}/apis/nope.example/v1/things`)).status, 404);
    const status = (await (await fetch(`${cm}/missing`)).json()) as Record<string, unknown>;
    assert.deepEqual(status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "missing" not found',
      reason: 'NotFound',
      code: 404,
      details: { name: 'missing', group: '', kind: 'configmaps' },
    });
  });

  test('requireToken answers 401 without the bearer token', async () => {
    const locked = await startTestApiServer({ requireToken: true, token: 's3cret' });
    try {
      assert.equal((await fetch(`${locked.url}/api/v1/namespaces`)).status, 401);
      assert.equal((await fetch(`${locked.url}/api/v1/namespaces`, { headers: { authorization: 'Bearer s3cret' } })).status, 200);
    } finally {
      await locked.stop();
    }
  });

  test('runs as a child process with a kubeconfig file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hw-apiserver-'));
    const child = await spawnTestApiServer(dir);
    try {
      const kc = new KubeConfig();
      kc.loadFromFile(child.kubeconfig);
      const namespaces = await kc.makeApiClient(CoreV1Api).listNamespace();
      assert.deepEqual(
        namespaces.items.map((n) => n.metadata?.name),
        ['default', 'kube-system'],
      );
    } finally {
      await child.stop();
      await rm(dir, { recursive: true, force: true });
    }
    await assert.rejects(fetch(`${child.url}/version`));
  });
});
