import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TXTNameMapper } from './name-mapper.ts';

// Expected names are copied from external-dns's own registry and mapper tests.
describe('TXTNameMapper.toTXTName', () => {
  const cases: [string, { prefix?: string; suffix?: string; wildcardReplacement?: string }, string, string, string][] = [
    ['no affix, CNAME', {}, 'new-record-1.test-zone.example.org', 'CNAME', 'cname-new-record-1.test-zone.example.org'],
    ['no affix, A', {}, 'www.example.org', 'A', 'a-www.example.org'],
    ['no affix, AAAA', {}, 'www.example.org', 'AAAA', 'aaaa-www.example.org'],
    ['no affix, single label', {}, 'example', 'CNAME', 'cname-example'],
    ['no affix, wildcard kept', {}, '*.example.org', 'A', 'a-*.example.org'],
    ['prefix with dot', { prefix: 'txt.' }, 'new-record-1.test-zone.example.org', 'CNAME', 'txt.cname-new-record-1.test-zone.example.org'],
    ['prefix with dot, single label', { prefix: 'txt.' }, 'example', 'CNAME', 'txt.cname-example'],
    ['prefix is lower-cased', { prefix: 'TxT.' }, 'tar.test-zone.example.org', 'CNAME', 'txt.cname-tar.test-zone.example.org'],
    ['templated prefix', { prefix: 'prefix%{record_type}.' }, 'new-record-1.test-zone.example.org', 'CNAME', 'prefixcname.new-record-1.test-zone.example.org'],
    ['templated prefix with dash', { prefix: '%{record_type}-' }, 'foo.example.com', 'A', 'a-foo.example.com'],
    ['templated suffix', { suffix: '-%{record_type}suffix' }, 'new-record-1.test-zone.example.org', 'CNAME', 'new-record-1-cnamesuffix.test-zone.example.org'],
    ['templated suffix with dash', { suffix: '-%{record_type}' }, 'foo.example.com', 'A', 'foo-a.example.com'],
    ['suffix', { suffix: '-txt' }, 'new-record-1.test-zone.example.org', 'CNAME', 'cname-new-record-1-txt.test-zone.example.org'],
    ['suffix, single label', { suffix: '-txt' }, 'example', 'CNAME', 'cname-example-txt'],
    [
      'suffix and wildcard replacement',
      { suffix: '-txt', wildcardReplacement: 'wildcard' },
      '*.wildcard.test-zone.example.org',
      'CNAME',
      'cname-wildcard-txt.wildcard.test-zone.example.org',
    ],
    ['prefix and wildcard replacement', { prefix: 'txt-', wildcardReplacement: 'wild' }, '*.example.com', 'A', 'txt-a-wild.example.com'],
    ['MX under prefix', { prefix: 'txt.' }, 'mail.test-zone.example.org', 'MX', 'txt.mx-mail.test-zone.example.org'],
  ];
  for (const [what, options, name, type, expected] of cases) {
    test(what, () => assert.equal(new TXTNameMapper(options).toTXTName(name, type), expected));
  }
});

describe('TXTNameMapper.toEndpointName', () => {
  const cases: [string, { prefix?: string; suffix?: string }, string, { dnsName: string; recordType: string | undefined } | undefined][] = [
    ['no affix, new format', {}, 'a-foo.example.com', { dnsName: 'foo.example.com', recordType: 'A' }],
    ['no affix, AAAA', {}, 'aaaa-dualstack.test-zone.example.org', { dnsName: 'dualstack.test-zone.example.org', recordType: 'AAAA' }],
    ['no affix, old format', {}, 'foobar.test-zone.example.org', { dnsName: 'foobar.test-zone.example.org', recordType: undefined }],
    ['no affix, SRV old format', {}, '_sip._udp.sip1.test-zone.example.org', { dnsName: '_sip._udp.sip1.test-zone.example.org', recordType: undefined }],
    ['prefix, new format', { prefix: 'txt.' }, 'txt.mx-mail.test-zone.example.org', { dnsName: 'mail.test-zone.example.org', recordType: 'MX' }],
    [
      'prefix, old format, case-insensitive',
      { prefix: 'txt.' },
      'TxT.tar.test-zone.example.org',
      { dnsName: 'tar.test-zone.example.org', recordType: undefined },
    ],
    [
      'prefix, old wildcard with replacement',
      { prefix: 'txt.' },
      'txt.wc.wildcard.test-zone.example.org',
      { dnsName: 'wc.wildcard.test-zone.example.org', recordType: undefined },
    ],
    ['prefix missing', { prefix: 'txt.' }, 'foobar.test-zone.example.org', undefined],
    ['suffix, new format', { suffix: '-txt' }, 'aaaa-dualstack-txt.test-zone.example.org', { dnsName: 'dualstack.test-zone.example.org', recordType: 'AAAA' }],
    ['suffix, old format', { suffix: '-txt' }, 'bar-txt.test-zone.example.org', { dnsName: 'bar.test-zone.example.org', recordType: undefined }],
    ['suffix, case-insensitive', { suffix: '-TxT' }, 'tar-TxT.test-zone.example.org', { dnsName: 'tar.test-zone.example.org', recordType: undefined }],
    [
      'suffix, SRV old format',
      { suffix: '-txt' },
      '_sip-txt._udp.sip1.test-zone.example.org',
      { dnsName: '_sip._udp.sip1.test-zone.example.org', recordType: undefined },
    ],
    ['suffix missing', { suffix: '-txt' }, 'qux.test-zone.example.org', undefined],
    ['templated prefix', { prefix: 'txt-%{record_type}.' }, 'txt-a.foo.test-zone.example.org', { dnsName: 'foo.test-zone.example.org', recordType: 'A' }],
    [
      'templated prefix, MX',
      { prefix: 'TxT-%{record_type}.' },
      'txt-mx.mail.test-zone.example.org',
      { dnsName: 'mail.test-zone.example.org', recordType: 'MX' },
    ],
    ['templated suffix', { suffix: 'txt%{record_type}' }, 'bartxtcname.test-zone.example.org', { dnsName: 'bar.test-zone.example.org', recordType: 'CNAME' }],
    [
      'templated suffix, old format',
      { suffix: 'txt%{record_type}' },
      'mailtxt.test-zone.example.org',
      { dnsName: 'mail.test-zone.example.org', recordType: undefined },
    ],
    ['suffix with a dot', { suffix: '.txt' }, 'a-foo.txt.example.org', { dnsName: 'foo.example.org', recordType: 'A' }],
  ];
  for (const [what, options, name, expected] of cases) {
    test(what, () => assert.deepEqual(new TXTNameMapper(options).toEndpointName(name), expected));
  }

  test('a leading label that only looks like a type keeps its name (as external-dns)', () => {
    assert.deepEqual(new TXTNameMapper().toEndpointName('a'), { dnsName: 'a', recordType: 'A' });
  });
});

describe('zone-aware splitting', () => {
  test('splits at the zone, not the first dot, when zones are given', () => {
    const mapper = new TXTNameMapper({ suffix: '-txt', zones: ['example.org.'] });
    assert.equal(mapper.toTXTName('www.sub.example.org', 'A'), 'a-www.sub-txt.example.org');
    assert.deepEqual(mapper.toEndpointName('a-www.sub-txt.example.org'), { dnsName: 'www.sub.example.org', recordType: 'A' });
  });

  test('without zones the first dot is used', () => {
    assert.equal(new TXTNameMapper({ suffix: '-txt' }).toTXTName('www.sub.example.org', 'A'), 'a-www-txt.sub.example.org');
  });
});

describe('round trip', () => {
  test('toEndpointName inverts toTXTName for unambiguous affixes', () => {
    const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/);
    const affix = fc.constantFrom<[string, string]>(
      ['', ''],
      ['txt.', ''],
      ['txt-', ''],
      ['%{record_type}.', ''],
      ['x-%{record_type}-', ''],
      ['', '-txt'],
      ['', '.txt'],
      ['', '-%{record_type}'],
    );
    fc.assert(
      fc.property(
        fc.array(label, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('A', 'AAAA', 'CNAME', 'MX', 'SRV', 'NS', 'TXT', 'CAA'),
        affix,
        (labels, type, [prefix, suffix]) => {
          const mapper = new TXTNameMapper({ prefix, suffix });
          const name = labels.join('.');
          assert.deepEqual(mapper.toEndpointName(mapper.toTXTName(name, type)), { dnsName: name, recordType: type });
        },
      ),
      { numRuns: 300 },
    );
  });
});
