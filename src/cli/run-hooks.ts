/**
 * What `hostwarden run` adds when it reads Kubernetes: Events about records on the source objects,
 * leader election and (embedded provider) the SOA serials kept in a ConfigMap. Built from the
 * flags in src/kube/flags.ts; run.ts only wires the returned hooks into the controller.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/config.ts';
import type { SyncReport } from '../controller/controller.ts';
import { ConfigError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { RecordEventReporter } from '../controller/record-events.ts';
import type { RecordEventReason } from '../controller/record-events.ts';
import { SERVICE_ACCOUNT_DIR, locateKubeConfig } from '../kube/client.ts';
import type { KubeClient, KubeEnv } from '../kube/client.ts';
import { EventRecorder } from '../kube/events.ts';
import { EVENT_TYPES, kubeClientFromConfig, kubeConfigSourceOf } from '../kube/flags.ts';
import { defaultIdentity, leaderElectorFromFlags, leaseNamespace } from '../kube/leader-election.ts';
import type { LeaderElector } from '../kube/leader-election.ts';
import { ConfigMapSerialKeeper } from '../provider/embedded/serial-keeper.ts';
import type { SerialKeeper } from '../provider/embedded/serial-keeper.ts';
import { COMPOSITE_KUBE_SOURCE_NAMES, KUBE_SOURCE_NAMES } from '../source/kube/factory.ts';

export interface KubeRunHooks {
  /** Undefined without leader election: every replica applies. */
  canApply: (() => boolean) | undefined;
  onSynced: ((report: SyncReport) => void) | undefined;
  /** Starts campaigning; `trigger` asks the controller for a sync (on gaining leadership). */
  start(trigger: () => void): void;
  stop(): Promise<void>;
  readonly elector: LeaderElector | undefined;
  /** Embedded provider: where its zones' SOA serials are kept (undefined with --embedded-serial-configmap ""). */
  readonly serialKeeper: SerialKeeper | undefined;
  /** The rate-limited client (Events, serials, the replica set's Secret) and the Lease's namespace. */
  readonly client: KubeClient;
  readonly namespace: string;
  /** What a replica set adds to the election (replica-role.ts); set before start(). */
  setRoleHooks(hooks: RoleHooks): void;
}

/** The elector's callbacks and published annotations, supplied once the embedded replica role exists. */
export interface RoleHooks {
  annotations(): Readonly<Record<string, string | undefined>>;
  startedLeading(): void;
  stoppedLeading(): void;
}

/** Hooks when a Kubernetes source is configured or --leader-elect is set; undefined otherwise. */
export function kubeRunHooks(cfg: Config, deps: { logger: Logger; env?: KubeEnv | undefined }): KubeRunHooks | undefined {
  const usesKube = cfg.sources.some(
    (s) => (KUBE_SOURCE_NAMES as readonly string[]).includes(s) || (COMPOSITE_KUBE_SOURCE_NAMES as readonly string[]).includes(s),
  );
  const electExplicit = cfg.explicit.has('leader-elect');
  if (!usesKube && !(electExplicit && cfg.flags.bool('leader-elect'))) return undefined;

  const log = deps.logger.child({ component: 'kube' });
  // The same cluster, context and timeout as the sources: Events and the Lease must not go elsewhere.
  const configSource = kubeConfigSourceOf(cfg, deps.env);
  const inCluster = locateKubeConfig(configSource).kind === 'in-cluster';
  const client = kubeClientFromConfig(cfg, { logger: deps.logger, env: deps.env, rateLimited: true });
  // The Lease has a client (and --kube-api-qps bucket) of its own: a burst of Events must never
  // delay a renewal past the renew deadline.
  const leaseClient = kubeClientFromConfig(cfg, { logger: deps.logger, env: deps.env, rateLimited: true });
  const identity = defaultIdentity();

  const reasons = cfg.flags.list('events-emit');
  for (const r of reasons)
    if (!(EVENT_TYPES as readonly string[]).includes(r))
      throw new ConfigError(`--events-emit: unknown event ${JSON.stringify(r)}; known: ${EVENT_TYPES.join(', ')}`, '--events-emit');
  let reporter: RecordEventReporter | undefined;
  let recorder: EventRecorder | undefined;
  if (usesKube && reasons.length > 0) {
    recorder = new EventRecorder({ client, logger: log, instance: identity });
    reporter = new RecordEventReporter({
      recorder,
      enabled: new Set(reasons as RecordEventReason[]),
      crd: { apiVersion: cfg.flags.str('crd-source-apiversion'), kind: cfg.flags.str('crd-source-kind') },
    });
  }

  let trigger: (() => void) | undefined;
  let role: RoleHooks | undefined;
  const elector = leaderElectorFromFlags(cfg, {
    client: leaseClient,
    logger: log,
    inCluster,
    defaultName: 'hostwarden-leader',
    identity,
    // external-dns's chart grants no Lease permission (external-dns never elects): a replica that
    // elects only by default and is refused from its first request keeps syncing, as external-dns does.
    actAloneUnlessAsked: true,
    onStartedLeading: () => {
      role?.startedLeading();
      trigger?.();
    },
    onStoppedLeading: () => role?.stoppedLeading(),
    annotations: () => role?.annotations() ?? {},
  });
  const el = elector;
  const namespace = el?.lease.namespace ?? podOrFlagNamespace(cfg, inCluster);
  return {
    elector: el,
    client,
    namespace,
    setRoleHooks: (hooks) => void (role = hooks),
    serialKeeper: serialKeeperOf(cfg, client, namespace),
    canApply: el === undefined ? undefined : () => el.isLeader(),
    onSynced: reporter === undefined ? undefined : (report) => reporter.onSynced(report),
    start(t: () => void): void {
      trigger = t;
      el?.start();
    },
    async stop(): Promise<void> {
      await el?.stop(true);
      // Pending events are worth a moment at shutdown, not a hang.
      if (recorder !== undefined) await Promise.race([recorder.flush(), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
      client.close();
      leaseClient.close();
    },
  };
}

/**
 * The embedded provider's serial keeper: a ConfigMap in the Lease's namespace (its RBAC is granted
 * there), reached with the Events client, which is rate-limited and never delays a Lease renewal.
 */
function serialKeeperOf(cfg: Config, client: KubeClient, namespace: string): SerialKeeper | undefined {
  const name = cfg.flags.str('embedded-serial-configmap');
  if (cfg.provider !== 'embedded' || name === '') return undefined;
  return new ConfigMapSerialKeeper({ client, namespace, name });
}

/**
 * Where the Lease would be when election is off: --leader-election-namespace, else the Pod's own
 * namespace, else 'default' (the elector resolves the same way when it is on).
 */
function podOrFlagNamespace(cfg: Config, inCluster: boolean): string {
  let pod: string | undefined;
  if (inCluster) {
    try {
      pod = readFileSync(join(SERVICE_ACCOUNT_DIR, 'namespace'), 'utf8').trim();
    } catch {
      // No namespace file: leaseNamespace falls back to 'default'.
    }
  }
  return leaseNamespace({ flag: cfg.flags.str('leader-election-namespace'), serviceAccountNamespace: pod });
}
