import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import type { EndpointInit } from '../../endpoint/endpoint.ts';
import { fromPresentation as fromPdnsContent, parseTxtContent, toPresentation as toPdnsContent, zoneOf } from '../presentation.ts';
import { adjustForPdns, pdnsType, planPatches, rrsetsToEndpoints } from './convert.ts';

const ep = (init: Partial<EndpointInit> & Pick<EndpointInit, 'dnsName'>): ReturnType<typeof newEndpoint> =>
  newEndpoint({ recordType: 'A', targets: ['192.0.2.1'], ...init });

describe('TXT content', () => {
  test('values are quoted, escaped and split every 255 bytes; parsing joins them back', () => {
    const long = 'a'.repeat(300);
    assert.equal(toPdnsContent('TXT', long), `"${'a'.repeat(255)}" "${'a'.repeat(45)}"`);
    assert.equal(toPdnsContent('TXT', '"heritage=external-dns"'), '"heritage=external-dns"');
    assert.equal(toPdnsContent('TXT', 'say "hi" \\'), '"say \\"hi\\" \\\\"');
    for (const value of [long, 'say "hi" \\', 'héllo wörld', '', 'x'.repeat(255)]) {
      assert.equal(parseTxtContent(toPdnsContent('TXT', value)), value);
    }
  });

  test('parses what PowerDNS may return: unquoted words, decimal escapes', () => {
    assert.equal(parseTxtContent('"a" "b"'), 'ab');
    assert.equal(parseTxtContent('"caf\\195\\169"'), 'café');
    assert.equal(parseTxtContent('plain'), 'plain');
  });
});

describe('hostname content', () => {
  test('CNAME, MX and SRV targets become absolute and come back relative', () => {
    assert.equal(toPdnsContent('CNAME', 'WWW.Example.org'), 'www.example.org.');
    assert.equal(toPdnsContent('MX', '10 mail.example.org'), '10 mail.example.org.');
    assert.equal(toPdnsContent('SRV', '0 5 443 svc.example.org.'), '0 5 443 svc.example.org.');
    assert.equal(fromPdnsContent('CNAME', 'www.example.org.'), 'www.example.org');
    assert.equal(fromPdnsContent('MX', '10 mail.example.org.'), '10 mail.example.org');
    assert.equal(toPdnsContent('A', ' 192.0.2.1 '), '192.0.2.1');
  });

  test('rrsets become endpoints; SOA and disabled records are left out', () => {
    const eps = rrsetsToEndpoints([
      { name: 'example.org.', type: 'SOA', ttl: 3600, records: [{ content: 'ns1. h. 1 2 3 4 5' }] },
      { name: 'WWW.example.org.', type: 'A', ttl: 60, records: [{ content: '192.0.2.1' }, { content: '192.0.2.2', disabled: true }] },
      { name: 'off.example.org.', type: 'A', ttl: 60, records: [{ content: '192.0.2.3', disabled: true }] },
    ]);
    assert.deepEqual(eps, [ep({ dnsName: 'www.example.org', targets: ['192.0.2.1'], recordTTL: 60 })]);
  });

  test('a name an endpoint cannot hold is skipped, not fatal', () => {
    const skipped: string[] = [];
    const eps = rrsetsToEndpoints(
      [
        { name: '0/26.2.0.192.in-addr.arpa.', type: 'NS', ttl: 60, records: [{ content: 'ns.example.org.' }] },
        { name: '_dmarc.example.org.', type: 'TXT', ttl: 60, records: [{ content: '"v=DMARC1"' }] },
      ],
      skipped,
    );
    assert.deepEqual(skipped, ['0/26.2.0.192.in-addr.arpa. NS']);
    assert.deepEqual(
      eps.map((e) => [e.dnsName, e.targets[0]]),
      [['_dmarc.example.org', 'v=DMARC1']],
    );
  });
});

describe('planPatches', () => {
  const zones = ['example.org', 'sub.example.org', 'other.org'];

  test('the most specific zone wins', () => {
    assert.equal(zoneOf('a.sub.example.org', zones), 'sub.example.org');
    assert.equal(zoneOf('example.org', zones), 'example.org');
    assert.equal(zoneOf('example.net', zones), undefined);
  });

  test('one patch per zone; same name and type merged; deletes of replaced rrsets dropped; orphans reported', () => {
    const { patches, orphans } = planPatches(
      {
        create: [
          ep({ dnsName: 'www.example.org', targets: ['192.0.2.1'] }),
          ep({ dnsName: 'www.example.org', targets: ['192.0.2.2', '192.0.2.1'], setIdentifier: 'b' }),
        ],
        updateNew: [ep({ dnsName: 'x.sub.example.org', recordType: 'CNAME', targets: ['www.example.org'], recordTTL: 30 })],
        delete: [ep({ dnsName: 'www.example.org' }), ep({ dnsName: 'old.other.org', recordType: 'TXT', targets: ['"v"'] }), ep({ dnsName: 'nowhere.net' })],
      },
      zones,
      300,
    );
    assert.deepEqual(
      orphans.map((o) => o.dnsName),
      ['nowhere.net'],
    );
    const byZone = Object.fromEntries(patches.map((p) => [p.zone, p.rrsets]));
    assert.deepEqual(byZone['example.org'], [
      {
        name: 'www.example.org.',
        type: 'A',
        ttl: 300,
        changetype: 'REPLACE',
        records: [
          { content: '192.0.2.1', disabled: false },
          { content: '192.0.2.2', disabled: false },
        ],
      },
    ]);
    assert.deepEqual(byZone['sub.example.org'], [
      { name: 'x.sub.example.org.', type: 'CNAME', ttl: 30, changetype: 'REPLACE', records: [{ content: 'www.example.org.', disabled: false }] },
    ]);
    assert.deepEqual(byZone['other.org'], [{ name: 'old.other.org.', type: 'TXT', changetype: 'DELETE', records: [] }]);
  });

  test('an endpoint without targets is refused before anything is sent', () => {
    assert.throws(() => planPatches({ create: [ep({ dnsName: 'e.example.org', targets: [] })], updateNew: [], delete: [] }, zones, 300), /no targets/);
  });
});

describe('ALIAS records', () => {
  const zones = ['example.test'];
  const alias = [{ name: 'alias', value: 'true' }];

  test('a CNAME with alias=true or at the apex is written as ALIAS; an ALIAS reads back as a CNAME with alias=true', () => {
    assert.equal(
      pdnsType(ep({ dnsName: 'a.example.test', recordType: 'CNAME', targets: ['lb.example.net'], providerSpecific: alias }), 'example.test'),
      'ALIAS',
    );
    assert.equal(pdnsType(ep({ dnsName: 'example.test', recordType: 'CNAME', targets: ['lb.example.net'] }), 'example.test'), 'ALIAS');
    assert.equal(pdnsType(ep({ dnsName: 'a.example.test', recordType: 'CNAME', targets: ['lb.example.net'] }), 'example.test'), 'CNAME');
    assert.equal(pdnsType(ep({ dnsName: 'a.example.test', providerSpecific: alias }), 'example.test'), 'A');
    const [back] = rrsetsToEndpoints([{ name: 'a.example.test.', type: 'ALIAS', ttl: 60, records: [{ content: 'lb.example.net.' }] }]);
    assert.deepEqual(
      back,
      newEndpoint({ dnsName: 'a.example.test', recordType: 'CNAME', targets: ['lb.example.net'], recordTTL: 60, providerSpecific: alias }),
    );
  });

  test('adjusted endpoints look like what records() returns', () => {
    const cname = ep({ dnsName: 'a.example.test', recordType: 'CNAME', targets: ['lb.example.net'] });
    assert.deepEqual(adjustForPdns({ ...cname, providerSpecific: [{ name: 'aws/weight', value: '1' }, ...alias] }, zones).providerSpecific, alias);
    assert.deepEqual(adjustForPdns({ ...cname, providerSpecific: [{ name: 'alias', value: 'false' }] }, zones).providerSpecific, []);
    assert.deepEqual(adjustForPdns({ ...cname, dnsName: 'example.test' }, zones).providerSpecific, alias);
    assert.equal(adjustForPdns(cname, zones), cname, 'unchanged endpoints are not copied');
  });

  test('switching the alias property deletes the old rrset type and replaces the new one in one PATCH', () => {
    const old = ep({ dnsName: 'a.example.test', recordType: 'CNAME', targets: ['lb.example.net'], providerSpecific: alias });
    const plain = ep({ dnsName: 'a.example.test', recordType: 'CNAME', targets: ['lb.example.net'] });
    const { patches } = planPatches({ create: [], updateOld: [old], updateNew: [plain], delete: [] }, zones, 300);
    assert.deepEqual(
      patches[0]?.rrsets.map((r) => `${r.changetype} ${r.type}`),
      ['DELETE ALIAS', 'REPLACE CNAME'],
    );
    // Same type: REPLACE alone, as before.
    const same = planPatches({ create: [], updateOld: [plain], updateNew: [{ ...plain, targets: ['other.example.net'] }], delete: [] }, zones, 300);
    assert.deepEqual(
      same.patches[0]?.rrsets.map((r) => `${r.changetype} ${r.type}`),
      ['REPLACE CNAME'],
    );
    const removed = planPatches({ create: [], updateNew: [], delete: [old] }, zones, 300);
    assert.deepEqual(
      removed.patches[0]?.rrsets.map((r) => `${r.changetype} ${r.type}`),
      ['DELETE ALIAS'],
    );
  });
});
