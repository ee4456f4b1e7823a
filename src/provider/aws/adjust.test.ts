import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, EndpointInit } from '../../endpoint/endpoint.ts';
import { adjustEndpoint, useAlias } from './adjust.ts';

const ELB = 'k8s-web-1234567890.eu-central-1.elb.amazonaws.com';
const off = { evaluateTargetHealth: false, preferCNAME: false };

function shape(eps: Endpoint[]): { type: string; ttl: number; ps: Record<string, string> }[] {
  return eps.map((e) => ({ type: e.recordType, ttl: e.recordTTL, ps: Object.fromEntries(e.providerSpecific.map((p) => [p.name, p.value])) }));
}

function adjust(init: Partial<EndpointInit>, s = off): ReturnType<typeof shape> {
  return shape(adjustEndpoint(newEndpoint({ dnsName: 'test.example.org', recordType: 'CNAME', targets: ['target.example.org'], ...init }), s));
}

// external-dns's TestAWSProvider_adjustEndpointAndNewAaaaIfNeeded, restated (evaluateTargetHealth off there too).
describe('aws adjustEndpoint, as external-dns adjusts', () => {
  test('A/AAAA: alias=true gets the default TTL and target health; alias=false loses both properties', () => {
    assert.deepEqual(adjust({ recordType: 'A', targets: ['192.0.2.1'] }), [{ type: 'A', ttl: 0, ps: {} }]);
    const alias = [{ name: 'alias', value: 'true' }];
    assert.deepEqual(adjust({ recordType: 'A', targets: ['192.0.2.1'], recordTTL: 600, providerSpecific: alias }), [
      { type: 'A', ttl: 300, ps: { alias: 'true', 'aws/evaluate-target-health': 'false' } },
    ]);
    assert.deepEqual(adjust({ recordType: 'AAAA', targets: ['2001:db8::1'], recordTTL: 600, providerSpecific: alias }), [
      { type: 'AAAA', ttl: 300, ps: { alias: 'true', 'aws/evaluate-target-health': 'false' } },
    ]);
    const invalidHealth = [...alias, { name: 'aws/evaluate-target-health', value: 'invalid' }];
    assert.deepEqual(adjust({ recordType: 'A', targets: ['192.0.2.1'], recordTTL: 600, providerSpecific: invalidHealth }), [
      { type: 'A', ttl: 300, ps: { alias: 'true', 'aws/evaluate-target-health': 'false' } },
    ]);
    const notAlias = [
      { name: 'alias', value: 'false' },
      { name: 'aws/evaluate-target-health', value: 'true' },
    ];
    assert.deepEqual(adjust({ recordType: 'A', targets: ['192.0.2.1'], recordTTL: 600, providerSpecific: notAlias }), [{ type: 'A', ttl: 600, ps: {} }]);
  });

  test('CNAME alias=true: an A and an AAAA alias, TTL 300, target health kept or defaulted', () => {
    assert.deepEqual(adjust({ recordTTL: 600, providerSpecific: [{ name: 'alias', value: 'true' }] }), [
      { type: 'A', ttl: 300, ps: { alias: 'true', 'aws/evaluate-target-health': 'false' } },
      { type: 'AAAA', ttl: 300, ps: { alias: 'true', 'aws/evaluate-target-health': 'false' } },
    ]);
    const withHealth = [
      { name: 'alias', value: 'true' },
      { name: 'aws/evaluate-target-health', value: 'true' },
    ];
    assert.deepEqual(
      adjust({ providerSpecific: withHealth }).map((e) => e.ps['aws/evaluate-target-health']),
      ['true', 'true'],
    );
    // --aws-evaluate-target-health (on by default) is the default; an unset TTL stays unset.
    assert.deepEqual(adjust({ providerSpecific: [{ name: 'alias', value: 'TRUE' }] }, { evaluateTargetHealth: true, preferCNAME: false }), [
      { type: 'A', ttl: 0, ps: { alias: 'true', 'aws/evaluate-target-health': 'true' } },
      { type: 'AAAA', ttl: 0, ps: { alias: 'true', 'aws/evaluate-target-health': 'true' } },
    ]);
  });

  test('CNAME alias=A / alias=AAAA: one alias of that family, read back as alias=true', () => {
    assert.deepEqual(adjust({ providerSpecific: [{ name: 'alias', value: 'A' }] }), [
      { type: 'A', ttl: 0, ps: { alias: 'true', 'aws/evaluate-target-health': 'false' } },
    ]);
    assert.deepEqual(adjust({ recordTTL: 60, providerSpecific: [{ name: 'alias', value: 'AAAA' }] }), [
      { type: 'AAAA', ttl: 300, ps: { alias: 'true', 'aws/evaluate-target-health': 'false' } },
    ]);
  });

  test('CNAME without alias: an alias when the target is an AWS load balancer (not with --aws-prefer-cname), else alias=false', () => {
    assert.deepEqual(adjust({ targets: [ELB] }), [
      { type: 'A', ttl: 0, ps: { alias: 'true', 'aws/evaluate-target-health': 'false' } },
      { type: 'AAAA', ttl: 0, ps: { alias: 'true', 'aws/evaluate-target-health': 'false' } },
    ]);
    assert.deepEqual(adjust({ targets: [ELB], recordTTL: 60 }, { evaluateTargetHealth: false, preferCNAME: true }), [
      { type: 'CNAME', ttl: 60, ps: { alias: 'false' } },
    ]);
    assert.deepEqual(adjust({ recordTTL: 600 }), [{ type: 'CNAME', ttl: 600, ps: { alias: 'false' } }]);
    // An unknown alias value is no alias property: decided by the target, as external-dns does.
    assert.deepEqual(adjust({ providerSpecific: [{ name: 'alias', value: 'invalid' }] }), [{ type: 'CNAME', ttl: 0, ps: { alias: 'false' } }]);
    const explicit = [
      { name: 'alias', value: 'false' },
      { name: 'aws/evaluate-target-health', value: 'true' },
    ];
    assert.deepEqual(adjust({ targets: [ELB], providerSpecific: explicit }), [{ type: 'CNAME', ttl: 0, ps: { alias: 'false' } }]);
    assert.equal(useAlias(newEndpoint({ dnsName: 'x.example.org', recordType: 'A', targets: [ELB] }), false), false);
  });

  test('routing properties are normalised as records() returns them; the input is not changed', () => {
    const input = newEndpoint({
      dnsName: 'x.example.org',
      recordType: 'TXT',
      targets: ['v'],
      setIdentifier: 'one',
      providerSpecific: [
        { name: 'aws/weight', value: '010' },
        { name: 'aws/failover', value: 'secondary' },
        { name: 'aws/multi-value-answer', value: 'false' },
        { name: 'alias', value: 'true' },
      ],
    });
    assert.deepEqual(shape(adjustEndpoint(input, off)), [{ type: 'TXT', ttl: 0, ps: { 'aws/weight': '10', 'aws/failover': 'SECONDARY' } }]);
    assert.equal(input.providerSpecific.length, 4);
    // The AAAA companion keeps the set identifier and routing of its A alias.
    const weighted = adjustEndpoint(
      newEndpoint({ ...input, recordType: 'CNAME', targets: [ELB], providerSpecific: [{ name: 'aws/weight', value: '5' }] }),
      off,
    );
    assert.deepEqual(
      weighted.map((e) => [e.recordType, e.setIdentifier, e.providerSpecific.find((p) => p.name === 'aws/weight')?.value]),
      [
        ['A', 'one', '5'],
        ['AAAA', 'one', '5'],
      ],
    );
  });
});
