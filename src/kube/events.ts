/**
 * Writes `events.k8s.io/v1` Events about objects. Writes are queued and sent a few at a time, so a
 * first sync over thousands of objects neither floods the API server nor delays the sync loop;
 * beyond `maxQueue` pending events new ones are dropped (and counted), as client-go's broadcaster does.
 *
 * A service account without permission on Events (external-dns's own chart grants none) is a
 * configuration, not a failure: the first 403 logs one warning naming the verb and resource (and
 * the namespace that refused first) for the process's life; a ClusterRole lacks it everywhere, so
 * later namespaces that refuse are logged at debug level only. Events for a refusing namespace are
 * dropped without asking the API server until `forbiddenRetryMs` passes and one write tries again
 * (quietly: the permission is still known to be missing unless it succeeds). Refusals are kept per
 * namespace because a RoleBinding may grant Events in some namespaces and not others.
 */
import { randomBytes } from 'node:crypto';
import { errorMessage } from '../errors.ts';
import { isStatus } from './errors.ts';
import type { Logger } from '../log.ts';
import type { KubeClient } from './client.ts';
import { EVENTS, collectionPath } from './resource.ts';

export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid?: string;
}

export type EventType = 'Normal' | 'Warning';

export interface EventRecorderOptions {
  client: Pick<KubeClient, 'request'>;
  logger: Logger;
  /** `reportingController` of every event. */
  controller?: string;
  /** `reportingInstance`: which replica wrote it (pod name). */
  instance: string;
  concurrency?: number;
  maxQueue?: number;
  now?: () => Date;
  /** How long Events to a namespace that answered 403 are dropped before one write tries again. Default 10 minutes. */
  forbiddenRetryMs?: number;
}

interface Pending {
  regarding: InvolvedObject;
  type: EventType;
  reason: string;
  note: string;
}

export class EventRecorder {
  private readonly opts: EventRecorderOptions;
  private readonly log: Logger;
  private readonly queue: Pending[] = [];
  private readonly idle = new Set<() => void>();
  private active = 0;
  /** Sent, failed and dropped counts (`forbidden`: dropped for lack of permission), for tests and metrics. */
  readonly stats = { sent: 0, failed: 0, dropped: 0, forbidden: 0 };
  /** Namespaces that answered 403, with the time (ms) a write may try again. */
  private readonly forbiddenUntil = new Map<string, number>();
  /** Whether the missing permission (create events.events.k8s.io) was reported: one warning for the process's life. */
  private warned = false;

  constructor(opts: EventRecorderOptions) {
    this.opts = opts;
    this.log = opts.logger;
  }

  record(regarding: InvolvedObject, type: EventType, reason: string, note: string): void {
    if (this.queue.length >= (this.opts.maxQueue ?? 10_000)) {
      this.stats.dropped++;
      return;
    }
    this.queue.push({ regarding, type, reason, note });
    this.pump();
  }

  /** Resolves when every queued event was sent (or failed). */
  flush(): Promise<void> {
    if (this.active === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.add(resolve));
  }

  private pump(): void {
    while (this.active < (this.opts.concurrency ?? 4) && this.queue.length > 0) {
      const next = this.queue.shift();
      if (next === undefined) break;
      this.active++;
      void this.send(next).finally(() => {
        this.active--;
        this.pump();
        if (this.active === 0 && this.queue.length === 0) {
          const waiters = [...this.idle];
          this.idle.clear();
          for (const done of waiters) done();
        }
      });
    }
  }

  private async send(e: Pending): Promise<void> {
    const now = (this.opts.now ?? (() => new Date()))();
    // Events about cluster-scoped objects (Nodes) live in `default`, as the kubelet's do.
    const namespace = e.regarding.namespace === '' ? 'default' : e.regarding.namespace;
    const until = this.forbiddenUntil.get(namespace);
    if (until !== undefined) {
      if (now.getTime() < until) {
        this.stats.forbidden++;
        return;
      }
      // This write is the retry; the others wait for its answer.
      this.forbiddenUntil.set(namespace, now.getTime() + this.retryMs());
    }
    const body = {
      apiVersion: EVENTS.apiVersion,
      kind: EVENTS.kind,
      metadata: { name: `${e.regarding.name}.${now.getTime().toString(16)}${randomBytes(3).toString('hex')}`, namespace },
      eventTime: microTime(now),
      reportingController: this.opts.controller ?? 'hostwarden.io/hostwarden',
      reportingInstance: this.opts.instance,
      action: 'Reconcile',
      reason: e.reason,
      // The API rejects notes over 1 kB.
      note: e.note.length > 1000 ? `${e.note.slice(0, 997)}...` : e.note,
      type: e.type,
      regarding: { ...e.regarding },
    };
    try {
      await this.opts.client.request('POST', collectionPath(EVENTS, namespace), { body });
      this.stats.sent++;
      if (this.forbiddenUntil.delete(namespace)) this.log.info({ namespace }, 'permission to write Events is back; Events about records are on again');
    } catch (err) {
      if (isStatus(err, 403)) {
        this.forbidden(namespace, now, err);
        return;
      }
      this.stats.failed++;
      this.log.warn(
        { err: errorMessage(err), reason: e.reason, object: `${e.regarding.kind}/${e.regarding.namespace}/${e.regarding.name}` },
        'cannot write event',
      );
    }
  }

  private retryMs(): number {
    return this.opts.forbiddenRetryMs ?? 10 * 60_000;
  }

  private forbidden(namespace: string, now: Date, err: unknown): void {
    this.stats.forbidden++;
    const first = !this.forbiddenUntil.has(namespace);
    this.forbiddenUntil.set(namespace, now.getTime() + this.retryMs());
    const fields = {
      verb: 'create',
      resource: 'events',
      apiGroup: 'events.k8s.io',
      namespace,
      feature: 'Kubernetes Events about DNS records',
      err: errorMessage(err),
    };
    if (this.warned) {
      if (first) this.log.debug(fields, 'no permission to create Events in this namespace either');
      return;
    }
    this.warned = true;
    this.log.warn(
      fields,
      'no permission to create Events (first refused in this namespace): Events about records are off wherever they are refused (grant create on events.events.k8s.io to turn them on); syncing goes on',
    );
  }
}

/** Kubernetes MicroTime: RFC 3339 with exactly six fractional digits. */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
