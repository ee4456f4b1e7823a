import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import type { RecordType } from '../../endpoint/endpoint.ts';
import { FlagValues } from '../../config/config.ts';
import { FLAGS } from '../../config/flags.ts';
import { parseArgs } from '../../config/parse.ts';
import { ConfigError } from '../../errors.ts';
import { ZONE_FILTER_FLAGS } from '../zone-filter.ts';
import { adjustEndpoint } from './adjust.ts';
import type { AdjustSettings } from './adjust.ts';
import { chunkChanges } from './batch.ts';
import type { RecordChange } from './changes.ts';
import { propertyNames, recordInput, recordsToEndpoints } from './convert.ts';
import { CLOUDFLARE_FLAGS, cloudflareCredentials, cloudflareSettingsFromFlags } from './flags.ts';

const N = propertyNames();
const P = 'external-dns.alpha.kubernetes.io/';

describe('cloudflare conversion', () => {
  const cases: [RecordType, string, Record<string, unknown>][] = [
    ['A', '192.0.2.1', { content: '192.0.2.1' }],
    ['AAAA', '2001:db8::1', { content: '2001:db8::1' }],
    ['CNAME', 'target.example.org', { content: 'target.example.org' }],
    ['TXT', '"heritage=external-dns,external-dns/owner=x"', { content: '"heritage=external-dns,external-dns/owner=x"' }],
    ['NS', 'ns1.example.net', { content: 'ns1.example.net' }],
    ['MX', '10 mail.example.org', { content: 'mail.example.org', priority: 10 }],
    ['SRV', '1 2 443 svc.example.org.', { data: { priority: 1, weight: 2, port: 443, target: 'svc.example.org' } }],
    ['CAA', '0 issue "letsencrypt.org"', { data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' } }],
  ];
  for (const [type, target, expected] of cases) {
    test(`${type} round trip`, () => {
      const ep = newEndpoint({ dnsName: 'x.example.org', recordType: type, targets: [target] });
      const input = recordInput(ep, target, { proxied: false, ttl: 1, comment: '', tags: [] });
      for (const [k, v] of Object.entries(expected)) assert.deepEqual((input as unknown as Record<string, unknown>)[k], v, k);
      // Cloudflare returns SRV and CAA with its own formatted content; SRV is read from data.
      const stored = { ...input, id: 'r1', content: type === 'SRV' ? '2 443 svc.example.org' : input.content };
      const [back] = recordsToEndpoints([stored], N, undefined);
      assert.deepEqual(back?.targets, [target]);
      assert.equal(back?.recordTTL, 1);
    });
  }

  test('records group by name and type; properties come from the first record', () => {
    const eps = recordsToEndpoints(
      [
        { id: '1', name: 'a.example.org', type: 'A', content: '192.0.2.1', ttl: 1, proxied: true, comment: 'c', tags: ['b:2', 'a:1'] },
        { id: '2', name: 'a.example.org', type: 'A', content: '192.0.2.2', ttl: 1, proxied: true },
        { id: '3', name: 'a.example.org', type: 'PTR', content: 'x', ttl: 1, proxied: false },
      ],
      N,
      new Map([['a.example.org', ['z.example.com', 'y.example.com']]]),
    );
    assert.equal(eps.length, 1);
    assert.deepEqual(eps[0]?.targets, ['192.0.2.1', '192.0.2.2']);
    assert.deepEqual(eps[0]?.providerSpecific, [
      { name: `${P}cloudflare-proxied`, value: 'true' },
      { name: `${P}cloudflare-custom-hostname`, value: 'y.example.com,z.example.com' },
      { name: `${P}cloudflare-record-comment`, value: 'c' },
      { name: `${P}cloudflare-tags`, value: 'a:1,b:2' },
    ]);
  });

  test('a record whose name has a label over 63 characters is skipped and reported', () => {
    const long = `${'l'.repeat(64)}.example.org`;
    const skipped: string[] = [];
    const eps = recordsToEndpoints(
      [
        { id: '1', name: long, type: 'TXT', content: 'x', ttl: 1, proxied: false },
        { id: '2', name: 'ok.example.org', type: 'TXT', content: 'x', ttl: 1, proxied: false },
      ],
      N,
      undefined,
      (r) => skipped.push(r.name),
    );
    assert.deepEqual(
      eps.map((e) => e.dnsName),
      ['ok.example.org'],
    );
    assert.deepEqual(skipped, [long]);
  });

  test('a bad MX or SRV target is refused with the record named', () => {
    const ep = newEndpoint({ dnsName: 'm.example.org', recordType: 'MX', targets: ['mail'] });
    assert.throws(() => recordInput(ep, 'mail', { proxied: false, ttl: 1, comment: '', tags: [] }), /m\.example\.org.*MX target/);
  });
});

describe('cloudflare adjustEndpoints', () => {
  const s: AdjustSettings = { names: N, proxiedByDefault: false, customHostnames: false, regionalServices: false, regionKey: '', recordComment: '' };
  const ep = (type: RecordType, props: Record<string, string> = {}, ttl = 300) =>
    newEndpoint({
      dnsName: '*.example.org',
      recordType: type,
      targets: ['x'],
      recordTTL: ttl,
      providerSpecific: Object.entries(props).map(([name, value]) => ({ name, value })),
    });

  test('proxied (annotation or default) drops the TTL; wildcards proxy like any name', () => {
    const a = adjustEndpoint(ep('A', { [N.proxied]: 'true', 'aws/weight': '1', alias: 'true' }), s, false);
    assert.equal(a.recordTTL, 0);
    assert.deepEqual(a.providerSpecific, [{ name: N.proxied, value: 'true' }]);
    const b = adjustEndpoint(ep('CNAME'), { ...s, proxiedByDefault: true }, false);
    assert.equal(b.recordTTL, 0);
    const c = adjustEndpoint(ep('A', { [N.proxied]: 'false' }), { ...s, proxiedByDefault: true }, false);
    assert.equal(c.recordTTL, 300);
  });

  test("external-dns's own spelling (external-dns.kubernetes.io/cloudflare-…, as a DNSEndpoint written for it has) is read too", () => {
    const stable = 'external-dns.kubernetes.io/';
    const a = adjustEndpoint(ep('A', { [`${stable}cloudflare-proxied`]: 'true', [`${stable}cloudflare-tags`]: 'b,a' }), s, false);
    assert.equal(a.recordTTL, 0);
    assert.deepEqual(a.providerSpecific, [
      { name: N.proxied, value: 'true' },
      { name: N.tags, value: 'a,b' },
    ]);
    const both = adjustEndpoint(ep('A', { [N.proxied]: 'false', [`${stable}cloudflare-proxied`]: 'true' }), s, false);
    assert.deepEqual(both.providerSpecific, [{ name: N.proxied, value: 'false' }]);
  });

  test('types Cloudflare cannot proxy (TXT ownership records, MX, SRV, NS) are never proxied', () => {
    for (const t of ['TXT', 'MX', 'SRV', 'NS'] as RecordType[]) {
      const a = adjustEndpoint(ep(t, { [N.proxied]: 'true' }), { ...s, proxiedByDefault: true }, false);
      assert.deepEqual(a.providerSpecific, [{ name: N.proxied, value: 'false' }], t);
      assert.equal(a.recordTTL, 300);
    }
  });

  test('tags sorted, comment from the flag and trimmed by plan, custom hostnames only when on, region key defaulted', () => {
    const long = 'x'.repeat(150);
    const a = adjustEndpoint(
      ep('A', { [N.tags]: ' b , a ', [N.customHostname]: 'h.example.com' }),
      { ...s, recordComment: long, regionalServices: true, regionKey: 'eu' },
      false,
    );
    assert.equal(a.providerSpecific.find((p) => p.name === N.tags)?.value, 'a,b');
    assert.equal(a.providerSpecific.find((p) => p.name === N.comment)?.value.length, 100);
    assert.equal(
      a.providerSpecific.find((p) => p.name === N.customHostname),
      undefined,
    );
    assert.equal(a.providerSpecific.find((p) => p.name === N.regionKey)?.value, 'eu');
    const paid = adjustEndpoint(ep('A'), { ...s, recordComment: long }, true);
    assert.equal(paid.providerSpecific.find((p) => p.name === N.comment)?.value.length, 150);
    const ch = adjustEndpoint(ep('A', { [N.customHostname]: 'b.x,a.x' }), { ...s, customHostnames: true }, false);
    assert.equal(ch.providerSpecific.find((p) => p.name === N.customHostname)?.value, 'a.x,b.x');
  });
});

describe('cloudflare batch chunks', () => {
  test('deletes, then puts, then posts, at most the limit per chunk', () => {
    const c = (i: number) => ({ action: 'create', index: String(i) }) as unknown as RecordChange;
    const chunks = chunkChanges(
      [1, 2, 3].map((i) => ({ id: `d${i}`, change: c(i) })),
      [4, 5].map((i) => ({ id: `u${i}`, change: c(i) })),
      [6, 7, 8].map(c),
      3,
    );
    assert.deepEqual(
      chunks.map((k) => [k.deletes.length, k.puts.length, k.posts.length]),
      [
        [3, 0, 0],
        [0, 2, 1],
        [0, 0, 2],
      ],
    );
  });
});

describe('cloudflare flags and credentials', () => {
  const flags = (argv: string[]) => new FlagValues(parseArgs(argv, {}, [...FLAGS, ...CLOUDFLARE_FLAGS, ...ZONE_FILTER_FLAGS]).values);

  test("upstream's defaults; --cloudflare-region-key turns regional services on", () => {
    const d = cloudflareSettingsFromFlags(flags([]));
    assert.equal(d.recordsPerPage, 100);
    assert.equal(d.batchChangeSize, 200);
    assert.equal(d.batchChangeIntervalMs, 1000);
    assert.deepEqual(d.customHostnames, { enabled: false, minTlsVersion: '1.0', certificateAuthority: 'none' });
    assert.equal(d.regionalServices, false);
    assert.equal(cloudflareSettingsFromFlags(flags(['--cloudflare-region-key', 'eu'])).regionalServices, true);
    assert.throws(() => cloudflareSettingsFromFlags(flags(['--cloudflare-dns-records-per-page', '5001'])), /--cloudflare-dns-records-per-page/);
    assert.throws(() => flags(['--cloudflare-custom-hostnames-min-tls-version', '2.0']));
  });

  test('CF_API_TOKEN (with file:), CF_API_TOKEN_FILE, key + email; none gives upstream text; no secret in errors', () => {
    const files: Record<string, string> = { '/t': ' secret-from-file\n' };
    const read = (p: string): string => {
      const v = files[p];
      if (v === undefined) throw Object.assign(new Error(`ENOENT ${p}`), { code: 'ENOENT' });
      return v;
    };
    assert.deepEqual(cloudflareCredentials({ CF_API_TOKEN: ' tok ', CF_API_TOKEN_FILE: '/t' }, read), { apiToken: 'tok' });
    assert.deepEqual(cloudflareCredentials({ CF_API_TOKEN: 'file:/t' }, read), { apiToken: 'secret-from-file' });
    assert.deepEqual(cloudflareCredentials({ CF_API_TOKEN_FILE: '/t', CLOUDFLARE_BASE_URL: 'http://127.0.0.1:1/client/v4' }, read), {
      apiToken: 'secret-from-file',
      baseURL: 'http://127.0.0.1:1/client/v4',
    });
    assert.deepEqual(cloudflareCredentials({ CF_API_KEY: 'k', CF_API_EMAIL: 'e@x' }, read), { apiKey: 'k', apiEmail: 'e@x' });
    assert.throws(
      () => cloudflareCredentials({ CF_API_KEY: 'k' }, read),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.message === 'cloudflare credentials are not configured: set either CF_API_TOKEN or both CF_API_KEY and CF_API_EMAIL environment variables',
    );
    assert.throws(
      () => cloudflareCredentials({ CF_API_TOKEN: 'file:/missing' }, read),
      (err: unknown) => err instanceof ConfigError && /CF_API_TOKEN.*\/missing/.test(err.message) && !err.message.includes('secret'),
    );
  });
});
