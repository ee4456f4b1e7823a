import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { gardenerAliasZone } from './aws-alias-zones.ts';
import { readAwsAuth } from './aws-credentials.ts';
import { aliasRecordTypes, toRoute53RecordSets } from './aws-route53.ts';

describe('toRoute53RecordSets', () => {
  test('TXT values are quoted once and split at 255 bytes', () => {
    const [rs] = toRoute53RecordSets({ name: '_acme.example.org', type: 'TXT', ttl: 60, values: ['a"b', 'x'.repeat(300)] });
    assert.deepEqual(
      rs?.ResourceRecords?.map((r) => r.Value),
      ['"a\\"b"', `"${'x'.repeat(255)}" "${'x'.repeat(45)}"`],
    );
    assert.equal(rs?.Name, '_acme.example.org.');
    assert.equal(rs?.TTL, 60);
  });

  test('a CNAME to a load balancer becomes alias records by IP stack; other CNAMEs stay', () => {
    const lb = 'a-1.elb.eu-central-1.amazonaws.com';
    const alias = toRoute53RecordSets({ name: 'api.example.org', type: 'CNAME', ttl: 120, values: [lb] });
    assert.deepEqual(alias, [
      { Name: 'api.example.org.', Type: 'A', AliasTarget: { HostedZoneId: 'Z3F0SRJ5LGBH90', DNSName: lb, EvaluateTargetHealth: true } },
    ]);
    const dual = toRoute53RecordSets({ name: 'api.example.org', type: 'CNAME', ttl: 120, values: [lb], ipStack: 'dual-stack' });
    assert.deepEqual(
      dual.map((r) => r.Type),
      ['A', 'AAAA'],
    );
    const v6 = toRoute53RecordSets({ name: 'api.example.org', type: 'CNAME', ttl: 120, values: [lb], ipStack: 'ipv6' });
    assert.deepEqual(
      v6.map((r) => r.Type),
      ['AAAA'],
    );
    const [plain] = toRoute53RecordSets({ name: 'www.example.org', type: 'CNAME', ttl: 120, values: ['api.example.org'], ipStack: 'dual-stack' });
    assert.equal(plain?.Type, 'CNAME');
    assert.deepEqual(plain?.ResourceRecords, [{ Value: 'api.example.org' }]);
  });

  test('an A record ignores the IP stack', () => {
    const sets = toRoute53RecordSets({ name: 'a.example.org', type: 'A', ttl: 120, values: ['192.0.2.1'], ipStack: 'dual-stack' });
    assert.deepEqual(
      sets.map((r) => r.Type),
      ['A'],
    );
  });
});

describe("provider-aws's alias zones", () => {
  const cases: [string, string | undefined][] = [
    ['x.eu-west-1.elb.amazonaws.com', 'Z32O12XQLNTSW2'],
    ['x.elb.eu-west-1.amazonaws.com', 'Z2IFOLAFXWLO4F'],
    ['d111111abcdef8.cloudfront.net', 'Z2FDTNDATAQYW2'],
    ['a1234.awsglobalaccelerator.com', 'Z2BJ6XQ5FK7U4H'],
    ['vpce-1.eu-central-1.vpce.amazonaws.com', 'Z273ZU8SZ5RJPC'],
    ['abc.execute-api.eu-central-1.amazonaws.com', 'Z1U9ULNL0V5AJ3'],
    ['x.elb.cn-north-1.amazonaws.com.cn', 'Z3QFB96KMJ7ED6'],
    ['x.us-gov-west-1.elb.amazonaws.com', undefined],
    ['cloudfront.net', undefined],
    ['www.example.org', undefined],
  ];
  for (const [host, zone] of cases) test(host, () => assert.equal(gardenerAliasZone(host), zone));
  test('alias types', () => assert.deepEqual(aliasRecordTypes(undefined), ['A']));
});

describe('readAwsAuth (provider-aws ReadCredentialsSecret)', () => {
  const read = (secret: Record<string, string>): ReturnType<typeof readAwsAuth> => readAwsAuth({ secret, secretName: 'ns/s' });
  test('keys, either naming; roleARN beside keys is ignored as provider-aws ignores it', () => {
    assert.deepEqual(read({ accessKeyID: 'a', secretAccessKey: 'b', roleARN: 'arn:aws:iam::111122223333:role/x' }), {
      kind: 'keys',
      accessKeyId: 'a',
      secretAccessKey: 'b',
    });
    assert.deepEqual(read({ AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' }), { kind: 'keys', accessKeyId: 'a', secretAccessKey: 'b' });
  });
  test('AWS_ROLE_ARN beside keys is assumed with them (Hostwarden)', () => {
    assert.deepEqual(read({ accessKeyID: 'a', secretAccessKey: 'b', AWS_ROLE_ARN: 'arn:aws:iam::111122223333:role/x', externalID: 'e' }), {
      kind: 'keys',
      accessKeyId: 'a',
      secretAccessKey: 'b',
      assumeRole: { arn: 'arn:aws:iam::111122223333:role/x', externalId: 'e' },
    });
  });
  test('workload identity: token with roleARN, or with the WorkloadIdentityConfig in config', () => {
    assert.deepEqual(read({ token: 'foo', roleARN: 'arn' }), { kind: 'workload-identity', token: 'foo', roleArn: 'arn' });
    const config = 'apiVersion: aws.provider.extensions.gardener.cloud/v1alpha1\nkind: WorkloadIdentityConfig\nroleARN: role-arn\n';
    assert.deepEqual(read({ token: 'foo', config }), { kind: 'workload-identity', token: 'foo', roleArn: 'role-arn' });
  });
  test('refusals name what is missing', () => {
    assert.throws(() => read({}), /no key "accessKeyID" or "AWS_ACCESS_KEY_ID", and no "token"/);
    assert.throws(() => read({ accessKeyID: 'a' }), /has no key "secretAccessKey" or "AWS_SECRET_ACCESS_KEY"/);
    assert.throws(() => read({ token: 'foo' }), /needs "roleARN" or a "config"/);
    assert.throws(() => read({ token: 'foo', config: 'kind: WorkloadIdentityConfig\nroleARN:\n' }), /workloadIdentityConfig.roleARN is empty/);
  });
});
