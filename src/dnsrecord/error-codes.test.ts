import { test } from 'node:test';
import assert from 'node:assert/strict';
import { determineErrorCodes } from './error-codes.ts';

test("codes from the error text, as provider-aws's KnownCodes derive them; codes an error carries win", () => {
  assert.deepEqual(determineErrorCodes('InvalidClientTokenId: The security token included in the request is invalid'), ['ERR_INFRA_UNAUTHORIZED']);
  assert.deepEqual(determineErrorCodes('AuthFailure: AWS was not able to validate the provided access credentials'), ['ERR_INFRA_UNAUTHENTICATED']);
  assert.deepEqual(determineErrorCodes('Throttling: Rate exceeded'), ['ERR_INFRA_RATE_LIMITS_EXCEEDED']);
  assert.deepEqual(determineErrorCodes('InvalidParameterValue: bad name'), ['ERR_CONFIGURATION_PROBLEM']);
  assert.deepEqual(determineErrorCodes('RequestLimitExceeded'), ['ERR_INFRA_RATE_LIMITS_EXCEEDED'], 'RequestLimitExceeded is not a quota');
  assert.deepEqual(determineErrorCodes('VpcLimitExceeded'), ['ERR_INFRA_QUOTA_EXCEEDED']);
  assert.deepEqual(determineErrorCodes('AccessDenied and Throttling'), ['ERR_INFRA_RATE_LIMITS_EXCEEDED', 'ERR_INFRA_UNAUTHORIZED'], 'sorted');
  assert.deepEqual(determineErrorCodes('something else'), []);
  assert.deepEqual(determineErrorCodes('Throttling', ['ERR_CONFIGURATION_PROBLEM']), ['ERR_CONFIGURATION_PROBLEM']);
});
