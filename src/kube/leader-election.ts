/**
 * Leader election on a `coordination.k8s.io/v1` Lease, with client-go's rules: a candidate takes
 * the Lease only when its holder has not renewed it for a full lease duration as measured on the
 * candidate's own clock (so clock skew between replicas does not matter), every write carries the
 * resourceVersion read (a concurrent writer gets 409 and loses), and a leader that has not renewed
 * within the renew deadline stops counting as leader at once, before anyone else can take over.
 *
 * Without permission on Leases one warning per refused verb names it, and the elector asks again
 * every `forbiddenRetryMs`, quietly, taking part in the election as soon as the permission appears.
 * Meanwhile the replica does not lead, with one exception: with `actAloneWhenForbidden` (the `run`
 * command when election is on only by default: external-dns's chart grants no Lease permission,
 * since external-dns runs one replica and never elects) a replica whose very first Lease request
 * was refused applies as if it were alone. A replica that was ever allowed a Lease request (it led,
 * saw another holder, or saw there was no Lease) never acts alone on a later 403: another replica
 * may be leading, and two writers are worse than none.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/config.ts';
import { ConfigError, HostwardenError, errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import { SERVICE_ACCOUNT_DIR } from './client.ts';
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
  /** How often a replica without permission on Leases asks again. Default 60 s. */
  forbiddenRetryMs?: number;
  /**
   * When the very first Lease request is refused (403), count as the leader (election off) instead
   * of never leading. Never applies once a Lease request was allowed.
   */
  actAloneWhenForbidden?: boolean;
  /**
   * Annotations this replica sets on the Lease in its own writes (acquire and renew), so they
   * need no second writer that would race the renewals; a key mapped to undefined is removed.
   * A new holder's first write therefore clears what the previous holder published.
   */
  annotations?: () => Readonly<Record<string, string | undefined>>;
}

/** The Lease as a replica last read it: who holds it and what the holder published. */
export interface ObservedLease {
  holder: string;
  annotations: Readonly<Record<string, string>>;
}

/** A 403 answer to one Lease request, with the verb that was refused. */
export class LeaseForbidden extends HostwardenError {
  constructor(
    readonly verb: 'get' | 'create' | 'update',
    readonly refusal: unknown,
  ) {
    super('KUBE_LEASE_FORBIDDEN', `no permission to ${verb} the lease: ${errorMessage(refusal)}`, { cause: refusal });
  }
}

async function asVerb<T>(verb: LeaseForbidden['verb'], request: Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (err) {
    throw isStatus(err, 403) ? new LeaseForbidden(verb, err) : err;
  }
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
  metadata: { name: string; namespace?: string; resourceVersion?: string; annotations?: Record<string, string>; [k: string]: unknown };
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
  /**
   * Set while Lease requests are refused: 'alone' applies as the only replica (its first request
   * was refused and actAloneWhenForbidden is set), 'waiting' applies nothing.
   */
  private refused: 'alone' | 'waiting' | undefined;
  /** A Lease request of this replica was allowed once: from then on a 403 never means acting alone. */
  private allowedOnce = false;
  /** Verbs whose missing permission was reported: one warning each for the process's life. */
  private readonly warnedVerbs = new Set<string>();
  private wake: (() => void) | undefined;
  private wakePending = false;
  private loop: Promise<void> | undefined;
  private seen: ObservedLease | undefined;

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

  /** The Lease campaigned for. */
  get lease(): { namespace: string; name: string } {
    return { namespace: this.opts.namespace, name: this.opts.name };
  }

  /** True only while the Lease is ours and was renewed within the renew deadline. */
  isLeader(): boolean {
    if (this.refused !== undefined) return this.refused === 'alone';
    if (!this.leading) return false;
    if (this.now() - this.lastRenew < this.renewMs) return true;
    this.lose('renew deadline passed');
    return false;
  }

  /** The Lease as last read or written by this replica (undefined before the first request). */
  observedLease(): ObservedLease | undefined {
    return this.seen;
  }

  /** Renews (or campaigns) now instead of at the end of the retry period: new annotations go out at once. */
  renewSoon(): void {
    // Asked while a request is in flight: the next sleep is skipped instead of the wake being lost.
    this.wakePending = true;
    this.wake?.();
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
    if (release && this.leading && this.refused === undefined) {
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
        if (this.refused !== undefined) this.electionWorksAgain(ok);
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
        if (err instanceof LeaseForbidden) this.forbidden(err);
        else this.log.warn({ err: errorMessage(err), leading: this.leading }, 'lease request failed');
      }
      if (this.leading) this.isLeader();
      // Candidates spread their attempts; the leader renews on the period.
      const wait = this.refused !== undefined ? (this.opts.forbiddenRetryMs ?? 60_000) : this.leading ? this.retryMs : this.retryMs * (1 + this.random() * 0.2);
      await this.sleep(wait);
    }
  }

  /** A Lease request was refused: election is off until a request is allowed again. */
  private forbidden(err: LeaseForbidden): void {
    const next = this.opts.actAloneWhenForbidden === true && !this.allowedOnce ? 'alone' : 'waiting';
    this.warnForbidden(err, next);
    const was = this.refused;
    if (was === next) return;
    this.refused = next;
    // The warning above says it: no second warning for the same event.
    if (this.leading) this.lose('no permission on the lease', 'info');
    if (next === 'alone') this.opts.onStartedLeading?.();
    else if (was === 'alone') this.opts.onStoppedLeading?.();
  }

  /** One warning per refused verb for the process's life; repeats at debug level. */
  private warnForbidden(err: LeaseForbidden, mode: 'alone' | 'waiting'): void {
    const { namespace, name } = this.opts;
    if (this.warnedVerbs.has(err.verb)) {
      this.log.debug({ verb: err.verb, namespace, name }, 'lease still forbidden');
      return;
    }
    this.warnedVerbs.add(err.verb);
    const fields = {
      verb: err.verb,
      resource: 'leases',
      apiGroup: 'coordination.k8s.io',
      namespace,
      name,
      feature: 'leader election',
      // Acting alone counted as leading: the replica was applying changes until this refusal.
      leading: this.leading || this.refused === 'alone',
      code: err.code,
      err: errorMessage(err.refusal),
    };
    if (mode === 'alone')
      this.log.warn(
        fields,
        'no permission on the leader-election Lease: leader election is off and this replica applies changes as if it were the only one (run a single replica, as external-dns does, or grant get/create/update on leases); syncing goes on',
      );
    else
      this.log.warn(
        fields,
        `no permission to ${err.verb} the leader-election Lease: this replica applies no changes until get/create/update on leases is granted (another replica may be leading); it asks again quietly`,
      );
  }

  /** A Lease request was allowed after 403s: take part in the election again. */
  private electionWorksAgain(acquired: boolean): void {
    const was = this.refused;
    this.refused = undefined;
    this.log.info({ acquired }, 'permission on the Lease is back: leader election is on again');
    if (!acquired && was === 'alone') this.opts.onStoppedLeading?.();
  }

  private lose(why: string, level: 'warn' | 'info' = 'warn'): void {
    if (!this.leading) return;
    this.leading = false;
    this.log[level]({ why }, 'stopped being the leader');
    this.opts.onStoppedLeading?.();
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { client, namespace, name } = this.opts;
    const path = objectPath(LEASES, namespace, name);
    const now = new Date(this.now());
    let lease: Lease;
    try {
      lease = await asVerb('get', client.request<Lease>('GET', path, { timeoutMs: this.renewMs }));
      this.allowedOnce = true;
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
      this.allowedOnce = true;
      const fresh: Lease = {
        apiVersion: LEASES.apiVersion,
        kind: LEASES.kind,
        metadata: { name, namespace, ...this.annotated(undefined) },
        spec: {
          holderIdentity: this.identity,
          leaseDurationSeconds: Math.ceil(this.leaseMs / 1000),
          acquireTime: microTime(now),
          renewTime: microTime(now),
          leaseTransitions: 0,
        },
      };
      try {
        await asVerb('create', client.request('POST', collectionPath(LEASES, namespace), { body: fresh, timeoutMs: this.renewMs }));
        this.seen = { holder: this.identity, annotations: fresh.metadata.annotations ?? {} };
        return true;
      } catch (createErr) {
        if (isStatus(createErr, 409)) return false; // another replica created it first
        throw createErr;
      }
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    this.seen = { holder, annotations: lease.metadata.annotations ?? {} };
    const record = JSON.stringify([holder, spec.renewTime, spec.leaseTransitions]);
    if (this.observed?.record !== record) this.observed = { record, at: this.now() };
    const duration = (spec.leaseDurationSeconds ?? Math.ceil(this.leaseMs / 1000)) * 1000;
    if (holder !== '' && holder !== this.identity && this.observed.at + duration > this.now()) return false;

    const next: Lease = {
      ...lease,
      metadata: { ...lease.metadata, ...this.annotated(lease.metadata.annotations) },
      spec: {
        ...spec,
        holderIdentity: this.identity,
        leaseDurationSeconds: Math.ceil(this.leaseMs / 1000),
        renewTime: microTime(now),
        ...(holder === this.identity ? {} : { acquireTime: microTime(now), leaseTransitions: (spec.leaseTransitions ?? 0) + 1 }),
      },
    };
    try {
      await asVerb('update', client.request('PUT', path, { body: next, timeoutMs: this.renewMs }));
      this.seen = { holder: this.identity, annotations: next.metadata.annotations ?? {} };
      return true;
    } catch (err) {
      if (isStatus(err, 409)) return false;
      throw err;
    }
  }

  /** `metadata.annotations` with this replica's own set over `current`; nothing when it publishes none. */
  private annotated(current: Record<string, string> | undefined): { annotations?: Record<string, string> } {
    const own = this.opts.annotations?.();
    if (own === undefined) return current === undefined ? {} : { annotations: current };
    const out: Record<string, string> = { ...current };
    for (const [k, v] of Object.entries(own)) {
      if (v === undefined) delete out[k];
      else out[k] = v;
    }
    return { annotations: out };
  }

  private async release(): Promise<void> {
    const path = objectPath(LEASES, this.opts.namespace, this.opts.name);
    const lease = await this.opts.client.request<Lease>('GET', path);
    if (lease.spec?.holderIdentity !== this.identity) return;
    const now = microTime(new Date(this.now()));
    // What this replica published is about itself: it goes with the Lease.
    const annotations = { ...lease.metadata.annotations };
    for (const key of Object.keys(this.opts.annotations?.() ?? {})) delete annotations[key];
    const metadata = { ...lease.metadata, annotations };
    await this.opts.client.request('PUT', path, {
      body: { ...lease, metadata, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now } },
    });
    this.log.info('released the lease');
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.wakePending || this.stopped) {
        this.wakePending = false;
        resolve();
        return;
      }
      const done = (): void => {
        clearTimeout(timer);
        this.wakePending = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

export interface LeaderElectorFromFlagsOptions {
  client: Pick<KubeClient, 'request'>;
  logger: Logger;
  /** Whether the process runs in a Pod: it then elects by default and keeps its Lease beside itself. */
  inCluster: boolean;
  /** The Lease name unless --leader-election-id is given. */
  defaultName: string;
  /** The Lease namespace outside a cluster (or without a service-account namespace), before 'default'. */
  defaultNamespace?: string;
  identity?: string;
  onStartedLeading?: () => void;
  onStoppedLeading?: () => void;
  /** Published on the Lease by its holder (see LeaderElectorOptions.annotations). */
  annotations?: () => Readonly<Record<string, string | undefined>>;
  /** Where the service-account namespace file is read from in a cluster. */
  serviceAccountDir?: string;
  /**
   * The `run` command (external-dns's chart grants no Lease permission): when election is on only
   * by default (--leader-elect not given) and the very first Lease request is refused, apply as the
   * only replica. With --leader-elect given, a refused Lease never means acting alone.
   */
  actAloneUnlessAsked?: boolean;
  /** How often a replica without permission on the Lease asks again (tests). Default 60 s. */
  forbiddenRetryMs?: number;
}

/**
 * The elector the shared --leader-elect and --leader-election-* flags ask for, or undefined when
 * election is off. As in external-dns's Helm chart, replicas in a cluster elect unless told not to.
 */
export function leaderElectorFromFlags(cfg: Pick<Config, 'flags' | 'explicit'>, opts: LeaderElectorFromFlagsOptions): LeaderElector | undefined {
  const f = cfg.flags;
  const asked = cfg.explicit.has('leader-elect');
  const elect = asked ? f.bool('leader-elect') : opts.inCluster;
  if (!elect) return undefined;
  const leaseMs = f.num('leader-election-lease-duration');
  const renewMs = f.num('leader-election-renew-deadline');
  const retryMs = f.num('leader-election-retry-period');
  if (retryMs <= 0) throw new ConfigError('--leader-election-retry-period must be positive', '--leader-election-retry-period');
  if (renewMs <= retryMs)
    throw new ConfigError('--leader-election-renew-deadline must be longer than --leader-election-retry-period', '--leader-election-renew-deadline');
  if (leaseMs <= renewMs)
    throw new ConfigError('--leader-election-lease-duration must be longer than --leader-election-renew-deadline', '--leader-election-lease-duration');
  const id = f.str('leader-election-id');
  return new LeaderElector({
    client: opts.client,
    logger: opts.logger,
    namespace: leaseNamespace({
      flag: f.str('leader-election-namespace'),
      serviceAccountNamespace: opts.inCluster ? readServiceAccountNamespace(opts.serviceAccountDir ?? SERVICE_ACCOUNT_DIR) : undefined,
      ...(opts.defaultNamespace === undefined ? {} : { defaultNamespace: opts.defaultNamespace }),
    }),
    // The flag's own default names the run command's Lease; other commands keep theirs unless told.
    name: cfg.explicit.has('leader-election-id') && id !== '' ? id : opts.defaultName,
    ...(opts.identity === undefined ? {} : { identity: opts.identity }),
    leaseDurationMs: leaseMs,
    renewDeadlineMs: renewMs,
    retryPeriodMs: retryMs,
    ...(opts.onStartedLeading === undefined ? {} : { onStartedLeading: opts.onStartedLeading }),
    ...(opts.onStoppedLeading === undefined ? {} : { onStoppedLeading: opts.onStoppedLeading }),
    ...(opts.annotations === undefined ? {} : { annotations: opts.annotations }),
    ...(opts.actAloneUnlessAsked === true && !asked ? { actAloneWhenForbidden: true } : {}),
    ...(opts.forbiddenRetryMs === undefined ? {} : { forbiddenRetryMs: opts.forbiddenRetryMs }),
  });
}

/**
 * Where the Lease lives: the flag; else, in a cluster, the Pod's own namespace (its RBAC grants
 * Leases there); else the component's default; else 'default'. `serviceAccountNamespace` is
 * undefined outside a cluster.
 */
export function leaseNamespace(input: { flag: string; serviceAccountNamespace: string | undefined; defaultNamespace?: string }): string {
  if (input.flag !== '') return input.flag;
  if (input.serviceAccountNamespace !== undefined && input.serviceAccountNamespace !== '') return input.serviceAccountNamespace;
  if (input.defaultNamespace !== undefined && input.defaultNamespace !== '') return input.defaultNamespace;
  return 'default';
}

function readServiceAccountNamespace(dir: string): string | undefined {
  try {
    return readFileSync(join(dir, 'namespace'), 'utf8').trim();
  } catch {
    // No namespace file: the caller falls back to the component's default.
    return undefined;
  }
}
