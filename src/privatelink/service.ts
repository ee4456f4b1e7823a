/**
 * The `privatelink-controller` process: Kubernetes client, AWS accounts, reconciler, controller,
 * optional leader election and the /metrics + /healthz server, built from flags by fromConfig().
 */
import { Registry } from 'prom-client';
import type { Config } from '../config/config.ts';
import { parseListenAddress } from '../config/config.ts';
import { ConfigError } from '../errors.ts';
import { OpsServer } from '../http/ops-server.ts';
import type { Logger } from '../log.ts';
import { KubeClient, locateKubeConfig } from '../kube/client.ts';
import type { KubeEnv } from '../kube/client.ts';
import { LeaderElector } from '../kube/leader-election.ts';
import { AwsAccounts } from './aws-clients.ts';
import { PrivateLinkController } from './controller.ts';
import { PRIVATELINK_LEASE } from './flags.ts';
import { PrivateLinkReconciler } from './reconciler.ts';

export interface PrivateLinkServiceParts {
  client: KubeClient;
  accounts: AwsAccounts;
  controller: PrivateLinkController;
  elector: LeaderElector | undefined;
  ops: OpsServer | undefined;
  logger: Logger;
}

export class PrivateLinkService {
  private readonly parts: PrivateLinkServiceParts;

  constructor(parts: PrivateLinkServiceParts) {
    this.parts = parts;
  }

  static fromConfig(cfg: Config, deps: { logger: Logger; env: KubeEnv }): PrivateLinkService {
    const flags = cfg.flags;
    const logger = deps.logger.child({ component: 'privatelink' });
    const endpointUrl = flags.str('aws-endpoint-url');
    if (endpointUrl !== '' && !/^https?:\/\/[^/]+/.test(endpointUrl)) throw new ConfigError('--aws-endpoint-url must be an http:// or https:// URL', '--aws-endpoint-url');
    const workers = flags.num('privatelink-workers');
    if (!Number.isInteger(workers) || workers < 1 || workers > 64) throw new ConfigError('--privatelink-workers must be from 1 to 64', '--privatelink-workers');
    const waitMs = flags.num('privatelink-endpoint-wait');
    if (waitMs < 0) throw new ConfigError('--privatelink-endpoint-wait must not be negative', '--privatelink-endpoint-wait');
    const hiveNamespace = flags.str('hive-namespace');
    if (hiveNamespace === '') throw new ConfigError('--hive-namespace must not be empty', '--hive-namespace');

    const source = { kubeconfig: flags.str('kubeconfig'), env: deps.env };
    const inCluster = locateKubeConfig(source).kind === 'in-cluster';
    const client = KubeClient.fromConfig(source, logger);
    const accounts = new AwsAccounts({ logger, endpointUrl, retries: flags.num('aws-api-retries'), requestsPerSecond: flags.num('aws-requests-per-second') });
    const delayMs = Math.min(3000, waitMs);
    const reconciler = new PrivateLinkReconciler({
      client,
      accounts: (spec) => accounts.account(spec),
      hiveNamespace,
      logger,
      endpointWait: { attempts: delayMs > 0 ? Math.floor(waitMs / delayMs) : 0, delayMs },
    });

    const elect = cfg.explicit.has('leader-elect') ? flags.bool('leader-elect') : inCluster;
    const metrics = new Registry();
    let elector: LeaderElector | undefined;
    const controller = new PrivateLinkController({
      client,
      reconcile: (key) => reconciler.reconcile(key),
      logger,
      concurrency: workers,
      metrics,
      ...(elect ? { canRun: () => elector?.isLeader() === true } : {}),
    });
    if (elect) {
      elector = new LeaderElector({
        client,
        logger,
        namespace: flags.str('leader-election-namespace') || 'default',
        name: cfg.explicit.has('leader-election-id') ? flags.str('leader-election-id') : PRIVATELINK_LEASE,
        leaseDurationMs: flags.num('leader-election-lease-duration'),
        renewDeadlineMs: flags.num('leader-election-renew-deadline'),
        retryPeriodMs: flags.num('leader-election-retry-period'),
        onStartedLeading: () => controller.queue.kick(),
      });
    }
    let ops: OpsServer | undefined;
    if (cfg.metricsAddress !== '') {
      const { host, port } = parseListenAddress(cfg.metricsAddress, '--metrics-address');
      ops = new OpsServer({ host, port, metrics, logger, health: () => (controller.synced() ? { ok: true, detail: 'ok' } : { ok: false, detail: 'caches not synced yet' }) });
    }
    return new PrivateLinkService({ client, accounts, controller, elector, ops, logger });
  }

  async start(): Promise<void> {
    await this.parts.ops?.start();
    this.parts.controller.start();
    this.parts.elector?.start();
  }

  async stop(): Promise<void> {
    await this.parts.elector?.stop(true);
    await this.parts.controller.stop();
    await this.parts.ops?.stop();
    this.parts.accounts.close();
    this.parts.client.close();
  }
}
