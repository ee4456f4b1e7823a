/**
 * The DNSRecord reconciler, in the kubebuilder shape: read the object by key (gone: stop), honour
 * the operation annotation, handle deletion through the finalizer, make the one record set real,
 * and report in status what happened, in the terms gardenlet waits for (lastOperation, lastError
 * codes, the Created condition, observedGeneration).
 */
import { ProviderError, errorMessage } from '../errors.ts';
import type { KubeClient } from '../kube/client.ts';
import type { EventRecorder } from '../kube/events.ts';
import { hasFinalizer, patchFinalizers } from '../kube/conditions.ts';
import { isStatus } from '../kube/errors.ts';
import { objectPath } from '../kube/resource.ts';
import type { ReconcileResult } from '../kube/work-queue.ts';
import { isInZone, tryNormalizeDnsName } from '../endpoint/name.ts';
import type { Logger } from '../log.ts';
import { ConfigurationProblem, isThrottled } from './backend.ts';
import type { BackendFactory, BackendZone, RecordSet, RecordSetBackend } from './backend.ts';
import type { CredentialLimiters } from './limiters.ts';
import { clusterFor, isFailed, shootNeedsForceDeletion } from './cluster.ts';
import { determineErrorCodes } from './error-codes.ts';
import { DESCRIPTIONS, createdConditionStatus, failed, operationType, processing, shouldSkipOperation, succeeded } from './status.ts';
import type { CreatedUpdate } from './status.ts';
import {
  DEFAULT_TTL,
  DNSRECORDS,
  ERR_CONFIGURATION_PROBLEM,
  ERR_INFRA_DEPENDENCIES,
  ERR_INFRA_RATE_LIMITS_EXCEEDED,
  ERR_INFRA_UNAUTHORIZED,
  FINALIZER,
  ipStackOf,
  OPERATION_ANNOTATION,
  OP_RECONCILE,
  OP_WAIT_FOR_STATE,
  SECRETS,
} from './types.ts';
import type { DNSRecord, DNSRecordStatus, DNSRecordType, OperationType } from './types.ts';
import { describeProblems, validateSpec } from './validate.ts';

export interface BackendType {
  /** False for types that hold no credentials (embedded): the Secret is not read. */
  needsSecret: boolean;
  build: BackendFactory;
}

export interface DNSRecordReconcilerOptions {
  client: Pick<KubeClient, 'request'>;
  backends: Readonly<Record<string, BackendType>>;
  limiters: CredentialLimiters;
  logger: Logger;
  /** Requeue delay after a configuration problem (a Secret may be fixed without touching the record). */
  configRetryMs?: number;
  /** Requeue delay after the provider throttled us. */
  throttleRetryMs?: number;
  /** Re-apply a record this long after each success, repairing changes made at the provider by hand (0: never). */
  syncPeriodMs?: number;
  /** How long one zone listing of a backend serves other records that need one (default 5 s). */
  zoneCacheMs?: number;
  /** Events on the DNSRecord: `<Operation>Succeeded` (Normal) and `<Operation>Failed` (Warning). */
  events?: Pick<EventRecorder, 'record'>;
  now?: () => Date;
}

interface Secret {
  metadata: { resourceVersion?: string };
  data?: Record<string, string>;
}

export class DNSRecordReconciler {
  private readonly opts: DNSRecordReconcilerOptions;
  private readonly log: Logger;
  private readonly now: () => Date;
  /** Backends by type, Secret and its resourceVersion, and region: a changed Secret builds a new one. */
  private readonly backends = new Map<string, RecordSetBackend>();
  /** One zone listing per backend at a time, reused briefly: 500 new records need not list 500 times. */
  private readonly zoneLists = new WeakMap<RecordSetBackend, { at: number; zones: Promise<BackendZone[]> }>();
  /** Zone listings made, for metrics and tests (a second reconcile must make none). */
  zoneListings = 0;

  constructor(opts: DNSRecordReconcilerOptions) {
    this.opts = opts;
    this.log = opts.logger;
    this.now = opts.now ?? (() => new Date());
  }

  /**
   * Reconcile as Gardener's OperationAnnotationWrapper and DNSRecord reconciler do: wait-for-state
   * waits, the reconcile annotation is removed first, records of a failed shoot are skipped, then
   * migrate, delete, restore or reconcile.
   */
  async reconcile(key: string): Promise<ReconcileResult> {
    const [namespace = '', name = ''] = key.includes('/') ? key.split('/', 2) : ['', key];
    let obj = await this.get(namespace, name);
    if (obj === undefined) return {};
    const op = obj.metadata.annotations?.[OPERATION_ANNOTATION];
    if (op === OP_WAIT_FOR_STATE) return {};
    if (op === OP_RECONCILE) obj = await this.dropAnnotation(obj);
    const cluster = await clusterFor(this.opts.client, namespace);
    if (isFailed(cluster)) {
      this.log.info({ dnsrecord: key }, 'Skipping the reconciliation of DNSRecord of failed shoot');
      return {};
    }
    const type = operationType(obj);
    if (shouldSkipOperation(type, obj)) return {};
    if (type === 'Migrate') return this.migrate(obj);
    if (obj.metadata.deletionTimestamp !== undefined) return this.delete(obj, shootNeedsForceDeletion(cluster));
    const result = await this.run(obj, type, 'true', (current) => this.write(current, type));
    if (type === 'Restore' && result.ok) await this.dropAnnotation(result.obj);
    return result.requeue;
  }

  async close(): Promise<void> {
    for (const b of this.backends.values()) await b.close?.();
    this.backends.clear();
  }

  /**
   * Runs one operation between the status updater's Processing and its Succeeded or Error patch;
   * throws only what the queue should retry with backoff.
   */
  private async run(
    obj: DNSRecord,
    type: OperationType,
    created: CreatedUpdate | undefined,
    body: (current: DNSRecord) => Promise<{ extra?: Partial<DNSRecordStatus>; obj: DNSRecord }>,
  ): Promise<{ ok: boolean; obj: DNSRecord; requeue: ReconcileResult }> {
    const text = DESCRIPTIONS[type];
    let current = obj;
    try {
      if (type !== 'Delete' && type !== 'Migrate' && !hasFinalizer(current, FINALIZER))
        current = await patchFinalizers(this.opts.client, DNSRECORDS, current, { add: FINALIZER });
      current = await this.patchStatus(current, processing(type, text.processing, this.now()));
      const done = await body(current);
      const status = succeeded(done.obj, type, text.success, this.now(), {
        ...(created === undefined ? {} : { created }),
        ...(done.extra === undefined ? {} : { extra: done.extra }),
      });
      const stored = await this.patchStatus(done.obj, status);
      this.event(obj, 'Normal', `${type}Succeeded`, text.success);
      const period = this.opts.syncPeriodMs ?? 0;
      return { ok: true, obj: stored, requeue: type !== 'Delete' && type !== 'Migrate' && period > 0 ? { requeueAfterMs: period } : {} };
    } catch (err) {
      // A write race with another client (stale resourceVersion) is not the record's problem: retry quietly.
      if (isStatus(err, 409)) throw err;
      const { description, codes, requeueAfterMs } = this.classify(err);
      const full = `${text.error}: ${description}`;
      this.log.warn(
        { dnsrecord: `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`, operation: type, codes, err: description },
        'DNSRecord operation failed',
      );
      this.event(obj, 'Warning', `${type}Failed`, full);
      const reported = failed(current, type, full, codes, this.now(), created === 'true' ? { created: 'false' } : {});
      await this.patchStatus(current, reported).catch((e: unknown) => {
        if (!isStatus(e, 404)) throw e;
      });
      // Negative: nothing to retry until the DNSRecord changes (the watch brings that change).
      if (requeueAfterMs !== undefined) return { ok: false, obj: current, requeue: requeueAfterMs >= 0 ? { requeueAfterMs } : {} };
      throw err;
    }
  }

  private classify(err: unknown): { description: string; codes: string[]; requeueAfterMs?: number } {
    const message = errorMessage(err);
    if (err instanceof ConfigurationProblem)
      return {
        description: message,
        codes: determineErrorCodes(message, err.codes),
        requeueAfterMs: err.retry ? (this.opts.configRetryMs ?? 60_000) : -1,
      };
    if (isThrottled(err)) {
      const after = this.opts.throttleRetryMs ?? 10_000;
      return {
        description: `the DNS provider throttled our requests, retrying in ${Math.round(after / 1000)}s: ${message}`,
        codes: determineErrorCodes(message, [ERR_INFRA_RATE_LIMITS_EXCEEDED]),
        requeueAfterMs: after,
      };
    }
    if (err instanceof ProviderError && (err.code === 'PROVIDER_ACCESS_DENIED' || err.code === 'PROVIDER_UNAUTHORIZED'))
      return { description: message, codes: determineErrorCodes(message, [ERR_INFRA_UNAUTHORIZED]) };
    const derived = determineErrorCodes(message);
    if (derived.length === 0 && err instanceof ProviderError && err.transient) return { description: message, codes: [ERR_INFRA_DEPENDENCIES] };
    return { description: message, codes: derived };
  }

  private async write(obj: DNSRecord, type: OperationType): Promise<{ extra: Partial<DNSRecordStatus>; obj: DNSRecord }> {
    const problems = validateSpec(obj.spec);
    if (problems.length > 0) throw new ConfigurationProblem(`invalid DNSRecord: ${describeProblems(problems)}`, [ERR_CONFIGURATION_PROBLEM], { retry: false });
    const backend = await this.backendFor(obj);
    const rrset = recordSetOf(obj);
    const zone = await this.zoneFor(obj, backend, rrset.name, true);
    await backend.upsert(zone as string, rrset);
    this.log.info(
      { dnsrecord: `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`, operation: type, zone, name: rrset.name, type: rrset.type },
      'DNS record set written',
    );
    return { extra: { zone: zone as string }, obj };
  }

  /**
   * Delete as reconciler.go does: no finalizer, nothing to do; Created True or Unknown (absent: the
   * status write after an upsert may have been lost, or the record was adopted or restored) removes
   * the record set, only False (never written) skips the provider; then the finalizer goes.
   * Force deletion (ShootNeedsForceDeletion) takes the actuator's ForceDelete, which for every
   * Hostwarden type is Delete, as provider-aws's is.
   */
  private async delete(obj: DNSRecord, force: boolean): Promise<ReconcileResult> {
    if (!hasFinalizer(obj, FINALIZER)) return {};
    let current = obj;
    if (createdConditionStatus(obj.status) !== 'False') {
      const result = await this.run(obj, 'Delete', undefined, async (o) => {
        if (force) this.log.info({ dnsrecord: `${o.metadata.namespace ?? ''}/${o.metadata.name}` }, 'force deletion confirmed for the shoot');
        await this.removeRecordSet(o);
        return { obj: o };
      });
      if (!result.ok) return result.requeue;
      current = result.obj;
    }
    if (hasFinalizer(current, FINALIZER))
      await patchFinalizers(this.opts.client, DNSRECORDS, current, { remove: FINALIZER }).catch((e: unknown) => {
        if (!isStatus(e, 404)) throw e;
      });
    return {};
  }

  private async removeRecordSet(obj: DNSRecord): Promise<void> {
    const backend = await this.backendFor(obj);
    const rrset = recordSetOf(obj);
    const zone = await this.zoneFor(obj, backend, rrset.name, false);
    if (zone !== undefined) await backend.remove(zone, rrset);
  }

  /** Migrate: the record stays in DNS for the new owner; all finalizers and the annotation go (RemoveAllFinalizers). */
  private async migrate(obj: DNSRecord): Promise<ReconcileResult> {
    const result = await this.run(obj, 'Migrate', undefined, (o) => Promise.resolve({ obj: o }));
    if (!result.ok) return result.requeue;
    const path = objectPath(DNSRECORDS, obj.metadata.namespace ?? '', obj.metadata.name);
    await this.opts.client.request('PATCH', path, {
      body: { metadata: { resourceVersion: result.obj.metadata.resourceVersion, finalizers: null, annotations: { [OPERATION_ANNOTATION]: null } } },
      contentType: 'application/merge-patch+json',
    });
    return {};
  }

  /** spec.zone, else status.zone, else the longest zone of the account that holds the name. */
  private async zoneFor(obj: DNSRecord, backend: RecordSetBackend, name: string, required: boolean): Promise<string | undefined> {
    const known = obj.spec.zone ?? obj.status?.zone;
    if (known !== undefined && known !== '') return known;
    const listing = this.listZones(backend, false);
    let zones = await listing.zones;
    let best = longestZone(zones, name);
    // A zone made after a shared listing: a miss is checked against a fresh one.
    if (best === undefined && listing.reused) {
      zones = await this.listZones(backend, true).zones;
      best = longestZone(zones, name);
    }
    if (best === undefined && required)
      throw new ConfigurationProblem(`no zone found for ${name} among the ${zones.length} zones the credentials can see; set spec.zone`, [
        ERR_CONFIGURATION_PROBLEM,
      ]);
    return best?.id;
  }

  private listZones(backend: RecordSetBackend, fresh: boolean): { zones: Promise<BackendZone[]>; reused: boolean } {
    const at = Date.now();
    const cached = this.zoneLists.get(backend);
    if (!fresh && cached !== undefined && at - cached.at < (this.opts.zoneCacheMs ?? 5_000)) return { zones: cached.zones, reused: true };
    this.zoneListings++;
    const zones = backend.listZones();
    this.zoneLists.set(backend, { at, zones });
    // A failed listing is not kept: the next reconcile asks again.
    zones.catch(() => this.zoneLists.delete(backend));
    return { zones, reused: false };
  }

  private async backendFor(obj: DNSRecord): Promise<RecordSetBackend> {
    const type = this.opts.backends[obj.spec.type];
    if (type === undefined) throw new ConfigurationProblem(`DNSRecord type ${JSON.stringify(obj.spec.type)} is not supported by this controller`);
    const ns = obj.spec.secretRef.namespace ?? obj.metadata.namespace ?? '';
    const secretName = `${ns}/${obj.spec.secretRef.name}`;
    let data: Record<string, string> = {};
    let version = '';
    if (type.needsSecret) {
      const secret = await this.opts.client.request<Secret>('GET', objectPath(SECRETS, ns, obj.spec.secretRef.name)).catch((err: unknown) => {
        if (isStatus(err, 404)) throw new ConfigurationProblem(`secret ${secretName} not found`);
        throw err;
      });
      version = secret.metadata.resourceVersion ?? '';
      data = Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
    }
    const cacheKey = `${obj.spec.type}|${secretName}|${obj.spec.region ?? ''}`;
    const cached = this.backends.get(`${cacheKey}|${version}`);
    if (cached !== undefined) return cached;
    for (const [k, b] of this.backends) {
      if (k.startsWith(`${cacheKey}|`)) {
        this.backends.delete(k);
        await b.close?.();
      }
    }
    const backend = await type.build({
      spec: obj.spec,
      secret: data,
      secretName,
      logger: this.log.child({ type: obj.spec.type }),
      limiters: this.opts.limiters,
    });
    this.backends.set(`${cacheKey}|${version}`, backend);
    return backend;
  }

  private event(obj: DNSRecord, type: 'Normal' | 'Warning', reason: string, note: string): void {
    this.opts.events?.record(
      {
        apiVersion: DNSRECORDS.apiVersion,
        kind: DNSRECORDS.kind,
        namespace: obj.metadata.namespace ?? '',
        name: obj.metadata.name,
        ...(obj.metadata.uid === undefined ? {} : { uid: obj.metadata.uid }),
      },
      type,
      reason,
      note,
    );
  }

  private async get(namespace: string, name: string): Promise<DNSRecord | undefined> {
    try {
      return await this.opts.client.request<DNSRecord>('GET', objectPath(DNSRECORDS, namespace, name));
    } catch (err) {
      if (isStatus(err, 404)) return undefined;
      throw err;
    }
  }

  /** Writes status through the subresource; returns the object as stored (its new resourceVersion). */
  private async patchStatus(obj: DNSRecord, status: DNSRecordStatus): Promise<DNSRecord> {
    return this.opts.client.request<DNSRecord>('PATCH', `${objectPath(DNSRECORDS, obj.metadata.namespace ?? '', obj.metadata.name)}/status`, {
      body: { status },
      contentType: 'application/merge-patch+json',
    });
  }

  private async dropAnnotation(obj: DNSRecord): Promise<DNSRecord> {
    return this.opts.client.request<DNSRecord>('PATCH', objectPath(DNSRECORDS, obj.metadata.namespace ?? '', obj.metadata.name), {
      body: { metadata: { annotations: { [OPERATION_ANNOTATION]: null } } },
      contentType: 'application/merge-patch+json',
    });
  }
}

/** The zone with the longest name that holds `name` on a label boundary. */
function longestZone(zones: readonly BackendZone[], name: string): BackendZone | undefined {
  let best: BackendZone | undefined;
  for (const z of zones) {
    const zoneName = tryNormalizeDnsName(z.name);
    if (zoneName !== undefined && isInZone(name, zoneName) && (best === undefined || zoneName.length > best.name.length)) best = { id: z.id, name: zoneName };
  }
  return best;
}

/** The record set a DNSRecord asks for: name normalised, TTL defaulted as Gardener does. */
export function recordSetOf(obj: DNSRecord): RecordSet {
  const raw = obj.spec.name.toLowerCase();
  return {
    name: raw.endsWith('.') ? raw.slice(0, -1) : raw,
    type: obj.spec.recordType as DNSRecordType,
    ttl: obj.spec.ttl ?? DEFAULT_TTL,
    values: [...obj.spec.values],
    ipStack: ipStackOf(obj.metadata.annotations),
  };
}
