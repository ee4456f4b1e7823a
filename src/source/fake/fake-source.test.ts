/**
 * external-dns's source/fake_test.go, restated (its checks are properties of random endpoints, so
 * they stay code), plus exact answers with an injected generator.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isIPv4, isIPv6 } from 'node:net';
import { ConfigError } from '../../errors.ts';
import { validateEndpoint } from '../../endpoint/validate.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { FAKE_RECORD_TYPES, FakeSource, fakeDomains, seededIntN } from './fake-source.ts';

const seeded = (domains: string[] = ['example.com']): FakeSource => new FakeSource({ domains, intn: seededIntN(9673) });
const byType = (eps: Endpoint[]): Map<string, Endpoint> => new Map(eps.map((e) => [e.recordType, e]));

test('TestFakeSourceEndpoints: one endpoint per known record type, each valid', async () => {
  const eps = await seeded().endpoints();
  assert.equal(eps.length, FAKE_RECORD_TYPES.length);
  assert.deepEqual([...byType(eps).keys()].sort(), [...FAKE_RECORD_TYPES].sort());
  for (const ep of eps) {
    validateEndpoint(ep);
    assert.equal(ep.setIdentifier, 'fake');
    assert.equal(ep.labels['resource'], `fake/default/${ep.dnsName}`);
  }
});

test('TestFakeSource_RecordTypes: the shape of each type', async () => {
  const t = byType(await seeded().endpoints());
  const get = (type: string): Endpoint => t.get(type) as Endpoint;
  assert.ok(isIPv4(get('A').targets[0] ?? '') && /^192\.0\.2\.\d+$/.test(get('A').targets[0] ?? ''));
  assert.ok(isIPv6(get('AAAA').targets[0] ?? '') && (get('AAAA').targets[0] ?? '').startsWith('2001:db8::'));
  for (const type of ['CNAME', 'DNAME', 'NS']) assert.match(get(type).targets[0] ?? '', /^[a-z]+\.example\.com$/, type);
  assert.equal(get('NS').dnsName, 'example.com');
  assert.equal(get('MX').dnsName, 'example.com');
  assert.match(get('MX').targets[0] ?? '', /^10 [a-z]{4}\.example\.com$/);
  assert.equal(get('SRV').dnsName, '_sip._udp.example.com');
  assert.match(get('SRV').targets[0] ?? '', /^10 20 5060 [a-z]{4}\.example\.com\.$/);
  assert.equal(get('NAPTR').dnsName, '_sip._udp.example.com');
  assert.match(get('PTR').dnsName, /^\d+\.2\.0\.192\.in-addr\.arpa$/);
  assert.match(get('PTR').targets[0] ?? '', /^[a-z]{4}\.example\.com$/);
  assert.deepEqual(get('TXT').targets, ['"heritage=external-dns,external-dns/owner=fake"']);
});

test('exact endpoints from an injected generator, drawn in external-dns order', async () => {
  const draws = [0, 1, 2, 3, 99];
  let i = 0;
  const source = new FakeSource({ domains: ['example.org'], intn: (n) => (draws[i++ % draws.length] ?? 0) % n });
  const eps = await source.endpoints();
  const a = eps.find((e) => e.recordType === 'A');
  // Name from draws 0,1,2,3 ("abcd"), then the address from 99 → 192.0.2.100.
  assert.equal(a?.dnsName, 'abcd.example.org');
  assert.deepEqual(a?.targets, ['192.0.2.100']);
});

test('TestFakeSource_FQDNTemplate: the template rendered on the placeholder Pod gives the domains', () => {
  assert.deepEqual(fakeDomains(['{{.Name}}.my-company.com']), ['fake.my-company.com']);
  assert.deepEqual(fakeDomains(['my-company.com']), ['my-company.com']);
  assert.deepEqual(fakeDomains([]), ['example.com']);
  assert.deepEqual(fakeDomains(['{{if isSource "fake"}}{{.Namespace}}.example.net{{end}}']), ['default.example.net']);
});

test('TestFakeSource_FQDNTemplate_MultiDomain: every type per domain, A and AAAA one target per domain', async () => {
  const domains = fakeDomains(['one.example.com,two.example.com,three.example.com']);
  const eps = await seeded(domains).endpoints();
  assert.equal(eps.length, 3 * FAKE_RECORD_TYPES.length);
  for (const ep of eps) if (ep.recordType === 'A' || ep.recordType === 'AAAA') assert.equal(ep.targets.length, 3);
  for (const ep of eps)
    if (ep.recordType !== 'PTR')
      assert.ok(
        domains.some((d) => ep.dnsName === d || ep.dnsName.endsWith(`.${d}`)),
        ep.dnsName,
      );
});

test('TestFakeSource_NewFakeSource_TemplateError: a template failing on the placeholder Pod stops start-up naming the flag', () => {
  assert.throws(
    () => fakeDomains(['{{call .Name}}']),
    (err: unknown) => err instanceof ConfigError && err.flag === '--fqdn-template' && err.message.startsWith('rendering fqdn template'),
  );
});

test('TestFakeSource_generateEndpointForType_UnknownType: a type external-dns does not generate is an error', () => {
  assert.throws(() => seeded().endpointFor('CAA', 'example.com'), /unsupported record type CAA/);
});

test('TestFakeSource_AddEventHandler: never fires; the same seed gives the same sequence, each sync new names', async () => {
  const one = seeded();
  const two = seeded();
  let fired = false;
  one.addEventHandler(() => (fired = true))();
  const first = await one.endpoints();
  assert.deepEqual(await two.endpoints(), first);
  const second = await one.endpoints();
  assert.notDeepEqual(
    second.map((e) => e.dnsName),
    first.map((e) => e.dnsName),
  );
  assert.equal(fired, false);
});
