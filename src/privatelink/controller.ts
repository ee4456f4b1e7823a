/**
 * Wires the reconciler to the cluster: reflectors over ClusterDeployments, ClusterProvisions,
 * ClusterDeprovisions and HiveConfig feed the work queue with ClusterDeployment keys (a provision
 * or deprovision maps to its cluster, a HiveConfig change to every cluster using PrivateLink).
 */
import { Counter, Histogram } from 'prom-client';
import type { Registry as MetricsRegistry } from 'prom-client';
import type { Logger } from '../log.ts';
import { Reflector } from '../kube/reflector.ts';
import type { ListWatchClient } from '../kube/reflector.ts';
import { keyOf } from '../kube/resource.ts';
import type { KubeObject, KubeResource } from '../kube/resource.ts';
import { WorkQueue } from '../kube/work-queue.ts';
import type { ReconcileResult } from '../kube/work-queue.ts';
import { CLUSTER_DEPLOYMENTS, CLUSTER_DEPROVISIONS, CLUSTER_PROVISIONS, FINALIZER, HIVE_CONFIGS, HIVE_CONFIG_NAME } from './types.ts';
import type { HiveConfig } from './types.ts';

export interface PrivateLinkControllerOptions {
  client: ListWatchClient;
  reconcile: (key: string) => Promise<ReconcileResult>;
  logger: Logger;
  /** The leader gate: a replica that does not lead keeps its cache warm and reconciles nothing. */
  canRun?: () => boolean;
  concurrency?: number;
  backoff?: { initialMs: number; maxMs: number };
  metrics?: MetricsRegistry;
}

type Obj = KubeObject & {
  spec?: { clusterDeploymentRef?: { name?: string }; platform?: { aws?: { privateLink?: { enabled?: boolean } } } };
  metadata: KubeObject['metadata'] & { finalizers?: string[]; ownerReferences?: { kind?: string; name?: string }[] };
};

/** The ClusterDeployment a provision belongs to: its clusterDeploymentRef, else its owner. */
function provisionOwner(p: Obj): string | undefined {
  const name = p.spec?.clusterDeploymentRef?.name ?? p.metadata.ownerReferences?.find((o) => o.kind === 'ClusterDeployment')?.name;
  return name === undefined ? undefined : `${p.metadata.namespace ?? ''}/${name}`;
}

export class PrivateLinkController {
  readonly queue: WorkQueue;
  private readonly reflectors: Reflector<Obj>[] = [];
  private readonly deployments: Reflector<Obj>;
  private readonly hiveConfigs: Reflector<Obj>;
  private readonly log: Logger;

  constructor(opts: PrivateLinkControllerOptions) {
    this.log = opts.logger;
    const metrics =
      opts.metrics === undefined
        ? undefined
        : {
            runs: new Counter({
              name: 'hostwarden_privatelink_reconciles_total',
              help: 'PrivateLink reconciles by outcome.',
              labelNames: ['outcome'],
              registers: [opts.metrics],
            }),
            seconds: new Histogram({
              name: 'hostwarden_privatelink_reconcile_seconds',
              help: 'Time of one PrivateLink reconcile.',
              buckets: [0.1, 0.5, 1, 5, 15, 60],
              registers: [opts.metrics],
            }),
          };
    this.queue = new WorkQueue({
      name: 'privatelink',
      reconcile: (key) => opts.reconcile(key),
      logger: opts.logger,
      concurrency: opts.concurrency ?? 2,
      backoff: opts.backoff ?? { initialMs: 1000, maxMs: 300_000 },
      ...(opts.canRun === undefined ? {} : { canRun: opts.canRun }),
      onResult: (_key, outcome, ms) => {
        metrics?.runs.inc({ outcome });
        metrics?.seconds.observe(ms / 1000);
      },
    });
    const reflector = (resource: KubeResource): Reflector<Obj> => {
      const r = new Reflector<Obj>({ client: opts.client, resource, namespace: '', logger: opts.logger });
      this.reflectors.push(r);
      return r;
    };
    this.deployments = reflector(CLUSTER_DEPLOYMENTS);
    this.deployments.onChange((_type, key) => this.queue.add(key));
    reflector(CLUSTER_PROVISIONS).onChange((_type, _key, obj, old) => {
      const owner = provisionOwner(obj ?? old!);
      if (owner !== undefined) this.queue.add(owner);
    });
    reflector(CLUSTER_DEPROVISIONS).onChange((_type, key) => this.queue.add(key));
    this.hiveConfigs = reflector(HIVE_CONFIGS);
    this.hiveConfigs.onChange(() => {
      for (const cd of this.deployments.items()) {
        if (cd.spec?.platform?.aws?.privateLink?.enabled === true || (cd.metadata.finalizers ?? []).includes(FINALIZER)) this.queue.add(keyOf(cd));
      }
    });
  }

  start(): void {
    for (const r of this.reflectors) r.start();
    this.queue.start();
    this.log.info('PrivateLink controller started');
  }

  /** HiveConfig `hive` from the cache, for the admission check; `loaded` once the cache listed. */
  hiveConfig(): { loaded: boolean; config: HiveConfig | undefined } {
    return { loaded: this.hiveConfigs.hasSynced(), config: this.hiveConfigs.get(HIVE_CONFIG_NAME) as unknown as HiveConfig | undefined };
  }

  /** True once every cache has listed once. */
  synced(): boolean {
    return this.reflectors.every((r) => r.hasSynced());
  }

  async waitForSync(timeoutMs: number): Promise<boolean> {
    const results = await Promise.all(this.reflectors.map((r) => r.waitForSync(timeoutMs)));
    return results.every(Boolean);
  }

  async stop(): Promise<void> {
    await this.queue.stop();
    await Promise.all(this.reflectors.map((r) => r.stop()));
  }
}
