/**
 * Builds sources, providers and registries from the resolved configuration. Adding a provider or
 * a source means one folder and one line in a table here; nothing else changes.
 */
import type { Registry as MetricsRegistry } from 'prom-client';
import { ADMISSION_FLAGS } from '../admission/flags.ts';
import { DNSRECORD_FLAGS } from '../dnsrecord/flags.ts';
import { OPERATOR_FLAGS } from '../operator/flags.ts';
import { PRIVATELINK_FLAGS } from '../privatelink/flags.ts';
import type { Config } from '../config/config.ts';
import type { FlagSpec } from '../config/flags.ts';
import { ConfigError } from '../errors.ts';
import { HTTP_FLAGS } from '../http/flags.ts';
import type { Logger } from '../log.ts';
import { COREDNS_FLAGS } from '../provider/coredns/flags.ts';
import { AWS_FLAGS } from '../provider/aws/flags.ts';
import { CLOUDFLARE_FLAGS } from '../provider/cloudflare/flags.ts';
import { AZURE_FLAGS } from '../provider/azure/flags.ts';
import { GOOGLE_FLAGS } from '../provider/google/flags.ts';
import { PDNS_FLAGS } from '../provider/pdns/flags.ts';
import { WEBHOOK_FLAGS } from '../provider/webhook/flags.ts';
import { CachedProvider } from '../provider/cached/cached-provider.ts';
import { ProviderCacheMetrics } from '../provider/cached/metrics.ts';
import type { Provider, ProviderDeps } from '../provider/provider.ts';
import { RFC2136_FLAGS } from '../provider/rfc2136/flags.ts';
import { ZONE_FILTER_FLAGS } from '../provider/zone-filter.ts';
import { INMEMORY_FLAGS } from '../provider/inmemory/flags.ts';
import { TLS_CLIENT_FLAGS } from '../provider/tls-client.ts';
import { NoopRegistry } from '../registry/noop/noop-registry.ts';
import type { Registry } from '../registry/registry.ts';
import { TXTRegistry } from '../registry/txt/txt-registry.ts';
import { KUBE_FLAGS } from '../kube/flags.ts';
import { KUBE_SOURCE_FLAGS } from '../source/kube/flags.ts';
import { MANIFEST_FLAGS } from '../source/manifest/flags.ts';
import { CONNECTOR_FLAGS } from '../source/connector/flags.ts';
import type { ProblemReporter, Source } from '../source/source.ts';
import { DedupSource } from '../source/wrappers/dedup-source.ts';
import { DefaultTargetsSource } from '../source/wrappers/default-targets-source.ts';
import { SourceChainMetrics } from '../source/wrappers/metrics.ts';
import { wrapProcessing, wrapperSettingsOf } from '../source/wrappers/build.ts';
import { WRAPPER_FLAGS } from '../source/wrappers/flags.ts';
import { TRANSLATE_FLAGS } from '../source/translate/flags.ts';
import { MultiSource } from '../source/wrappers/multi-source.ts';
import { HEAP_FLAGS } from './heap.ts';

export interface Deps {
  logger: Logger;
  metrics: MetricsRegistry;
  /** Problems with single objects (bad YAML, invalid hostname), for `explain` and events. */
  onProblem?: ProblemReporter;
  /** Long-running commands watch their inputs; plan/explain read once. */
  watch: boolean;
  /**
   * plan/explain only read the provider: the embedded store then takes no lock on its directory
   * and writes nothing, so it can read a running instance's zones.
   */
  readOnly?: boolean;
  /** Environment variables a source may need (KUBECONFIG, HOME, KUBERNETES_SERVICE_*), passed down from main. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The embedded provider's SOA serials kept in the cluster (`run` with Kubernetes): floors for its zones. */
  serialFloors?: ReadonlyMap<string, number>;
}

type ProviderFactory = (cfg: Config, deps: Deps) => Promise<Provider>;
type SourceFactory = (cfg: Config, deps: Deps) => Promise<Source>;

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
  ...CLOUDFLARE_FLAGS,
  ...ZONE_FILTER_FLAGS,
  ...INMEMORY_FLAGS,
  ...TLS_CLIENT_FLAGS,
  ...COREDNS_FLAGS,
  ...KUBE_FLAGS,
  ...KUBE_SOURCE_FLAGS,
  ...MANIFEST_FLAGS,
  ...CONNECTOR_FLAGS,
  ...TRANSLATE_FLAGS,
  ...WRAPPER_FLAGS,
  ...ADMISSION_FLAGS,
  ...DNSRECORD_FLAGS,
  ...OPERATOR_FLAGS,
  ...PRIVATELINK_FLAGS,
  ...HEAP_FLAGS,
  ...HTTP_FLAGS,
];

/** Every provider is built the same way: `fromConfig(cfg, deps)` with the resolved Config and its own child logger. */
const depsFor = (deps: Deps, name: string): ProviderDeps => ({
  logger: deps.logger.child({ provider: name }),
  ...(deps.env === undefined ? {} : { env: deps.env }),
  ...(deps.readOnly === true ? { readOnly: true } : {}),
  ...(deps.serialFloors === undefined ? {} : { serialFloors: deps.serialFloors }),
  metrics: deps.metrics,
});

/**
 * Provider modules are imported when chosen: the cloud SDKs take seconds to load, and a command
 * should pay only for the provider it runs.
 */
export const PROVIDERS: Readonly<Record<string, ProviderFactory>> = {
  embedded: async (cfg, deps) => (await import('../provider/embedded/embedded.ts')).EmbeddedProvider.fromConfig(cfg, depsFor(deps, 'embedded')),
  inmemory: async (cfg, deps) => (await import('../provider/inmemory/inmemory.ts')).InMemoryProvider.fromConfig(cfg, depsFor(deps, 'inmemory')),
  pdns: async (cfg, deps) => (await import('../provider/pdns/pdns.ts')).PdnsProvider.fromConfig(cfg, depsFor(deps, 'pdns')),
  webhook: async (cfg, deps) => (await import('../provider/webhook/client.ts')).WebhookProvider.fromConfig(cfg, depsFor(deps, 'webhook')),
  google: async (cfg, deps) => (await import('../provider/google/google.ts')).GoogleProvider.fromConfig(cfg, depsFor(deps, 'google')),
  aws: async (cfg, deps) => (await import('../provider/aws/route53.ts')).Route53Provider.fromConfig(cfg, depsFor(deps, 'aws')),
  azure: async (cfg, deps) => (await import('../provider/azure/azure.ts')).AzureProvider.fromConfig(cfg, { ...depsFor(deps, 'azure'), kind: 'public' }),
  'azure-private-dns': async (cfg, deps) =>
    (await import('../provider/azure/azure.ts')).AzureProvider.fromConfig(cfg, { ...depsFor(deps, 'azure-private-dns'), kind: 'private' }),
  cloudflare: async (cfg, deps) => (await import('../provider/cloudflare/cloudflare.ts')).CloudflareProvider.fromConfig(cfg, depsFor(deps, 'cloudflare')),
  rfc2136: async (cfg, deps) => (await import('../provider/rfc2136/rfc2136.ts')).Rfc2136Provider.fromConfig(cfg, depsFor(deps, 'rfc2136')),
  coredns: async (cfg, deps) => (await import('../provider/coredns/coredns.ts')).CoreDnsProvider.fromConfig(cfg, depsFor(deps, 'coredns')),
  // external-dns's other names for the same providers (its factory maps them to azure and coredns).
  'azure-dns': async (cfg, deps) => (await import('../provider/azure/azure.ts')).AzureProvider.fromConfig(cfg, { ...depsFor(deps, 'azure'), kind: 'public' }),
  skydns: async (cfg, deps) => (await import('../provider/coredns/coredns.ts')).CoreDnsProvider.fromConfig(cfg, depsFor(deps, 'coredns')),
};

export const SOURCES: Readonly<Record<string, SourceFactory>> = {
  service: async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('service', cfg, deps),
  ingress: async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('ingress', cfg, deps),
  crd: async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('crd', cfg, deps),
  'gateway-httproute': async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('gateway-httproute', cfg, deps),
  'gateway-grpcroute': async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('gateway-grpcroute', cfg, deps),
  'gateway-tlsroute': async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('gateway-tlsroute', cfg, deps),
  'gateway-tcproute': async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('gateway-tcproute', cfg, deps),
  'gateway-udproute': async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('gateway-udproute', cfg, deps),
  'istio-gateway': async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('istio-gateway', cfg, deps),
  'istio-virtualservice': async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('istio-virtualservice', cfg, deps),
  'openshift-route': async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('openshift-route', cfg, deps),
  pod: async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('pod', cfg, deps),
  node: async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('node', cfg, deps),
  'f5-virtualserver': async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('f5-virtualserver', cfg, deps),
  'f5-transportserver': async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('f5-transportserver', cfg, deps),
  'traefik-proxy': async (cfg, deps) => (await import('../source/kube/traefik-proxy.ts')).TraefikProxySource.fromConfig(cfg, deps),
  'ambassador-host': async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('ambassador-host', cfg, deps),
  'kong-tcpingress': async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('kong-tcpingress', cfg, deps),
  'skipper-routegroup': async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('skipper-routegroup', cfg, deps),
  'contour-httpproxy': async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('contour-httpproxy', cfg, deps),
  'gloo-proxy': async (cfg, deps) => (await import('../source/kube/factory.ts')).kubeSourceFromConfig('gloo-proxy', cfg, deps),
  unstructured: async (cfg, deps) => (await import('../source/kube/factory.ts')).unstructuredSourceFromConfig(cfg, deps),
  manifest: async (cfg, deps) => (await import('../source/manifest/manifest-source.ts')).ManifestSource.fromConfig(cfg, deps),
  empty: async () => (await import('../source/empty/empty-source.ts')).EmptySource.fromConfig(),
  fake: async (cfg) => (await import('../source/fake/fake-source.ts')).FakeSource.fromConfig(cfg),
  connector: async (cfg, deps) => (await import('../source/connector/connector-source.ts')).ConnectorSource.fromConfig(cfg, deps),
};

export async function buildProvider(cfg: Config, deps: Deps): Promise<Provider> {
  const factory = PROVIDERS[cfg.provider];
  if (factory === undefined) throw new Error(`no provider named ${cfg.provider}`);
  return factory(cfg, deps);
}

export async function buildSource(cfg: Config, deps: Deps): Promise<Source> {
  const sources: Source[] = [];
  for (const name of cfg.sources) {
    const factory = SOURCES[name];
    if (factory === undefined) throw new Error(`no source named ${name}`);
    sources.push(await factory(cfg, deps));
  }
  let source: Source = sources.length === 1 && sources[0] !== undefined ? sources[0] : new MultiSource({ sources });
  source = DefaultTargetsSource.fromConfig(cfg, { source, logger: deps.logger.child({ source: 'default-targets' }) });
  return wrapProcessing(
    new DedupSource({ source, metrics: new SourceChainMetrics(deps.metrics) }),
    wrapperSettingsOf(cfg),
    deps.logger.child({ source: 'wrappers' }),
  );
}

/**
 * How to put the configured registry on a provider. Its flags are checked here, so a bad
 * --txt-* flag stops start-up before the provider opens anything (a data directory, a connection).
 */
export function registryBuilder(cfg: Config, deps: Deps): (provider: Provider) => Registry {
  const cached = providerCache(cfg, deps);
  if (cfg.registry === 'noop') return (provider) => NoopRegistry.fromConfig(cfg, { provider: cached(provider) });
  const options = TXTRegistry.optionsFromConfig(cfg, deps.logger.child({ registry: 'txt' }));
  return (provider) => new TXTRegistry(cached(provider), options);
}

/**
 * --provider-cache-time puts external-dns's CachedProvider between the registry and the provider;
 * the command keeps the provider itself (the embedded one's DNS server, closing it).
 */
function providerCache(cfg: Config, deps: Deps): (provider: Provider) => Provider {
  const ttl = cfg.flags.num('provider-cache-time');
  if (!(ttl >= 0)) throw new ConfigError('--provider-cache-time must not be negative', '--provider-cache-time');
  if (ttl === 0) return (provider) => provider;
  const metrics = new ProviderCacheMetrics(deps.metrics);
  return (provider) => new CachedProvider({ provider, cacheTimeMs: ttl, logger: deps.logger.child({ component: 'provider-cache' }), metrics });
}

export const SOURCE_NAMES = Object.keys(SOURCES);
export const PROVIDER_NAMES = Object.keys(PROVIDERS);
