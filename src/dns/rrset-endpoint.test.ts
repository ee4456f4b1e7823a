import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { newEndpoint, sameTargets } from '../endpoint/endpoint.ts';
import type { RecordType } from '../endpoint/endpoint.ts';
import { DEFAULT_TTL, endpointToRRSet, rrsetToEndpoint } from './rrset-endpoint.ts';

describe('endpointToRRSet', () => {
  test('strips one pair of quotes from TXT targets', () => {
    const set = endpointToRRSet(
      newEndpoint({ dnsName: 'a-www.example.org', recordType: 'TXT', targets: ['"heritage=external-dns,external-dns/owner=x"', '""quoted""'] }),
    );
    assert.deepEqual(set.rdata, ['"quoted"', 'heritage=external-dns,external-dns/owner=x']);
  });

  test('hostnames lower case without trailing dot, IPv6 canonical', () => {
    const cases: [RecordType, string, string][] = [
      ['CNAME', 'LB.Example.NET.', 'lb.example.net'],
      ['NS', 'NS1.example.org.', 'ns1.example.org'],
      ['PTR', 'Host.example.org', 'host.example.org'],
      ['MX', '010 Mail.Example.org.', '10 mail.example.org'],
      ['SRV', '1 2 443 Svc.Example.org.', '1 2 443 svc.example.org'],
      ['AAAA', '2001:DB8:0::1', '2001:db8::1'],
      ['CAA', '0 issue "letsencrypt.org"', '0 issue letsencrypt.org'],
      ['A', '192.0.2.1', '192.0.2.1'],
    ];
    for (const [recordType, target, want] of cases) {
      assert.deepEqual(endpointToRRSet(newEndpoint({ dnsName: 'X.Example.org.', recordType, targets: [target] })).rdata, [want], recordType);
    }
  });

  test('recordTTL 0 takes the default TTL, others are kept', () => {
    assert.equal(endpointToRRSet(newEndpoint({ dnsName: 'a.example.org', recordType: 'A', targets: ['192.0.2.1'] })).ttl, DEFAULT_TTL);
    assert.equal(endpointToRRSet(newEndpoint({ dnsName: 'a.example.org', recordType: 'A', targets: ['192.0.2.1'] }), 60).ttl, 60);
    assert.equal(endpointToRRSet(newEndpoint({ dnsName: 'a.example.org', recordType: 'A', targets: ['192.0.2.1'], recordTTL: 30 }), 60).ttl, 30);
  });

  test('duplicate targets collapse and the name is normalised', () => {
    const set = endpointToRRSet(newEndpoint({ dnsName: 'WWW.example.org.', recordType: 'A', targets: ['192.0.2.2', '192.0.2.1', '192.0.2.2'] }));
    assert.deepEqual(set, { name: 'www.example.org', type: 'A', ttl: 300, rdata: ['192.0.2.1', '192.0.2.2'] });
  });
});

describe('rrsetToEndpoint', () => {
  test('gives bare TXT text and the stored TTL', () => {
    const ep = rrsetToEndpoint({ name: 'a-www.example.org', type: 'TXT', ttl: 300, rdata: ['heritage=external-dns'] });
    assert.deepEqual(ep.targets, ['heritage=external-dns']);
    assert.equal(ep.recordTTL, 300);
    assert.equal(ep.setIdentifier, '');
  });

  test('round trip compares equal to the desired endpoint', () => {
    const desired = newEndpoint({ dnsName: 'www.example.org', recordType: 'TXT', targets: ['"owner=a"', '"v=2"'] });
    const back = rrsetToEndpoint(endpointToRRSet(desired));
    assert.equal(back.dnsName, desired.dnsName);
    assert.ok(sameTargets('TXT', back.targets, desired.targets));
  });
});
