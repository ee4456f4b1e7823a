import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ProviderError } from '../errors.ts';
import { AwsAccessDeniedError, toProviderError } from './errors.ts';
import { RateLimiter } from '../rate-limiter.ts';
import { isRetryable, retryDelay, withRetry } from './retry.ts';

const awsError = (name: string, status: number): Error => Object.assign(new Error(`${name} happened`), { name, $metadata: { httpStatusCode: status } });

describe('AWS retries, errors and rate limit', () => {
  test('throttling, PriorRequestNotComplete and 5xx are retried; client errors are not', () => {
    assert.ok(isRetryable(awsError('Throttling', 400)));
    assert.ok(isRetryable(awsError('PriorRequestNotComplete', 400)));
    assert.ok(isRetryable(awsError('InternalFailure', 500)));
    assert.ok(!isRetryable(awsError('InvalidChangeBatch', 400)));
    assert.ok(!isRetryable(awsError('AccessDenied', 403)));
  });

  test('withRetry gives up after the configured retries, sleeping with jittered backoff', async () => {
    const sleeps: number[] = [];
    let calls = 0;
    const policy = { retries: 3, baseDelayMs: 100, maxDelayMs: 1000, sleep: async (ms: number) => void sleeps.push(ms), random: () => 1 };
    await assert.rejects(
      withRetry(async () => {
        calls++;
        throw awsError('Throttling', 400);
      }, policy),
      /Throttling/,
    );
    assert.equal(calls, 4);
    assert.deepEqual(sleeps, [100, 200, 400]);
    assert.equal(retryDelay(10, policy), 1000);
    assert.equal(await withRetry(async () => (++calls > 5 ? 'ok' : Promise.reject(awsError('Throttling', 400))), policy), 'ok');
  });

  test('access denied names the action and the role; STS refusals name sts:AssumeRole', () => {
    const role = 'arn:aws:iam::123456789012:role/dns';
    const r53 = toProviderError(awsError('AccessDenied', 403), { provider: 'aws', action: 'route53:ListHostedZones', role });
    assert.ok(r53 instanceof ProviderError && r53.code === 'PROVIDER_ACCESS_DENIED' && !r53.transient);
    assert.ok(r53 instanceof AwsAccessDeniedError && r53.action === 'route53:ListHostedZones' && r53.role === role);
    assert.match(r53.message, /route53:ListHostedZones for role arn:aws:iam::123456789012:role\/dns/);
    const sts = toProviderError(Object.assign(awsError('AccessDenied', 403), { message: `not authorized to perform: sts:AssumeRole on resource: ${role}` }), {
      provider: 'aws',
      action: 'route53:ListHostedZones',
      role,
    });
    assert.match(sts.message, /^access denied: sts:AssumeRole for role/);
    assert.ok(sts instanceof AwsAccessDeniedError && sts.action === 'sts:AssumeRole');
    assert.equal(toProviderError(awsError('Throttling', 400), { provider: 'aws', action: 'x' }).transient, true);
  });

  test('the rate limiter lets a burst through, then spaces requests', async () => {
    let now = 0;
    const sleeps: number[] = [];
    const limiter = new RateLimiter({
      ratePerSecond: 5,
      now: () => now,
      sleep: async (ms) => {
        sleeps.push(ms);
        now += ms;
      },
    });
    for (let i = 0; i < 7; i++) await limiter.take();
    assert.deepEqual(sleeps, [200, 200]);
  });
});
