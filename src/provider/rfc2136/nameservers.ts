/**
 * Several --rfc2136-host values and --rfc2136-load-balancing-strategy, as external-dns picks
 * among them: zone transfers and updates rotate independently; each operation tries every server
 * at most once, moving on after a failure (an error or a refusing answer).
 * - disabled (the default): the same server until it fails, then the next one, and stay there;
 * - round-robin: the next server for every operation;
 * - random: a random server other than the one used last.
 */
export const LOAD_BALANCING_STRATEGIES = ['disabled', 'round-robin', 'random'] as const;
export type LoadBalancingStrategy = (typeof LOAD_BALANCING_STRATEGIES)[number];

/** Zone transfers (list) and updates (send) keep separate rotations, as upstream does. */
export type NameserverOp = 'list' | 'send';

interface Rotation {
  counter: number;
  failed: boolean;
}

export class NameserverPool<T> {
  readonly servers: readonly T[];
  private readonly strategy: LoadBalancingStrategy;
  private readonly random: (n: number) => number;
  private readonly rotations: Record<NameserverOp, Rotation> = { list: { counter: 0, failed: false }, send: { counter: 0, failed: false } };

  /** `random(n)` returns an integer in [0, n); injected so tests can drive the random strategy. */
  constructor(servers: readonly T[], strategy: LoadBalancingStrategy = 'disabled', random: (n: number) => number = (n) => Math.floor(Math.random() * n)) {
    if (servers.length === 0) throw new Error('NameserverPool needs at least one server');
    this.servers = servers;
    this.strategy = strategy;
    this.random = random;
  }

  /** The server for the next attempt of `op`. */
  next(op: NameserverOp): T {
    const n = this.servers.length;
    const r = this.rotations[op];
    if (n === 1) return this.servers[0] as T;
    let index: number;
    switch (this.strategy) {
      case 'random':
        index = (r.counter + 1 + this.random(n - 1)) % n;
        r.counter = index;
        break;
      case 'round-robin':
        index = r.counter;
        r.counter = (r.counter + 1) % n;
        break;
      default:
        if (r.failed) r.counter = (r.counter + 1) % n;
        index = r.counter;
    }
    r.failed = false;
    return this.servers[index] as T;
  }

  /** Records that the last attempt of `op` failed: `disabled` then moves to the next server. */
  failed(op: NameserverOp): void {
    this.rotations[op].failed = true;
  }

  /**
   * Runs `attempt` on up to every server in turn, until one succeeds; throws the last error.
   * `onFailure` hears each failed attempt that another server will retry.
   */
  async run<R>(op: NameserverOp, attempt: (server: T) => Promise<R>, onFailure?: (server: T, err: unknown) => void): Promise<R> {
    let lastErr: unknown;
    for (let i = 0; i < this.servers.length; i++) {
      const server = this.next(op);
      try {
        return await attempt(server);
      } catch (err) {
        lastErr = err;
        this.failed(op);
        if (i < this.servers.length - 1) onFailure?.(server, err);
      }
    }
    throw lastErr;
  }
}
