/**
 * Assembles `hostwarden dnsrecord-controller` from the flags: the Kubernetes client, the backends
 * of the served types (with the embedded zone store and DNS server when `embedded` is served),
 * per-credential rate limits, leader election, the optional validating webhook and /metrics.
 * Every flag is checked before anything starts.
 */
import { Counter, Histogram, Registry as MetricsRegistry, collectDefaultMetrics } from 'prom-client';
import type { Config } from '../config/config.ts';
import { parseListenAddress } from '../config/config.ts';
import { DnsServer } from '../dns/server/server.ts';
import { ConfigError, errorMessage } from '../errors.ts';
import { loadServingTls, servingTlsFlags } from '../http/serving-tls.ts';
import { connectionLimitsFromFlags } from '../http/flags.ts';
import { OpsServer } from '../http/ops-server.ts';
import { locateKubeConfig } from '../kube/client.ts';
import type { KubeEnv } from '../kube/client.ts';
import { EventRecorder } from '../kube/events.ts';
import { defaultIdentity, leaderElectorFromFlags } from '../kube/leader-election.ts';
import type { Logger } from '../log.ts';
import { ZoneStore } from '../provider/embedded/record-sets.ts';
import { backendTypes } from './backend-types.ts';
import { DNSRecordController } from './controller.ts';
import { extensionClassesOf, servedTypes } from './flags.ts';
import { DEFAULT_AWS_DNS_REGION } from './types.ts';
import { CredentialLimiters } from './limiters.ts';
import { DNSRecordWebhook } from './webhook.ts';
import { kubeClientFromConfig, kubeConfigSourceOf } from '../kube/flags.ts';

type Step = () => Promise<void> | void;

export class DNSRecordService {
  readonly controller: DNSRecordController;
  private readonly starters: Step[];
  private readonly closers: Step[] = [];
  private readonly logger: Logger;

  private constructor(controller: DNSRecordController, starters: Step[], closers: Step[], logger: Logger) {
    this.controller = controller;
    this.starters = starters;
    this.closers = closers;
    this.logger = logger;
  }

  static async fromConfig(cfg: Config, deps: { logger: Logger; env: KubeEnv }): Promise<DNSRecordService> {
    const { logger } = deps;
    const f = cfg.flags;
    const { concurrency, rps, retries } = checkedFlags(f);
    let types = f.list('dnsrecord-types');
    const classes = extensionClassesOf(f);

    const starters: Step[] = [];
    const closers: Step[] = [];
    const registry = new MetricsRegistry();
    collectDefaultMetrics({ register: registry });

    const embedded = embeddedSteps(cfg, types, { logger, registry, starters, closers });
    types = embedded.types;
    const store = embedded.store;

    // --kubeconfig, --kube-context and --request-timeout, as for every command that talks to a cluster.
    const inCluster = locateKubeConfig(kubeConfigSourceOf(cfg, deps.env)).kind === 'in-cluster';
    const client = kubeClientFromConfig(cfg, { logger, env: deps.env });
    closers.push(() => client.close());

    const identity = defaultIdentity();
    const events = new EventRecorder({
      client,
      logger: logger.child({ component: 'events' }),
      controller: 'hostwarden-dnsrecord-controller',
      instance: identity,
    });
    closers.push(() => events.flush());
    const elector = leaderElectorFromFlags(cfg, {
      client,
      logger: logger.child({ component: 'leader' }),
      inCluster,
      defaultName: 'hostwarden-dnsrecord-controller',
      identity,
      onStartedLeading: () => controller.kick(),
    });
    const elect = elector !== undefined;

    const { reconciles, duration, requests } = dnsrecordMetrics(registry);
    const limiters = new CredentialLimiters({ ratePerSecond: rps, onTake: (key) => requests.inc({ credential_type: key.split(':')[0] ?? '' }) });

    const controller = new DNSRecordController({
      client,
      logger: logger.child({ component: 'dnsrecord' }),
      limiters,
      types: servedTypes(types).map((t) => t.served),
      extensionClasses: classes,
      ignoreOperationAnnotation: f.bool('ignore-operation-annotation'),
      concurrency,
      configRetryMs: f.num('dnsrecord-config-retry'),
      throttleRetryMs: f.num('dnsrecord-throttle-retry'),
      syncPeriodMs: f.num('dnsrecord-sync-period'),
      events,
      backends: backendTypes(types, {
        aws: { region: f.str('aws-region') || DEFAULT_AWS_DNS_REGION, endpointUrl: f.str('aws-endpoint-url'), retries },
        rfc2136TimeoutMs: f.num('dnsrecord-rfc2136-timeout'),
        google: { apiEndpoint: f.str('google-api-endpoint') },
        azure: f.str('azure-endpoint') === '' ? {} : { endpoint: f.str('azure-endpoint') },
        ...(store === undefined ? {} : { store }),
      }),
      ...(elector === undefined ? {} : { canRun: () => elector.isLeader() }),
      onResult: (_key, outcome, ms) => {
        reconciles.inc({ outcome });
        duration.observe(ms / 1000);
      },
    });

    if (cfg.explicit.has('listen')) starters.push(...(await webhookSteps(cfg, logger, closers)));
    starters.push(() => controller.start());
    if (elector !== undefined) {
      const e = elector;
      starters.push(() => e.start());
      closers.push(() => e.stop());
    }
    closers.push(() => controller.stop());

    if (cfg.metricsAddress !== '') opsSteps(cfg, registry, logger, () => controller.reflector.hasSynced(), { starters, closers });
    logger.info(
      { types, extensionClasses: classes, ignoreOperationAnnotation: f.bool('ignore-operation-annotation'), leaderElection: elect },
      'dnsrecord-controller starting',
    );
    return new DNSRecordService(controller, starters, closers, logger);
  }

  async start(): Promise<void> {
    for (const s of this.starters) await s();
  }

  async stop(): Promise<void> {
    for (const close of [...this.closers].reverse()) {
      try {
        await close();
      } catch (err) {
        this.logger.warn({ err: errorMessage(err) }, 'error while shutting down');
      }
    }
  }
}

/** The webhook's serving certificate (files re-read on change, or self-signed) and its server. */
async function webhookSteps(cfg: Config, logger: Logger, closers: Step[]): Promise<Step[]> {
  const f = cfg.flags;
  const { host, port } = parseListenAddress(f.str('listen'), '--listen');
  const settings = servingTlsFlags(f, 'the DNSRecord webhook (--listen) serves HTTPS');
  const { material: tls, files } = await loadServingTls(settings, logger);
  const webhook = new DNSRecordWebhook({ tls, logger: logger.child({ component: 'webhook' }), limits: connectionLimitsFromFlags(f) });
  closers.push(() => webhook.stop());
  const watched = files;
  if (watched !== undefined) closers.push(() => watched.stop());
  return [
    async () => {
      await webhook.start(host, port);
      watched?.watch((m) => webhook.setCertificate(m));
    },
  ];
}

interface Steps {
  starters: Step[];
  closers: Step[];
}

/** The controller's own flags and the AWS defaults it applies, checked before anything starts. */
function checkedFlags(f: Config['flags']): { concurrency: number; rps: number; retries: number } {
  const types = f.list('dnsrecord-types');
  servedTypes(types); // throws naming the flag
  if (types.length === 0) throw new ConfigError('--dnsrecord-types must name at least one type', '--dnsrecord-types');
  const concurrency = f.num('dnsrecord-concurrency');
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new ConfigError('--dnsrecord-concurrency must be at least 1', '--dnsrecord-concurrency');
  for (const name of ['dnsrecord-config-retry', 'dnsrecord-throttle-retry', 'dnsrecord-rfc2136-timeout']) {
    if (f.num(name) <= 0) throw new ConfigError(`--${name} must be greater than 0`, `--${name}`);
  }
  if (!(f.num('dnsrecord-sync-period') >= 0)) throw new ConfigError('--dnsrecord-sync-period must not be negative', '--dnsrecord-sync-period');
  const rps = f.num('aws-requests-per-second');
  if (!Number.isFinite(rps) || rps < 0) throw new ConfigError('--aws-requests-per-second must be 0 or more', '--aws-requests-per-second');
  const retries = f.num('aws-api-retries');
  if (!Number.isInteger(retries) || retries < 0 || retries > 20) throw new ConfigError('--aws-api-retries must be from 0 to 20', '--aws-api-retries');
  return { concurrency, rps, retries };
}

/**
 * The embedded type: its zone store (and DNS server with --dns-listen), or the type dropped from
 * the default list when no zone is configured.
 */
function embeddedSteps(
  cfg: Config,
  requested: string[],
  parts: Steps & { logger: Logger; registry: MetricsRegistry },
): { types: string[]; store: ZoneStore | undefined } {
  const { logger, registry, starters, closers } = parts;
  let types = requested;
  let store: ZoneStore | undefined;
  const zones = cfg.embeddedZones.length > 0 ? cfg.embeddedZones : cfg.domainFilters.map((d) => d.replace(/^\./, ''));
  if (types.includes('embedded') && zones.length === 0 && !cfg.explicit.has('dnsrecord-types')) {
    // The default list names every type; embedded needs zones, so without them it is simply not served.
    types = types.filter((t) => t !== 'embedded');
    logger.info('embedded DNSRecords are not served: no --embedded-zone');
  }
  if (servedTypes(types).some((t) => t.backend === 'embedded')) {
    if (zones.length === 0)
      throw new ConfigError(
        'the embedded DNSRecord type needs the zones it serves: set --embedded-zone (or drop embedded from --dnsrecord-types)',
        '--embedded-zone',
      );
    const opened = new ZoneStore({
      dataDir: cfg.embeddedDataDir,
      zones,
      defaultTTL: cfg.embeddedDefaultTTL,
      logger: logger.child({ component: 'zone-store' }),
    });
    store = opened;
    starters.push(() => opened.open());
    closers.push(() => opened.close());
    if (cfg.dnsListen.length > 0) {
      const dns = DnsServer.fromConfig(cfg, { logger: logger.child({ component: 'dns' }), metrics: registry });
      starters.push(async () => {
        // Listening first would answer REFUSED for the zones until they reach the server.
        opened.addListener(dns);
        await dns.start();
      });
      closers.push(() => dns.stop());
    }
  }
  return { types, store };
}

function dnsrecordMetrics(registry: MetricsRegistry): { reconciles: Counter; duration: Histogram; requests: Counter } {
  const reconciles = new Counter({
    name: 'hostwarden_dnsrecord_reconciles_total',
    help: 'DNSRecord reconciles by outcome: success, requeue (done, and another run scheduled: a resync or a wait), error.',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'hostwarden_dnsrecord_reconcile_duration_seconds',
    help: 'Time of one DNSRecord reconcile.',
    registers: [registry],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 30],
  });
  const requests = new Counter({
    name: 'hostwarden_dnsrecord_provider_requests_total',
    help: 'Provider API requests admitted by the per-credential rate limiter.',
    labelNames: ['credential_type'],
    registers: [registry],
  });
  return { reconciles, duration, requests };
}

/** /metrics and /healthz (healthy once the DNSRecords are listed). */
function opsSteps(cfg: Config, registry: MetricsRegistry, logger: Logger, listed: () => boolean, steps: Steps): void {
  const { host, port } = parseListenAddress(cfg.metricsAddress, '--metrics-address');
  const ops = new OpsServer({
    host,
    port,
    metrics: registry,
    logger,
    limits: connectionLimitsFromFlags(cfg.flags),
    health: () => (listed() ? { ok: true, detail: 'ok' } : { ok: false, detail: 'DNSRecords not listed yet' }),
  });
  steps.starters.push(async () => void (await ops.start()));
  steps.closers.push(() => ops.stop());
}
