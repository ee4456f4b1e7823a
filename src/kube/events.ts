/**
 * Writes `events.k8s.io/v1` Events about objects. Writes are queued and sent a few at a time, so a
 * first sync over thousands of objects neither floods the API server nor delays the sync loop;
 * beyond `maxQueue` pending events new ones are dropped (and counted), as client-go's broadcaster does.
 */
import { randomBytes } from 'node:crypto';
import { errorMessage } from '../errors.ts';
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
  /** Sent, failed and dropped counts, for tests and metrics. */
  readonly stats = { sent: 0, failed: 0, dropped: 0 };

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
    const body = {
      apiVersion: EVENTS.apiVersion,
      kind: EVENTS.kind,
      metadata: { name: `${e.regarding.name}.${now.getTime().toString(16)}${randomBytes(3).toString('hex')}`, namespace: e.regarding.namespace },
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
      await this.opts.client.request('POST', collectionPath(EVENTS, e.regarding.namespace), { body });
      this.stats.sent++;
    } catch (err) {
      this.stats.failed++;
      this.log.warn(
        { err: errorMessage(err), reason: e.reason, object: `${e.regarding.kind}/${e.regarding.namespace}/${e.regarding.name}` },
        'cannot write event',
      );
    }
  }
}

/** Kubernetes MicroTime: RFC 3339 with exactly six fractional digits. */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
