/**
 * The object store of the test API server: objects per resource type, one global resourceVersion
 * counter (as etcd's revision), and a bounded history of changes that watches replay and paginated
 * lists read consistent snapshots from. Every write goes through here, so HTTP and the direct test
 * helpers behave the same. Stored objects (map values and history entries) are never mutated once
 * stored, so the history shares them with the maps; callers outside get clones or read-only views.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { ApiError, deepClone, notFound } from './types.ts';
import type { KubeObject } from './types.ts';
import { apiVersionOf, resourceTypeFromCrd, typeKey } from './resources.ts';
import type { ResourceRegistry, ResourceType } from './resources.ts';
import { applyCrdSchema, invalid, validateForCreate, validateMetadataShape } from './validation.ts';
import type { FieldValidation, SchemaCheck } from './validation.ts';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredEvent {
  readonly rv: number;
  readonly type: ResourceType;
  readonly kind: ChangeType;
  /** The object after the change (for DELETED: its last state, with the deletion's resourceVersion). */
  readonly object: KubeObject;
  /** The object before the change; undefined for ADDED. */
  readonly prev: KubeObject | undefined;
}

export type StoreListener = (ev: StoredEvent) => void;

export interface StoreOptions {
  /** How many changes are kept for watches and continue tokens. */
  historyLimit: number;
  now: () => Date;
}

export interface WriteOptions {
  /** Keep `status` on create/update of the main resource (direct test helpers). */
  keepStatus?: boolean;
  subresource?: 'status';
  /** The version the body was written at (a CRD's schema is per version); default the storage version. */
  version?: string;
  /** Unknown fields of custom resources: kube-apiserver's default is Warn. */
  fieldValidation?: FieldValidation;
  /** Receives this write's warnings (for the Warning header). */
  warnings?: string[];
  /** Store without the CRD schema (direct helpers only): see TestApiServer.create. */
  bypassSchema?: boolean;
}

function schemaCheck(t: ResourceType, opts: WriteOptions, statusOnly: boolean): SchemaCheck {
  const check: SchemaCheck = { version: opts.version ?? t.version, fieldValidation: opts.fieldValidation ?? 'Warn', statusOnly };
  if (opts.warnings !== undefined) check.warnings = opts.warnings;
  return check;
}

function objectKey(ns: string, name: string): string {
  return `${ns}/${name}`;
}

function timestamp(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** What counts as the "spec" for metadata.generation: everything but metadata and status. */
function specPart(obj: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

function withoutVolatile(obj: KubeObject): KubeObject {
  const c = deepClone(obj);
  delete c.metadata.resourceVersion;
  delete c.metadata.managedFields;
  return c;
}

export class ObjectStore {
  private rv = 0;
  /** Every change with rv > historyStart is in `history`. */
  private historyStart = 0;
  private history: StoredEvent[] = [];
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly listeners = new Set<StoreListener>();

  constructor(
    private readonly resources: ResourceRegistry,
    private readonly options: StoreOptions,
  ) {}

  currentRv(): number {
    return this.rv;
  }

  oldestRv(): number {
    return this.historyStart;
  }

  subscribe(l: StoreListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Changes after `rv`, or undefined when they are no longer all in the history. */
  eventsSince(rv: number): StoredEvent[] | undefined {
    if (rv < this.historyStart) return undefined;
    let i = this.history.length;
    while (i > 0 && this.history[i - 1]!.rv > rv) i--;
    return this.history.slice(i);
  }

  /** Forget the history: watches and continue tokens from before now get 410 Gone. */
  compact(): void {
    this.history = [];
    this.historyStart = this.rv;
  }

  private bucket(t: ResourceType): Map<string, KubeObject> {
    const k = typeKey(t.group, t.plural);
    let m = this.objects.get(k);
    if (m === undefined) {
      m = new Map();
      this.objects.set(k, m);
    }
    return m;
  }

  private record(type: ResourceType, kind: ChangeType, object: KubeObject, prev: KubeObject | undefined): void {
    const ev: StoredEvent = { rv: this.rv, type, kind, object, prev };
    this.history.push(ev);
    if (this.history.length > this.options.historyLimit) {
      const dropped = this.history.splice(0, this.history.length - this.options.historyLimit);
      this.historyStart = dropped[dropped.length - 1]!.rv;
    }
    for (const l of [...this.listeners]) l(ev);
  }

  private nextRv(): string {
    this.rv++;
    return String(this.rv);
  }

  get(t: ResourceType, ns: string, name: string): KubeObject {
    const obj = this.bucket(t).get(objectKey(t.namespaced ? ns : '', name));
    if (obj === undefined) throw notFound(t.plural, t.group, name);
    return deepClone(obj);
  }

  tryGet(t: ResourceType, ns: string, name: string): KubeObject | undefined {
    const obj = this.bucket(t).get(objectKey(t.namespaced ? ns : '', name));
    return obj === undefined ? undefined : deepClone(obj);
  }

  /**
   * Objects of a type (in one namespace, or all when ns is undefined), sorted as etcd keys are,
   * as they were at `atRv` when given (undefined when that is older than the history).
   */
  list(t: ResourceType, ns: string | undefined, atRv?: number): KubeObject[] | undefined {
    return this.scan(t, ns, atRv)?.map((o) => deepClone(o));
  }

  /** As list(), but the stored objects themselves: read-only, for serializing. */
  scan(t: ResourceType, ns: string | undefined, atRv?: number): readonly KubeObject[] | undefined {
    const snapshot = new Map(this.bucket(t));
    if (atRv !== undefined && atRv < this.rv) {
      const later = this.eventsSince(atRv);
      if (later === undefined) return undefined;
      for (let i = later.length - 1; i >= 0; i--) {
        const ev = later[i]!;
        if (ev.type !== t && typeKey(ev.type.group, ev.type.plural) !== typeKey(t.group, t.plural)) continue;
        const key = objectKey(ev.object.metadata.namespace ?? '', ev.object.metadata.name);
        if (ev.prev === undefined) snapshot.delete(key);
        else snapshot.set(key, ev.prev);
      }
    }
    const keys = [...snapshot.keys()].filter((k) => ns === undefined || k.startsWith(`${ns}/`)).sort();
    return keys.map((k) => snapshot.get(k)!);
  }

  private checkNamespace(t: ResourceType, ns: string): void {
    if (!t.namespaced) return;
    const nsType = this.resources.lookup('', 'v1', 'namespaces')!;
    if (!this.bucket(nsType).has(objectKey('', ns))) throw notFound('namespaces', '', ns);
  }

  create(t: ResourceType, ns: string, input: KubeObject, opts: WriteOptions = {}): KubeObject {
    const obj = deepClone(input);
    obj.metadata = { ...(obj.metadata ?? {}) };
    validateMetadataShape(obj);
    if (t.namespaced) {
      if (obj.metadata.namespace !== undefined && obj.metadata.namespace !== '' && obj.metadata.namespace !== ns) {
        throw new ApiError(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
      }
      obj.metadata.namespace = ns;
    } else {
      delete obj.metadata.namespace;
    }
    if ((obj.metadata.name ?? '') === '' && typeof obj.metadata.generateName === 'string' && obj.metadata.generateName !== '') {
      obj.metadata.name = obj.metadata.generateName + randomBytes(4).toString('hex').slice(0, 5);
    }
    if (t.hasStatus && opts.keepStatus !== true) delete obj.status;
    if (opts.bypassSchema !== true) applyCrdSchema(t, obj, schemaCheck(t, opts, false));
    validateForCreate(t, obj);
    this.checkNamespace(t, ns);
    const bucket = this.bucket(t);
    const key = objectKey(t.namespaced ? ns : '', obj.metadata.name);
    if (bucket.has(key)) {
      const what = t.group === '' ? t.plural : `${t.plural}.${t.group}`;
      throw new ApiError(409, 'AlreadyExists', `${what} "${obj.metadata.name}" already exists`, { name: obj.metadata.name, group: t.group, kind: t.plural });
    }
    obj.apiVersion = apiVersionOf(t.group, t.version);
    obj.kind = t.kind;
    obj.metadata.uid = randomUUID();
    obj.metadata.creationTimestamp = timestamp(this.options.now());
    obj.metadata.generation = 1;
    delete obj.metadata.deletionTimestamp;
    delete obj.metadata.deletionGracePeriodSeconds;
    this.defaults(t, obj);
    obj.metadata.resourceVersion = this.nextRv();
    bucket.set(key, obj);
    this.afterWrite(t, obj, false);
    this.record(t, 'ADDED', obj, undefined);
    return deepClone(obj);
  }

  /** Server-set fields kube-apiserver fills in on create. */
  private defaults(t: ResourceType, obj: KubeObject): void {
    if (t.group === '' && t.plural === 'namespaces') {
      obj.spec = { finalizers: ['kubernetes'], ...(typeof obj.spec === 'object' && obj.spec !== null ? obj.spec : {}) };
      obj.status = { phase: 'Active' };
    }
    if (t.group === 'apiextensions.k8s.io' && t.plural === 'customresourcedefinitions') {
      const spec = obj.spec as Record<string, unknown>;
      obj.status = {
        acceptedNames: spec.names,
        storedVersions: [resourceTypeFromCrd(obj)?.version],
        conditions: ['NamesAccepted', 'Established'].map((type) => ({
          type,
          status: 'True',
          reason: type === 'Established' ? 'InitialNamesAccepted' : 'NoConflicts',
          message: type === 'Established' ? 'the initial names have been accepted' : 'no conflicts found',
          lastTransitionTime: timestamp(this.options.now()),
        })),
      };
    }
  }

  /** Keeps the served resource table in step with CRDs. */
  private afterWrite(t: ResourceType, obj: KubeObject, deleted: boolean): void {
    if (t.group !== 'apiextensions.k8s.io' || t.plural !== 'customresourcedefinitions') return;
    const removed = this.resources.removeCrd(obj.metadata.name);
    if (deleted) {
      if (removed !== undefined) this.dropAll(removed, undefined);
      return;
    }
    const served = resourceTypeFromCrd(obj);
    if (served !== undefined) this.resources.add(served);
  }

  /** Removes every object of a type (in a namespace), with DELETED events. */
  private dropAll(t: ResourceType, ns: string | undefined): void {
    for (const obj of this.scan(t, ns) ?? []) {
      const bucket = this.bucket(t);
      bucket.delete(objectKey(obj.metadata.namespace ?? '', obj.metadata.name));
      const gone = deepClone(obj);
      gone.metadata.resourceVersion = this.nextRv();
      this.record(t, 'DELETED', gone, obj);
    }
  }

  update(t: ResourceType, ns: string, name: string, input: KubeObject, opts: WriteOptions = {}): KubeObject {
    const existing = this.get(t, ns, name);
    const stored = this.bucket(t).get(objectKey(t.namespaced ? ns : '', name))!;
    const body = deepClone(input);
    const meta = body.metadata ?? { name };
    if (meta.name !== undefined && meta.name !== name) {
      throw new ApiError(400, 'BadRequest', `the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`);
    }
    if (meta.resourceVersion !== undefined && meta.resourceVersion !== '' && meta.resourceVersion !== existing.metadata.resourceVersion) {
      const what = t.group === '' ? t.plural : `${t.plural}.${t.group}`;
      throw new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${what} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        { name, group: t.group, kind: t.plural },
      );
    }
    if (typeof meta.uid === 'string' && meta.uid !== '' && meta.uid !== existing.metadata.uid) {
      const what = t.group === '' ? t.plural : `${t.plural}.${t.group}`;
      throw new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${what} "${name}": Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${String(existing.metadata.uid)}`,
        { name, group: t.group, kind: t.plural },
      );
    }
    let next: KubeObject;
    if (opts.subresource === 'status') {
      next = deepClone(existing);
      next.status = body.status;
    } else {
      next = { ...body, metadata: { ...meta, name } };
      validateMetadataShape(next);
      for (const k of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
        if (existing.metadata[k] === undefined) delete next.metadata[k];
        else (next.metadata as Record<string, unknown>)[k] = existing.metadata[k];
      }
      if (t.namespaced) next.metadata.namespace = existing.metadata.namespace;
      else delete next.metadata.namespace;
      if (t.hasStatus && opts.keepStatus !== true) {
        if (existing.status === undefined) delete next.status;
        else next.status = existing.status;
      }
    }
    next.apiVersion = existing.apiVersion;
    next.kind = existing.kind;
    if (opts.bypassSchema !== true) applyCrdSchema(t, next, schemaCheck(t, opts, opts.subresource === 'status'));
    if (!isDeepStrictEqual(specPart(next), specPart(existing))) next.metadata.generation = (existing.metadata.generation ?? 0) + 1;
    next.metadata.resourceVersion = existing.metadata.resourceVersion;
    const added = (next.metadata.finalizers ?? []).filter((f) => !(existing.metadata.finalizers ?? []).includes(f));
    if (existing.metadata.deletionTimestamp !== undefined && added.length > 0) {
      throw invalid(t, name, [
        `metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
      ]);
    }
    if (existing.metadata.deletionTimestamp !== undefined && (next.metadata.finalizers ?? []).length === 0) {
      return this.remove(t, next, stored);
    }
    if (isDeepStrictEqual(withoutVolatile(next), withoutVolatile(existing))) return existing;
    next.metadata.resourceVersion = this.nextRv();
    this.bucket(t).set(objectKey(next.metadata.namespace ?? '', name), next);
    this.afterWrite(t, next, false);
    this.record(t, 'MODIFIED', next, stored);
    return deepClone(next);
  }

  private remove(t: ResourceType, last: KubeObject, prev: KubeObject): KubeObject {
    const gone = deepClone(last);
    gone.metadata.resourceVersion = this.nextRv();
    this.bucket(t).delete(objectKey(gone.metadata.namespace ?? '', gone.metadata.name));
    if (t.group === '' && t.plural === 'namespaces') {
      for (const other of this.resources.all()) if (other.namespaced) this.dropAll(other, gone.metadata.name);
    }
    this.afterWrite(t, gone, true);
    this.record(t, 'DELETED', gone, prev);
    return deepClone(gone);
  }

  /**
   * Deletes an object; one with finalizers only gets a deletionTimestamp and goes away when an
   * update removes its last finalizer.
   */
  delete(t: ResourceType, ns: string, name: string, preconditions: { uid?: string; resourceVersion?: string } = {}): KubeObject {
    const existing = this.get(t, ns, name);
    const stored = this.bucket(t).get(objectKey(t.namespaced ? ns : '', name))!;
    const what = t.group === '' ? t.plural : `${t.plural}.${t.group}`;
    if (preconditions.uid !== undefined && preconditions.uid !== existing.metadata.uid) {
      throw new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${what} "${name}": Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${String(existing.metadata.uid)}`,
        { name, group: t.group, kind: t.plural },
      );
    }
    if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== existing.metadata.resourceVersion) {
      throw new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${what} "${name}": Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${String(existing.metadata.resourceVersion)}`,
        { name, group: t.group, kind: t.plural },
      );
    }
    if ((existing.metadata.finalizers ?? []).length === 0) return this.remove(t, existing, stored);
    if (existing.metadata.deletionTimestamp !== undefined) return existing;
    const next = deepClone(existing);
    next.metadata.deletionTimestamp = timestamp(this.options.now());
    next.metadata.deletionGracePeriodSeconds = 0;
    next.metadata.generation = (existing.metadata.generation ?? 0) + 1;
    next.metadata.resourceVersion = this.nextRv();
    this.bucket(t).set(objectKey(next.metadata.namespace ?? '', name), next);
    this.record(t, 'MODIFIED', next, stored);
    return deepClone(next);
  }
}
