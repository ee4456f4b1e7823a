import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DomainFilter } from '../../endpoint/domain-filter.ts';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import { InvalidEndpointError } from '../../errors.ts';
import { changesFromWire, changesToWire, domainFilterFromJSON, domainFilterToJSON, endpointsFromWire, isWebhookMediaType } from './protocol.ts';

describe('media type', () => {
  test('version 1 of the webhook media type, whatever the spacing and case', () => {
    assert.ok(isWebhookMediaType('application/external.dns.webhook+json;version=1'));
    assert.ok(isWebhookMediaType('Application/External.DNS.Webhook+JSON; version=1; charset=utf-8'));
    assert.ok(!isWebhookMediaType('application/external.dns.webhook+json;version=2'));
    assert.ok(!isWebhookMediaType('application/json'));
    assert.ok(!isWebhookMediaType(null));
  });
});

describe('domain filter JSON', () => {
  test('lists are written sorted, regex filters as their sources, an empty filter as {}', () => {
    assert.deepEqual(domainFilterToJSON(new DomainFilter()), {});
    assert.deepEqual(domainFilterToJSON(new DomainFilter({ include: ['b.org', 'a.org'], exclude: ['x.a.org'] })), {
      include: ['a.org', 'b.org'],
      exclude: ['x.a.org'],
    });
    assert.deepEqual(domainFilterToJSON(new DomainFilter({ include: ['a.org'], regexInclude: /\.org$/ })), { regexInclude: '\\.org$' });
  });

  test('reading is the inverse, and tolerates null, capitalised keys and the old "filters" key', () => {
    const f = domainFilterFromJSON(domainFilterToJSON(new DomainFilter({ include: ['a.org'], exclude: ['x.a.org'] })));
    assert.deepEqual([f.include, f.exclude], [['a.org'], ['x.a.org']]);
    assert.equal(domainFilterFromJSON(null).isConfigured(), false);
    assert.deepEqual(domainFilterFromJSON({ Include: ['a.org'], Exclude: null }).include, ['a.org']);
    assert.deepEqual(domainFilterFromJSON({ filters: ['a.org'] }).include, ['a.org']);
    assert.throws(() => domainFilterFromJSON({ include: 'a.org' }), InvalidEndpointError);
    assert.throws(() => domainFilterFromJSON([]), InvalidEndpointError);
  });
});

describe('changes and endpoints', () => {
  const a = newEndpoint({ dnsName: 'www.example.org', targets: ['192.0.2.1'], recordType: 'A', recordTTL: 60 });

  test('changes round-trip; any key case; missing and null lists are empty', () => {
    const changes = { create: [a], updateOld: [a], updateNew: [a], delete: [a] };
    assert.deepEqual(changesFromWire(JSON.parse(JSON.stringify(changesToWire(changes)))), changes);
    const wire = { Create: [{ dnsName: 'www.example.org', targets: ['192.0.2.1'], recordType: 'A', recordTTL: 60 }], UpdateOld: null, DELETE: [] };
    assert.deepEqual(changesFromWire(wire), { create: [a], updateOld: [], updateNew: [], delete: [] });
  });

  test('unknown record types are refused in changes, skipped in listings', () => {
    const sshfp = { dnsName: 'n.example.org', targets: ['1 1 abcd'], recordType: 'SSHFP' };
    assert.throws(() => changesFromWire({ create: [sshfp] }), /unsupported record type in n\.example\.org SSHFP/);
    assert.deepEqual(endpointsFromWire([sshfp, { DNSName: 'www.example.org', Targets: ['192.0.2.1'], RecordType: 'A', RecordTTL: 60 }], 'records'), {
      endpoints: [a],
      skipped: ['n.example.org SSHFP'],
    });
  });

  test('NAPTR and DNAME pass through as external-dns sends them', () => {
    const naptr = newEndpoint({ dnsName: '_sip._udp.example.org', targets: ['100 10 "u" "E2U+sip" "!^.*$!sip:info@example.org!" .'], recordType: 'NAPTR' });
    const dname = newEndpoint({ dnsName: 'old.example.org', targets: ['new.example.net'], recordType: 'DNAME' });
    const changes = { create: [naptr, dname], updateOld: [], updateNew: [], delete: [] };
    assert.deepEqual(changesFromWire(JSON.parse(JSON.stringify(changesToWire(changes)))), changes);
    assert.deepEqual(endpointsFromWire(JSON.parse(JSON.stringify([naptr, dname])), 'records'), { endpoints: [naptr, dname], skipped: [] });
  });
});
