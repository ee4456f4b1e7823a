/**
 * The embedded provider's SOA serials kept in the cluster, so that a pod whose data directory is
 * an emptyDir never serves, after a restart, a serial lower than one it served before (secondaries
 * would stop transferring). The ZoneStore takes the kept serials as floors at open(); the
 * SerialRecorder saves each zone's serial after every committed change, in the background.
 *
 * Where: one ConfigMap (`--embedded-serial-configmap`, default hostwarden-embedded-serials) beside
 * the leader-election Lease, one data key per zone (`example.org: "2026112601"`). Not an annotation
 * on the Lease: the elector renews by GET then PUT of the whole Lease every retry period, so a
 * serial written between the two would make the renewal fail with 409 and the leader step down.
 *
 * Writes are JSON merge patches carrying the resourceVersion read, and never lower a kept serial
 * (RFC 1982): two writers, or a late retry, cannot move it back. A conflict is read again and retried.
 */
import type { Backoff, Sleep } from '../../backoff.ts';
import { backoffDelay, sleep as realSleep } from '../../backoff.ts';
import { errorMessage } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { KubeClient } from '../../kube/client.ts';
import { isStatus } from '../../kube/errors.ts';
import { CONFIGMAPS, collectionPath, objectPath } from '../../kube/resource.ts';
import type { ZoneContent, ZoneListener } from '../../dns/zone-content.ts';
import { serialGreater } from './zone-store.ts';

export const DEFAULT_SERIAL_CONFIGMAP = 'hostwarden-embedded-serials';
const MAX_SERIAL = 2 ** 32 - 1;

/** Where each zone's latest served serial survives the data directory. */
export interface SerialKeeper {
  /** For logs: `configmap <namespace>/<name>`. */
  readonly where: string;
  load(): Promise<Map<string, number>>;
  /** Keeps `serial` for `zone` unless a newer one is kept already. */
  save(zone: string, serial: number): Promise<void>;
}

/** A request the API server refused (403), with the verb, for a warning an operator can act on. */
export class SerialKeeperForbidden extends Error {
  constructor(
    readonly verb: 'get' | 'create' | 'patch',
    readonly where: string,
    readonly refusal: unknown,
  ) {
    super(`no permission to ${verb} ${where}: ${errorMessage(refusal)}`, { cause: refusal });
    this.name = 'SerialKeeperForbidden';
  }
}

interface ConfigMap {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
  data?: Record<string, string>;
}

export interface ConfigMapSerialKeeperOptions {
  client: Pick<KubeClient, 'request'>;
  namespace: string;
  name: string;
  /** Conflicts retried per save before giving up (the recorder then retries later). Default 5. */
  maxConflicts?: number;
  backoff?: Backoff;
  sleep?: Sleep;
}

export class ConfigMapSerialKeeper implements SerialKeeper {
  readonly where: string;
  private readonly opts: ConfigMapSerialKeeperOptions;

  constructor(opts: ConfigMapSerialKeeperOptions) {
    this.opts = opts;
    this.where = `configmap ${opts.namespace}/${opts.name}`;
  }

  async load(): Promise<Map<string, number>> {
    const cm = await this.read();
    const out = new Map<string, number>();
    for (const [zone, text] of Object.entries(cm?.data ?? {})) {
      const serial = parseSerial(text);
      // An entry edited into something else is no floor: the zone file's own serial still counts.
      if (serial !== undefined) out.set(zone, serial);
    }
    return out;
  }

  async save(zone: string, serial: number): Promise<void> {
    const max = this.opts.maxConflicts ?? 5;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.saveOnce(zone, serial);
        return;
      } catch (err) {
        if (!isStatus(err, 409) || attempt >= max) throw err;
      }
      await (this.opts.sleep ?? realSleep)(backoffDelay(this.opts.backoff ?? { initialMs: 50, maxMs: 1000 }, attempt));
    }
  }

  private async saveOnce(zone: string, serial: number): Promise<void> {
    const cm = await this.read();
    const data = { [zone]: String(serial) };
    if (cm === undefined) {
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: this.opts.name, namespace: this.opts.namespace }, data };
      await this.as('create', this.opts.client.request('POST', collectionPath(CONFIGMAPS, this.opts.namespace), { body }));
      return;
    }
    const kept = parseSerial(cm.data?.[zone]);
    if (kept !== undefined && !serialGreater(serial, kept)) return;
    const body = { metadata: { resourceVersion: cm.metadata.resourceVersion }, data };
    const { namespace, name } = this.opts;
    await this.as('patch', this.opts.client.request('PATCH', objectPath(CONFIGMAPS, namespace, name), { body, contentType: 'application/merge-patch+json' }));
  }

  private async read(): Promise<ConfigMap | undefined> {
    try {
      return await this.as('get', this.opts.client.request<ConfigMap>('GET', objectPath(CONFIGMAPS, this.opts.namespace, this.opts.name)));
    } catch (err) {
      if (isStatus(err, 404)) return undefined;
      throw err;
    }
  }

  private async as<T>(verb: SerialKeeperForbidden['verb'], request: Promise<T>): Promise<T> {
    try {
      return await request;
    } catch (err) {
      throw isStatus(err, 403) ? new SerialKeeperForbidden(verb, this.where, err) : err;
    }
  }
}

function parseSerial(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,10}$/.test(text)) return undefined;
  const n = Number(text);
  return n <= MAX_SERIAL ? n : undefined;
}

function forbiddenFields(err: unknown): Record<string, string> {
  return err instanceof SerialKeeperForbidden ? { verb: err.verb, resource: 'configmaps', apiGroup: '', feature: 'embedded SOA serials' } : {};
}

export interface SerialRecorderOptions {
  keeper: SerialKeeper;
  logger: Logger;
  /** Only the replica that writes saves (the leader when election is on). */
  canSave?: () => boolean;
  backoff?: Backoff;
  /** A repeated failure is logged at most this often (default 60 s); a refused verb once. */
  warnEveryMs?: number;
  now?: () => number;
  /** How long a commit waits for its serial to be kept before serving it anyway (default 2 s). */
  reserveTimeoutMs?: number;
}

/**
 * Listens to the zone store and saves each zone's latest serial. Saving never delays a commit or
 * an answer: zoneChanged only notes the serial; one background loop saves, retrying failures with
 * the backoff and keeping the newest serial of each zone until it is saved.
 */
export class SerialRecorder implements ZoneListener {
  private readonly opts: SerialRecorderOptions;
  private readonly pending = new Map<string, number>();
  /** The newest serial of each zone already kept by reserve(): zoneChanged need not save it again. */
  private readonly reserved = new Map<string, number>();
  private readonly warnedVerbs = new Set<string>();
  private readonly stop = new AbortController();
  private lastWarn = Number.NEGATIVE_INFINITY;
  private draining: Promise<void> | undefined;

  constructor(opts: SerialRecorderOptions) {
    this.opts = opts;
  }

  zoneChanged(zone: ZoneContent): void {
    if (this.stop.signal.aborted || this.opts.canSave?.() === false) return;
    const reserved = this.reserved.get(zone.origin);
    if (reserved !== undefined && !serialGreater(zone.soa.serial, reserved)) return;
    const known = this.pending.get(zone.origin);
    if (known === undefined || serialGreater(zone.soa.serial, known)) this.pending.set(zone.origin, zone.soa.serial);
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
  }

  /**
   * Keeps `serial` before the store serves it (ZoneStoreOptions.reserveSerial), so a replica that
   * takes over as leader never reuses a serial a follower already holds. Bounded by
   * reserveTimeoutMs and never throws: a cluster that does not answer delays a change, never stops it
   * (zoneChanged then saves it in the background like any other).
   */
  async reserve(zone: string, serial: number): Promise<void> {
    if (this.stop.signal.aborted || this.opts.canSave?.() === false) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.opts.reserveTimeoutMs ?? 2000)));
    try {
      const outcome = await Promise.race([this.opts.keeper.save(zone, serial).then(() => 'saved' as const), timeout]);
      if (outcome === 'saved') {
        const known = this.reserved.get(zone);
        if (known === undefined || serialGreater(serial, known)) this.reserved.set(zone, serial);
      }
    } catch (err) {
      this.report(err, 1);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The kept serials at start-up, or none: a cluster that does not answer (or refuses) must not
   * stop the DNS server from starting, it only loses the floor (the zone files' serials still count).
   */
  async loadFloors(opts: { attempts?: number; sleep?: Sleep } = {}): Promise<Map<string, number>> {
    const { keeper, logger } = this.opts;
    const attempts = opts.attempts ?? 3;
    for (let attempt = 1; ; attempt++) {
      try {
        const floors = await keeper.load();
        logger.info({ where: keeper.where, serials: Object.fromEntries(floors) }, 'loaded the SOA serials kept in the cluster');
        return floors;
      } catch (err) {
        if (err instanceof SerialKeeperForbidden) {
          this.report(err, attempt);
          return new Map();
        }
        if (attempt >= attempts) {
          logger.warn(
            { where: keeper.where, err: errorMessage(err) },
            'cannot read the SOA serials kept in the cluster: new zones start at the Unix time, which can be below a serial served before a restart',
          );
          return new Map();
        }
      }
      await (opts.sleep ?? realSleep)(backoffDelay({ initialMs: 500, maxMs: 2000 }, attempt));
    }
  }

  /** Resolves once every noted serial is saved (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.draining !== undefined) await this.draining;
  }

  /** Gives the pending saves up to `graceMs`, then stops retrying. */
  async close(graceMs = 2000): Promise<void> {
    const timer = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([this.idle(), timer]);
    this.stop.abort();
    if (this.pending.size > 0)
      this.opts.logger.warn({ where: this.opts.keeper.where, serials: Object.fromEntries(this.pending) }, 'SOA serials not saved before stopping');
  }

  private async drain(): Promise<void> {
    let failures = 0;
    while (this.pending.size > 0 && !this.stop.signal.aborted) {
      const [zone, serial] = this.pending.entries().next().value as [string, number];
      try {
        await this.opts.keeper.save(zone, serial);
        // A newer serial noted meanwhile stays pending for the next round.
        if (this.pending.get(zone) === serial) this.pending.delete(zone);
        if (failures > 0) this.opts.logger.info({ where: this.opts.keeper.where }, 'SOA serials are saved in the cluster again');
        failures = 0;
      } catch (err) {
        failures++;
        this.report(err, failures);
        // Another zone goes first next time, so one failing entry does not hold back the rest.
        const latest = this.pending.get(zone) ?? serial;
        this.pending.delete(zone);
        this.pending.set(zone, latest);
        await realSleep(backoffDelay(this.opts.backoff ?? { initialMs: 1000, maxMs: 60_000 }, failures), this.stop.signal);
      }
    }
  }

  private report(err: unknown, failures: number): void {
    const { logger, keeper } = this.opts;
    if (err instanceof SerialKeeperForbidden) {
      if (this.warnedVerbs.has(err.verb)) return void logger.debug({ where: keeper.where, verb: err.verb }, 'configmaps still forbidden');
      this.warnedVerbs.add(err.verb);
      logger.warn(
        { where: keeper.where, ...forbiddenFields(err), err: errorMessage(err.refusal) },
        `no permission to ${err.verb} configmaps (${keeper.where}): the SOA serials are not kept in the cluster, so after a restart with an empty data directory a zone may serve a lower serial; grant get/create/patch on configmaps. DNS answers go on; asking again quietly`,
      );
      return;
    }
    const now = (this.opts.now ?? Date.now)();
    if (now - this.lastWarn < (this.opts.warnEveryMs ?? 60_000)) return;
    this.lastWarn = now;
    logger.warn({ where: keeper.where, failures, err: errorMessage(err) }, 'cannot save the SOA serials in the cluster; retrying');
  }
}
