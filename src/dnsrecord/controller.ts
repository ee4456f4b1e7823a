/**
 * Wires the DNSRecord reconciler to the cluster: a reflector on DNSRecords feeds a work queue,
 * keeping only the records of the served types and classes, and only the events Gardener's
 * DNSRecord controller acts on (src/dnsrecord/predicates.ts): our own status writes do not come
 * back as work, and records that already succeeded are not written again at start.
 */
import type { KubeClient } from '../kube/client.ts';
import { Reflector } from '../kube/reflector.ts';
import { WorkQueue } from '../kube/work-queue.ts';
import type { WorkQueueOptions } from '../kube/work-queue.ts';
import { DNSRecordReconciler } from './reconciler.ts';
import type { DNSRecordReconcilerOptions } from './reconciler.ts';
import { defaultCreate, defaultUpdate, generationChangedUpdate, hasClass } from './predicates.ts';
import { DNSRECORDS } from './types.ts';
import type { DNSRecord } from './types.ts';

export interface DNSRecordControllerOptions extends Omit<DNSRecordReconcilerOptions, 'client'> {
  client: Pick<KubeClient, 'request' | 'watch'>;
  /** spec.type values served. */
  types: readonly string[];
  /** spec.class values served (--extension-classes); empty: `shoot`, which records without a class have. */
  extensionClasses: readonly string[];
  /** --ignore-operation-annotation: act on every create and generation change, not on the operation annotation. */
  ignoreOperationAnnotation?: boolean;
  concurrency?: number;
  /** Leader gate: a replica that does not lead leaves the records alone. */
  canRun?: () => boolean;
  onResult?: WorkQueueOptions['onResult'];
  backoff?: WorkQueueOptions['backoff'];
}

export class DNSRecordController {
  readonly reconciler: DNSRecordReconciler;
  readonly queue: WorkQueue;
  readonly reflector: Reflector<DNSRecord>;
  private readonly opts: DNSRecordControllerOptions;
  private readonly classServed: (obj: DNSRecord) => boolean;

  constructor(opts: DNSRecordControllerOptions) {
    this.opts = opts;
    this.classServed = hasClass(opts.extensionClasses);
    this.reconciler = new DNSRecordReconciler(opts);
    this.queue = new WorkQueue({
      name: 'dnsrecord',
      reconcile: (key) => this.reconciler.reconcile(key),
      logger: opts.logger,
      concurrency: opts.concurrency ?? 5,
      ...(opts.canRun === undefined ? {} : { canRun: opts.canRun }),
      ...(opts.onResult === undefined ? {} : { onResult: opts.onResult }),
      ...(opts.backoff === undefined ? {} : { backoff: opts.backoff }),
    });
    this.reflector = new Reflector<DNSRecord>({ client: opts.client, resource: DNSRECORDS, namespace: '', logger: opts.logger });
    this.reflector.onChange((type, key, obj, old) => {
      if (type === 'deleted') {
        this.queue.forget(key);
        return;
      }
      if (obj === undefined || !this.serves(obj)) return;
      if (this.admits(obj, type === 'modified' ? old : undefined)) this.queue.add(key);
    });
  }

  serves(obj: DNSRecord): boolean {
    return this.opts.types.includes(obj.spec?.type ?? '') && this.classServed(obj);
  }

  /** The event predicate: a create (or a record listed at start) when `old` is undefined, else an update. */
  admits(obj: DNSRecord, old: DNSRecord | undefined): boolean {
    if (this.opts.ignoreOperationAnnotation === true) return old === undefined || generationChangedUpdate(old, obj);
    return old === undefined ? defaultCreate(obj) : defaultUpdate(old, obj);
  }

  start(): void {
    this.reflector.start();
    this.queue.start();
  }

  /** Call after gaining leadership: keys parked while not leading run now. */
  kick(): void {
    this.queue.kick();
  }

  async stop(): Promise<void> {
    await this.reflector.stop();
    await this.queue.stop();
    await this.reconciler.close();
  }
}
