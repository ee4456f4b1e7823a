import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidEndpointError } from '../errors.ts';
import { AllDomainFilters, DomainFilter } from './domain-filter.ts';
import { canonicalTarget, endpointToJSON, newEndpoint, sameTargets } from './endpoint.ts';
import type { RecordType } from './endpoint.ts';
import { endpointFromJSON } from './json.ts';
import { isInZone, isWildcardName, normalizeDnsName, normalizeRecordName } from './name.ts';
import { validateEndpoint } from './validate.ts';

describe('name normalisation', () => {
  test('case, trailing dot and whitespace', () => {
    assert.equal(normalizeDnsName('WWW.Example.ORG.'), 'www.example.org');
    assert.equal(normalizeDnsName(' api.example.org '), 'api.example.org');
  });
  test('IDNA to punycode, including under a wildcard', () => {
    assert.equal(normalizeDnsName('bücher.example'), 'xn--bcher-kva.example');
    assert.equal(normalizeDnsName('*.Bücher.example.'), '*.xn--bcher-kva.example');
    assert.equal(normalizeDnsName('xn--bcher-kva.example'), 'xn--bcher-kva.example');
  });
  test('wildcards only as the first label; underscores allowed for service names', () => {
    assert.equal(normalizeDnsName('*.example.org'), '*.example.org');
    assert.equal(normalizeDnsName('_sip._tcp.example.org'), '_sip._tcp.example.org');
    assert.throws(() => normalizeDnsName('www.*.example.org'), /first label/);
    assert.throws(() => normalizeDnsName('a-*.example.org'), /outside/);
  });
  test('record names carry * as data inside any label (external-dns ownership TXT names)', () => {
    assert.equal(normalizeRecordName('A-*.Apps.example.org.'), 'a-*.apps.example.org');
    assert.equal(normalizeRecordName('txt.a-*.apps.example.org'), 'txt.a-*.apps.example.org');
    assert.equal(normalizeRecordName('a.*.apps.example.org'), 'a.*.apps.example.org');
    assert.equal(normalizeRecordName('*-cname.apps.example.org'), '*-cname.apps.example.org');
    assert.throws(() => normalizeRecordName(`a-*${'x'.repeat(61)}.example.org`), /longer than 63/);
    assert.throws(() => normalizeRecordName('a-*-.example.org'), /starts\/ends/);
    assert.ok(isWildcardName('*.apps.example.org') && isWildcardName('*'));
    assert.ok(!isWildcardName('a-*.apps.example.org') && !isWildcardName('*-a.apps.example.org'));
  });
  test('limits: label 63, name 253', () => {
    const label63 = 'a'.repeat(63);
    assert.equal(normalizeDnsName(`${label63}.example.org`), `${label63}.example.org`);
    assert.throws(() => normalizeDnsName(`${label63}a.example.org`), /longer than 63/);
    const long = Array.from({ length: 5 }, () => label63).join('.');
    assert.throws(() => normalizeDnsName(long), /longer than 253/);
  });
  test('invalid names are InvalidEndpointErrors that quote the input', () => {
    for (const bad of ['', '.', 'a..b', '-a.example.org', 'a-.example.org', 'a b.example.org', 'a/b.example.org']) {
      assert.throws(
        () => normalizeDnsName(bad),
        (err: unknown) => err instanceof InvalidEndpointError && err.message.includes(JSON.stringify(bad)),
        bad,
      );
    }
  });
  test('isInZone', () => {
    assert.ok(isInZone('example.org', 'example.org'));
    assert.ok(isInZone('a.b.example.org', 'example.org'));
    assert.ok(!isInZone('badexample.org', 'example.org'));
  });
});

describe('validation', () => {
  const ep = (recordType: RecordType, targets: string[], dnsName = 'x.example.org') => newEndpoint({ dnsName, recordType, targets });
  test('A targets must be IPv4 and AAAA IPv6', () => {
    assert.deepEqual(validateEndpoint(ep('A', ['192.0.2.1'])).targets, ['192.0.2.1']);
    assert.throws(() => validateEndpoint(ep('A', ['2001:db8::1'])), /not an IPv4 address/);
    assert.throws(() => validateEndpoint(ep('AAAA', ['192.0.2.1'])), /not an IPv6 address/);
    assert.deepEqual(validateEndpoint(ep('AAAA', ['2001:DB8::1'])).targets, ['2001:db8::1']);
  });
  test('CNAME has exactly one hostname target, normalised', () => {
    assert.deepEqual(validateEndpoint(ep('CNAME', ['LB.Example.NET.'])).targets, ['lb.example.net']);
    assert.throws(() => validateEndpoint(ep('CNAME', ['a.example.net', 'b.example.net'])), /exactly one target/);
    assert.throws(() => validateEndpoint(ep('CNAME', ['not a host'])), /not a valid hostname/);
  });
  test('a CNAME that points at its own name is refused (it could only ever be answered with SERVFAIL)', () => {
    assert.throws(() => validateEndpoint(ep('CNAME', ['x.example.org'])), /x\.example\.org CNAME: a CNAME cannot point at its own name/);
    assert.throws(() => validateEndpoint(ep('CNAME', ['X.Example.ORG.'], 'x.example.org.')), /cannot point at its own name/);
    assert.throws(() => validateEndpoint(ep('CNAME', ['bücher.example'], 'xn--bcher-kva.example')), /cannot point at its own name/);
    assert.deepEqual(validateEndpoint(ep('CNAME', ['www.x.example.org'])).targets, ['www.x.example.org']);
    // Other types may name themselves: an NS or PTR on its own name is unusual but valid.
    assert.deepEqual(validateEndpoint(ep('NS', ['x.example.org'])).targets, ['x.example.org']);
  });
  test('TXT takes anything; MX, SRV, CAA have their shapes', () => {
    assert.deepEqual(validateEndpoint(ep('TXT', ['"any thing, really"'])).targets, ['"any thing, really"']);
    assert.deepEqual(validateEndpoint(ep('MX', ['10 Mail.Example.org.'])).targets, ['10 mail.example.org']);
    assert.throws(() => validateEndpoint(ep('MX', ['mail.example.org'])), /<preference> <host>/);
    assert.deepEqual(validateEndpoint(ep('SRV', ['0 5 5060 sip.example.org'])).targets, ['0 5 5060 sip.example.org']);
    assert.throws(() => validateEndpoint(ep('SRV', ['0 5 99999 sip.example.org'])), /<priority> <weight> <port> <host>/);
    assert.deepEqual(validateEndpoint(ep('CAA', ['0 issue "letsencrypt.org"'])).targets, ['0 issue "letsencrypt.org"']);
    assert.deepEqual(validateEndpoint(ep('NS', ['NS1.example.org'])).targets, ['ns1.example.org']);
    assert.deepEqual(validateEndpoint(ep('PTR', ['host.example.org.'])).targets, ['host.example.org']);
  });
  test('errors name the endpoint; empty targets and bad TTLs are rejected; duplicates collapse', () => {
    assert.throws(() => validateEndpoint(ep('A', [])), /x\.example\.org A: no targets/);
    assert.throws(() => validateEndpoint(newEndpoint({ dnsName: 'x.example.org', recordType: 'A', targets: ['192.0.2.1'], recordTTL: -1 })), /TTL/);
    assert.throws(() => validateEndpoint(ep('A', ['192.0.2.1'], 'bad..name')), /bad\.\.name A: invalid DNS name/);
    assert.deepEqual(validateEndpoint(ep('A', ['192.0.2.1', '192.0.2.1'])).targets, ['192.0.2.1']);
  });
});

describe('target comparison', () => {
  test('order, hostname case, trailing dots and IPv6 spelling do not matter', () => {
    assert.ok(sameTargets('A', ['192.0.2.1', '192.0.2.2'], ['192.0.2.2', '192.0.2.1']));
    assert.ok(sameTargets('CNAME', ['LB.example.net.'], ['lb.example.net']));
    assert.ok(sameTargets('AAAA', ['2001:0db8:0:0:0:0:0:1'], ['2001:db8::1']));
    assert.ok(!sameTargets('A', ['192.0.2.1'], ['192.0.2.1', '192.0.2.2']));
  });
  test('TXT compares text exactly, with or without presentation quotes', () => {
    assert.ok(sameTargets('TXT', ['"v=spf1 -all"'], ['v=spf1 -all']));
    assert.ok(!sameTargets('TXT', ['Hello'], ['hello']));
    assert.equal(canonicalTarget('TXT', '"'), '"');
  });
});

describe('JSON shape', () => {
  test('round trip in the external-dns shape, empty fields omitted', () => {
    const json = {
      dnsName: 'w.example.org',
      targets: ['192.0.2.1'],
      recordType: 'A',
      setIdentifier: 'eu',
      recordTTL: 60,
      labels: { owner: 'o' },
      providerSpecific: [{ name: 'aws/weight', value: '10' }],
    };
    assert.deepEqual(endpointToJSON(endpointFromJSON(json, 'x')), json);
    assert.deepEqual(endpointToJSON(newEndpoint({ dnsName: 'w.example.org', targets: ['1.2.3.4'], recordType: 'A' })), {
      dnsName: 'w.example.org',
      targets: ['1.2.3.4'],
      recordType: 'A',
    });
  });
  test('bad elements are reported with their position', () => {
    assert.throws(() => endpointFromJSON({ dnsName: 'w', recordType: 'BOGUS', targets: [] }, 'file.json[3]'), /file\.json\[3\] \(w\): recordType "BOGUS"/);
    assert.throws(() => endpointFromJSON({ recordType: 'A' }, 'f[0]'), /f\[0\]: dnsName/);
    assert.throws(() => endpointFromJSON({ dnsName: 'w', recordType: 'A', targets: 'x' }, 'f[1]'), /targets must be an array/);
  });
});

describe('domain filters (external-dns semantics)', () => {
  test('a filter matches its apex and names below; a leading dot only names below', () => {
    const f = new DomainFilter({ include: ['example.org'] });
    assert.ok(f.match('example.org'));
    assert.ok(f.match('www.example.org.'));
    assert.ok(!f.match('badexample.org'));
    const sub = new DomainFilter({ include: ['.example.org'] });
    assert.ok(sub.match('www.example.org'));
    assert.ok(!sub.match('example.org'));
  });
  test('exclusions win; an empty filter matches everything', () => {
    const f = new DomainFilter({ include: ['example.org'], exclude: ['internal.example.org'] });
    assert.ok(f.match('www.example.org'));
    assert.ok(!f.match('db.internal.example.org'));
    assert.ok(new DomainFilter().match('anything.test'));
    assert.match(f.explainMismatch('db.internal.example.org') ?? '', /--exclude-domains/);
    assert.match(f.explainMismatch('www.example.com') ?? '', /outside the domain filter/);
  });
  test('regex filters replace the list filters', () => {
    const f = new DomainFilter({ include: ['example.com'], regexInclude: /\.example\.org$/, regexExclude: /^db\./ });
    assert.ok(f.match('www.example.org'));
    assert.ok(!f.match('www.example.com'));
    assert.ok(!f.match('db.example.org'));
  });
  test('IDN filters are compared in punycode', () => {
    assert.ok(new DomainFilter({ include: ['Bücher.example'] }).match('www.xn--bcher-kva.example'));
  });
  test('AllDomainFilters needs every filter to match', () => {
    const all = new AllDomainFilters([new DomainFilter({ include: ['example.org'] }), new DomainFilter({ include: ['a.example.org'] })]);
    assert.ok(all.match('x.a.example.org'));
    assert.ok(!all.match('x.b.example.org'));
    assert.ok(all.isConfigured());
    assert.ok(!new AllDomainFilters([new DomainFilter()]).isConfigured());
  });
});
