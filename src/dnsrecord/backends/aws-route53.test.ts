import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { toRoute53RecordSet } from './aws-route53.ts';

describe('toRoute53RecordSet', () => {
  test('TXT values are quoted once and split at 255 bytes', () => {
    const rs = toRoute53RecordSet({ name: '_acme.example.org', type: 'TXT', ttl: 60, values: ['a"b', 'x'.repeat(300)] });
    assert.deepEqual(
      rs.ResourceRecords?.map((r) => r.Value),
      ['"a\\"b"', `"${'x'.repeat(255)}" "${'x'.repeat(45)}"`],
    );
    assert.equal(rs.Name, '_acme.example.org.');
    assert.equal(rs.TTL, 60);
  });

  test('a CNAME to a load balancer becomes an alias A record; other CNAMEs stay', () => {
    const alias = toRoute53RecordSet({ name: 'api.example.org', type: 'CNAME', ttl: 120, values: ['a-1.elb.eu-central-1.amazonaws.com'] });
    assert.equal(alias.Type, 'A');
    assert.deepEqual(alias.AliasTarget, { HostedZoneId: 'Z3F0SRJ5LGBH90', DNSName: 'a-1.elb.eu-central-1.amazonaws.com.', EvaluateTargetHealth: true });
    assert.equal(alias.TTL, undefined);
    const plain = toRoute53RecordSet({ name: 'www.example.org', type: 'CNAME', ttl: 120, values: ['api.example.org'] });
    assert.equal(plain.Type, 'CNAME');
    assert.deepEqual(plain.ResourceRecords, [{ Value: 'api.example.org' }]);
  });
});
