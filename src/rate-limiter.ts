/**
 * A token bucket: the one client-side rate limit. AWS clients share one per set of credentials
 * (Route53 allows five requests per second per account; staying under it on our side costs less
 * than being throttled); the Kubernetes client takes one for --kube-api-qps/--kube-api-burst.
 */
import { sleep } from './backoff.ts';

export interface RateLimiterOptions {
  /** Requests per second; 0 or less disables the limit. */
  ratePerSecond: number;
  /** Requests allowed back to back after a quiet period. */
  burst?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export class RateLimiter {
  private readonly rate: number;
  private readonly burst: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private tokens: number;
  private last: number;
  // Callers queue behind each other so tokens are handed out in arrival order.
  private tail: Promise<void> = Promise.resolve();

  constructor(opts: RateLimiterOptions) {
    this.rate = opts.ratePerSecond;
    this.burst = Math.max(1, opts.burst ?? Math.ceil(opts.ratePerSecond));
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? ((ms: number) => sleep(ms));
    this.tokens = this.burst;
    this.last = this.now();
  }

  /** Resolves when one request may be sent. */
  take(): Promise<void> {
    if (this.rate <= 0) return Promise.resolve();
    const turn = this.tail.then(() => this.waitForToken());
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  private async waitForToken(): Promise<void> {
    this.refill();
    if (this.tokens < 1) {
      await this.sleep(Math.ceil(((1 - this.tokens) / this.rate) * 1000));
      this.refill();
    }
    this.tokens = Math.max(0, this.tokens - 1);
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
  }
}
