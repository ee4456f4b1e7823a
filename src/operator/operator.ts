/**
 * `hostwarden operator` assembled from flags: the Kubernetes client, platform detection, the
 * controller (behind a Lease when electing), the HTTPS webhooks and /metrics + /healthz. Every flag
 * is checked before anything starts.
 */
import { Counter, Histogram, Registry as MetricsRegistry, collectDefaultMetrics } from 'prom-client';
import type { Config } from '../config/config.ts';
import { parseListenAddress } from '../config/config.ts';
import { ConfigError, errorMessage } from '../errors.ts';
import { loadServingTls, servingTlsFlags } from '../http/serving-tls.ts';
import type { ServingTls } from '../http/serving-tls.ts';
import { connectionLimitsFromFlags } from '../http/flags.ts';
import { OpsServer } from '../http/ops-server.ts';
import { locateKubeConfig } from '../kube/client.ts';
import type { KubeEnv, KubeClient } from '../kube/client.ts';
import { leaderElectorFromFlags } from '../kube/leader-election.ts';
import type { Logger } from '../log.ts';
import { ExternalDNSController } from './controller.ts';
import type { OperandSettings } from './operand.ts';
import { PROXY_VARIABLES } from './operand.ts';
import { checkCoexistence } from './coexistence.ts';
import { detectPlatform } from './platform.ts';
import { ExternalDNSReconciler } from './reconciler.ts';
import { OperatorWebhookServer } from './webhook.ts';
import { kubeClientFromConfig, kubeConfigSourceOf } from '../kube/flags.ts';

export interface OperatorDeps {
  logger: Logger;
  env: KubeEnv & Readonly<Record<string, string | undefined>>;
}

export class Operator {
  private readonly closers: (() => Promise<void> | void)[] = [];

  private constructor(
    private readonly cfg: Config,
    private readonly deps: OperatorDeps,
    private readonly client: KubeClient,
    private readonly tls: ServingTls | undefined,
    private readonly inCluster: boolean,
  ) {}

  static async fromConfig(cfg: Config, deps: OperatorDeps): Promise<Operator> {
    const f = cfg.flags;
    for (const flag of ['operator-namespace', 'operand-namespace', 'operand-image']) {
      if (f.str(flag) === '') throw new ConfigError(`--${flag} cannot be empty`, `--${flag}`);
    }
    if (f.str('webhook-listen') !== '') parseListenAddress(f.str('webhook-listen'), '--webhook-listen');
    if (cfg.metricsAddress !== '') parseListenAddress(cfg.metricsAddress, '--metrics-address');
    const inCluster = locateKubeConfig(kubeConfigSourceOf(cfg, deps.env)).kind === 'in-cluster';
    let tls: ServingTls | undefined;
    if (f.str('webhook-listen') !== '') {
      const settings = servingTlsFlags(f, 'the operator webhooks serve HTTPS', '--webhook-listen "" to serve none');
      tls = await loadServingTls(settings, deps.logger);
    }
    const client = kubeClientFromConfig(cfg, { logger: deps.logger, env: deps.env });
    return new Operator(cfg, deps, client, tls, inCluster);
  }

  /** Starts everything; resolves once serving. */
  async start(): Promise<void> {
    const { cfg, deps, client } = this;
    const f = cfg.flags;
    const log = deps.logger;
    await checkCoexistence(client, log);
    const platform = await detectPlatform(client);
    log.info({ openshift: platform.openshift, awsRegion: platform.awsRegion }, 'platform detected');
    const proxy: Record<string, string> = {};
    for (const v of PROXY_VARIABLES) if ((deps.env[v] ?? '') !== '') proxy[v] = deps.env[v] ?? '';
    const operand: OperandSettings = {
      namespace: f.str('operand-namespace'),
      image: f.str('operand-image'),
      platform,
      proxy,
      ...(f.str('trusted-ca-configmap') === '' ? {} : { trustedCAConfigMap: f.str('trusted-ca-configmap') }),
    };
    const operatorNamespace = f.str('operator-namespace');
    const reconciler = new ExternalDNSReconciler({ client, logger: log.child({ component: 'reconciler' }), operand, operatorNamespace });
    const { metrics, reconciles, duration } = operatorMetrics();
    // In a cluster the Lease goes to the Pod's namespace; elsewhere beside the operator's objects.
    const elector = leaderElectorFromFlags(cfg, {
      client,
      logger: log.child({ component: 'leader' }),
      inCluster: this.inCluster,
      defaultName: 'hostwarden-operator',
      defaultNamespace: operatorNamespace,
      onStartedLeading: () => controller.kick(),
    });
    const controller = new ExternalDNSController({
      onResult: (_key, outcome, ms) => {
        reconciles.inc({ outcome });
        duration.observe(ms / 1000);
      },
      client,
      logger: log.child({ component: 'controller' }),
      reconciler,
      operandNamespace: operand.namespace,
      operatorNamespace,
      ...(elector === undefined ? {} : { canRun: () => elector.isLeader() }),
    });
    controller.start();
    elector?.start();
    const el = elector;
    this.closers.push(async () => {
      await el?.stop(true);
      await controller.stop();
      client.close();
    });

    await this.serveWebhooks(platform);
    await this.serveMetrics(metrics);
    log.info({ operandNamespace: operand.namespace, operatorNamespace, leaderElection: elector !== undefined }, 'operator started');
  }

  /** The validating and conversion webhooks on --webhook-listen, when a certificate is configured. */
  private async serveWebhooks(platform: { openshift: boolean }): Promise<void> {
    if (this.tls === undefined) return;
    const f = this.cfg.flags;
    const { host, port } = parseListenAddress(f.str('webhook-listen'), '--webhook-listen');
    const server = new OperatorWebhookServer({
      tls: this.tls.material,
      logger: this.deps.logger.child({ component: 'webhook' }),
      openshift: () => platform.openshift,
      limits: connectionLimitsFromFlags(f),
    });
    await server.start(host, port);
    this.closers.push(() => server.stop());
    const files = this.tls.files;
    if (files !== undefined) {
      files.watch((m) => server.setCertificate(m));
      this.closers.push(() => files.stop());
    }
  }

  private async serveMetrics(metrics: MetricsRegistry): Promise<void> {
    const cfg = this.cfg;
    if (cfg.metricsAddress === '') return;
    const log = this.deps.logger;
    const { host, port } = parseListenAddress(cfg.metricsAddress, '--metrics-address');
    const ops = new OpsServer({ host, port, metrics, logger: log, limits: connectionLimitsFromFlags(cfg.flags), health: () => ({ ok: true, detail: 'ok' }) });
    const address = await ops.start();
    log.info({ address: `${address.address}:${address.port}` }, 'metrics listening');
    this.closers.push(() => ops.stop());
  }

  async stop(): Promise<void> {
    for (const close of this.closers.reverse()) {
      try {
        await close();
      } catch (err) {
        this.deps.logger.warn({ err: errorMessage(err) }, 'error while shutting down');
      }
    }
    this.closers.length = 0;
  }
}

/** The operator's own metrics, beside the process metrics. */
function operatorMetrics(): { metrics: MetricsRegistry; reconciles: Counter; duration: Histogram } {
  const metrics = new MetricsRegistry();
  collectDefaultMetrics({ register: metrics });
  const reconciles = new Counter({
    name: 'hostwarden_operator_reconciles_total',
    help: 'ExternalDNS reconciles by outcome.',
    labelNames: ['outcome'],
    registers: [metrics],
  });
  const duration = new Histogram({
    name: 'hostwarden_operator_reconcile_duration_seconds',
    help: 'Time of one ExternalDNS reconcile.',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metrics],
  });
  return { metrics, reconciles, duration };
}
