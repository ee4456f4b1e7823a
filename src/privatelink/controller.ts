/**
 * Wires the reconciler to the cluster: reflectors over ClusterDeployments, ClusterProvisions,
 * ClusterDeprovisions and HiveConfig feed the work queue with ClusterDeployment keys (a provision
 * or deprovision maps to its cluster, a HiveConfig change to every cluster using PrivateLink).
 */
import { Counter, Gauge, Histogram } from 'prom-client';
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
import { hiveGate } from './hive-gate.ts';
import type { HiveGate } from './hive-gate.ts';

export interface PrivateLinkControllerOptions {
  client: ListWatchClient;
  reconcile: (key: string) => Promise<ReconcileResult>;
  logger: Logger;
  /** The leader gate: a replica that does not lead keeps its cache warm and reconciles nothing. */
  canRun?: () => boolean;
  concurrency?: number;
  backoff?: { initialMs: number; maxMs: number };
  metrics?: MetricsRegistry;
  /** The process serves --privatelink-admission-listen: warned about when Hive (with its own admission) is installed. */
  admissionServed?: boolean;
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

const HIVE_STATE_LINES: Record<HiveGate['hive'], string> = {
  absent: 'no HiveConfig hive: working alone',
  unmanaged: 'HiveConfig hive is not managed by hive-operator (no status): working alone',
  installed: 'Hive is installed with its awsprivatelink controller disabled: reconciling ClusterDeployments',
};

export class PrivateLinkController {
  readonly queue: WorkQueue;
  private readonly reflectors: Reflector<Obj>[] = [];
  private readonly deployments: Reflector<Obj>;
  private readonly hiveConfigs: Reflector<Obj>;
  private readonly log: Logger;
  private readonly admissionServed: boolean;
  private readonly hiveConflictGauge: Gauge | undefined;
  /** The last HiveConfig decision, so a change is logged once. */
  private hive: HiveGate | undefined;

  constructor(opts: PrivateLinkControllerOptions) {
    this.log = opts.logger;
    this.admissionServed = opts.admissionServed === true;
    const metrics = opts.metrics === undefined ? undefined : controllerMetrics(opts.metrics);
    this.hiveConflictGauge = metrics?.hiveConflict;
    this.queue = new WorkQueue({
      name: 'privatelink',
      reconcile: (key) => this.gated(key, opts.reconcile),
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
      // Decided before the keys below run, so a HiveConfig that now lists awsprivatelink lets them through.
      this.checkHive();
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

  /**
   * The reconcile entry: nothing at all (no AWS call, no status, no finalizer) while Hive runs its own
   * awsprivatelink controller. The key is dropped: HiveConfig listing the controller brings every
   * PrivateLink cluster back. Before HiveConfig has been listed nothing is decided, so keys wait.
   */
  private async gated(key: string, reconcile: (key: string) => Promise<ReconcileResult>): Promise<ReconcileResult> {
    if (!this.hiveConfigs.hasSynced()) return { requeueAfterMs: 1000 };
    if (this.checkHive().conflict) return {};
    return reconcile(key);
  }

  /** Decides from the cached HiveConfig; logs and exports a change of the decision once. */
  private checkHive(): HiveGate {
    const gate = hiveGate(this.hiveConfig().config);
    const before = this.hive;
    this.hive = gate;
    this.hiveConflictGauge?.set(gate.conflict ? 1 : 0);
    if (before?.hive === gate.hive && before.conflict === gate.conflict) return gate;
    if (gate.conflict) this.log.error({ hive: gate.hive, fix: 'HiveConfig spec.disabledControllers: [awsprivatelink]' }, gate.message);
    else if (before?.conflict === true) this.log.info('HiveConfig lists awsprivatelink in spec.disabledControllers: reconciling ClusterDeployments');
    else this.log.info({ hive: gate.hive }, HIVE_STATE_LINES[gate.hive]);
    if (gate.hive === 'installed' && before?.hive !== 'installed' && this.admissionServed)
      this.log.warn(
        "--privatelink-admission-listen duplicates Hive's own ClusterDeployment admission (validateAWSPrivateLink): use the deploy variant without the webhook beside Hive",
      );
    return gate;
  }

  /** Why nothing is reconciled (Hive's own controller is enabled), for readiness; undefined when working. */
  hiveConflict(): string | undefined {
    if (!this.hiveConfigs.hasSynced()) return undefined;
    const gate = this.checkHive();
    return gate.conflict ? gate.message : undefined;
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

function controllerMetrics(registry: MetricsRegistry): { runs: Counter; seconds: Histogram; hiveConflict: Gauge } {
  return {
    runs: new Counter({
      name: 'hostwarden_privatelink_reconciles_total',
      help: 'PrivateLink reconciles by outcome.',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    seconds: new Histogram({
      name: 'hostwarden_privatelink_reconcile_seconds',
      help: 'Time of one PrivateLink reconcile.',
      buckets: [0.1, 0.5, 1, 5, 15, 60],
      registers: [registry],
    }),
    hiveConflict: new Gauge({
      name: 'hostwarden_privatelink_hive_conflict',
      help: '1 while Hive runs its own awsprivatelink controller (HiveConfig spec.disabledControllers lacks it) and nothing is reconciled.',
      registers: [registry],
    }),
  };
}
