/**
 * `hostwarden run`: the main job. Reads sources, keeps the provider in sync, serves /metrics,
 * /healthz and /readyz (controller/health.ts), and (for the embedded provider) answers DNS queries from the same process.
 */
import { Registry as MetricsRegistry, collectDefaultMetrics } from 'prom-client';
import type { Config } from '../config/config.ts';
import { domainFilterOf, parseListenAddress } from '../config/config.ts';
import { ABORTED, Controller, untilAborted } from '../controller/controller.ts';
import { Readiness, liveness } from '../controller/health.ts';
import { ControllerMetrics } from '../controller/metrics.ts';
import { DnsServer } from '../dns/server/server.ts';
import { ConfigError, errorMessage } from '../errors.ts';
import { connectionLimitsFromFlags } from '../http/flags.ts';
import { registerBuildInfo } from '../http/build-info.ts';
import { HttpRequestMetrics } from '../http/request-metrics.ts';
import { OpsServer } from '../http/ops-server.ts';
import type { Logger } from '../log.ts';
import { kubeRunHooks } from './run-hooks.ts';
import type { KubeRunHooks } from './run-hooks.ts';
import { formsReplicaSet, peerAddressOf, refreshMsOf, replicaSetOf } from './run-replicas.ts';
import { consoleOf, serveConsoleAlone } from './run-console.ts';
import type { RunConsole } from './run-console.ts';
import type { ReplicaSet } from './run-replicas.ts';
import { EmbeddedProvider } from '../provider/embedded/embedded.ts';
import { SerialRecorder } from '../provider/embedded/serial-keeper.ts';
import { ProviderCacheMetrics } from '../provider/cached/metrics.ts';
import { WebhookClientMetrics } from '../provider/webhook/metrics.ts';
import type { Provider } from '../provider/provider.ts';
import type { Registry } from '../registry/registry.ts';
import type { Source } from '../source/source.ts';
import { buildProvider, buildSource, registryBuilder } from './wiring.ts';

export interface RunIO {
  logger: Logger;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM in main). */
  stopSignal: AbortSignal;
  /** Environment for sources that need it (KUBECONFIG, HOME, KUBERNETES_SERVICE_*); main passes its own. */
  env?: Readonly<Record<string, string | undefined>>;
}

export async function runCommand(cfg: Config, io: RunIO): Promise<number> {
  const { logger } = io;
  checkServingFlags(cfg);
  if (cfg.flags.str('ui-address') !== '') parseListenAddress(cfg.flags.str('ui-address'), '--ui-address');
  const metrics = runMetrics();
  const deps = { logger, metrics, watch: !cfg.once, ...(io.env === undefined ? {} : { env: io.env }) };

  // An operand of `hostwarden operator` tells its ExternalDNS object whether the provider lets it in.
  const status =
    cfg.flags.str('status-externaldns') === '' ? undefined : (await import('../operator/operand-status.ts')).OperandStatusReporter.fromConfig(cfg, deps);
  const buildRegistry = registryBuilder(cfg, deps);
  // Before the provider: the embedded store needs the serials kept in the cluster when it opens.
  const kube = kubeRunHooks(cfg, deps);
  const recorder = serialRecorderOf(cfg, kube, logger);
  const setKube = replicaSetKube(cfg, kube, io.env, logger);
  let provider;
  try {
    const serialFloors = await recorder?.loadFloors();
    // In a replica set the leader keeps each serial before serving it: see replica-role.ts.
    const reserve = setKube !== undefined && recorder !== undefined ? { reserveSerial: (zone: string, serial: number) => recorder.reserve(zone, serial) } : {};
    provider = await buildProvider(cfg, { ...deps, ...reserve, ...(serialFloors === undefined ? {} : { serialFloors }) });
  } catch (err) {
    status?.onSyncFailed(err);
    await status?.close();
    await kube?.stop();
    throw err;
  }
  const registry = buildRegistry(provider);
  let source;
  try {
    source = await buildSource(cfg, deps);
  } catch (err) {
    await provider.close?.();
    await kube?.stop();
    throw err;
  }
  const late: { controller?: Controller } = {};
  const set = { kube: setKube, recorder, logger, metrics, env: io.env, trigger: () => late.controller?.trigger(), stopSignal: io.stopSignal };
  const replicas =
    set.kube !== undefined && provider instanceof EmbeddedProvider ? await replicaSetOf(cfg, { ...set, kube: set.kube, store: provider.store }) : undefined;
  const zones = (): string[] => (provider instanceof EmbeddedProvider ? provider.store.zones() : [...domainFilterOf(cfg).include]);
  const web = consoleOf(cfg, { metrics, logger, zones, dns: provider instanceof EmbeddedProvider && cfg.dnsListen.length > 0 });
  const controller = syncController(cfg, { source, registry, logger, metrics, kube, status, replicas, web });
  late.controller = controller;
  logger.info(
    { provider: provider.name, sources: cfg.sources, registry: cfg.registry, ownerId: cfg.txtOwnerId, policy: cfg.policy, dryRun: cfg.dryRun },
    'hostwarden starting',
  );

  const { closers, closeAll } = closerList(logger);
  closers.push(async () => source.close?.());
  closers.push(async () => provider.close?.());
  if (status !== undefined) closers.push(() => status.close());
  if (kube !== undefined) {
    closers.push(() => kube.stop());
    if (!cfg.once) kube.start(() => controller.trigger());
  }
  // After kube.stop()'s closer: closers run in reverse, so pending saves still have a client.
  if (recorder !== undefined && provider instanceof EmbeddedProvider) closers.push(recordSerials(provider, recorder));

  try {
    if (cfg.once) return await syncOnce(controller, io.stopSignal, logger);
    await startServing(cfg, { provider, controller, logger, metrics, closers, stopSignal: io.stopSignal, replicas, web });
    await controller.run(io.stopSignal);
    logger.info('hostwarden stopped');
    return 0;
  } finally {
    await closeAll();
  }
}

type Hooks = ReturnType<typeof kubeRunHooks>;

/** Closers run in reverse order of registration; a failing one is logged and the rest still run. */
function closerList(logger: Logger): { closers: (() => Promise<void>)[]; closeAll: () => Promise<void> } {
  const closers: (() => Promise<void>)[] = [];
  const closeAll = async (): Promise<void> => {
    for (const close of closers.reverse()) {
      try {
        await close();
      } catch (err) {
        logger.warn({ err: errorMessage(err) }, 'error while shutting down');
      }
    }
  };
  return { closers, closeAll };
}

/** --once: one sync, its summary logged; 1 when stopped before it finished. */
async function syncOnce(controller: Controller, stopSignal: AbortSignal, logger: Logger): Promise<number> {
  const result = await untilAborted(controller.runOnce(), stopSignal, logger);
  if (result === ABORTED) return 1;
  logger.info(
    { create: result.changes.create.length, update: result.changes.updateNew.length, delete: result.changes.delete.length, applied: result.applied },
    'synchronised once',
  );
  return 0;
}

/** Flags of the ops server and the drain, checked before anything starts. */
function checkServingFlags(cfg: Config): void {
  if (cfg.metricsAddress !== '') {
    healthFailureLimit(cfg);
    connectionLimitsFromFlags(cfg.flags);
  }
  shutdownDrainMs(cfg);
}

function runMetrics(): MetricsRegistry {
  const metrics = new MetricsRegistry();
  collectDefaultMetrics({ register: metrics });
  registerBuildInfo(metrics);
  // Registered whatever the provider, as external-dns registers them: zeros rather than gaps.
  new ProviderCacheMetrics(metrics);
  new WebhookClientMetrics(metrics);
  new HttpRequestMetrics(metrics);
  return metrics;
}

/** The hooks when this process forms a replica set with its peers (run-replicas.ts), else undefined. */
function replicaSetKube(cfg: Config, kube: Hooks, env: RunIO['env'], logger: Logger): KubeRunHooks | undefined {
  if (!formsReplicaSet(cfg, kube)) return undefined;
  refreshMsOf(cfg);
  if (peerAddressOf(cfg, env) !== undefined) return kube;
  logger.warn(
    { dnsListen: cfg.dnsListen },
    'no address for the other replicas to transfer the zones from (set --embedded-peer-address, or POD_IP from the downward API): this replica writes alone and other replicas do not follow it',
  );
  return undefined;
}

/** Saves each zone's serial after every commit; returns the closer that gives pending saves a moment. */
function recordSerials(provider: EmbeddedProvider, recorder: SerialRecorder): () => Promise<void> {
  provider.store.addListener(recorder);
  return () => recorder.close();
}

/** Saves the embedded zones' serials in the cluster; only the replica that writes saves (--once applies without asking). */
function serialRecorderOf(cfg: Config, kube: Hooks, logger: Logger): SerialRecorder | undefined {
  const keeper = kube?.serialKeeper;
  if (keeper === undefined) return undefined;
  const canSave = cfg.once ? undefined : kube?.canApply;
  return new SerialRecorder({ keeper, logger: logger.child({ component: 'serials' }), ...(canSave === undefined ? {} : { canSave }) });
}
type OperandStatus = { onSynced(): void; onSyncFailed(err: unknown): void } | undefined;

/** The sync loop, with the Kubernetes hooks (leader election, Events) and the operand status wired in. */
function syncController(
  cfg: Config,
  parts: {
    source: Source;
    registry: Registry;
    logger: Logger;
    metrics: MetricsRegistry;
    kube: Hooks;
    status: OperandStatus;
    replicas: ReplicaSet | undefined;
    web: RunConsole | undefined;
  },
): Controller {
  const { source, registry, logger, metrics, kube, status, replicas, web } = parts;
  const canApply = replicas === undefined ? kube?.canApply : () => replicas.role.canApply();
  const role = replicas?.role;
  const controller = new Controller({
    source,
    registry,
    plan: {
      policy: cfg.policy,
      managedRecordTypes: cfg.managedRecordTypes,
      excludeRecordTypes: cfg.excludeRecordTypes,
      domainFilter: domainFilterOf(cfg),
      migrateFromOwner: cfg.migrateFromTxtOwner,
    },
    intervalMs: cfg.intervalMs,
    minEventSyncIntervalMs: cfg.minEventSyncIntervalMs,
    dryRun: cfg.dryRun,
    logger: logger.child({ component: 'controller' }),
    metrics: new ControllerMetrics(metrics),
    ...(canApply === undefined || cfg.once ? {} : { canApply }),
    ...(kube?.onSynced === undefined && status === undefined && role === undefined
      ? {}
      : {
          onSynced: (report) => {
            kube?.onSynced?.(report);
            status?.onSynced();
            void role?.synced().catch((err: unknown) => logger.warn({ err: errorMessage(err) }, 'cannot publish this replica as the leader'));
          },
        }),
    ...(status === undefined && web === undefined
      ? {}
      : {
          onSyncFailed: (err) => {
            status?.onSyncFailed(err);
            web?.failed(err);
          },
        }),
    ...(web === undefined ? {} : { onPlanned: (report) => web.planned(report) }),
  });
  web?.attach(controller, () => !cfg.dryRun && (canApply?.() ?? true));
  return controller;
}

type ServingParts = {
  provider: Provider;
  controller: Controller;
  logger: Logger;
  metrics: MetricsRegistry;
  closers: (() => Promise<void>)[];
  stopSignal: AbortSignal;
  replicas: ReplicaSet | undefined;
  web: RunConsole | undefined;
};

/**
 * The /metrics, /healthz, /readyz server and the DNS server (embedded provider); each one's stop
 * goes to `closers`, which run in reverse: the DNS server drains and stops before the ops server.
 * The ops server starts first: /readyz then says why the pod is not ready while zones load.
 */
async function startServing(cfg: Config, parts: ServingParts): Promise<void> {
  const { provider, controller, logger, metrics, closers, stopSignal, replicas, web } = parts;
  const ready = new Readiness(controller);
  let stopAt = 0;
  const onStop = (): void => {
    stopAt = Date.now();
    ready.stopping();
  };
  if (stopSignal.aborted) onStop();
  else stopSignal.addEventListener('abort', onStop, { once: true });
  if (cfg.metricsAddress !== '') {
    const { host, port } = parseListenAddress(cfg.metricsAddress, '--metrics-address');
    const health = { staleAfterMs: cfg.intervalMs * 3 + 60_000, maxConsecutiveFailures: healthFailureLimit(cfg) };
    const ops = new OpsServer({
      host,
      port,
      metrics,
      logger,
      limits: connectionLimitsFromFlags(cfg.flags),
      health: () => liveness(controller, { ...health, now: Date.now() }),
      ready: () => ready.report(),
      ...(web === undefined || cfg.flags.str('ui-address') !== '' ? {} : { routes: (path, req, res) => web.server.handle(path, req, res) }),
    });
    await ops.start();
    closers.push(() => ops.stop());
  }
  if (web !== undefined) closers.push(cfg.flags.str('ui-address') === '' ? async () => web.server.close() : await serveConsoleAlone(cfg, web, logger));

  if (provider instanceof EmbeddedProvider && cfg.dnsListen.length > 0) {
    const peerKeys = replicas?.peerKey === undefined ? [] : [replicas.peerKey];
    const dns = DnsServer.fromConfig(cfg, { logger: logger.child({ component: 'dns' }), metrics, tsigKeys: peerKeys });
    ready.watchDns(() => dns.servingState());
    // A new leader is ready once it published (its first sync as leader), or if it had caught up as a follower.
    if (replicas !== undefined) ready.watchReplica(() => (replicas.role.leading() ? undefined : replicas.follower.notReady()));
    // Listening first would answer REFUSED for the zones until they reach the server.
    provider.store.addListener(dns);
    const drainMs = shutdownDrainMs(cfg);
    closers.push(async () => {
      // /readyz has failed since the stop signal; the Service stops sending queries here only once
      // the endpoint removal reaches every node, so the server keeps answering until the drain ends.
      const left = stopAt === 0 ? 0 : stopAt + drainMs - Date.now();
      if (left > 0) {
        logger.info({ drainMs, leftMs: left }, 'draining DNS queries before stopping the DNS server');
        await new Promise((resolve) => setTimeout(resolve, left));
      }
      await dns.stop();
    });
    await dns.start();
    if (replicas !== undefined) {
      replicas.start();
      // Runs before the DNS server's closer: no transfer swaps a zone into a stopping server.
      closers.push(() => replicas.stop());
    }
  }
}

/** --shutdown-drain: how long the DNS server keeps answering after the stop signal. */
function shutdownDrainMs(cfg: Config): number {
  const ms = cfg.flags.num('shutdown-drain');
  if (!(ms >= 0 && ms <= 600_000)) throw new ConfigError('--shutdown-drain must be between 0s and 10m', '--shutdown-drain');
  return ms;
}

function healthFailureLimit(cfg: Config): number {
  const n = cfg.flags.num('healthz-max-consecutive-failures');
  if (!Number.isInteger(n) || n < 0)
    throw new ConfigError('--healthz-max-consecutive-failures must be a whole number, 0 or more', '--healthz-max-consecutive-failures');
  return n;
}
