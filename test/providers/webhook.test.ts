/**
 * The webhook provider (client) against a protocol fixture written from the spec, covering the
 * odd answers a real webhook may give, and against our own webhook server in front of the
 * inmemory provider; plus the server's refusals (bad JSON, oversized bodies, wrong methods).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry as MetricsRegistry } from 'prom-client';
import { FlagValues } from '../../src/config/config.ts';
import type { FlagValue } from '../../src/config/parse.ts';
import { newEndpoint } from '../../src/endpoint/endpoint.ts';
import type { Endpoint, EndpointInit } from '../../src/endpoint/endpoint.ts';
import { ConfigError, ProviderError } from '../../src/errors.ts';
import { silentLogger } from '../../src/log.ts';
import { InMemoryProvider } from '../../src/provider/inmemory/inmemory.ts';
import { WebhookProvider } from '../../src/provider/webhook/client.ts';
import { WebhookServer } from '../../src/provider/webhook/server.ts';
import { WEBHOOK_MEDIA_TYPE, startWebhookFixture } from '../support/webhook-fixture.ts';
import type { WebhookFixture } from '../support/webhook-fixture.ts';

const ep = (init: Partial<EndpointInit> & Pick<EndpointInit, 'dnsName'>): Endpoint => newEndpoint({ recordType: 'A', targets: ['192.0.2.1'], ...init });
const flags = (values: Record<string, FlagValue>): FlagValues =>
  new FlagValues(new Map(Object.entries({ 'webhook-provider-read-timeout': 2000, 'webhook-provider-write-timeout': 2000, ...values })));
const cfgOf = (f: FlagValues) => ({ flags: f, domainFilters: [], excludeDomains: [] });
const noChanges = { create: [], updateOld: [], updateNew: [], delete: [] };

function connect(url: string, sleeps: number[] = [], extra: Record<string, FlagValue> = {}): Promise<WebhookProvider> {
  return WebhookProvider.fromConfig(cfgOf(flags({ 'webhook-provider-url': url, ...extra })), {
    logger: silentLogger(),
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  });
}

const isProviderError =
  (transient: boolean, pattern: RegExp) =>
  (err: unknown): boolean => {
    assert.ok(err instanceof ProviderError, String(err));
    assert.equal(err.provider, 'webhook');
    assert.equal(err.transient, transient, err.message);
    assert.match(err.message, pattern);
    return true;
  };

describe('webhook client against the protocol fixture', () => {
  let fx: WebhookFixture;
  before(async () => {
    fx = await startWebhookFixture();
  });
  after(async () => {
    await fx.stop();
  });

  test('negotiation sends the media type; {} means no domain filter', async () => {
    fx.domainFilterJSON = '{}';
    const p = await connect(fx.url);
    const get = fx.requests.at(-1);
    assert.equal(get?.path, '/');
    assert.equal(get?.headers['accept'], WEBHOOK_MEDIA_TYPE);
    assert.equal(p.domainFilter().isConfigured(), false);
  });

  test('user info in the URL is sent as Basic credentials (as Go clients do) and appears in no URL or error', async () => {
    const withCredentials = fx.url.replace('http://', 'http://hw%40ops:s3cr%3At@');
    const p = await connect(withCredentials);
    await p.records();
    for (const r of fx.requests.slice(-2)) assert.equal(r.headers['authorization'], `Basic ${Buffer.from('hw@ops:s3cr:t').toString('base64')}`);
    fx.script.set('GET /records', [{ status: 400, body: 'no' }]);
    await assert.rejects(p.records(), (err: unknown) => err instanceof ProviderError && !/s3cr/.test(err.message));
    await assert.rejects(
      connect('http://hw:s3cret@127.0.0.1:9/'),
      (err: unknown) => err instanceof ProviderError && /cannot reach/.test(err.message) && !/s3cret/.test(err.message),
    );
    await assert.rejects(
      connect('ftp://hw:s3cret@x/'),
      (err: unknown) => err instanceof ConfigError && /ftp:\/\/REDACTED@x\//.test(err.message) && !/s3cret/.test(err.message),
    );
  });

  test('include/exclude lists, null lists, capitalised keys and regex filters are understood', async () => {
    fx.domainFilterJSON = '{"include":["example.org","Example.NET."],"exclude":["internal.example.org"]}';
    let f = (await connect(fx.url)).domainFilter();
    assert.ok(f.match('www.example.org') && f.match('a.example.net') && !f.match('x.internal.example.org') && !f.match('example.com'));
    fx.domainFilterJSON = '{"include":null,"exclude":null,"regexInclude":"","regexExclude":""}';
    assert.equal((await connect(fx.url)).domainFilter().isConfigured(), false);
    fx.domainFilterJSON = '{"Include":["example.org"]}';
    assert.ok((await connect(fx.url)).domainFilter().match('www.example.org'));
    fx.domainFilterJSON = '{"regexInclude":"\\\\.example\\\\.org$","regexExclude":"^tmp-"}';
    f = (await connect(fx.url)).domainFilter();
    assert.ok(f.match('www.example.org') && !f.match('tmp-1.example.org') && !f.match('example.com'));
    fx.domainFilterJSON = '{"regexInclude":"(["}';
    await assert.rejects(connect(fx.url), isProviderError(false, /invalid regular expression/));
    fx.domainFilterJSON = '{}';
  });

  test('500 at start-up is retried with backoff, then succeeds', async () => {
    fx.script.set('GET /', [{ status: 500 }, { status: 503, body: 'starting' }]);
    const sleeps: number[] = [];
    await connect(fx.url, sleeps);
    assert.equal(sleeps.length, 2);
    assert.ok((sleeps[1] ?? 0) > (sleeps[0] ?? 0));
  });

  test('start-up retries are bounded', async () => {
    fx.script.set(
      'GET /',
      Array.from({ length: 10 }, () => ({ status: 502 })),
    );
    const sleeps: number[] = [];
    await assert.rejects(connect(fx.url, sleeps), isProviderError(true, /GET \/: HTTP 502/));
    assert.equal(sleeps.length, 5);
    fx.script.delete('GET /');
  });

  test('400 or a wrong media type at start-up fail at once, permanently', async () => {
    fx.script.set('GET /', [{ status: 400, body: 'bad accept header', contentType: 'text/plain' }]);
    const sleeps: number[] = [];
    await assert.rejects(connect(fx.url, sleeps), isProviderError(false, /HTTP 400: bad accept header/));
    assert.equal(sleeps.length, 0);
    fx.script.set('GET /', [{ status: 200, body: '{}', contentType: 'application/json' }]);
    await assert.rejects(connect(fx.url), isProviderError(false, /Content-Type "application\/json"/));
  });

  test('records: null list, null fields, unknown types skipped', async () => {
    const p = await connect(fx.url);
    fx.script.set('GET /records', [{ status: 200, body: 'null' }]);
    assert.deepEqual(await p.records(), []);
    fx.records = [
      { dnsName: 'www.example.org', targets: ['192.0.2.1'], recordType: 'A', setIdentifier: '', recordTTL: 0, labels: null, providerSpecific: null },
      { dnsName: 'txt.example.org', targets: ['"heritage=external-dns,external-dns/owner=default"'], recordType: 'TXT', labels: {} },
      { dnsName: 'x.example.org', targets: ['100 10 "S" "SIP+D2U" "" _sip._udp.example.org.'], recordType: 'NAPTR' },
      { dnsName: 'y.example.org', targets: ['1 1 abcd'], recordType: 'SSHFP' },
    ];
    const records = await p.records();
    assert.deepEqual(records, [
      ep({ dnsName: 'www.example.org' }),
      ep({ dnsName: 'txt.example.org', recordType: 'TXT', targets: ['"heritage=external-dns,external-dns/owner=default"'] }),
      ep({ dnsName: 'x.example.org', recordType: 'NAPTR', targets: ['100 10 "S" "SIP+D2U" "" _sip._udp.example.org.'] }),
    ]);
  });

  test('applyChanges posts lower-case camel keys with the media type and expects 204', async () => {
    const p = await connect(fx.url);
    fx.records = [];
    await p.applyChanges({ ...noChanges, create: [ep({ dnsName: 'a.example.org', recordTTL: 60, labels: { owner: 'me' } })] });
    const post = fx.requests.at(-1);
    assert.equal(post?.method, 'POST');
    assert.equal(post?.headers['content-type'], WEBHOOK_MEDIA_TYPE);
    assert.deepEqual(JSON.parse(post?.body ?? ''), {
      create: [{ dnsName: 'a.example.org', targets: ['192.0.2.1'], recordType: 'A', recordTTL: 60, labels: { owner: 'me' } }],
      updateOld: [],
      updateNew: [],
      delete: [],
    });
    assert.deepEqual(
      fx.records.map((r) => r['dnsName']),
      ['a.example.org'],
    );
  });

  test('5xx on changes is transient, 4xx permanent with the server message', async () => {
    const p = await connect(fx.url);
    fx.script.set('POST /records', [
      { status: 500, body: 'backend down', contentType: 'text/plain' },
      { status: 400, body: 'no such zone', contentType: 'text/plain' },
    ]);
    await assert.rejects(p.applyChanges({ ...noChanges, create: [ep({ dnsName: 'b.example.org' })] }), isProviderError(true, /HTTP 500: backend down/));
    await assert.rejects(p.applyChanges({ ...noChanges, create: [ep({ dnsName: 'b.example.org' })] }), isProviderError(false, /HTTP 400: no such zone/));
  });

  test('an oversized response is refused', async () => {
    const p = new WebhookProvider({
      url: fx.url,
      logger: silentLogger(),
      filter: (await connect(fx.url)).domainFilter(),
      readTimeoutMs: 2000,
      writeTimeoutMs: 2000,
      maxBodyBytes: 1024,
    });
    fx.script.set('GET /records', [
      { status: 200, body: JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ dnsName: `h${i}.example.org`, targets: ['192.0.2.1'], recordType: 'A' }))) },
    ]);
    await assert.rejects(p.records(), isProviderError(false, /exceeds the 1024-byte limit/));
  });

  test('--webhook-provider-max-body-size limits responses (0: no limit)', async () => {
    const many = JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ dnsName: `h${i}.example.org`, targets: ['192.0.2.1'], recordType: 'A' })));
    const limited = await connect(fx.url, [], { 'webhook-provider-max-body-size': 1024 });
    fx.script.set('GET /records', [{ status: 200, body: many }]);
    await assert.rejects(limited.records(), isProviderError(false, /exceeds the 1024-byte limit/));
    const unlimited = await connect(fx.url, [], { 'webhook-provider-max-body-size': 0 });
    fx.script.set('GET /records', [{ status: 200, body: many }]);
    assert.equal((await unlimited.records()).length, 100);
  });

  test('a slow server times out (transient)', async () => {
    const p = await connect(fx.url, [], { 'webhook-provider-read-timeout': 200 });
    fx.script.set('GET /records', [{ status: 200, body: '[]', delayMs: 5000 }]);
    await assert.rejects(p.records(), isProviderError(true, /no complete answer within 200 ms/));
  });

  test('adjustEndpoints round-trips through the server', async () => {
    const p = await connect(fx.url);
    const eps = [ep({ dnsName: 'c.example.org', providerSpecific: [{ name: 'alias', value: 'true' }] })];
    assert.deepEqual(await p.adjustEndpoints(eps), eps);
    fx.script.set('POST /adjustendpoints', [{ status: 500 }]);
    await assert.rejects(p.adjustEndpoints(eps), isProviderError(true, /adjustendpoints: HTTP 500/));
  });

  test('a server that is not there is transient; a bad URL is a config error', async () => {
    const sleeps: number[] = [];
    await assert.rejects(connect('http://127.0.0.1:9/', sleeps), isProviderError(true, /cannot reach the webhook provider/));
    assert.equal(sleeps.length, 5);
    await assert.rejects(connect('ftp://x'), (err: unknown) => err instanceof ConfigError && err.flag === '--webhook-provider-url');
  });
});

describe('webhook client against our webhook server (inmemory provider)', () => {
  let server: WebhookServer;
  let url: string;
  let backend: InMemoryProvider;
  before(async () => {
    backend = new InMemoryProvider({ zones: ['example.org'], records: [ep({ dnsName: 'old.example.org' })] });
    server = new WebhookServer({
      provider: backend,
      logger: silentLogger(),
      metrics: new MetricsRegistry(),
      readTimeoutMs: 5000,
      writeTimeoutMs: 5000,
      maxBodyBytes: 4096,
    });
    const addr = await server.start('127.0.0.1', 0);
    url = `http://127.0.0.1:${addr.port}`;
  });
  after(async () => {
    await server.stop();
  });

  test('negotiates the zones, lists, creates, updates and deletes', async () => {
    const p = await connect(url);
    assert.deepEqual(p.domainFilter().include, ['example.org']);
    const old = (await p.records())[0] as Endpoint;
    await p.applyChanges({
      create: [ep({ dnsName: 'new.example.org', recordType: 'TXT', targets: ['"v=1"'] })],
      updateOld: [old],
      updateNew: [ep({ dnsName: 'old.example.org', targets: ['192.0.2.9'], recordTTL: 30 })],
      delete: [],
    });
    assert.deepEqual(await backend.records(), [
      ep({ dnsName: 'old.example.org', targets: ['192.0.2.9'], recordTTL: 30 }),
      ep({ dnsName: 'new.example.org', recordType: 'TXT', targets: ['"v=1"'] }),
    ]);
    await p.applyChanges({ ...noChanges, delete: await p.records() });
    assert.deepEqual(await p.records(), []);
  });

  test('a permanent provider error comes back as a permanent error with its message', async () => {
    const p = await connect(url);
    await p.applyChanges({ ...noChanges, create: [ep({ dnsName: 'dup.example.org' })] });
    await assert.rejects(
      p.applyChanges({ ...noChanges, create: [ep({ dnsName: 'dup.example.org' })] }),
      isProviderError(false, /HTTP 422: inmemory: cannot create dup\.example\.org A/),
    );
  });

  test('the server reads capitalised and lower-case change keys, and null lists', async () => {
    const post = (body: string): Promise<Response> => fetch(`${url}/records`, { method: 'POST', body, headers: { 'content-type': WEBHOOK_MEDIA_TYPE } });
    assert.equal(
      (await post('{"Create":[{"dnsName":"cap.example.org","targets":["192.0.2.3"],"recordType":"A"}],"UpdateOld":null,"UpdateNew":null,"Delete":null}'))
        .status,
      204,
    );
    assert.equal((await post('{"create":[{"dnsName":"low.example.org","targets":["192.0.2.4"],"recordType":"A","labels":null}]}')).status, 204);
    const names = (await backend.records()).map((r) => r.dnsName);
    assert.ok(names.includes('cap.example.org') && names.includes('low.example.org'));
    assert.equal((await post('{"Delete":[{"dnsName":"cap.example.org","targets":["192.0.2.3"],"recordType":"A"}]}')).status, 204);
    assert.ok(!(await backend.records()).some((r) => r.dnsName === 'cap.example.org'));
  });

  test('the server refuses bad JSON (400), oversized bodies (413), unknown paths and methods', async () => {
    const headers = { 'content-type': WEBHOOK_MEDIA_TYPE };
    assert.equal((await fetch(`${url}/records`, { method: 'POST', headers, body: '{"create":' })).status, 400);
    assert.equal((await fetch(`${url}/records`, { method: 'POST', headers, body: '{"create":[{"dnsName":"","targets":[],"recordType":"A"}]}' })).status, 400);
    assert.equal(
      (
        await fetch(`${url}/records`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ create: [{ dnsName: 'x.example.org', targets: ['x'.repeat(5000)], recordType: 'TXT' }] }),
        })
      ).status,
      413,
    );
    assert.equal((await fetch(`${url}/nope`)).status, 404);
    assert.equal((await fetch(`${url}/records`, { method: 'DELETE' })).status, 405);
    const root = await fetch(`${url}/`, { headers: { accept: WEBHOOK_MEDIA_TYPE } });
    assert.equal(root.headers.get('content-type'), WEBHOOK_MEDIA_TYPE);
    assert.equal(root.headers.get('vary'), 'Content-Type');
  });

  test('a POST without the protocol media type is refused with 415 and changes nothing (what a web page can make a browser send)', async () => {
    const changes = JSON.stringify({ create: [{ dnsName: 'csrf.example.org', targets: ['203.0.113.66'], recordType: 'A' }] });
    const endpoints = JSON.stringify([{ dnsName: 'csrf.example.org', targets: ['203.0.113.66'], recordType: 'A' }]);
    // The bodies of a browser's "simple" cross-site requests: text/plain, a form, multipart, a
    // typeless Blob (no Content-Type at all); and JSON, which a page cannot send without CORS.
    const form = new FormData();
    form.set('create', changes);
    const bodies: [string, RequestInit][] = [
      ['text/plain', { body: changes }],
      ['form', { body: new URLSearchParams({ create: changes }) }],
      ['multipart', { body: form }],
      ['no type', { body: new Blob([changes]) }],
      ['application/json', { body: changes, headers: { 'content-type': 'application/json' } }],
      ['version 2', { body: changes, headers: { 'content-type': 'application/external.dns.webhook+json;version=2' } }],
    ];
    for (const [what, init] of bodies) {
      const res = await fetch(`${url}/records`, { method: 'POST', ...init });
      assert.equal(res.status, 415, what);
      assert.match(await res.text(), /Content-Type application\/external\.dns\.webhook\+json;version=1/);
      const adjust = await fetch(`${url}/adjustendpoints`, { method: 'POST', ...init, ...(init.body === changes ? { body: endpoints } : {}) });
      assert.equal(adjust.status, 415, `adjustendpoints, ${what}`);
    }
    assert.ok(!(await backend.records()).some((r) => r.dnsName === 'csrf.example.org'));
    // Spacing and case of the media type do not matter, as for external-dns's own client.
    const ok = await fetch(`${url}/records`, {
      method: 'POST',
      body: changes,
      headers: { 'content-type': 'Application/External.DNS.Webhook+JSON; version=1' },
    });
    assert.equal(ok.status, 204);
    await fetch(`${url}/records`, {
      method: 'POST',
      body: JSON.stringify({ delete: JSON.parse(endpoints) as unknown }),
      headers: { 'content-type': WEBHOOK_MEDIA_TYPE },
    });
  });

  test('/healthz and /metrics', async () => {
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    const text = await (await fetch(`${url}/metrics`)).text();
    assert.match(text, /hostwarden_webhook_requests_total\{method="POST",path="\/records",code="204"\} \d+/);
    assert.match(text, /hostwarden_webhook_requests_total\{method="POST",path="\/records",code="413"\} 1/);
  });
});
