/**
 * The controller-runtime work queue in small: keys (namespace/name) are queued, deduplicated, handed
 * to `reconcile` one at a time per key, and requeued after the delay the reconciler asks for or with
 * per-key exponential backoff when it throws. A key added while it is being reconciled is run once
 * more afterwards, so no change is lost and no key is reconciled twice at the same moment.
 */
import { backoffCeiling } from '../backoff.ts';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';

export interface ReconcileResult {
  /** Run this key again after this long (a periodic resync, or waiting for something outside). */
  requeueAfterMs?: number;
}

export type ReconcileFn = (key: string, signal: AbortSignal) => Promise<ReconcileResult | undefined | void>;

export interface WorkQueueOptions {
  name: string;
  reconcile: ReconcileFn;
  logger: Logger;
  /** Keys reconciled at the same time (different keys only). */
  concurrency?: number;
  /** Backoff after errors, doubled per consecutive failure of one key. */
  backoff?: { initialMs: number; maxMs: number };
  /** Consulted before each reconcile: a replica that does not lead parks its keys until it does. */
  canRun?: () => boolean;
  /** Called after each reconcile with the outcome, for metrics. */
  onResult?: (key: string, outcome: 'success' | 'requeue' | 'error', ms: number) => void;
  now?: () => number;
}

export class WorkQueue {
  private readonly opts: WorkQueueOptions;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly ready: string[] = [];
  private readonly queued = new Set<string>();
  private readonly active = new Set<string>();
  /** Keys added again while active: queued once more when the run ends. */
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<string, number>();
  /** Keys held back because canRun() said no; released by kick(). */
  private readonly parked = new Set<string>();
  private readonly idleWaiters = new Set<() => void>();
  private readonly abort = new AbortController();
  private running = 0;
  private started = false;
  private stopped = false;

  constructor(opts: WorkQueueOptions) {
    this.opts = opts;
    this.log = opts.logger.child({ controller: opts.name });
    this.now = opts.now ?? Date.now;
  }

  /** Queues `key` now, or after `delayMs` (an earlier pending timer for the key wins). */
  add(key: string, delayMs = 0): void {
    if (this.stopped) return;
    if (delayMs > 0) {
      const at = this.now() + delayMs;
      const pending = this.timers.get(key);
      if (pending !== undefined && pending.at <= at) return;
      if (pending !== undefined) clearTimeout(pending.timer);
      const timer = setTimeout(() => {
        this.timers.delete(key);
        this.add(key);
      }, delayMs);
      timer.unref();
      this.timers.set(key, { at, timer });
      return;
    }
    const pending = this.timers.get(key);
    if (pending !== undefined) {
      clearTimeout(pending.timer);
      this.timers.delete(key);
    }
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.ready.push(key);
    this.pump();
  }

  /** Forgets a key's failure count, e.g. when its object is deleted. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  start(): void {
    this.started = true;
    this.pump();
  }

  /** Re-checks canRun() for parked keys (call it when leadership is gained). */
  kick(): void {
    for (const key of this.parked) this.add(key);
    this.parked.clear();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.ready.length = 0;
    this.queued.clear();
    await this.idle();
  }

  /** Resolves when nothing is queued or running (delayed keys do not count). For tests and shutdown. */
  idle(): Promise<void> {
    if (this.running === 0 && (this.ready.length === 0 || !this.started)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.add(resolve));
  }

  /** Keys with a pending delayed requeue, and when (ms from now). For tests. */
  pendingDelays(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [key, { at }] of this.timers) out.set(key, at - this.now());
    return out;
  }

  private pump(): void {
    const limit = this.opts.concurrency ?? 1;
    while (this.started && !this.stopped && this.running < limit && this.ready.length > 0) {
      const key = this.ready.shift()!;
      this.queued.delete(key);
      if (this.opts.canRun !== undefined && !this.opts.canRun()) {
        this.parked.add(key);
        continue;
      }
      this.active.add(key);
      this.running++;
      void this.runOne(key);
    }
    if (this.running === 0 && (this.ready.length === 0 || this.stopped)) {
      for (const resolve of this.idleWaiters) resolve();
      this.idleWaiters.clear();
    }
  }

  private async runOne(key: string): Promise<void> {
    const started = this.now();
    let outcome: 'success' | 'requeue' | 'error' = 'success';
    try {
      const result = await this.opts.reconcile(key, this.abort.signal);
      this.failures.delete(key);
      const after = result?.requeueAfterMs;
      if (after !== undefined && after >= 0 && !this.stopped) {
        outcome = 'requeue';
        this.add(key, Math.max(1, after));
      }
    } catch (err) {
      outcome = 'error';
      if (!this.stopped) {
        const n = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, n);
        const delay = backoffCeiling(this.opts.backoff ?? { initialMs: 100, maxMs: 300_000 }, n);
        this.log.warn({ key, err: errorMessage(err), attempt: n, retryInMs: delay }, 'reconcile failed; retrying');
        this.add(key, delay);
      }
    } finally {
      this.opts.onResult?.(key, outcome, this.now() - started);
      this.active.delete(key);
      this.running--;
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }
}
