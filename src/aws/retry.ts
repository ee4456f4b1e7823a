/**
 * Retries for AWS calls. The SDK's own retries are switched off (maxAttempts 1) so that every
 * request goes through the rate limiter and is counted; this module decides what is worth another
 * try: throttling, PriorRequestNotComplete, server errors and dropped connections.
 */
import { backoffDelay } from '../backoff.ts';
import { ProviderError, errorMessage } from '../errors.ts';

export interface RetryPolicy {
  /** Further attempts after the first (`--aws-api-retries`). */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

const THROTTLE_CODES = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'PriorRequestNotComplete',
  'RequestThrottled',
  'RequestThrottledException',
]);

const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'ECONNABORTED']);

/** The AWS error code (`Throttling`, `AccessDenied`, …) or the Node error code of a failed connection. */
export function awsErrorCode(err: unknown): string {
  if (typeof err !== 'object' || err === null) return '';
  const e = err as { name?: unknown; code?: unknown; Code?: unknown };
  if (typeof e.Code === 'string') return e.Code;
  if (typeof e.code === 'string') return e.code;
  return typeof e.name === 'string' ? e.name : '';
}

export function httpStatusOf(err: unknown): number | undefined {
  const meta = (err as { $metadata?: { httpStatusCode?: unknown } } | null)?.$metadata;
  return typeof meta?.httpStatusCode === 'number' ? meta.httpStatusCode : undefined;
}

export function isThrottle(err: unknown): boolean {
  return THROTTLE_CODES.has(awsErrorCode(err));
}

/** Worth retrying: throttled, the service failed, or the connection did. */
export function isRetryable(err: unknown): boolean {
  if (err instanceof ProviderError) return false;
  const code = awsErrorCode(err);
  if (THROTTLE_CODES.has(code) || NETWORK_CODES.has(code) || code === 'TimeoutError' || code === 'ServiceUnavailable') return true;
  const status = httpStatusOf(err);
  if (status !== undefined) return status >= 500 || status === 429;
  // No HTTP status: the request never got an answer (socket closed, DNS failure, …).
  return /socket hang up|ECONNRESET|ECONNREFUSED|network/i.test(errorMessage(err));
}

/** The shared backoff (src/backoff.ts) in the AWS SDK's terms: attempt 1 waits up to base, attempt 2 up to 2·base, … */
export function retryDelay(attempt: number, policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs' | 'random'>): number {
  return backoffDelay({ initialMs: policy.baseDelayMs, maxMs: policy.maxDelayMs }, attempt, policy.random);
}

export async function withRetry<T>(
  call: () => Promise<T>,
  policy: RetryPolicy,
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (attempt > policy.retries || !isRetryable(err)) throw err;
      const delay = retryDelay(attempt, policy);
      onRetry?.(err, attempt, delay);
      await policy.sleep(delay);
    }
  }
}
