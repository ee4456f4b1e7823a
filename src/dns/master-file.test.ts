import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { ZoneFileError, parseZone, quoteTxt, serializeZone } from './master-file.ts';
import type { RRSet, ZoneContent } from './zone-content.ts';

const SOA = { mname: 'ns1.example.org', rname: 'hostmaster.example.org', serial: 42, refresh: 3600, retry: 600, expire: 1209600, minimum: 300, ttl: 300 };

function zone(rrsets: RRSet[]): ZoneContent {
  return {
    origin: 'example.org',
    soa: { ...SOA },
    rrsets: [
      { name: 'example.org', type: 'NS', ttl: 300, rdata: ['ns1.example.org'] },
      { name: 'ns1.example.org', type: 'A', ttl: 300, rdata: ['192.0.2.53'] },
      ...rrsets,
    ],
  };
}

const EVERY_TYPE: RRSet[] = [
  { name: 'www.example.org', type: 'A', ttl: 60, rdata: ['192.0.2.1', '192.0.2.2'] },
  { name: 'www.example.org', type: 'AAAA', ttl: 60, rdata: ['2001:db8::1'] },
  { name: 'alias.example.org', type: 'CNAME', ttl: 300, rdata: ['www.example.org'] },
  { name: 'txt.example.org', type: 'TXT', ttl: 300, rdata: ['heritage=external-dns,external-dns/owner=default', 'v=spf1 -all'] },
  { name: '_sip._tcp.example.org', type: 'SRV', ttl: 300, rdata: ['10 5 5060 sip.example.org'] },
  { name: 'example.org', type: 'MX', ttl: 300, rdata: ['10 mail.example.org', '20 mx.example.net'] },
  { name: 'example.org', type: 'CAA', ttl: 300, rdata: ['0 issue letsencrypt.org', '128 iodef mailto:sec@example.org'] },
  { name: '1.2.0.192.example.org', type: 'PTR', ttl: 300, rdata: ['www.example.org'] },
  { name: 'sub.example.org', type: 'NS', ttl: 3600, rdata: ['ns.sub.example.org'] },
  { name: '*.wild.example.org', type: 'A', ttl: 300, rdata: ['192.0.2.9'] },
];

describe('master file round trip', () => {
  for (const set of EVERY_TYPE) {
    test(`${set.type} ${set.name}`, () => {
      const original = zone([set]);
      const parsed = parseZone(serializeZone(original), 'example.org', 'test.zone');
      assert.deepEqual(parsed, parseZone(serializeZone(parsed), 'example.org', 'again.zone'));
      const found = parsed.rrsets.find((s) => s.name === set.name && s.type === set.type);
      assert.deepEqual(found, { ...set, rdata: [...set.rdata].sort() });
      assert.deepEqual(parsed.soa, SOA);
    });
  }

  test('identical content gives identical bytes whatever the input order', () => {
    const a = zone(EVERY_TYPE);
    const b = zone([...EVERY_TYPE].reverse().map((s) => ({ ...s, rdata: [...s.rdata].reverse() })));
    assert.equal(serializeZone(a), serializeZone(b));
  });

  test('absolute names with a trailing dot and IN class on every line', () => {
    const text = serializeZone(zone(EVERY_TYPE));
    for (const line of text.split('\n').filter((l) => l !== '' && !l.startsWith(';'))) {
      assert.match(line, /^\S+\. \d+ IN [A-Z]+ /);
    }
    assert.match(text, /alias\.example\.org\. 300 IN CNAME www\.example\.org\.\n/);
  });
});

describe('TXT encoding', () => {
  test('values longer than 255 bytes are split and joined back', () => {
    const long = 'v=DKIM1; k=rsa; p=' + 'A'.repeat(600);
    const text = serializeZone(zone([{ name: 'dkim.example.org', type: 'TXT', ttl: 300, rdata: [long] }]));
    const line = text.split('\n').find((l) => l.startsWith('dkim.'));
    assert.ok(line !== undefined);
    const strings = [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] ?? '');
    assert.equal(strings.length, 3);
    assert.ok(strings.every((s) => s.length <= 255));
    assert.equal(parseZone(text, 'example.org', 'dkim.zone').rrsets.find((s) => s.type === 'TXT')?.rdata[0], long);
  });

  test('quotes, backslashes, control and non-ASCII characters are escaped and restored', () => {
    const value = 'say "hi" \\ tab\there é ✓ ; (paren)';
    const quoted = quoteTxt(value);
    assert.match(quoted, /^"[\x20-\x7e]*"$/);
    assert.ok(quoted.includes('\\"hi\\"') && quoted.includes('\\\\') && quoted.includes('\\009') && quoted.includes('\\195\\169'));
    const parsed = parseZone(serializeZone(zone([{ name: 't.example.org', type: 'TXT', ttl: 1, rdata: [value] }])), 'example.org', 'esc.zone');
    assert.equal(parsed.rrsets.find((s) => s.type === 'TXT')?.rdata[0], value);
  });

  test('a split multi-byte character survives because strings are joined as bytes', () => {
    const value = `${'x'.repeat(254)}é`;
    const parsed = parseZone(serializeZone(zone([{ name: 't.example.org', type: 'TXT', ttl: 1, rdata: [value] }])), 'example.org', 'utf8.zone');
    assert.equal(parsed.rrsets.find((s) => s.type === 'TXT')?.rdata[0], value);
  });

  test('empty TXT', () => {
    const parsed = parseZone(serializeZone(zone([{ name: 't.example.org', type: 'TXT', ttl: 1, rdata: [''] }])), 'example.org', 'empty.zone');
    assert.deepEqual(parsed.rrsets.find((s) => s.type === 'TXT')?.rdata, ['']);
  });
});

describe('properties', () => {
  const txtOf = (z: ZoneContent): string[] | undefined => z.rrsets.find((r) => r.type === 'TXT')?.rdata;
  test('any TXT value (any code points, any length) survives serialise and parse', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 700 }), { minLength: 1, maxLength: 3 }), (values) => {
        const set: RRSet = { name: 't.example.org', type: 'TXT', ttl: 1, rdata: [...new Set(values)].sort() };
        const text = serializeZone(zone([set]));
        assert.match(text, /^[\x20-\x7e\n]*$/);
        assert.deepEqual(txtOf(parseZone(text, 'example.org', 'p.zone')), set.rdata);
      }),
      { numRuns: 200 },
    );
  });

  test('any CAA value survives serialise and parse', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 100 }), (value) => {
        const set: RRSet = { name: 'example.org', type: 'CAA', ttl: 1, rdata: [`0 issue ${value}`] };
        const parsed = parseZone(serializeZone(zone([set])), 'example.org', 'p.zone');
        assert.deepEqual(parsed.rrsets.find((r) => r.type === 'CAA')?.rdata, set.rdata);
      }),
      { numRuns: 200 },
    );
  });

  test('serialising is independent of set and rdata order', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(EVERY_TYPE), fc.integer({ min: 0, max: 1000 }), (sets, seed) => {
        const shuffled = [...sets].sort((a, b) => ((a.name.length * seed) % 7) - ((b.name.length * seed) % 7));
        assert.equal(serializeZone(zone(shuffled)), serializeZone(zone(sets)));
      }),
      { numRuns: 50 },
    );
  });
});

describe('hand-written files', () => {
  const text = [
    '; a zone as people write it',
    '$ORIGIN example.org.',
    '$TTL 1h',
    '@   IN  SOA ns1 hostmaster (',
    '        2024010101 ; serial',
    '        3h 15m 2w 5m )',
    '        NS  ns1',
    'ns1     A   192.0.2.53',
    'WWW 60  IN A 192.0.2.1',
    '        IN A 192.0.2.2 ; inherits owner and TTL rules',
    '        AAAA 2001:DB8:0:0:0:0:0:1',
    'txt     TXT "part one " "part two" unquoted',
    'esc     TXT "a\\"b\\\\c\\065"',
    'mail.example.org. IN 300 MX 10 mx',
    '$ORIGIN sub.example.org.',
    'host    CNAME www.example.org.',
    '_x._tcp SRV 0 0 443 @',
    'caa.example.org. CAA 0 issue "ca.example.net; account=1"',
  ].join('\n');

  test('directives, inheritance, parentheses, units and escapes', () => {
    const z = parseZone(text, 'example.org.', 'hand.zone');
    assert.deepEqual(z.soa, {
      mname: 'ns1.example.org',
      rname: 'hostmaster.example.org',
      serial: 2024010101,
      refresh: 10800,
      retry: 900,
      expire: 1209600,
      minimum: 300,
      ttl: 3600,
    });
    const get = (name: string, type: string): RRSet | undefined => z.rrsets.find((s) => s.name === name && s.type === type);
    assert.deepEqual(get('www.example.org', 'A'), { name: 'www.example.org', type: 'A', ttl: 60, rdata: ['192.0.2.1', '192.0.2.2'] });
    assert.deepEqual(get('www.example.org', 'AAAA')?.rdata, ['2001:db8::1']);
    assert.equal(get('www.example.org', 'AAAA')?.ttl, 3600);
    assert.deepEqual(get('txt.example.org', 'TXT')?.rdata, ['part one part twounquoted']);
    assert.deepEqual(get('esc.example.org', 'TXT')?.rdata, ['a"b\\cA']);
    assert.deepEqual(get('mail.example.org', 'MX'), { name: 'mail.example.org', type: 'MX', ttl: 300, rdata: ['10 mx.example.org'] });
    assert.deepEqual(get('host.sub.example.org', 'CNAME')?.rdata, ['www.example.org']);
    assert.deepEqual(get('_x._tcp.sub.example.org', 'SRV')?.rdata, ['0 0 443 sub.example.org']);
    assert.deepEqual(get('caa.example.org', 'CAA')?.rdata, ['0 issue ca.example.net; account=1']);
  });

  test('a * inside a label is data: the ownership TXT external-dns writes for a wildcard', () => {
    const z = parseZone(
      '$ORIGIN example.org.\n@ SOA ns1 hostmaster 1 2 3 4 5\n*.apps A 192.0.2.1\na-*.apps TXT "x"\ntxt.a-*.apps.example.org. TXT "y"\n',
      'example.org',
      'w.zone',
    );
    assert.deepEqual(
      z.rrsets.map((r) => `${r.name} ${r.type}`),
      ['*.apps.example.org A', 'a-*.apps.example.org TXT', 'txt.a-*.apps.example.org TXT'],
    );
    assert.deepEqual(parseZone(serializeZone(z), 'example.org', 'again'), z);
  });

  test('serialising a parsed hand-written file is stable', () => {
    const once = serializeZone(parseZone(text, 'example.org', 'hand.zone'));
    assert.equal(serializeZone(parseZone(once, 'example.org', 'hand.zone')), once);
  });
});

describe('errors name the file and line', () => {
  const head = 'example.org. 300 IN SOA ns1.example.org. hostmaster.example.org. 1 2 3 4 5\nexample.org. 300 IN NS ns1.example.org.\n';
  const cases: [string, string, number, RegExp][] = [
    ['bad IPv4', `${head}www 300 IN A 300.1.1.1\n`, 3, /invalid IPv4 address/],
    ['unknown type', `${head}\nwww 300 IN HINFO a b\n`, 4, /unsupported record type HINFO/],
    ['unterminated quote', `${head}t 300 TXT "open\n`, 3, /unterminated quoted string/],
    ['unbalanced parenthesis', `${head}t 300 TXT ( "a"\n"b"\n`, 3, /missing "\)"/],
    ['out of zone owner', `${head}www.example.com. 300 A 192.0.2.1\n`, 3, /outside the zone/],
    ['CNAME and other data', `${head}www 300 A 192.0.2.1\nwww 300 CNAME x.example.org.\n`, 4, /CNAME and other data/],
    ['string over 255 bytes', `${head}t 300 TXT "${'a'.repeat(256)}"\n`, 3, /longer than 255/],
    ['class other than IN', `${head}t 300 CH TXT "a"\n`, 3, /class CH/],
    ['missing TTL', 'www.example.org. A 192.0.2.1\nexample.org. IN SOA ns1.example.org. h.example.org. 1 2 3 4 5\n', 1, /no TTL given/],
    ['no owner to inherit', ' 300 IN A 192.0.2.1\n', 1, /no previous owner/],
    ['include', `${head}$INCLUDE other.zone\n`, 3, /unsupported directive/],
  ];
  for (const [title, body, line, message] of cases) {
    test(title, () => {
      assert.throws(
        () => parseZone(body, 'example.org', '/data/example.org.zone'),
        (err: unknown) => {
          assert.ok(err instanceof ZoneFileError, String(err));
          assert.equal(err.code, 'ZONE_FILE_INVALID');
          assert.equal(err.file, '/data/example.org.zone');
          if (line > 0) {
            assert.equal(err.line, line);
            assert.ok(err.message.startsWith(`/data/example.org.zone:${line}: `), err.message);
          }
          assert.match(err.message, message);
          return true;
        },
      );
    });
  }

  test('a file without SOA', () => {
    assert.throws(() => parseZone('www.example.org. 300 IN A 192.0.2.1\n', 'example.org', 'f.zone'), /f\.zone: no SOA record/);
  });
});

test('named-checkzone loads the serialised zone', (t) => {
  const probe = spawnSync('named-checkzone', ['-v'], { encoding: 'utf8' });
  if (probe.error !== undefined) {
    t.skip('named-checkzone not installed (apt install bind9-utils)');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'hostwarden-checkzone-'));
  try {
    const file = join(dir, 'example.org.zone');
    const extra: RRSet[] = [
      { name: 'mail.example.org', type: 'A', ttl: 300, rdata: ['192.0.2.25'] },
      { name: 'sip.example.org', type: 'A', ttl: 300, rdata: ['192.0.2.26'] },
      { name: 'ns.sub.example.org', type: 'A', ttl: 300, rdata: ['192.0.2.27'] },
      { name: 'long.example.org', type: 'TXT', ttl: 300, rdata: [`${'k'.repeat(400)}"\\é`] },
    ];
    writeFileSync(file, serializeZone(zone([...EVERY_TYPE, ...extra])));
    const run = spawnSync('named-checkzone', ['-k', 'fail', 'example.org', file], { encoding: 'utf8', timeout: 10_000 });
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
    assert.match(run.stdout, /loaded serial 42/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
