/**
 * A list+watch cache of one resource type. Unlike client-node 1.4's informer it never gives up:
 * any failure is retried with jittered backoff, a 410 (resourceVersion too old) re-lists, and a
 * watchdog re-lists when a watch goes silent (not even a bookmark) for too long, since a hung TCP
 * connection otherwise looks exactly like a quiet cluster. Objects pass through `transform`
 * before they are kept, so the cache holds only what the sources read.
 *
 * A resource the API server does not serve (its CustomResourceDefinition is not installed, or does
 * not serve this version) answers lists with 404. Once that is confirmed by a second 404 in a row,
 * the reflector counts as synced with what it has (nothing, unless the resource went away after a
 * list), so its users keep working, and it keeps listing quietly with the same backoff until the
 * resource appears. `onServedChange` tells its users, who say so once in their own words.
 */
import { backoffDelay } from '../backoff.ts';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { KubeClient, WatchEvent } from './client.ts';
import { KubeApiError } from './errors.ts';
import { collectionPath, keyOf } from './resource.ts';
import type { KubeObject, KubeResource } from './resource.ts';

export type ChangeType = 'added' | 'modified' | 'deleted';
export type ChangeHandler<T> = (type: ChangeType, key: string, obj: T | undefined, old: T | undefined) => void;

/** The part of KubeClient a reflector uses. */
export type ListWatchClient = Pick<KubeClient, 'request' | 'watch'>;

export interface ReflectorOptions<T extends KubeObject> {
  client: ListWatchClient;
  resource: KubeResource;
  /** '' watches every namespace. */
  namespace: string;
  logger: Logger;
  /** Keeps only what the sources need; return undefined to drop the object. */
  transform?: (raw: Record<string, unknown>) => T | undefined;
  /**
   * What the cache keeps of an object once the change handlers have seen it (default: all of
   * it). A source that translates each object on its own and never reads it back can keep a stub
   * with the name and resourceVersion; `get`, `items` and the handlers' `old` then return stubs.
   */
  retain?: (obj: T) => T;
  labelSelector?: string;
  /** Re-list when nothing arrived on a watch for this long. */
  inactivityTimeoutMs?: number;
  pageSize?: number;
  backoff?: { initialMs: number; maxMs: number };
  random?: () => number;
}

interface ListAnswer {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: Record<string, unknown>[];
}

class WatchGone extends Error {}

/** 404s in a row before a resource counts as not served: one alone may be an API server still starting. */
const NOT_FOUND_CONFIRMATIONS = 2;

export type ServedHandler = (served: boolean) => void;

export class Reflector<T extends KubeObject> {
  private readonly opts: ReflectorOptions<T>;
  private readonly log: Logger;
  private readonly path: string;
  private readonly random: () => number;
  private readonly store = new Map<string, T>();
  private readonly handlers = new Set<ChangeHandler<T>>();
  private readonly syncWaiters = new Set<() => void>();
  private readonly servedHandlers = new Set<ServedHandler>();
  /** The API server answers 404 for the collection (confirmed); see the file comment. */
  private absent = false;
  private notFoundInRow = 0;
  private listedOnce = false;
  private resourceVersion: string | undefined;
  private synced = false;
  private running = false;
  private stopped = false;
  private current: AbortController | undefined;
  private wakeSleep: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  /** Counters for tests and metrics: how often the cache was rebuilt and why. */
  readonly stats = { lists: 0, watches: 0, gone: 0, stalls: 0, failures: 0 };

  constructor(opts: ReflectorOptions<T>) {
    this.opts = opts;
    this.log = opts.logger.child({ resource: opts.resource.plural });
    this.path = collectionPath(opts.resource, opts.namespace);
    this.random = opts.random ?? Math.random;
  }

  start(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.abort();
    this.wakeSleep?.();
    for (const w of this.syncWaiters) w();
    await this.loop;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** True once a list has succeeded (the cache then reflects the resource, even if it goes away later). */
  hasListed(): boolean {
    return this.listedOnce;
  }

  /** Resolves true once the first list completed, false on timeout or stop. */
  waitForSync(timeoutMs: number): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.syncWaiters.delete(done);
        resolve(this.synced);
      };
      const timer = setTimeout(done, timeoutMs);
      this.syncWaiters.add(done);
    });
  }

  /** The resource this reflector lists and watches. */
  get resource(): KubeResource {
    return this.opts.resource;
  }

  /** False while the API server does not serve the resource (a 404 list, confirmed). */
  isServed(): boolean {
    return !this.absent;
  }

  /** Called with false when the resource turns out not to be served, with true when it is again. */
  onServedChange(handler: ServedHandler): () => void {
    this.servedHandlers.add(handler);
    return () => this.servedHandlers.delete(handler);
  }

  onChange(handler: ChangeHandler<T>): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  get(key: string): T | undefined {
    return this.store.get(key);
  }

  items(): IterableIterator<T> {
    return this.store.values();
  }

  get size(): number {
    return this.store.size;
  }

  private async run(): Promise<void> {
    const backoff = this.opts.backoff ?? { initialMs: 500, maxMs: 30_000 };
    let failures = 0;
    while (!this.stopped) {
      try {
        if (this.resourceVersion === undefined) await this.list();
        const progressed = await this.watchOnce();
        if (progressed) failures = 0;
      } catch (err) {
        if (this.stopped) break;
        if (err instanceof WatchGone || (err instanceof KubeApiError && err.status === 410)) {
          this.stats.gone++;
          this.log.info('resource version expired; listing again');
          this.resourceVersion = undefined;
          continue;
        }
        failures++;
        this.stats.failures++;
        const delay = backoffDelay(backoff, failures, this.random);
        if (err instanceof KubeApiError && err.status === 404) {
          this.notServed(failures, delay);
        } else {
          this.log.warn({ err: errorMessage(err), failures, retryInMs: Math.round(delay) }, 'list/watch failed; retrying');
        }
        await this.sleep(delay);
      }
    }
  }

  /** A 404 on the list or the watch: the collection is not served. Quiet once its users know. */
  private notServed(failures: number, delay: number): void {
    this.resourceVersion = undefined;
    this.notFoundInRow++;
    const fields = { apiVersion: this.opts.resource.apiVersion, failures, retryInMs: Math.round(delay) };
    if (this.absent || this.notFoundInRow < NOT_FOUND_CONFIRMATIONS) {
      this.log.debug(fields, 'resource not served (404); retrying');
      return;
    }
    this.absent = true;
    if (this.servedHandlers.size === 0) this.log.warn(fields, 'the API server does not serve this resource (404); retrying quietly until it does');
    // Synced with what it has: a missing resource has no objects, and the rest of the process must not wait on it.
    if (!this.synced) {
      this.synced = true;
      for (const w of [...this.syncWaiters]) w();
    }
    this.served(false);
  }

  /** A list succeeded: the resource is served (again). */
  private listed(): void {
    this.listedOnce = true;
    this.notFoundInRow = 0;
    if (!this.absent) return;
    this.absent = false;
    if (this.servedHandlers.size === 0) this.log.info({ apiVersion: this.opts.resource.apiVersion }, 'the API server serves this resource now');
    this.served(true);
  }

  private served(served: boolean): void {
    for (const h of [...this.servedHandlers]) {
      try {
        h(served);
      } catch (err) {
        this.log.error({ err: errorMessage(err) }, 'served-change handler failed');
      }
    }
  }

  private async list(): Promise<void> {
    const fresh = new Map<string, T>();
    let cont: string | undefined;
    let rv = '';
    let pages = 0;
    // stop() aborts a list in flight too (with --request-timeout 0s nothing else would end it).
    const controller = new AbortController();
    this.current = controller;
    do {
      let answer: ListAnswer;
      try {
        answer = await this.opts.client.request<ListAnswer>('GET', this.path, {
          query: { limit: this.opts.pageSize ?? 500, continue: cont, labelSelector: this.opts.labelSelector },
          signal: controller.signal,
        });
      } finally {
        if (this.current === controller) this.current = undefined;
      }
      if (this.stopped) return;
      this.current = controller;
      for (const item of answer.items ?? []) {
        const obj = this.convert(item);
        if (obj !== undefined) fresh.set(keyOf(obj), obj);
      }
      rv = answer.metadata?.resourceVersion ?? rv;
      cont = answer.metadata?.continue;
      pages++;
    } while (cont !== undefined && cont !== '' && !this.stopped && pages < 100_000);
    if (this.current === controller) this.current = undefined;
    // A list that ended after stop() changes nothing: no events, not synced.
    if (this.stopped) return;
    this.stats.lists++;
    const old = new Map(this.store);
    this.store.clear();
    for (const [key, obj] of fresh) this.store.set(key, this.kept(obj));
    this.resourceVersion = rv;
    // Differences against the previous cache stand in for the watch events missed meanwhile.
    for (const [key, obj] of fresh) {
      const before = old.get(key);
      if (before === undefined) this.emit('added', key, obj, undefined);
      else if (before.metadata.resourceVersion !== obj.metadata.resourceVersion) this.emit('modified', key, obj, before);
    }
    for (const [key, before] of old) if (!fresh.has(key)) this.emit('deleted', key, undefined, before);
    this.log.debug({ objects: fresh.size, resourceVersion: rv, pages }, 'listed');
    this.listed();
    if (!this.synced) {
      this.synced = true;
      for (const w of [...this.syncWaiters]) w();
    }
  }

  /** Watches from the current resourceVersion until the stream ends; true when events arrived. */
  private async watchOnce(): Promise<boolean> {
    // stop() may have come while the list was in flight: a watch opened now would never be
    // aborted, and stop() would wait on it forever. Checked in the same tick that sets `current`.
    if (this.stopped) return false;
    const controller = new AbortController();
    this.current = controller;
    const inactivity = this.opts.inactivityTimeoutMs ?? 180_000;
    let stalled = false;
    let progressed = false;
    let gone = false;
    let failure: unknown;
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        stalled = true;
        controller.abort();
      }, inactivity);
    };
    arm();
    this.stats.watches++;
    // The server ends watches after timeoutSeconds; spreading them keeps replicas from reconnecting in step.
    const timeoutSeconds = Math.floor(300 + this.random() * 300);
    try {
      await this.opts.client.watch(
        this.path,
        { resourceVersion: this.resourceVersion, allowWatchBookmarks: true, timeoutSeconds, labelSelector: this.opts.labelSelector },
        (event) => {
          arm();
          progressed = true;
          if (gone || failure !== undefined) return;
          try {
            if (this.handleEvent(event)) {
              gone = true;
              controller.abort();
            }
          } catch (err) {
            failure = err;
            controller.abort();
          }
        },
        controller.signal,
      );
    } catch (err) {
      if (!stalled && !gone && failure === undefined && !this.stopped) throw err;
    } finally {
      clearTimeout(timer);
      this.current = undefined;
    }
    if (gone) throw new WatchGone();
    if (failure !== undefined) throw failure;
    if (stalled && !this.stopped) {
      this.stats.stalls++;
      this.log.warn({ inactivityMs: inactivity }, 'watch silent for too long; listing again');
      this.resourceVersion = undefined;
    }
    return progressed;
  }

  /** Applies one watch event; true when the server says our resourceVersion is gone. */
  private handleEvent(event: WatchEvent): boolean {
    const raw = event.object;
    const rv = (raw['metadata'] as { resourceVersion?: string } | undefined)?.resourceVersion;
    switch (event.type) {
      case 'BOOKMARK':
        if (rv !== undefined) this.resourceVersion = rv;
        return false;
      case 'ERROR': {
        const code = raw['code'];
        if (code === 410) return true;
        throw new KubeApiError(`watch error: ${String(raw['message'] ?? 'unknown')}`, typeof code === 'number' ? code : 500, String(raw['reason'] ?? ''));
      }
      case 'ADDED':
      case 'MODIFIED': {
        const obj = this.convert(raw);
        if (rv !== undefined) this.resourceVersion = rv;
        if (obj === undefined) return false;
        const key = keyOf(obj);
        const before = this.store.get(key);
        this.store.set(key, this.kept(obj));
        this.emit(before === undefined ? 'added' : 'modified', key, obj, before);
        return false;
      }
      case 'DELETED': {
        if (rv !== undefined) this.resourceVersion = rv;
        const meta = raw['metadata'] as { name?: string; namespace?: string } | undefined;
        if (meta?.name === undefined) return false;
        const key = keyOf({ metadata: { name: meta.name, namespace: meta.namespace } });
        const before = this.store.get(key);
        if (before === undefined) return false;
        this.store.delete(key);
        this.emit('deleted', key, undefined, before);
        return false;
      }
      default:
        return false;
    }
  }

  private convert(raw: Record<string, unknown>): T | undefined {
    // List items carry no apiVersion/kind; the translators need them.
    if (raw['kind'] === undefined) raw['kind'] = this.opts.resource.kind;
    if (raw['apiVersion'] === undefined) raw['apiVersion'] = this.opts.resource.apiVersion;
    const meta = raw['metadata'] as { name?: unknown } | undefined;
    if (typeof meta?.name !== 'string') return undefined;
    return this.opts.transform === undefined ? (raw as T) : this.opts.transform(raw);
  }

  private kept(obj: T): T {
    return this.opts.retain === undefined ? obj : this.opts.retain(obj);
  }

  private emit(type: ChangeType, key: string, obj: T | undefined, old: T | undefined): void {
    for (const h of [...this.handlers]) {
      try {
        h(type, key, obj, old);
      } catch (err) {
        this.log.error({ err: errorMessage(err), key }, 'change handler failed');
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      this.wakeSleep = done;
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
    });
  }
}
