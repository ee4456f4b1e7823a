/**
 * Assembles the admission webhook from the configuration: the policy source (file, flags, a live
 * Network object, or none: everything refused), the serving certificate, the SubjectAccessReview
 * client and the HTTPS server. Validates every flag before anything starts listening.
 */
import { readFile } from 'node:fs/promises';
import { Registry as MetricsRegistry, collectDefaultMetrics } from 'prom-client';
import type { Config } from '../config/config.ts';
import { parseListenAddress } from '../config/config.ts';
import { ConfigError, errorMessage } from '../errors.ts';
import { connectionLimitsFromFlags } from '../http/flags.ts';
import { loadServingTls, servingTlsFlags } from '../http/serving-tls.ts';
import { KubeClient, loadKubeConfig } from '../kube/client.ts';
import type { KubeEnv } from '../kube/client.ts';
import type { Logger } from '../log.ts';
import { DEFAULT_ADMISSION_LISTEN } from './flags.ts';
import { AdmissionMetrics } from './metrics.ts';
import { NetworkPolicySource } from './network-source.ts';
import { PolicyError, describePolicy, emptyPolicy, parsePolicyFile, policyFromFlags } from './policy.ts';
import type { ExternalIPPolicy } from './policy.ts';
import { NoOverrideChecker, SubjectAccessReviewChecker } from './sar.ts';
import { AdmissionServer } from './server.ts';
import { redactUrl } from '../redact.ts';
import { kubeConfigSourceOf } from '../kube/flags.ts';

export interface AdmissionWebhookDeps {
  logger: Logger;
  env: KubeEnv;
  /** Registry for /metrics; a fresh one with the process metrics when not given. */
  registry?: MetricsRegistry;
}

type PolicyChoice = { kind: 'static'; policy: ExternalIPPolicy } | { kind: 'network'; name: string; intervalMs: number };

async function choosePolicy(cfg: Config, logger: Logger): Promise<PolicyChoice> {
  const f = cfg.flags;
  const file = f.str('config');
  const fromFlags = ['allowed-cidrs', 'rejected-cidrs', 'allow-ingress-ip'].filter((n) => cfg.explicit.has(n));
  const network = f.str('openshift-network');
  const chosen = [file !== '' ? '--config' : '', fromFlags.length > 0 ? `--${fromFlags[0] ?? ''}` : '', network !== '' ? '--openshift-network' : ''].filter(
    (s) => s !== '',
  );
  if (chosen.length > 1) throw new ConfigError(`${chosen.join(' and ')} cannot be used together: choose one source of allowed ranges`, chosen[1]);
  if (file !== '') {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new ConfigError(`--config: cannot read ${file}: ${errorMessage(err)}`, '--config');
    }
    try {
      return { kind: 'static', policy: parsePolicyFile(text, file) };
    } catch (err) {
      if (err instanceof PolicyError) throw new ConfigError(`--config: ${err.message}`, '--config');
      throw err;
    }
  }
  if (network !== '') {
    const intervalMs = f.num('openshift-network-interval');
    if (intervalMs <= 0) throw new ConfigError('--openshift-network-interval must be greater than 0', '--openshift-network-interval');
    return { kind: 'network', name: network, intervalMs };
  }
  if (fromFlags.length > 0) {
    return {
      kind: 'static',
      policy: policyFromFlags({ allowedCidrs: f.list('allowed-cidrs'), rejectedCidrs: f.list('rejected-cidrs'), allowIngressIP: f.bool('allow-ingress-ip') }),
    };
  }
  logger.warn('no externalIP ranges configured (--config, --allowed-cidrs, --rejected-cidrs or --openshift-network): every externalIP is refused');
  return { kind: 'static', policy: emptyPolicy('no configuration') };
}

export class AdmissionWebhook {
  private readonly closers: (() => Promise<void> | void)[] = [];

  private constructor(
    readonly server: AdmissionServer,
    private readonly host: string,
    private readonly port: number,
    private readonly logger: Logger,
    private readonly starters: (() => Promise<void>)[],
  ) {}

  static async fromConfig(cfg: Config, deps: AdmissionWebhookDeps): Promise<AdmissionWebhook> {
    const logger = deps.logger;
    const listen = cfg.explicit.has('listen') ? cfg.flags.str('listen') : DEFAULT_ADMISSION_LISTEN;
    const { host, port } = parseListenAddress(listen, '--listen');
    const timeoutMs = cfg.flags.num('subject-access-review-timeout');
    if (timeoutMs <= 0) throw new ConfigError('--subject-access-review-timeout must be greater than 0', '--subject-access-review-timeout');

    const tlsFlags = servingTlsFlags(cfg.flags, 'the admission webhook serves HTTPS');
    const limits = connectionLimitsFromFlags(cfg.flags);

    const choice = await choosePolicy(cfg, logger);
    const kubeConfig = await loadKubeConfig(kubeConfigSourceOf(cfg, deps.env)).catch((err: unknown) => {
      // Outside a cluster and without --kubeconfig (a local trial) the webhook still runs; no
      // override can be checked, so every refusal stands.
      if (!(err instanceof ConfigError) || cfg.flags.str('kubeconfig') !== '' || choice.kind === 'network') throw err;
      logger.warn({ err: err.message }, 'no Kubernetes configuration: overrides cannot be checked, every refused externalIP is denied');
      return undefined;
    });
    if (kubeConfig !== undefined) logger.debug({ server: redactUrl(kubeConfig.getCurrentCluster()?.server ?? '') }, 'kubernetes configuration loaded');

    const registry = deps.registry ?? new MetricsRegistry();
    if (deps.registry === undefined) collectDefaultMetrics({ register: registry });
    const metrics = new AdmissionMetrics(registry);

    const { material: tls, files } = await loadServingTls(tlsFlags, logger, 'serving a self-signed certificate: for local use only');

    let policy: () => ExternalIPPolicy;
    const starters: (() => Promise<void>)[] = [];
    const closers: (() => void)[] = [];
    if (choice.kind === 'network') {
      if (kubeConfig === undefined) throw new ConfigError('--openshift-network needs a Kubernetes configuration', '--kubeconfig');
      const client = new KubeClient({ config: kubeConfig, logger: logger.child({ component: 'kube' }), requestTimeoutMs: 10_000 });
      const source = new NetworkPolicySource({
        client,
        name: choice.name,
        intervalMs: choice.intervalMs,
        logger: logger.child({ component: 'policy' }),
        metrics,
      });
      policy = () => source.current();
      starters.push(() => source.start());
      closers.push(
        () => source.stop(),
        () => client.close(),
      );
    } else {
      const fixed = choice.policy;
      policy = () => fixed;
      logger.info({ origin: fixed.origin, policy: describePolicy(fixed) }, 'externalIP policy');
    }

    const checker =
      kubeConfig === undefined
        ? new NoOverrideChecker('no Kubernetes configuration was found (--kubeconfig)')
        : await SubjectAccessReviewChecker.create({ config: kubeConfig, timeoutMs, logger: logger.child({ component: 'sar' }) });
    const server = new AdmissionServer({ policy, checker, tls, logger: logger.child({ component: 'admission' }), registry, metrics, limits });
    const webhook = new AdmissionWebhook(server, host, port, logger, starters);
    webhook.closers.push(() => checker.close(), ...closers);
    if (files !== undefined) {
      const watched = files;
      starters.push(async () => watched.watch((m) => server.setCertificate(m)));
      webhook.closers.push(() => watched.stop());
    }
    return webhook;
  }

  async start(): Promise<{ port: number }> {
    for (const start of this.starters) await start();
    const address = await this.server.start(this.host, this.port);
    this.closers.push(() => this.server.stop());
    return { port: address.port };
  }

  async stop(): Promise<void> {
    for (const close of this.closers.reverse()) {
      try {
        await close();
      } catch (err) {
        this.logger.warn({ err: errorMessage(err) }, 'error while shutting down');
      }
    }
    this.closers.length = 0;
  }
}
