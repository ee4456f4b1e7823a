/**
 * One way to make an AWS call for this controller: through the account's rate limiter, retried on
 * throttling and server errors, and failing with AwsCallError that keeps the AWS error code.
 */
import type { RateLimiter } from '../../rate-limiter.ts';
import { withRetry } from '../../aws/retry.ts';
import type { RetryPolicy } from '../../aws/retry.ts';
import type { Logger } from '../../log.ts';
import { AwsCallError } from '../errors.ts';

export type AwsCall = <T>(action: string, send: () => Promise<T>) => Promise<T>;

export function awsCall(opts: { limiter: RateLimiter; retry: RetryPolicy; logger: Logger }): AwsCall {
  return async <T>(action: string, send: () => Promise<T>): Promise<T> => {
    try {
      return await withRetry(
        async () => {
          await opts.limiter.take();
          return send();
        },
        opts.retry,
        (err, attempt, delayMs) => opts.logger.warn({ action, attempt, delayMs, err: (err as Error).name }, 'AWS call throttled or failed; retrying'),
      );
    } catch (err) {
      throw new AwsCallError(action, err);
    }
  };
}

/** An AWS SDK client and the call every request to it goes through; the ports extend it. */
export abstract class SdkPort<C> {
  protected readonly client: C;
  protected readonly call: AwsCall;

  constructor(client: C, call: AwsCall) {
    this.client = client;
    this.call = call;
  }
}
