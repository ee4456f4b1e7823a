/**
 * The common body of the Kubernetes sources: reflectors keep the objects, each object is
 * translated once when it changes, and `endpoints()` only concatenates the cached results. The
 * cached endpoints are frozen and handed out as they are: a copy per endpoint per sync was most of
 * a sync's garbage at 20k objects, and the stages after the source only read them. A
 * change fires the source's event handlers only when it changes the object's endpoints, so status
 * churn (a DNSEndpoint's observedGeneration, a Service's unrelated fields) costs no sync.
 *
 * An object that cannot be translated (a template fails on it) loses nothing: it keeps the
 * endpoints of its last good translation, and without one (at start-up, or a new object) its
 * `resource` label is held (`heldResources()`), so the planner neither updates nor deletes its records.
 *
 * A resource the API server does not serve (a CustomResourceDefinition not installed) holds nothing
 * up: its reflector counts as synced and empty, this source says so once (naming itself and the
 * CRD) and once more when it appears, and the other sources keep syncing meanwhile.
 */
import { freezeEndpoint, sameEndpoints } from '../../endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../../endpoint/endpoint.ts';
import { SourceError, errorMessage } from '../../errors.ts';
import type { Reflector } from '../../kube/reflector.ts';
import { crdNameOf, keyOf } from '../../kube/resource.ts';
import { heldKind, resourceKindOf } from '../translate/object.ts';
import type { KubeObject } from '../../kube/resource.ts';
import type { Logger } from '../../log.ts';
import type { InvalidEndpoint, ProblemReporter, Source, SourceProblem } from '../source.ts';

export interface Translation {
  endpoints: Endpoint[];
  problems: SourceProblem[];
  /** Set when the object could not be translated: the `resource` label of its records. */
  heldResource?: string;
}

/** A reflector whose objects the translation reads (Gateways for routes, EndpointSlices for Services). */
export interface Dependency {
  reflector: Reflector<KubeObject>;
  /**
   * Keys of the primary objects a change of this object affects; without it, any change
   * re-translates every primary object.
   */
  affects?: (obj: KubeObject | undefined, old: KubeObject | undefined) => Iterable<string>;
  /** Started only once `need()` asks for it (Pods, read only by a few Services). */
  lazy?: boolean;
}

export interface KubeObjectSourceOptions {
  name: string;
  /** The objects that produce endpoints. */
  primary: Reflector<KubeObject>;
  /** Objects the translation reads. */
  secondary?: readonly (Reflector<KubeObject> | Dependency)[];
  translate: (obj: KubeObject) => Translation;
  logger: Logger;
  onProblem?: ProblemReporter;
  /** How long `endpoints()` waits for the first list before failing (transiently). */
  syncTimeoutMs?: number;
  /**
   * Runs in each `endpoints()` once the lists are complete: refreshes data from outside the API
   * that the translation reads (looked-up addresses) and names the primary objects to translate
   * again. It must not reject.
   */
  refresh?: () => Promise<Iterable<string>>;
  /** Called with every cached object after each `endpoints()` (status writers). */
  afterList?: (objects: Iterable<KubeObject>) => void;
  /** Releases what the source owns besides its reflectors (the API client's sockets). */
  onClose?: () => void;
  /** Combines the objects' endpoints (the pod source merges Pods publishing one name, as external-dns). */
  merge?: (endpoints: Endpoint[]) => Endpoint[];
  /** The first part of the primary objects' `resource` labels, when it is not the one their kind gives (`resourceKindOf`). */
  resourceKind?: string;
}

interface Entry {
  /** Frozen. */
  endpoints: Endpoint[];
  problems: string;
  /** Record types of the endpoints the object asked for that were rejected as invalid. */
  invalid: RecordType[];
  /** The object could not be translated and has no last good endpoints: its records' resource label. */
  held?: string;
}

export class KubeObjectSource implements Source {
  readonly name: string;
  private readonly opts: KubeObjectSourceOptions;
  private readonly log: Logger;
  private readonly entries = new Map<string, Entry>();
  private readonly handlers = new Set<() => void>();
  private readonly unsubscribe: (() => void)[] = [];
  private readonly dependencies: Dependency[];
  /** Lazy dependencies someone asked for; they count as part of the source from then on. */
  private readonly needed = new Set<Reflector<KubeObject>>();
  private started = false;
  private stale = false;
  /** Resources held as of the last `endpoints()`, taken with its list so the two agree. */
  private held: ReadonlySet<string> = new Set();

  constructor(opts: KubeObjectSourceOptions) {
    this.name = opts.name;
    this.opts = opts;
    this.log = opts.logger;
    this.dependencies = (opts.secondary ?? []).map((d) => ('reflector' in d ? d : { reflector: d }));
  }

  private get reflectors(): Reflector<KubeObject>[] {
    return [this.opts.primary, ...this.dependencies.filter((d) => d.lazy !== true || this.needed.has(d.reflector)).map((d) => d.reflector)];
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.unsubscribe.push(this.opts.primary.onChange((_type, key, obj) => this.changed(key, obj)));
    for (const dep of this.dependencies) {
      this.unsubscribe.push(
        dep.reflector.onChange((_type, _key, obj, old) => {
          // Secondary objects are slimmed to what translation reads; a change elsewhere (a node's
          // heartbeat, a resourceVersion) must not re-translate every primary object.
          if (obj !== undefined && old !== undefined && sameContent(obj, old)) return;
          // Until every cache has listed, a change marks the source stale, so the first
          // endpoints() translates every primary object once: asking `affects` for each listed
          // object costs a scan per object (5k Services × 1k Istio Gateways: 10 s of a 21 s sync).
          if (dep.affects === undefined || !this.synced()) {
            this.stale = true;
            if (this.synced()) this.fire();
            return;
          }
          for (const key of new Set(dep.affects(obj, old))) {
            const primary = this.opts.primary.get(key);
            if (primary !== undefined) this.changed(key, primary);
          }
        }),
      );
    }
    for (const r of [this.opts.primary, ...this.dependencies.map((d) => d.reflector)]) {
      this.unsubscribe.push(r.onServedChange((served) => this.servedChanged(r, served)));
    }
    for (const r of this.reflectors) r.start();
    // The first complete list is one event, not one per object.
    void Promise.all(this.reflectors.map((r) => r.waitForSync(24 * 3600_000))).then((ok) => {
      if (ok.every(Boolean)) this.fire();
    });
  }

  /** Starts a lazy dependency; once it has listed, every primary object is translated again. */
  need(reflector: Reflector<KubeObject>): void {
    if (this.needed.has(reflector)) return;
    this.needed.add(reflector);
    reflector.start();
    void reflector.waitForSync(24 * 3600_000).then((ok) => {
      if (!ok) return;
      this.stale = true;
      if (this.synced()) this.fire();
    });
  }

  async endpoints(): Promise<Endpoint[]> {
    this.start();
    const timeout = this.opts.syncTimeoutMs ?? 60_000;
    // Translating again may need a lazy dependency for the first time: wait for it too, so a
    // half-known state is never returned (it would delete records until the next sync).
    let required = this.reflectors;
    for (let round = 0; round < 3; round++) {
      const synced = await Promise.all(required.map((r) => r.waitForSync(timeout)));
      if (!synced.every(Boolean))
        throw new SourceError(`${this.name}: the Kubernetes API did not answer a list within ${Math.round(timeout / 1000)}s`, { transient: true });
      if (this.stale) {
        this.stale = false;
        for (const obj of this.opts.primary.items()) this.changed(keyOf(obj), obj, false);
      }
      const now = this.reflectors;
      if (now.length === required.length) break;
      this.stale = true;
      required = now;
    }
    if (this.opts.refresh !== undefined) {
      let keys: Iterable<string> = [];
      try {
        keys = await this.opts.refresh();
      } catch (err) {
        // What was translated before still stands; the next sync refreshes again.
        this.log.warn({ err: errorMessage(err) }, 'refreshing looked-up data failed');
      }
      for (const key of keys) {
        const obj = this.opts.primary.get(key);
        if (obj !== undefined) this.changed(key, obj, false);
      }
    }
    const out: Endpoint[] = [];
    const held = new Set<string>();
    for (const e of this.entries.values()) {
      for (const ep of e.endpoints) out.push(ep);
      if (e.held !== undefined) held.add(e.held);
    }
    this.held = held;
    if (this.opts.afterList !== undefined) {
      try {
        this.opts.afterList(this.opts.primary.items());
      } catch (err) {
        this.log.warn({ err: errorMessage(err) }, 'after-list hook failed');
      }
    }
    return this.opts.merge === undefined ? out : this.opts.merge(out);
  }

  /** `resource` labels of objects that could not be translated and have no last good endpoints, as of the last `endpoints()`. */
  heldResources(): ReadonlySet<string> {
    const primary = this.opts.primary;
    // Not served and never listed: nothing is known of these objects, so none of their records may go.
    if (primary.isServed() || primary.hasListed()) return this.held;
    return new Set([...this.held, heldKind(this.opts.resourceKind ?? resourceKindOf(primary.resource.kind))]);
  }

  invalidEndpoints(): InvalidEndpoint[] {
    const out: InvalidEndpoint[] = [];
    for (const e of this.entries.values()) for (const recordType of e.invalid) out.push({ recordType, sourceType: this.name });
    return out;
  }

  addEventHandler(handler: () => void): () => void {
    this.handlers.add(handler);
    this.start();
    return () => {
      this.handlers.delete(handler);
    };
  }

  async close(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
    this.handlers.clear();
    await Promise.all([this.opts.primary, ...this.dependencies.map((d) => d.reflector)].map((r) => r.stop()));
    this.opts.onClose?.();
  }

  /** The cached primary object of `key` (namespace/name), for wrappers that look at more than the endpoints. */
  object(key: string): KubeObject | undefined {
    return this.opts.primary.get(key);
  }

  /** Objects cached by the primary reflector, for tests and status writers. */
  objectCount(): number {
    return this.opts.primary.size;
  }

  private servedChanged(r: Reflector<KubeObject>, served: boolean): void {
    const res = r.resource;
    const crd = crdNameOf(res);
    const what = crd === undefined ? `the API server does not serve ${res.apiVersion} ${res.plural}` : `CustomResourceDefinition ${crd} is not installed`;
    const fields = { resource: res.plural, apiVersion: res.apiVersion, ...(crd === undefined ? {} : { crd }) };
    if (!served) {
      this.log.warn(fields, `source ${this.name}: ${what}; the source starts once it appears`);
      return;
    }
    const now = crd === undefined ? `the API server serves ${res.apiVersion} ${res.plural}` : `CustomResourceDefinition ${crd} is installed`;
    this.log.info(fields, `source ${this.name}: ${now}; the source starts`);
  }

  private synced(): boolean {
    return this.reflectors.every((r) => r.hasSynced());
  }

  private changed(key: string, obj: KubeObject | undefined, notify = true): void {
    const before = this.entries.get(key);
    const next = obj === undefined ? undefined : this.translated(key, obj, before);
    if (next === undefined || (next.endpoints.length === 0 && next.problems === '')) this.entries.delete(key);
    else this.entries.set(key, next);
    const changed = !sameEndpoints(before?.endpoints ?? [], next?.endpoints ?? []);
    if (changed && notify && this.synced()) this.fire();
  }

  /** The object's new entry; its problems are reported when they differ from the last ones. */
  private translated(key: string, obj: KubeObject, before: Entry | undefined): Entry {
    let t: Translation;
    try {
      t = this.opts.translate(obj);
    } catch (err) {
      t = { endpoints: [], problems: [{ message: `${this.name} ${key}: could not be translated: ${errorMessage(err)}` }] };
    }
    const problems = t.problems.map((p) => p.message).join('\n');
    // A failed translation keeps the last good endpoints; without any, the records are held.
    const kept = t.heldResource === undefined ? undefined : (before?.endpoints ?? []);
    if (problems !== '' && problems !== before?.problems) {
      const fields = kept === undefined ? {} : kept.length > 0 ? { keptEndpoints: kept.length } : { heldResource: t.heldResource };
      for (const p of t.problems) {
        this.log.warn({ object: key, ...fields }, p.message);
        this.opts.onProblem?.(p);
      }
    }
    if (kept !== undefined) {
      const entry: Entry = { endpoints: kept, problems, invalid: before?.invalid ?? [] };
      if (kept.length === 0) entry.held = t.heldResource;
      return entry;
    }
    for (const ep of t.endpoints) freezeEndpoint(ep);
    return { endpoints: t.endpoints, problems, invalid: t.problems.flatMap((p) => (p.recordType === undefined ? [] : [p.recordType])) };
  }

  private fire(): void {
    for (const h of [...this.handlers]) {
      try {
        h();
      } catch (err) {
        this.log.error({ err: errorMessage(err) }, 'source event handler failed');
      }
    }
  }
}

function sameContent(a: KubeObject, b: KubeObject): boolean {
  return (
    JSON.stringify({ ...a, metadata: { ...a.metadata, resourceVersion: '' } }) === JSON.stringify({ ...b, metadata: { ...b.metadata, resourceVersion: '' } })
  );
}
