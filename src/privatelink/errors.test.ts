import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AwsCallError, StepError, isNotFound, logFields, step, wrapped } from './errors.ts';

const denied = (): Error => Object.assign(new Error('not authorized to DescribeVpcEndpoints'), { name: 'AccessDenied' });

test("an AWS error reads as the Go SDK's API error text; the action stays in the log fields", () => {
  const err = new AwsCallError('ec2:DescribeVpcEndpoints', denied());
  assert.equal(err.message, 'api error AccessDenied: not authorized to DescribeVpcEndpoints');
  assert.deepEqual(logFields(err), { err: err.message, awsAction: 'ec2:DescribeVpcEndpoints', awsCode: 'AccessDenied' });
  assert.equal(new AwsCallError('ec2:CreateVpcEndpoint', new Error('no endpoint in the answer')).message, 'no endpoint in the answer');
});

test("Hive's wraps: the condition keeps the inner text, the returned error carries the step's prefix", async () => {
  const inner = () =>
    wrapped('failed to create VPC Endpoint Service for cluster', () => Promise.reject(new AwsCallError('ec2:CreateVpcEndpointServiceConfiguration', denied())));
  const err = await step('VPCEndpointServiceReconcileFailed', inner, 'failed to reconcile the VPC Endpoint Service').catch((e: unknown) => e);
  assert.ok(err instanceof StepError);
  assert.equal(err.conditionMessage, 'failed to create VPC Endpoint Service for cluster: api error AccessDenied: not authorized to DescribeVpcEndpoints');
  assert.equal(err.message, `failed to reconcile the VPC Endpoint Service: ${err.conditionMessage}`);
  assert.equal(logFields(err)['awsAction'], 'ec2:CreateVpcEndpointServiceConfiguration');
  // A StepError thrown inside keeps its reason and gets the prefix too.
  const nested = await step(
    'VPCEndpointReconcileFailed',
    () => Promise.reject(new StepError('NoSupportedAZsInInventory', 'no AZ')),
    'failed to reconcile the VPC Endpoint',
  ).catch((e: unknown) => e);
  assert.ok(nested instanceof StepError);
  assert.deepEqual(
    [nested.reason, nested.conditionMessage, nested.message],
    ['NoSupportedAZsInInventory', 'no AZ', 'failed to reconcile the VPC Endpoint: no AZ'],
  );
});

test('NotFound is seen through a wrap', async () => {
  const gone = new AwsCallError('ec2:DeleteVpcEndpoints', Object.assign(new Error('gone'), { name: 'InvalidVpcEndpointId.NotFound' }));
  const err = await wrapped('x', () => Promise.reject(gone)).catch((e: unknown) => e);
  assert.ok(isNotFound(err));
});
