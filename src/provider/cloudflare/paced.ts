/**
 * Every Cloudflare call paced and retried. Cloudflare allows 1,200 requests per five minutes per
 * user: a token bucket of 3.8 requests a second with a burst of 60 never sends more than that in
 * any five minutes. A 429 is retried after its Retry-After (else the shared backoff); reads are
 * also retried on 5xx and transport errors, writes only on 429, which Cloudflare answers before
 * doing anything, so a retried write cannot apply twice.
 */
import { backoffDelay } from '../../backoff.ts';
import type { Backoff } from '../../backoff.ts';
import { ProviderError, isTransient } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { RateLimiter } from '../../rate-limiter.ts';
import { retryAfterOf } from './api.ts';
import type { CloudflareApi } from './api.ts';

export const REQUESTS_PER_SECOND = 3.8;
export const BURST = 60;

export interface PacingOptions {
  logger: Logger;
  sleep: (ms: number) => Promise<void>;
  now?: () => number;
  random?: () => number;
  /** Retries of one call (default 5). */
  retries?: number;
  backoff?: Backoff;
  /** 0 turns the client-side limit off (tests). */
  requestsPerSecond?: number;
}

const METHODS: readonly (keyof CloudflareApi)[] = [
  'listZones',
  'getZone',
  'listRecordsPage',
  'createRecord',
  'updateRecord',
  'deleteRecord',
  'batch',
  'listCustomHostnames',
  'createCustomHostname',
  'deleteCustomHostname',
  'listRegionalHostnames',
  'createRegionalHostname',
  'updateRegionalHostname',
  'deleteRegionalHostname',
];
const READS: ReadonlySet<string> = new Set(['listZones', 'getZone', 'listRecordsPage', 'listCustomHostnames', 'listRegionalHostnames']);

/** The same port, each method behind the limiter and the retry loop. */
export function pacedApi(api: CloudflareApi, opts: PacingOptions): CloudflareApi {
  const limiter = new RateLimiter({
    ratePerSecond: opts.requestsPerSecond ?? REQUESTS_PER_SECOND,
    burst: BURST,
    sleep: opts.sleep,
    ...(opts.now === undefined ? {} : { now: opts.now }),
  });
  const backoff = opts.backoff ?? { initialMs: 1000, maxMs: 60_000 };
  const retries = opts.retries ?? 5;
  const random = opts.random ?? Math.random;
  const wrap =
    <A extends unknown[], R>(name: string, f: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      for (let attempt = 1; ; attempt++) {
        await limiter.take();
        try {
          return await f(...args);
        } catch (err) {
          const throttled = err instanceof ProviderError && err.code === 'PROVIDER_THROTTLED';
          const retryable = throttled || (READS.has(name) && isTransient(err));
          if (!retryable || attempt > retries) throw err;
          const wait = retryAfterOf(err) ?? backoffDelay(backoff, attempt, random);
          opts.logger.warn({ call: name, attempt, waitMs: wait }, throttled ? 'Cloudflare throttled a call; retrying' : 'Cloudflare call failed; retrying');
          await opts.sleep(wait);
        }
      }
    };
  const out = {} as Record<string, unknown>;
  const methods = api as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  for (const name of METHODS) out[name] = wrap(name, (...a: unknown[]) => methods[name]?.apply(api, a) as Promise<unknown>);
  return out as unknown as CloudflareApi;
}
