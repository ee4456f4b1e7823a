import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalNaptr, formatNaptr, parseNaptr } from './naptr.ts';
import { newEndpoint, sameTargets } from './endpoint.ts';
import { validateEndpoint } from './validate.ts';

const SIP = '100 10 "u" "E2U+sip" "!^.*$!sip:info@example.com!" .';

describe('NAPTR targets', () => {
  test('the upstream form parses and formats to itself', () => {
    for (const t of [SIP, '102 10 "S" "SIP+D2T" "" _sip._tcp.example.org.', '0 0 "" "" "" .']) {
      const n = parseNaptr(t);
      assert.equal(typeof n, 'object', t);
      assert.equal(formatNaptr(n as Exclude<typeof n, string>), t);
    }
  });

  test('bare strings, extra blanks, upper-case replacement and escapes become one canonical spelling', () => {
    assert.equal(canonicalNaptr('  100   010 S SIP+D2U ""  _SIP._udp.Example.ORG. '), '100 10 "S" "SIP+D2U" "" _sip._udp.example.org.');
    // \\ stays an escaped backslash, \" an escaped quote, \065 is "A".
    assert.equal(canonicalNaptr('1 2 "" "" "!^\\\\+?1(.*)$!sip:\\\\1@a\\"b\\065!" .'), '1 2 "" "" "!^\\\\+?1(.*)$!sip:\\\\1@a\\"bA!" .');
  });

  test('errors say what is wrong', () => {
    const cases: [string, RegExp][] = [
      ['10 "U" "SIP+DTU" "" _sip._udp.example.org.', /5 fields, expected 6/],
      ['70000 1 "u" "" "" .', /order "70000"/],
      ['1 x "u" "" "" .', /preference "x"/],
      ['1 1 "u!" "" "" .', /flags "\\"u!\\"" may hold only letters and digits/],
      ['1 1 "u" "" "" _sip._udp.example.org', /must be an absolute name ending in "\."/],
      ['1 1 "u" "" "" "x."', /not a quoted string/],
      ['1 1 "u" "" "abc .', /unterminated/],
      ['1 1 "u" "" "" a..b.', /not a valid domain name/],
    ];
    for (const [t, re] of cases) {
      const n = parseNaptr(t);
      assert.equal(typeof n, 'string', t);
      assert.match(n as string, re, t);
    }
  });

  test('validation keeps the canonical form, names the endpoint and the syntax', () => {
    const ep = validateEndpoint(
      newEndpoint({ dnsName: '_sip._udp.Example.org', targets: ['100 10 u E2U+sip "!^.*$!sip:info@example.com!" .'], recordType: 'NAPTR' }),
    );
    assert.deepEqual(ep.targets, [SIP]);
    assert.throws(
      () => validateEndpoint(newEndpoint({ dnsName: 'example.org', targets: ['100 10 "S" "SIP+D2U" "" _sip._udp.example.org'], recordType: 'NAPTR' })),
      /example\.org NAPTR: target .* is not a NAPTR record: replacement .* must be an absolute name ending in "\." \(use "\." for none\); the syntax is <order> <preference>/,
    );
  });

  test('targets compare equal across spellings providers return', () => {
    assert.ok(sameTargets('NAPTR', [SIP], ['100 10 u E2U+sip "!^.*$!sip:info@example.com!" .']));
    assert.ok(!sameTargets('NAPTR', [SIP], ['100 11 "u" "E2U+sip" "!^.*$!sip:info@example.com!" .']));
  });
});

describe('DNAME targets', () => {
  test('a host name, canonical, exactly one', () => {
    assert.deepEqual(validateEndpoint(newEndpoint({ dnsName: 'old.example.org', targets: ['New.Example.NET.'], recordType: 'DNAME' })).targets, [
      'new.example.net',
    ]);
    assert.throws(
      () => validateEndpoint(newEndpoint({ dnsName: 'old.example.org', targets: ['a.example.net', 'b.example.net'], recordType: 'DNAME' })),
      /a DNAME must have exactly one target, got 2/,
    );
    assert.throws(() => validateEndpoint(newEndpoint({ dnsName: 'old.example.org', targets: ['not a host'], recordType: 'DNAME' })), /not a valid hostname/);
  });

  test('a DNAME into its own subtree is refused (it would rewrite names forever)', () => {
    for (const target of ['old.example.org', 'x.old.example.org']) {
      assert.throws(() => validateEndpoint(newEndpoint({ dnsName: 'old.example.org', targets: [target], recordType: 'DNAME' })), /own name or a name below it/);
    }
    assert.equal(validateEndpoint(newEndpoint({ dnsName: 'old.example.org', targets: ['example.org'], recordType: 'DNAME' })).targets[0], 'example.org');
  });
});
