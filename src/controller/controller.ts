/**
 * The sync loop: read desired endpoints from the source, current records from the registry,
 * plan, apply. It syncs at start, after source events (debounced by the minimum event interval)
 * and every interval. Transient failures are retried with jittered exponential backoff and
 * never end the loop; permanent ones wait for the next event or interval.
 */
import { backoffDelay } from '../backoff.ts';
import { EndpointsByName } from '../endpoint/by-name.ts';
import type { DomainMatcher } from '../endpoint/domain-filter.ts';
import { AllDomainFilters } from '../endpoint/domain-filter.ts';
import type { Endpoint, RecordType } from '../endpoint/endpoint.ts';
import { errorMessage, isTransient } from '../errors.ts';
import type { Logger } from '../log.ts';
import { calculatePlan } from '../plan/plan.ts';
import type { Decision, PlanInput, Policy } from '../plan/plan.ts';
import type { Changes } from '../plan/changes.ts';
import { hasChanges } from '../plan/changes.ts';
import type { Registry } from '../registry/registry.ts';
import type { Source } from '../source/source.ts';
import { ControllerMetrics, labelValue } from './metrics.ts';
import { summariseChanges } from './summary.ts';

export interface PlanSettings {
  policy: Policy;
  managedRecordTypes: readonly RecordType[];
  excludeRecordTypes: readonly RecordType[];
  domainFilter: DomainMatcher;
  migrateFromOwner: string;
}

export interface ControllerOptions {
  source: Source;
  registry: Registry;
  plan: PlanSettings;
  intervalMs: number;
  minEventSyncIntervalMs: number;
  dryRun: boolean;
  logger: Logger;
  metrics?: ControllerMetrics;
  /** Bounds for retry backoff after transient errors. */
  backoff?: { initialMs: number; maxMs: number };
  random?: () => number;
  now?: () => number;
  /** Leader election: while it answers false the loop plans but applies nothing. */
  canApply?: () => boolean;
  /** Called after each successful sync that was allowed to apply (Kubernetes Events). Never fails a sync. */
  onSynced?: (report: SyncReport) => void;
  /** Called after each failed sync with the error (a status report to an owner object, for instance). Never throws. */
  onSyncFailed?: (err: unknown) => void;
  /**
   * Called after every successful sync, whether or not it applied (a replica that does not lead,
   * a dry run): what the web console shows. Never fails a sync.
   */
  onPlanned?: (report: SyncReport) => void;
}

export interface SyncReport {
  desired: readonly Endpoint[];
  current: readonly Endpoint[];
  changes: Changes;
  applied: boolean;
  ownerId: string;
  /** The planner's decisions for these names, from the same inputs (costs one more plan). */
  explain: (names: ReadonlySet<string>) => Decision[];
}

export interface SyncResult {
  changes: Changes;
  desired: number;
  current: number;
  applied: boolean;
}

export class Controller {
  private readonly opts: ControllerOptions;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly random: () => number;
  private wake: (() => void) | undefined;
  private eventPending = false;
  private lastSyncStart = Number.NEGATIVE_INFINITY;
  /** Time of the last sync attempt; /healthz reads it to spot a stuck loop. */
  lastAttemptAt = 0;
  lastSuccessAt = 0;
  /** Failed syncs since the last success (the hostwarden_sync_consecutive_failures gauge), for /healthz. */
  consecutiveFailures = 0;

  constructor(opts: ControllerOptions) {
    this.opts = opts;
    this.log = opts.logger;
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
  }

  private report(hook: ((report: SyncReport) => void) | undefined, report: SyncReport): void {
    try {
      hook?.(report);
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'sync report hook failed');
    }
  }

  /** One full synchronisation. Throws on failure; the caller decides about retries. */
  async runOnce(): Promise<SyncResult> {
    const { source, registry, metrics } = this.opts;
    const started = this.now();
    this.lastSyncStart = started;
    this.lastAttemptAt = started;
    metrics?.lastReconcileTimestamp.set(started / 1000);

    const desired = await stage(
      () => source.endpoints(),
      () => metrics?.sourceErrors.inc(),
    );
    const held = heldInput(source);
    metrics?.sourceEndpoints.set(desired.length);
    if (metrics !== undefined) ControllerMetrics.countByType(metrics.sourceRecords, desired);
    const adjusted = await stage(
      () => registry.adjustEndpoints(desired),
      () => metrics?.registryErrors.inc(),
    );
    const current = await stage(
      () => registry.records(),
      () => metrics?.registryErrors.inc(),
    );
    metrics?.registryEndpoints.set(current.length);
    if (metrics !== undefined) ControllerMetrics.countByType(metrics.registryRecords, current);

    const planInput: PlanInput = {
      current,
      desired: adjusted,
      ownerId: registry.ownerId,
      policy: this.opts.plan.policy,
      managedRecordTypes: this.opts.plan.managedRecordTypes,
      excludeRecordTypes: this.opts.plan.excludeRecordTypes,
      domainFilter: new AllDomainFilters([this.opts.plan.domainFilter, registry.domainFilter()]),
      migrateFromOwner: this.opts.plan.migrateFromOwner === '' ? undefined : this.opts.plan.migrateFromOwner,
      ...held,
    };
    const { changes, ownerMismatches } = calculatePlan(planInput);
    this.recordVerified(adjusted, current, changes);
    metrics?.setOwnerMismatches(registry.ownerId, ownerMismatches);

    let applied = false;
    const leading = this.opts.canApply?.() ?? true;
    if (!hasChanges(changes)) {
      metrics?.noOpRuns.inc();
      this.log.debug({ desired: adjusted.length, current: current.length }, 'all records are up to date');
    } else if (this.opts.dryRun) {
      this.log.info({ ...summariseChanges(changes), dryRun: true }, 'planned changes (dry run, nothing applied)');
    } else if (!leading) {
      this.log.info({ ...summariseChanges(changes), leader: false }, 'planned changes (not the leader, nothing applied)');
    } else {
      this.log.info(summariseChanges(changes), 'applying changes');
      await stage(
        () => registry.applyChanges(changes),
        () => metrics?.registryErrors.inc(),
      );
      metrics?.changes.inc({ action: 'create' }, changes.create.length);
      metrics?.changes.inc({ action: 'update' }, changes.updateNew.length);
      metrics?.changes.inc({ action: 'delete' }, changes.delete.length);
      applied = true;
    }
    const report: SyncReport = {
      desired: adjusted,
      current,
      changes,
      applied,
      ownerId: registry.ownerId,
      explain: (names) => calculatePlan({ ...planInput, explainNames: names }).decisions,
    };
    if (leading && !this.opts.dryRun) this.report(this.opts.onSynced, report);
    this.report(this.opts.onPlanned, report);
    const finished = this.now();
    this.lastSuccessAt = finished;
    metrics?.lastSyncTimestamp.set(finished / 1000);
    metrics?.syncDuration.observe((finished - started) / 1000);
    return { changes, desired: adjusted.length, current: current.length, applied };
  }

  /**
   * Runs until the signal aborts. Never throws for sync failures. A stop does not wait for the
   * sync in progress: whatever it waits on (a hung provider API, a slow disk, a file that never
   * answers) must not hold the process past SIGTERM. The abandoned sync runs on until the
   * process ends or its provider is closed; a provider write it already started finishes first,
   * because closing the provider waits for it (the embedded store does), and the next start
   * plans again from what is really there.
   */
  async run(signal: AbortSignal): Promise<void> {
    const unsubscribe = this.opts.source.addEventHandler(() => this.onEvent());
    const backoff = this.opts.backoff ?? { initialMs: 1000, maxMs: Math.min(this.opts.intervalMs, 60_000) };
    let failures = 0;
    let softErrors = 0;
    try {
      while (!signal.aborted) {
        this.eventPending = false;
        let delay = this.opts.intervalMs;
        try {
          if ((await untilAborted(this.runOnce(), signal, this.log)) === ABORTED) break;
          failures = 0;
          this.consecutiveFailures = 0;
          this.opts.metrics?.consecutiveFailures.set(0);
          softErrors = 0;
          this.opts.metrics?.consecutiveSoftErrors.set(0);
        } catch (err) {
          failures++;
          this.consecutiveFailures = failures;
          const transient = isTransient(err);
          this.opts.metrics?.syncFailures.inc({ transient: String(transient) });
          this.opts.metrics?.consecutiveFailures.set(failures);
          if (transient) {
            delay = backoffDelay(backoff, failures, this.random);
            this.opts.metrics?.retries.inc();
            // external-dns's soft errors are the ones it retries; a hard error ends its process,
            // while Hostwarden waits for the next event or interval and leaves this count alone.
            this.opts.metrics?.consecutiveSoftErrors.set(++softErrors);
          }
          this.log.error(
            { err: errorMessage(err), code: (err as { code?: string }).code, transient, failures, retryInMs: Math.round(delay) },
            'synchronisation failed',
          );
          try {
            this.opts.onSyncFailed?.(err);
          } catch (hookErr) {
            this.log.warn({ err: errorMessage(hookErr) }, 'sync failure hook failed');
          }
        }
        await this.waitForNextSync(delay, signal);
      }
    } finally {
      unsubscribe();
    }
  }

  /** Asks for a sync as a source event does (leadership gained, for instance). */
  trigger(): void {
    this.onEvent();
  }

  private onEvent(): void {
    this.eventPending = true;
    this.wake?.();
  }

  /** Sleeps until the interval elapses or an event arrives (but not sooner than the minimum event interval). */
  /** When the next sync is due (ms since the epoch), or 0 outside run(); an event may bring it forward. */
  nextSyncAt = 0;

  private async waitForNextSync(delayMs: number, signal: AbortSignal): Promise<void> {
    const deadline = this.now() + delayMs;
    this.nextSyncAt = deadline;
    while (!signal.aborted) {
      const eventAt = this.eventPending ? this.lastSyncStart + this.opts.minEventSyncIntervalMs : Number.POSITIVE_INFINITY;
      const until = Math.min(deadline, eventAt) - this.now();
      if (until <= 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, until);
        const onAbort = (): void => done();
        signal.addEventListener('abort', onAbort, { once: true });
        this.wake = done;
        function done(): void {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve();
        }
      });
      this.wake = undefined;
    }
  }

  private recordVerified(desired: readonly Endpoint[], current: readonly Endpoint[], changes: Changes): void {
    const metrics = this.opts.metrics;
    if (metrics === undefined) return;
    // A desired record is verified when the provider already holds it as wanted: it is managed,
    // exists, and the plan neither creates nor updates it. This runs over every record on every
    // sync, so records are looked up by their (existing) name string instead of a built key.
    const managed = new Set(this.opts.plan.managedRecordTypes.filter((t) => !this.opts.plan.excludeRecordTypes.includes(t)));
    const existing = byName(current);
    const changed = byName([...changes.create, ...changes.updateNew]);
    const counts = new Map<string, number>();
    for (const ep of desired) {
      if (managed.has(ep.recordType) && holds(existing, ep) && !holds(changed, ep)) counts.set(ep.recordType, (counts.get(ep.recordType) ?? 0) + 1);
    }
    metrics.verifiedRecords.reset();
    for (const [type, n] of counts) metrics.verifiedRecords.set({ record_type: labelValue(type) }, n);
  }
}

/** The record sets of `endpoints`, looked up by name, type and set identifier (as endpointKey). */
function byName(endpoints: readonly Endpoint[]): EndpointsByName {
  const out = new EndpointsByName();
  for (const ep of endpoints) out.add(ep);
  return out;
}

function holds(index: EndpointsByName, ep: Endpoint): boolean {
  return index.has(ep.dnsName, ep.recordType, ep.setIdentifier);
}

export const ABORTED: unique symbol = Symbol('aborted');

/**
 * The outcome of `work`, or ABORTED as soon as `signal` aborts (then `work` is left running and
 * its eventual failure is only logged).
 */
export async function untilAborted<T>(work: Promise<T>, signal: AbortSignal, log: Logger): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    abandon(work, log);
    return ABORTED;
  }
  let onAbort!: () => void;
  const aborted = new Promise<typeof ABORTED>((resolve) => {
    onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const outcome = await Promise.race([work, aborted]);
    if (outcome === ABORTED) abandon(work, log);
    return outcome;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

function abandon(work: Promise<unknown>, log: Logger): void {
  log.info('stopping without waiting for the synchronisation in progress');
  work.catch((err: unknown) => log.debug({ err: errorMessage(err) }, 'abandoned synchronisation failed'));
}

async function stage<T>(fn: () => Promise<T>, onError: () => void): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    onError();
    throw err;
  }
}

/**
 * The source's held resources (objects it could not translate) for the plan, taken right after the
 * list they belong to, before anything else can run.
 */
function heldInput(source: Source): Pick<PlanInput, 'heldResources'> {
  const held = source.heldResources?.();
  return held === undefined || held.size === 0 ? {} : { heldResources: held };
}
