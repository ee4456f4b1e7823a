/**
 * Feeds the reconciler: a WorkQueue keyed by ExternalDNS name, filled by reflectors on the
 * ExternalDNS objects, on the operand Deployments (mapped back by their owner label) and on the
 * credentials Secrets in the operator namespace (mapped back to every ExternalDNS naming them).
 */
import type { KubeClient } from '../kube/client.ts';
import { Reflector } from '../kube/reflector.ts';
import type { KubeObject, KubeResource } from '../kube/resource.ts';
import { WorkQueue } from '../kube/work-queue.ts';
import type { Logger } from '../log.ts';
import { withDefaults } from './defaults.ts';
import { MANAGED_BY, OWNER_LABEL, userSecretRef } from './operand.ts';
import type { ExternalDNSReconciler } from './reconciler.ts';
import { DEPLOYMENTS, SECRETS } from './resources.ts';
import { EXTERNALDNSES } from './types.ts';
import type { ExternalDNS } from './types.ts';

export interface ControllerOptions {
  client: Pick<KubeClient, 'request' | 'watch'>;
  logger: Logger;
  reconciler: Pick<ExternalDNSReconciler, 'reconcile'>;
  operandNamespace: string;
  operatorNamespace: string;
  /** Leader gate; every replica watches, only the leader reconciles. */
  canRun?: () => boolean;
  backoff?: { initialMs: number; maxMs: number };
  /** Each reconcile's outcome and duration, for metrics. */
  onResult?: (key: string, outcome: 'success' | 'requeue' | 'error', ms: number) => void;
}

export class ExternalDNSController {
  readonly queue: WorkQueue;
  private readonly externalDNSes: Reflector<KubeObject>;
  private readonly reflectors: Reflector<KubeObject>[];

  constructor(opts: ControllerOptions) {
    const log = opts.logger;
    this.queue = new WorkQueue({
      name: 'externaldns',
      logger: log,
      reconcile: async (key) => opts.reconciler.reconcile(key),
      ...(opts.canRun === undefined ? {} : { canRun: opts.canRun }),
      ...(opts.backoff === undefined ? {} : { backoff: opts.backoff }),
      ...(opts.onResult === undefined ? {} : { onResult: opts.onResult }),
    });
    const reflector = (resource: KubeResource, namespace: string, labelSelector?: string): Reflector<KubeObject> =>
      new Reflector<KubeObject>({ client: opts.client, resource, namespace, logger: log, ...(labelSelector === undefined ? {} : { labelSelector }) });
    this.externalDNSes = reflector(EXTERNALDNSES, '');
    const deployments = reflector(
      DEPLOYMENTS,
      opts.operandNamespace,
      Object.entries(MANAGED_BY)
        .map(([k, v]) => `${k}=${v}`)
        .join(','),
    );
    const secrets = reflector(SECRETS, opts.operatorNamespace);
    this.externalDNSes.onChange((_type, key) => this.queue.add(key));
    deployments.onChange((_type, _key, obj, old) => {
      const owner = (obj ?? old)?.metadata.labels?.[OWNER_LABEL];
      if (owner !== undefined) this.queue.add(owner);
    });
    secrets.onChange((_type, _key, obj, old) => {
      const name = (obj ?? old)?.metadata.name;
      for (const ed of this.externalDNSes.items()) {
        if (userSecretRef(withDefaults((ed as unknown as ExternalDNS).spec))?.name === name) this.queue.add(ed.metadata.name);
      }
    });
    this.reflectors = [this.externalDNSes, deployments, secrets];
  }

  start(): void {
    for (const r of this.reflectors) r.start();
    this.queue.start();
  }

  /** Resolves true once every cache has listed. */
  async waitForSync(timeoutMs: number): Promise<boolean> {
    const synced = await Promise.all(this.reflectors.map((r) => r.waitForSync(timeoutMs)));
    return synced.every(Boolean);
  }

  /** Call on gaining leadership: keys parked while following run now. */
  kick(): void {
    this.queue.kick();
  }

  async stop(): Promise<void> {
    await this.queue.stop();
    await Promise.all(this.reflectors.map((r) => r.stop()));
  }
}
