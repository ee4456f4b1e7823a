/**
 * What `hostwarden run` adds when it reads Kubernetes: Events about records on the source objects
 * and leader election. Built from the flags in src/kube/flags.ts; run.ts only wires the returned
 * hooks into the controller.
 */
import type { Config } from '../config/config.ts';
import type { SyncReport } from '../controller/controller.ts';
import { ConfigError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { RecordEventReporter } from '../controller/record-events.ts';
import type { RecordEventReason } from '../controller/record-events.ts';
import { locateKubeConfig } from '../kube/client.ts';
import type { KubeEnv } from '../kube/client.ts';
import { EventRecorder } from '../kube/events.ts';
import { EVENT_TYPES, kubeClientFromConfig, kubeConfigSourceOf } from '../kube/flags.ts';
import { defaultIdentity, leaderElectorFromFlags } from '../kube/leader-election.ts';
import type { LeaderElector } from '../kube/leader-election.ts';
import { COMPOSITE_KUBE_SOURCE_NAMES, KUBE_SOURCE_NAMES } from '../source/kube/factory.ts';

export interface KubeRunHooks {
  /** Undefined without leader election: every replica applies. */
  canApply: (() => boolean) | undefined;
  onSynced: ((report: SyncReport) => void) | undefined;
  /** Starts campaigning; `trigger` asks the controller for a sync (on gaining leadership). */
  start(trigger: () => void): void;
  stop(): Promise<void>;
  readonly elector: LeaderElector | undefined;
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
  const elector = leaderElectorFromFlags(cfg, {
    client: leaseClient,
    logger: log,
    inCluster,
    defaultName: 'hostwarden-leader',
    identity,
    // external-dns's chart grants no Lease permission (external-dns never elects): a replica that
    // elects only by default and is refused from its first request keeps syncing, as external-dns does.
    actAloneUnlessAsked: true,
    onStartedLeading: () => trigger?.(),
  });
  const el = elector;
  return {
    elector: el,
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
