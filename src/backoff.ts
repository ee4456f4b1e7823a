/**
 * The one backoff every retry loop uses (sync loop, reflector, work queue, AWS and provider
 * retries, PrivateLink): exponential from `initialMs`, capped at `maxMs`, with jitter so that
 * replicas and keys that failed together do not retry in step, and a sleep a stop can cut short.
 */
export interface Backoff {
  initialMs: number;
  maxMs: number;
}

/** The delay ceiling before retry `attempt` (1-based): initialMs · 2^(attempt−1), at most maxMs. */
export function backoffCeiling(backoff: Backoff, attempt: number): number {
  const doublings = Math.min(Math.max(attempt - 1, 0), 30);
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** doublings);
}

/** Jittered: between half and all of the ceiling, in whole milliseconds. */
export function backoffDelay(backoff: Backoff, attempt: number, random: () => number = Math.random): number {
  const ceiling = backoffCeiling(backoff, attempt);
  return Math.floor(ceiling / 2 + (random() * ceiling) / 2);
}

export type Sleep = (ms: number) => Promise<void>;

/** Resolves after `ms`, or at once when `signal` aborts (it never rejects: the caller checks the signal). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
