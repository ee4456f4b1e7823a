/**
 * Wires the DNSRecord reconciler to the cluster: a reflector on DNSRecords feeds a work queue,
 * keeping only the records of the served types and class, and only changes that matter (spec,
 * the operation annotation, deletion): our own status writes do not come back as work.
 */
import type { KubeClient } from '../kube/client.ts';
import { Reflector } from '../kube/reflector.ts';
import { WorkQueue } from '../kube/work-queue.ts';
import type { WorkQueueOptions } from '../kube/work-queue.ts';
import { DNSRecordReconciler } from './reconciler.ts';
import type { DNSRecordReconcilerOptions } from './reconciler.ts';
import { DNSRECORDS, OPERATION_ANNOTATION, OP_WAIT_FOR_STATE } from './types.ts';
import type { DNSRecord } from './types.ts';

export interface DNSRecordControllerOptions extends Omit<DNSRecordReconcilerOptions, 'client'> {
  client: Pick<KubeClient, 'request' | 'watch'>;
  /** spec.type values served. */
  types: readonly string[];
  /** Serve only this spec.class; '' serves records without a class. */
  recordClass: string;
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

  constructor(opts: DNSRecordControllerOptions) {
    this.opts = opts;
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
      if (type === 'modified' && old !== undefined && !changed(old, obj)) return;
      this.queue.add(key);
    });
  }

  serves(obj: DNSRecord): boolean {
    return this.opts.types.includes(obj.spec?.type ?? '') && (obj.spec?.class ?? '') === this.opts.recordClass;
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

/**
 * Spec (generation) changed, deletion started, an operation annotation was set, or wait-for-state
 * was lifted. Status-only updates, and the removal of the annotation that we do ourselves, are not
 * new work.
 */
function changed(old: DNSRecord, obj: DNSRecord): boolean {
  const op = obj.metadata.annotations?.[OPERATION_ANNOTATION];
  const was = old.metadata.annotations?.[OPERATION_ANNOTATION];
  return (
    old.metadata.generation !== obj.metadata.generation ||
    (op !== undefined && op !== was) ||
    // Changes held back by wait-for-state are acted on once it is lifted.
    (was === OP_WAIT_FOR_STATE && op === undefined) ||
    old.metadata.deletionTimestamp !== obj.metadata.deletionTimestamp
  );
}
