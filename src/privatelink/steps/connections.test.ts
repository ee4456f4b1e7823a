import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AwsCallError } from '../errors.ts';
import { coveredAccounts, isPermissionDenied, WarnedOnce } from './connections.ts';

describe('endpoint connections', () => {
  test('coveredAccounts: every ARN covers its account (a connection names only the owner account); `*` covers all', () => {
    assert.deepEqual(
      [
        ...(coveredAccounts([
          'arn:aws:iam::111111111111:root',
          'arn:aws:iam::222222222222:user/hive',
          'arn:aws-cn:iam::333333333333:role/path-less',
          'arn:aws:sts::444444444444:assumed-role/r/session',
          'not-an-arn',
          'arn:aws:iam::12345:root',
        ]) as Set<string>),
      ].sort(),
      ['111111111111', '222222222222', '333333333333', '444444444444'],
    );
    assert.equal(coveredAccounts(['arn:aws:iam::111111111111:root', '*']), 'all');
    assert.deepEqual([...(coveredAccounts([]) as Set<string>)], []);
  });

  test('isPermissionDenied: EC2 UnauthorizedOperation and AccessDenied, nothing else', () => {
    const err = (name: string): AwsCallError => new AwsCallError('ec2:RejectVpcEndpointConnections', Object.assign(new Error('x'), { name }));
    assert.equal(isPermissionDenied(err('UnauthorizedOperation')), true);
    assert.equal(isPermissionDenied(err('AccessDenied')), true);
    assert.equal(isPermissionDenied(err('InvalidVpcEndpointServiceId.NotFound')), false);
    assert.equal(isPermissionDenied(new Error('UnauthorizedOperation')), false);
  });

  test('WarnedOnce: the first time per key only', () => {
    const w = new WarnedOnce();
    assert.deepEqual([w.first('a'), w.first('a'), w.first('b')], [true, false, true]);
  });
});
