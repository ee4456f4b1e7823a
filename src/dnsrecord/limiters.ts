/**
 * One token bucket per credential (access key id, role ARN, TSIG key, …): every DNSRecord that
 * uses the same Secret, or another Secret with the same key, shares it, so hundreds of records
 * cannot exceed the account's API rate together.
 */
import { RateLimiter } from '../rate-limiter.ts';
import type { RateLimiterOptions } from '../rate-limiter.ts';

export interface CredentialLimitersOptions extends RateLimiterOptions {
  /** Told of every admitted request (metrics, tests). */
  onTake?: (key: string, at: number) => void;
}

class ObservedLimiter extends RateLimiter {
  constructor(
    opts: RateLimiterOptions,
    private readonly after: () => void,
  ) {
    super(opts);
  }

  override async take(): Promise<void> {
    await super.take();
    this.after();
  }
}

export class CredentialLimiters {
  private readonly opts: CredentialLimitersOptions;
  private readonly byKey = new Map<string, RateLimiter>();
  private readonly now: () => number;

  constructor(opts: CredentialLimitersOptions) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
  }

  for(key: string): RateLimiter {
    let limiter = this.byKey.get(key);
    if (limiter === undefined) {
      const onTake = this.opts.onTake;
      limiter = onTake === undefined ? new RateLimiter(this.opts) : new ObservedLimiter(this.opts, () => onTake(key, this.now()));
      this.byKey.set(key, limiter);
    }
    return limiter;
  }

  keys(): string[] {
    return [...this.byKey.keys()];
  }
}
