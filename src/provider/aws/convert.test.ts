import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import { canonicalHostedZone } from './canonical-zones.ts';
import { decodeRoute53Name, endpointToRecordSet, normaliseProviderSpecific, recordSetToEndpoint } from './convert.ts';

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

  test('alias: CNAME endpoint ↔ A alias record with the canonical or own zone', () => {
    const elb = newEndpoint({
      dnsName: 'shop.example.org',
      recordType: 'CNAME',
      targets: ['lb-1.elb.eu-west-1.amazonaws.com'],
      providerSpecific: [{ name: 'alias', value: 'true' }],
    });
    const rs = endpointToRecordSet(elb, opts);
    assert.equal(rs.Type, 'A');
    assert.deepEqual(rs.AliasTarget, { HostedZoneId: 'Z2IFOLAFXWLO4F', DNSName: 'lb-1.elb.eu-west-1.amazonaws.com.', EvaluateTargetHealth: true });
    assert.equal(rs.TTL, undefined);
    const back = recordSetToEndpoint(rs);
    assert.equal(back?.recordType, 'CNAME');
    assert.deepEqual(back?.providerSpecific, [
      { name: 'alias', value: 'true' },
      { name: 'aws/evaluate-target-health', value: 'true' },
    ]);
    const own = endpointToRecordSet({ ...elb, targets: ['www.example.org'] }, opts);
    assert.equal(own.AliasTarget?.HostedZoneId, 'ZOWN');
    assert.throws(() => endpointToRecordSet({ ...elb, targets: ['elsewhere.net'] }, opts), /no hosted zone known/);
  });

  test('alias=A and alias=AAAA write one alias family; AAAA reads back as alias=AAAA, A as alias=true', () => {
    const base = { dnsName: 'shop.example.org', recordType: 'CNAME' as const, targets: ['lb-1.elb.eu-west-1.amazonaws.com'] };
    const v4 = endpointToRecordSet(newEndpoint({ ...base, providerSpecific: [{ name: 'alias', value: 'A' }] }), opts);
    assert.equal(v4.Type, 'A');
    assert.equal(v4.AliasTarget?.HostedZoneId, 'Z2IFOLAFXWLO4F');
    const v6 = endpointToRecordSet(newEndpoint({ ...base, providerSpecific: [{ name: 'alias', value: 'AAAA' }] }), opts);
    assert.equal(v6.Type, 'AAAA');
    assert.equal(v6.AliasTarget?.DNSName, 'lb-1.elb.eu-west-1.amazonaws.com.');
    assert.equal(v6.TTL, undefined);
    const back = recordSetToEndpoint(v6);
    assert.equal(back?.recordType, 'CNAME');
    assert.deepEqual(back?.providerSpecific, [
      { name: 'alias', value: 'AAAA' },
      { name: 'aws/evaluate-target-health', value: 'true' },
    ]);
    // Desired alias=A is normalised to what records() returns for the A alias it writes.
    const desired = newEndpoint({ ...base, providerSpecific: [{ name: 'alias', value: 'A' }] });
    assert.deepEqual(normaliseProviderSpecific(desired, { evaluateTargetHealth: true }), [
      { name: 'alias', value: 'true' },
      { name: 'aws/evaluate-target-health', value: 'true' },
    ]);
    const desired6 = newEndpoint({ ...base, providerSpecific: [{ name: 'alias', value: 'AAAA' }] });
    assert.deepEqual(normaliseProviderSpecific(desired6, { evaluateTargetHealth: false })[0], { name: 'alias', value: 'AAAA' });
    // A plain AAAA record (no alias target) is still an AAAA endpoint.
    assert.equal(recordSetToEndpoint({ Name: 'v6.example.org.', Type: 'AAAA', TTL: 60, ResourceRecords: [{ Value: '2001:db8::1' }] })?.recordType, 'AAAA');
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

  test('normalisation makes desired properties look like what records() returns', () => {
    const ep = newEndpoint({
      dnsName: 'x.example.org',
      recordType: 'A',
      targets: ['192.0.2.1'],
      providerSpecific: [
        { name: 'aws/weight', value: '010' },
        { name: 'aws/failover', value: 'secondary' },
        { name: 'alias', value: 'false' },
        { name: 'aws/evaluate-target-health', value: 'true' },
      ],
    });
    assert.deepEqual(normaliseProviderSpecific(ep, { evaluateTargetHealth: true }), [
      { name: 'aws/weight', value: '10' },
      { name: 'aws/failover', value: 'SECONDARY' },
    ]);
    const alias = newEndpoint({
      dnsName: 'a.example.org',
      recordType: 'CNAME',
      targets: ['t.example.org'],
      providerSpecific: [{ name: 'alias', value: 'TRUE' }],
    });
    assert.deepEqual(normaliseProviderSpecific(alias, { evaluateTargetHealth: false }), [
      { name: 'alias', value: 'true' },
      { name: 'aws/evaluate-target-health', value: 'false' },
    ]);
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
