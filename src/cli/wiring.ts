/**
 * Builds sources, providers and registries from the resolved configuration. Adding a provider or
 * a source means one folder and one line in a table here; nothing else changes.
 */
import type { Registry as MetricsRegistry } from 'prom-client';
import { ADMISSION_FLAGS } from '../admission/flags.ts';
import type { Config } from '../config/config.ts';
import type { FlagSpec } from '../config/flags.ts';
import type { Logger } from '../log.ts';
import { CoreDnsProvider } from '../provider/coredns/coredns.ts';
import { COREDNS_FLAGS } from '../provider/coredns/flags.ts';
import { AWS_FLAGS } from '../provider/aws/flags.ts';
import { Route53Provider } from '../provider/aws/route53.ts';
import { AzureProvider } from '../provider/azure/azure.ts';
import { AZURE_FLAGS } from '../provider/azure/flags.ts';
import { EmbeddedProvider } from '../provider/embedded/embedded.ts';
import { GOOGLE_FLAGS } from '../provider/google/flags.ts';
import { GoogleProvider } from '../provider/google/google.ts';
import { InMemoryProvider } from '../provider/inmemory/inmemory.ts';
import { PDNS_FLAGS } from '../provider/pdns/flags.ts';
import { PdnsProvider } from '../provider/pdns/pdns.ts';
import { WebhookProvider } from '../provider/webhook/client.ts';
import { WEBHOOK_FLAGS } from '../provider/webhook/flags.ts';
import type { Provider } from '../provider/provider.ts';
import { RFC2136_FLAGS } from '../provider/rfc2136/flags.ts';
import { Rfc2136Provider } from '../provider/rfc2136/rfc2136.ts';
import { NoopRegistry } from '../registry/noop/noop-registry.ts';
import type { Registry } from '../registry/registry.ts';
import { TXTRegistry } from '../registry/txt/txt-registry.ts';
import { kubeSourceFromConfig } from '../source/kube/factory.ts';
import { KUBE_FLAGS } from '../source/kube/flags.ts';
import { ManifestSource } from '../source/manifest/manifest-source.ts';
import type { ProblemReporter, Source } from '../source/source.ts';
import { DedupSource } from '../source/wrappers/dedup-source.ts';
import { DefaultTargetsSource } from '../source/wrappers/default-targets-source.ts';
import { MultiSource } from '../source/wrappers/multi-source.ts';

export interface Deps {
  logger: Logger;
  metrics: MetricsRegistry;
  /** Problems with single objects (bad YAML, invalid hostname), for `explain` and events. */
  onProblem?: ProblemReporter;
  /** Long-running commands watch their inputs; plan/explain read once. */
  watch: boolean;
  /** Environment variables a source may need (KUBECONFIG, HOME, KUBERNETES_SERVICE_*), passed down from main. */
  env?: Readonly<Record<string, string | undefined>>;
}

type ProviderFactory = (cfg: Config, deps: Deps) => Promise<Provider>;
type SourceFactory = (cfg: Config, deps: Deps) => Source;

/**
 * Flags that belong to one provider or source (`--rfc2136-host`, `--kubeconfig`, …). Each folder
 * exports its own table; list it here once and the CLI parses, documents and env-maps it.
 */
export const EXTRA_FLAGS: readonly FlagSpec[] = [
  ...PDNS_FLAGS,
  ...GOOGLE_FLAGS,
  ...AZURE_FLAGS,
  ...WEBHOOK_FLAGS,
  ...RFC2136_FLAGS,
  ...AWS_FLAGS,
  ...COREDNS_FLAGS,
  ...KUBE_FLAGS,
  ...ADMISSION_FLAGS,
];

/** Zones for providers that serve their own zones: --embedded-zone, else the domain filter. */
function zonesOf(cfg: Config): string[] {
  return cfg.embeddedZones.length > 0 ? cfg.embeddedZones : cfg.domainFilters.map((d) => d.replace(/^\./, ''));
}

export const PROVIDERS: Readonly<Record<string, ProviderFactory>> = {
  embedded: (cfg, deps) =>
    EmbeddedProvider.fromConfig({
      dataDir: cfg.embeddedDataDir,
      zones: zonesOf(cfg),
      defaultTTL: cfg.embeddedDefaultTTL,
      logger: deps.logger.child({ provider: 'embedded' }),
      ...(cfg.embeddedNameservers.length > 0 ? { nameservers: cfg.embeddedNameservers } : {}),
      ...(cfg.embeddedNameserverAddresses.length > 0 ? { nameserverAddresses: cfg.embeddedNameserverAddresses } : {}),
      ...(cfg.embeddedHostmaster !== '' ? { hostmaster: cfg.embeddedHostmaster } : {}),
    }),
  inmemory: async (cfg) => InMemoryProvider.fromConfig({ zones: zonesOf(cfg) }),
  pdns: (cfg, deps) => PdnsProvider.fromConfig(cfg.flags, { logger: deps.logger.child({ provider: 'pdns' }) }),
  webhook: (cfg, deps) => WebhookProvider.fromConfig(cfg.flags, { logger: deps.logger.child({ provider: 'webhook' }) }),
  google: (cfg, deps) => GoogleProvider.fromConfig(cfg.flags, { logger: deps.logger.child({ provider: 'google' }) }),
  aws: (cfg, deps) => Route53Provider.fromConfig(cfg, { logger: deps.logger.child({ provider: 'aws' }) }),
  azure: (cfg, deps) => AzureProvider.fromConfig('public', cfg.flags, { logger: deps.logger.child({ provider: 'azure' }) }),
  'azure-private-dns': (cfg, deps) => AzureProvider.fromConfig('private', cfg.flags, { logger: deps.logger.child({ provider: 'azure-private-dns' }) }),
  rfc2136: async (cfg, deps) => Rfc2136Provider.fromConfig(cfg.flags, { logger: deps.logger.child({ provider: 'rfc2136' }) }),
  coredns: async (cfg, deps) => CoreDnsProvider.fromConfig(cfg, { logger: deps.logger.child({ provider: 'coredns' }), ...(deps.env === undefined ? {} : { env: deps.env }) }),
};

export const SOURCES: Readonly<Record<string, SourceFactory>> = {
  service: (cfg, deps) => kubeSourceFromConfig('service', cfg, deps),
  ingress: (cfg, deps) => kubeSourceFromConfig('ingress', cfg, deps),
  crd: (cfg, deps) => kubeSourceFromConfig('crd', cfg, deps),
  'gateway-httproute': (cfg, deps) => kubeSourceFromConfig('gateway-httproute', cfg, deps),
  manifest: (cfg, deps) =>
    ManifestSource.fromConfig(
      {
        manifestDir: cfg.manifestsDir,
        watch: deps.watch,
        annotationFilter: cfg.annotationFilter,
        labelFilter: cfg.labelFilter,
        fqdnTemplate: cfg.fqdnTemplate,
        combineFqdnAnnotation: cfg.combineFqdnAnnotation,
        ignoreHostnameAnnotation: cfg.ignoreHostnameAnnotation,
        ignoreIngressTLSSpec: cfg.ignoreIngressTLSSpec,
        ignoreIngressRulesSpec: cfg.ignoreIngressRulesSpec,
        publishInternalServices: cfg.publishInternalServices,
        serviceTypeFilter: cfg.serviceTypeFilter,
        compatibility: cfg.compatibility,
        keepEmptyTargets: cfg.defaultTargets.length > 0,
      },
      { logger: deps.logger, ...(deps.onProblem === undefined ? {} : { onProblem: deps.onProblem }) },
    ),
};

export async function buildProvider(cfg: Config, deps: Deps): Promise<Provider> {
  const factory = PROVIDERS[cfg.provider];
  if (factory === undefined) throw new Error(`no provider named ${cfg.provider}`);
  return factory(cfg, deps);
}

export function buildSource(cfg: Config, deps: Deps): Source {
  const sources = cfg.sources.map((name) => {
    const factory = SOURCES[name];
    if (factory === undefined) throw new Error(`no source named ${name}`);
    return factory(cfg, deps);
  });
  let source: Source = sources.length === 1 && sources[0] !== undefined ? sources[0] : new MultiSource({ sources });
  source = DefaultTargetsSource.fromConfig(cfg, { source, logger: deps.logger.child({ source: 'default-targets' }) });
  return new DedupSource({ source });
}

export function buildRegistry(cfg: Config, provider: Provider, deps: Deps): Registry {
  if (cfg.registry === 'noop') return new NoopRegistry(provider);
  return TXTRegistry.fromConfig(provider, cfg, deps.logger.child({ registry: 'txt' }));
}

export const SOURCE_NAMES = Object.keys(SOURCES);
export const PROVIDER_NAMES = Object.keys(PROVIDERS);
