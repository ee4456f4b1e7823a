/**
 * Leader election on a `coordination.k8s.io/v1` Lease, with client-go's rules: a candidate takes
 * the Lease only when its holder has not renewed it for a full lease duration as measured on the
 * candidate's own clock (so clock skew between replicas does not matter), every write carries the
 * resourceVersion read (a concurrent writer gets 409 and loses), and a leader that has not renewed
 * within the renew deadline stops counting as leader at once, before anyone else can take over.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { KubeClient } from './client.ts';
import { isStatus } from './errors.ts';
import { microTime } from './events.ts';
import { LEASES, collectionPath, objectPath } from './resource.ts';

export interface LeaderElectorOptions {
  client: Pick<KubeClient, 'request'>;
  logger: Logger;
  namespace: string;
  name: string;
  /** Unique per replica; defaults to hostname plus a random suffix. */
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  now?: () => number;
  random?: () => number;
  onStartedLeading?: () => void;
  onStoppedLeading?: () => void;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; [k: string]: unknown };
  spec?: LeaseSpec;
}

export function defaultIdentity(random: () => number = Math.random): string {
  const suffix = random === Math.random ? randomBytes(4).toString('hex') : Math.floor(random() * 0xffffffff).toString(16);
  return `${hostname()}_${suffix}`;
}

export class LeaderElector {
  readonly identity: string;
  private readonly opts: LeaderElectorOptions;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly leaseMs: number;
  private readonly renewMs: number;
  private readonly retryMs: number;
  private leading = false;
  private lastRenew = Number.NEGATIVE_INFINITY;
  /** What we last saw of someone else's Lease, and when (our clock). */
  private observed: { record: string; at: number } | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;

  constructor(opts: LeaderElectorOptions) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
    this.identity = opts.identity ?? defaultIdentity();
    this.leaseMs = opts.leaseDurationMs ?? 15_000;
    this.renewMs = opts.renewDeadlineMs ?? 10_000;
    this.retryMs = opts.retryPeriodMs ?? 2_000;
    this.log = opts.logger.child({ lease: `${opts.namespace}/${opts.name}`, identity: this.identity });
  }

  /** True only while the Lease is ours and was renewed within the renew deadline. */
  isLeader(): boolean {
    if (!this.leading) return false;
    if (this.now() - this.lastRenew < this.renewMs) return true;
    this.lose('renew deadline passed');
    return false;
  }

  start(): void {
    if (this.loop !== undefined) return;
    this.loop = this.run();
  }

  /** Stops campaigning; with `release` a leader hands the Lease back so a successor need not wait. */
  async stop(release = true): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    if (release && this.leading) {
      try {
        await this.release();
      } catch (err) {
        this.log.warn({ err: errorMessage(err) }, 'cannot release the lease');
      }
    }
    if (this.leading) this.lose('stopped');
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        const ok = await this.tryAcquireOrRenew();
        if (ok) {
          this.lastRenew = this.now();
          if (!this.leading) {
            this.leading = true;
            this.log.info('became the leader');
            this.opts.onStartedLeading?.();
          }
        } else if (this.leading) {
          this.lose('the lease is held by another replica');
        }
      } catch (err) {
        this.log.warn({ err: errorMessage(err), leading: this.leading }, 'lease request failed');
      }
      if (this.leading) this.isLeader();
      // Candidates spread their attempts; the leader renews on the period.
      const wait = this.leading ? this.retryMs : this.retryMs * (1 + this.random() * 0.2);
      await this.sleep(wait);
    }
  }

  private lose(why: string): void {
    if (!this.leading) return;
    this.leading = false;
    this.log.warn({ why }, 'stopped being the leader');
    this.opts.onStoppedLeading?.();
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { client, namespace, name } = this.opts;
    const path = objectPath(LEASES, namespace, name);
    const now = new Date(this.now());
    let lease: Lease;
    try {
      lease = await client.request<Lease>('GET', path, { timeoutMs: this.renewMs });
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
      const fresh: Lease = {
        apiVersion: LEASES.apiVersion,
        kind: LEASES.kind,
        metadata: { name, namespace },
        spec: { holderIdentity: this.identity, leaseDurationSeconds: Math.ceil(this.leaseMs / 1000), acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
      };
      try {
        await client.request('POST', collectionPath(LEASES, namespace), { body: fresh, timeoutMs: this.renewMs });
        return true;
      } catch (createErr) {
        if (isStatus(createErr, 409)) return false; // another replica created it first
        throw createErr;
      }
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const record = JSON.stringify([holder, spec.renewTime, spec.leaseTransitions]);
    if (this.observed?.record !== record) this.observed = { record, at: this.now() };
    const duration = (spec.leaseDurationSeconds ?? Math.ceil(this.leaseMs / 1000)) * 1000;
    if (holder !== '' && holder !== this.identity && this.observed.at + duration > this.now()) return false;

    const next: Lease = {
      ...lease,
      spec: {
        ...spec,
        holderIdentity: this.identity,
        leaseDurationSeconds: Math.ceil(this.leaseMs / 1000),
        renewTime: microTime(now),
        ...(holder === this.identity ? {} : { acquireTime: microTime(now), leaseTransitions: (spec.leaseTransitions ?? 0) + 1 }),
      },
    };
    try {
      await client.request('PUT', path, { body: next, timeoutMs: this.renewMs });
      return true;
    } catch (err) {
      if (isStatus(err, 409)) return false;
      throw err;
    }
  }

  private async release(): Promise<void> {
    const path = objectPath(LEASES, this.opts.namespace, this.opts.name);
    const lease = await this.opts.client.request<Lease>('GET', path);
    if (lease.spec?.holderIdentity !== this.identity) return;
    const now = microTime(new Date(this.now()));
    await this.opts.client.request('PUT', path, { body: { ...lease, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now } } });
    this.log.info('released the lease');
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      this.wake = done;
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
    });
  }
}
