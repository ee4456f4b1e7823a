import { test } from 'node:test';
import assert from 'node:assert/strict';
import { awsPartition } from '../aws/partition.ts';
import { arnPrefix, isStsSecret, partitionSettings, stsCredentialsFile } from './aws-sts.ts';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

test('partitions by region prefix', () => {
  const table: [string | undefined, string][] = [
    [undefined, 'aws'],
    ['us-east-1', 'aws'],
    ['us-gov-west-1', 'aws-us-gov'],
    ['us-gov-east-1', 'aws-us-gov'],
    ['cn-north-1', 'aws-cn'],
    ['cn-northwest-1', 'aws-cn'],
    ['us-iso-east-1', 'aws-iso'],
    ['us-isob-east-1', 'aws-iso-b'],
    ['eu-isoe-west-1', 'aws-iso-e'],
    ['us-isof-south-1', 'aws-iso-f'],
    ['eusc-de-east-1', 'aws-eusc'],
  ];
  for (const [region, partition] of table) assert.equal(awsPartition(region), partition, String(region));
  assert.equal(arnPrefix('us-gov-west-1'), 'arn:aws-us-gov');
  assert.equal(arnPrefix('eu-west-1'), 'arn:aws');
});

test('partition settings: GovCloud as upstream, China region only, commercial nothing, other providers nothing', () => {
  const aws = { provider: { type: 'AWS' as const } };
  assert.deepEqual(partitionSettings(aws, 'us-gov-west-1'), {
    env: [{ name: 'AWS_REGION', value: 'us-gov-west-1' }],
    args: ['--aws-region=us-gov-west-1', '--aws-prefer-cname'],
  });
  assert.deepEqual(partitionSettings(aws, 'cn-north-1'), { env: [{ name: 'AWS_REGION', value: 'cn-north-1' }], args: ['--aws-region=cn-north-1'] });
  assert.deepEqual(partitionSettings(aws, 'us-east-1'), { env: [], args: [] });
  assert.deepEqual(partitionSettings({ provider: { type: 'GCP' } }, 'us-gov-west-1'), { env: [], args: [] });
});

test('STS Secrets: a web identity credentials file or a bare role_arn', () => {
  assert.ok(isStsSecret({ credentials: b64(stsCredentialsFile('arn:aws:iam::111122223333:role/x')) }));
  assert.ok(isStsSecret({ role_arn: b64('arn:aws:iam::111122223333:role/x') }));
  assert.ok(!isStsSecret({ credentials: b64('[default]\naws_access_key_id = A\naws_secret_access_key = B\n') }));
});
