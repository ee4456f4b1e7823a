import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ProviderError } from '../../errors.ts';
import { sdkCloudflareApi } from './api.ts';

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** A fetch answering like Cloudflare's v4 API, recording each request (no network). */
function fakeFetch(answer: (req: Seen) => { status?: number; body: unknown; headers?: Record<string, string> }): { fetch: typeof fetch; seen: Seen[] } {
  const seen: Seen[] = [];
  const f = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => (headers[k] = v));
    const raw = init?.body;
    const req = { method: init?.method ?? 'GET', url: String(input), headers, body: typeof raw === 'string' ? JSON.parse(raw) : undefined };
    seen.push(req);
    const a = answer(req);
    return new Response(JSON.stringify(a.body), { status: a.status ?? 200, headers: { 'content-type': 'application/json', ...(a.headers ?? {}) } });
  };
  return { fetch: f as typeof fetch, seen };
}

const ok = (result: unknown, info?: unknown) => ({
  body: { success: true, errors: [], messages: [], result, ...(info === undefined ? {} : { result_info: info }) },
});

describe('sdkCloudflareApi', () => {
  test('token auth, the base URL, one page of records with per_page, read as CfRecords', async () => {
    const { fetch, seen } = fakeFetch(() =>
      ok(
        [
          { id: 'r1', name: 'a.example.org', type: 'A', content: '192.0.2.1', ttl: 1, proxied: true, comment: null, tags: [] },
          {
            id: 'r2',
            name: 's.example.org',
            type: 'SRV',
            content: '1 443 t.example.org',
            ttl: 300,
            proxied: false,
            data: { priority: 1, weight: 1, port: 443, target: 't.example.org' },
          },
        ],
        { page: 1, per_page: 5000, total_pages: 3, count: 2, total_count: 2 },
      ),
    );
    const api = sdkCloudflareApi({ apiToken: 'tok-123', baseURL: 'http://127.0.0.1:9/client/v4', fetch });
    const page = await api.listRecordsPage('z1', 1, 5000);
    assert.equal(page.totalPages, 3);
    assert.equal(page.records[0]?.proxied, true);
    assert.equal(page.records[0]?.comment, undefined);
    assert.deepEqual(page.records[1]?.data, { priority: 1, weight: 1, port: 443, target: 't.example.org' });
    assert.match(seen[0]?.url ?? '', /^http:\/\/127\.0\.0\.1:9\/client\/v4\/zones\/z1\/dns_records\?.*per_page=5000/);
    assert.equal(seen[0]?.headers['authorization'], 'Bearer tok-123');
    assert.equal(seen[0]?.headers['x-auth-key'], undefined);
  });

  test('key + email auth; a batch sends deletes, puts and posts in one request', async () => {
    const { fetch, seen } = fakeFetch(() =>
      ok({ posts: [{ id: 'n1', name: 'b.example.org', type: 'A', content: '192.0.2.2', ttl: 1, proxied: false }], puts: [] }),
    );
    const api = sdkCloudflareApi({ apiKey: 'k', apiEmail: 'e@example.org', baseURL: 'http://127.0.0.1:9/client/v4', fetch });
    const res = await api.batch('z1', {
      deletes: ['old'],
      puts: [],
      posts: [{ name: 'b.example.org', type: 'A', content: '192.0.2.2', ttl: 1, proxied: false, comment: '', tags: [] }],
    });
    assert.equal(res.posts[0]?.id, 'n1');
    assert.equal(seen[0]?.method, 'POST');
    assert.match(seen[0]?.url ?? '', /\/zones\/z1\/dns_records\/batch$/);
    assert.deepEqual(seen[0]?.body, {
      deletes: [{ id: 'old' }],
      puts: [],
      posts: [{ name: 'b.example.org', type: 'A', ttl: 1, proxied: false, comment: '', tags: [], content: '192.0.2.2' }],
    });
    assert.equal(seen[0]?.headers['x-auth-key'], 'k');
    assert.equal(seen[0]?.headers['x-auth-email'], 'e@example.org');
  });

  test('a 429 is a transient PROVIDER_THROTTLED with Retry-After, no retry by the SDK, and never the token', async () => {
    const { fetch, seen } = fakeFetch(() => ({
      status: 429,
      headers: { 'retry-after': '2' },
      body: { success: false, errors: [{ code: 971, message: 'Please wait and consider throttling your request speed' }] },
    }));
    const api = sdkCloudflareApi({ apiToken: 'secret-token', baseURL: 'http://127.0.0.1:9/client/v4', fetch });
    await assert.rejects(api.deleteRecord('z1', 'r1'), (err: unknown) => {
      assert.ok(err instanceof ProviderError);
      assert.equal(err.code, 'PROVIDER_THROTTLED');
      assert.equal(err.transient, true);
      assert.match(err.message, /971/);
      assert.doesNotMatch(err.message + String(err.stack), /secret-token/);
      return true;
    });
    assert.equal(seen.length, 1);
  });
});
