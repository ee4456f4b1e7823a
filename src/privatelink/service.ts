/**
 * The `privatelink-controller` process: Kubernetes client, AWS accounts, reconciler, controller,
 * optional leader election and the /metrics + /healthz server, built from flags by fromConfig().
 */
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import type { CertificateFiles } from '../http/tls.ts';
import type { Config } from '../config/config.ts';
import { parseListenAddress } from '../config/config.ts';
import { ConfigError } from '../errors.ts';
import { loadServingTls, servingTlsFlags } from '../http/serving-tls.ts';
import { connectionLimitsFromFlags } from '../http/flags.ts';
import { OpsServer } from '../http/ops-server.ts';
import type { Logger } from '../log.ts';
import { locateKubeConfig } from '../kube/client.ts';
import type { KubeEnv, KubeClient } from '../kube/client.ts';
import { leaderElectorFromFlags } from '../kube/leader-election.ts';
import type { LeaderElector } from '../kube/leader-election.ts';
import { AwsAccounts } from './aws/clients.ts';
import { PrivateLinkController } from './controller.ts';
import { PrivateLinkAdmissionServer } from './admission-server.ts';
import { PRIVATELINK_LEASE } from './flags.ts';
import { PrivateLinkReconciler } from './reconciler.ts';
import type { HiveConfig } from './types.ts';
import { kubeClientFromConfig, kubeConfigSourceOf } from '../kube/flags.ts';

export interface PrivateLinkServiceParts {
  client: KubeClient;
  accounts: AwsAccounts;
  controller: PrivateLinkController;
  elector: LeaderElector | undefined;
  ops: OpsServer | undefined;
  admission: { server: PrivateLinkAdmissionServer; host: string; port: number; files: CertificateFiles | undefined } | undefined;
  logger: Logger;
}

export class PrivateLinkService {
  private readonly parts: PrivateLinkServiceParts;

  constructor(parts: PrivateLinkServiceParts) {
    this.parts = parts;
  }

  static async fromConfig(cfg: Config, deps: { logger: Logger; env: KubeEnv }): Promise<PrivateLinkService> {
    const flags = cfg.flags;
    const logger = deps.logger.child({ component: 'privatelink' });
    const endpointUrl = flags.str('aws-endpoint-url');
    if (endpointUrl !== '' && !/^https?:\/\/[^/]+/.test(endpointUrl))
      throw new ConfigError('--aws-endpoint-url must be an http:// or https:// URL', '--aws-endpoint-url');
    const workers = flags.num('privatelink-workers');
    if (!Number.isInteger(workers) || workers < 1 || workers > 64) throw new ConfigError('--privatelink-workers must be from 1 to 64', '--privatelink-workers');
    const waitMs = flags.num('privatelink-endpoint-wait');
    if (waitMs < 0) throw new ConfigError('--privatelink-endpoint-wait must not be negative', '--privatelink-endpoint-wait');
    const hiveNamespace = flags.str('hive-namespace');
    if (hiveNamespace === '') throw new ConfigError('--hive-namespace must not be empty', '--hive-namespace');

    const inCluster = locateKubeConfig(kubeConfigSourceOf(cfg, deps.env)).kind === 'in-cluster';
    const client = kubeClientFromConfig(cfg, { logger, env: deps.env });
    const accounts = new AwsAccounts({ logger, endpointUrl, retries: flags.num('aws-api-retries'), requestsPerSecond: flags.num('aws-requests-per-second') });
    const delayMs = Math.min(3000, waitMs);
    const reconciler = new PrivateLinkReconciler({
      client,
      accounts: (spec) => accounts.account(spec),
      hiveNamespace,
      logger,
      endpointWait: { attempts: delayMs > 0 ? Math.floor(waitMs / delayMs) : 0, delayMs },
    });

    const metrics = new Registry();
    const elector = leaderElectorFromFlags(cfg, { client, logger, inCluster, defaultName: PRIVATELINK_LEASE, onStartedLeading: () => controller.queue.kick() });
    const controller = new PrivateLinkController({
      client,
      reconcile: (key) => reconciler.reconcile(key),
      logger,
      concurrency: workers,
      metrics,
      admissionServed: flags.str('privatelink-admission-listen') !== '',
      ...(elector === undefined ? {} : { canRun: () => elector.isLeader() }),
    });
    let ops: OpsServer | undefined;
    if (cfg.metricsAddress !== '') {
      const { host, port } = parseListenAddress(cfg.metricsAddress, '--metrics-address');
      ops = new OpsServer({
        host,
        port,
        metrics,
        logger,
        limits: connectionLimitsFromFlags(flags),
        health: () => (controller.synced() ? { ok: true, detail: 'ok' } : { ok: false, detail: 'caches not synced yet' }),
        ready: () => readiness(controller),
      });
    }
    const admission = await admissionFromConfig(cfg, logger, () => controller.hiveConfig());
    return new PrivateLinkService({ client, accounts, controller, elector, ops, admission, logger });
  }

  /** The admission server's address, when it runs. */
  admissionAddress: AddressInfo | undefined;

  async start(): Promise<void> {
    await this.parts.ops?.start();
    const adm = this.parts.admission;
    if (adm !== undefined) {
      this.admissionAddress = await adm.server.start(adm.host, adm.port);
      adm.files?.watch((m) => adm.server.setCertificate(m));
    }
    this.parts.controller.start();
    this.parts.elector?.start();
  }

  async stop(): Promise<void> {
    await this.parts.elector?.stop(true);
    await this.parts.controller.stop();
    await this.parts.ops?.stop();
    this.parts.admission?.files?.stop();
    await this.parts.admission?.server.stop();
    this.parts.accounts.close();
    this.parts.client.close();
  }
}

/** /readyz: not ready before the caches listed, nor while Hive's own awsprivatelink controller runs (the reason is the body). */
function readiness(controller: PrivateLinkController): { ok: boolean; detail: string } {
  if (!controller.synced()) return { ok: false, detail: 'caches not synced yet' };
  const conflict = controller.hiveConflict();
  return conflict === undefined ? { ok: true, detail: 'ok' } : { ok: false, detail: conflict };
}

async function admissionFromConfig(
  cfg: Config,
  logger: Logger,
  hiveConfig: () => { loaded: boolean; config: HiveConfig | undefined },
): Promise<PrivateLinkServiceParts['admission']> {
  const listenAt = cfg.flags.str('privatelink-admission-listen');
  if (listenAt === '') return undefined;
  const { host, port } = parseListenAddress(listenAt, '--privatelink-admission-listen');
  const settings = servingTlsFlags(cfg.flags, '--privatelink-admission-listen serves HTTPS');
  const { material: tls, files } = await loadServingTls(settings, logger, 'admission serves a self-signed certificate: for local use only');
  const server = new PrivateLinkAdmissionServer({
    tls,
    hiveConfig,
    logger: logger.child({ component: 'admission' }),
    limits: connectionLimitsFromFlags(cfg.flags),
  });
  return { server, host, port, files };
}
