import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import { canonicalHostedZone } from './canonical-zones.ts';
import { decodeRoute53Name, endpointToRecordSet, recordSetToEndpoint } from './convert.ts';

const opts = { defaultTTL: 300, aliasZoneOf: (t: string) => canonicalHostedZone(t) ?? (t.endsWith('example.org') ? 'ZOWN' : undefined) };

describe('Route53 record sets and endpoints', () => {
  test('wildcards and other octal escapes in names are decoded', () => {
    assert.equal(decodeRoute53Name('\\052.apps.example.org.'), '*.apps.example.org.');
    assert.equal(recordSetToEndpoint({ Name: '\\052.Example.org.', Type: 'A', TTL: 60, ResourceRecords: [{ Value: '192.0.2.1' }] })?.dnsName, '*.example.org');
  });

  test('a * inside a label (the ownership TXT of a wildcard) is sent as \\052 and read back as *', () => {
    const txt = newEndpoint({ dnsName: 'a-*.apps.example.org', recordType: 'TXT', targets: ['"heritage=external-dns,external-dns/owner=hw"'] });
    assert.equal(endpointToRecordSet(txt, opts).Name, 'a-\\052.apps.example.org.');
    assert.equal(
      endpointToRecordSet(newEndpoint({ dnsName: '*.apps.example.org', recordType: 'A', targets: ['192.0.2.1'] }), opts).Name,
      '\\052.apps.example.org.',
    );
    const back = recordSetToEndpoint({
      Name: 'a-\\052.apps.example.org.',
      Type: 'TXT',
      TTL: 300,
      ResourceRecords: [{ Value: '"heritage=external-dns,external-dns/owner=hw"' }],
    });
    assert.equal(back?.dnsName, 'a-*.apps.example.org');
  });

  test('TXT values are quoted, escaped and split at 255 bytes, and read back joined', () => {
    const value = `say "hi" ${'x'.repeat(300)}`;
    const rs = endpointToRecordSet(newEndpoint({ dnsName: 't.example.org', recordType: 'TXT', targets: [value, '"already quoted"'] }), opts);
    const first = rs.ResourceRecords?.[0]?.Value ?? '';
    assert.match(first, /^"say \\"hi\\" x+" "x+"$/);
    assert.equal(rs.ResourceRecords?.[1]?.Value, '"already quoted"');
    assert.equal(rs.TTL, 300);
    assert.deepEqual(recordSetToEndpoint(rs)?.targets, [value, 'already quoted']);
  });

  test('alias: an A or AAAA endpoint with alias=true ↔ an alias record set with the canonical or own zone', () => {
    const elb = newEndpoint({
      dnsName: 'shop.example.org',
      recordType: 'A',
      targets: ['lb-1.elb.eu-west-1.amazonaws.com'],
      providerSpecific: [{ name: 'alias', value: 'true' }],
    });
    const rs = endpointToRecordSet(elb, opts);
    assert.equal(rs.Type, 'A');
    assert.deepEqual(rs.AliasTarget, { HostedZoneId: 'Z2IFOLAFXWLO4F', DNSName: 'lb-1.elb.eu-west-1.amazonaws.com.', EvaluateTargetHealth: true });
    assert.equal(rs.TTL, undefined);
    // Read back as external-dns reads it: its own type, alias=true, the target-health flag, TTL 300.
    const back = recordSetToEndpoint(rs);
    assert.equal(back?.recordType, 'A');
    assert.deepEqual(back?.targets, ['lb-1.elb.eu-west-1.amazonaws.com']);
    assert.equal(back?.recordTTL, 300);
    assert.deepEqual(back?.providerSpecific, [
      { name: 'alias', value: 'true' },
      { name: 'aws/evaluate-target-health', value: 'true' },
    ]);
    const v6 = endpointToRecordSet(
      {
        ...elb,
        recordType: 'AAAA',
        providerSpecific: [
          { name: 'alias', value: 'true' },
          { name: 'aws/evaluate-target-health', value: 'false' },
        ],
      },
      opts,
    );
    assert.equal(v6.Type, 'AAAA');
    assert.equal(v6.AliasTarget?.EvaluateTargetHealth, false);
    assert.equal(recordSetToEndpoint(v6)?.recordType, 'AAAA');
    const own = endpointToRecordSet({ ...elb, targets: ['www.example.org'] }, opts);
    assert.equal(own.AliasTarget?.HostedZoneId, 'ZOWN');
    assert.throws(() => endpointToRecordSet({ ...elb, targets: ['elsewhere.net'] }, opts), /no hosted zone known/);
  });

  test('EvaluateTargetHealth without the property is --aws-evaluate-target-health; a CNAME is never an alias record set', () => {
    const ep = newEndpoint({
      dnsName: 'shop.example.org',
      recordType: 'A',
      targets: ['lb-1.elb.eu-west-1.amazonaws.com'],
      providerSpecific: [{ name: 'alias', value: 'true' }],
    });
    assert.equal(endpointToRecordSet(ep, { ...opts, evaluateTargetHealth: false }).AliasTarget?.EvaluateTargetHealth, false);
    const cname = newEndpoint({ ...ep, recordType: 'CNAME', recordTTL: 60 });
    const rs = endpointToRecordSet(cname, opts);
    assert.equal(rs.Type, 'CNAME');
    assert.equal(rs.AliasTarget, undefined);
    assert.deepEqual(rs.ResourceRecords, [{ Value: 'lb-1.elb.eu-west-1.amazonaws.com' }]);
    // A plain CNAME reads back with alias=false, as external-dns reads it.
    assert.deepEqual(recordSetToEndpoint({ ...rs })?.providerSpecific, [{ name: 'alias', value: 'false' }]);
    // A plain AAAA record (no alias target) is an AAAA endpoint without alias properties.
    assert.deepEqual(
      recordSetToEndpoint({ Name: 'v6.example.org.', Type: 'AAAA', TTL: 60, ResourceRecords: [{ Value: '2001:db8::1' }] })?.providerSpecific,
      [],
    );
  });

  test('routing policies round-trip through provider-specific properties', () => {
    const ep = newEndpoint({
      dnsName: 'r.example.org',
      recordType: 'A',
      targets: ['192.0.2.1'],
      setIdentifier: 'one',
      providerSpecific: [
        { name: 'aws/weight', value: '20' },
        { name: 'aws/geoproximity-region', value: 'us-west-2' },
        { name: 'aws/geoproximity-bias', value: '-10' },
        { name: 'aws/health-check-id', value: 'hc' },
        { name: 'aws/multi-value-answer', value: 'true' },
      ],
    });
    const rs = endpointToRecordSet(ep, opts);
    assert.equal(rs.SetIdentifier, 'one');
    assert.equal(rs.Weight, 20);
    assert.deepEqual(rs.GeoProximityLocation, { AWSRegion: 'us-west-2', Bias: -10 });
    const back = recordSetToEndpoint(rs);
    assert.deepEqual(new Map(back?.providerSpecific.map((p) => [p.name, p.value])), new Map(ep.providerSpecific.map((p) => [p.name, p.value])));
  });

  test('record types Hostwarden does not model are skipped', () => {
    assert.equal(recordSetToEndpoint({ Name: 'example.org.', Type: 'SOA', TTL: 900, ResourceRecords: [{ Value: 'ns. host. 1 2 3 4 5' }] }), undefined);
  });
});

describe('TXT parsing', () => {
  test('the quick path and the full parser agree', async () => {
    const { parseTxtValue } = await import('./convert.ts');
    const { parseTxtContent } = await import('../presentation.ts');
    for (const v of ['"heritage=external-dns,external-dns/owner=a"', '"a" "b"', '""', '"say \\"hi\\""', '"\\229\\164\\167"', '"a\\\\b"'])
      assert.equal(parseTxtValue(v), parseTxtContent(v), v);
  });
});
