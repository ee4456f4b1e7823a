/**
 * Builds a Kubernetes source from the CLI configuration (one line per source in wiring.ts).
 */
import type { Config } from '../../config/config.ts';
import type { KubeEnv } from '../../kube/client.ts';
import { kubeClientFromConfig } from '../../kube/flags.ts';
import type { Registry as MetricsRegistry } from 'prom-client';
import type { Reflector } from '../../kube/reflector.ts';
import type { KubeObject, KubeResource } from '../../kube/resource.ts';
import type { Logger } from '../../log.ts';
import type { ProblemReporter } from '../source.ts';
import { parseSelector } from '../selector.ts';
import { buildTranslateOptions, translateFlagsOf } from '../translate/options.ts';
import type { TranslateOptions } from '../translate/options.ts';
import type { KubeObjectSource } from './kube-source.ts';
import { contourHTTPProxySource } from './contour-httpproxy.ts';
import { glooProxySource } from './gloo-proxy-source.ts';
import { DnsHostnameResolver } from './lb-hostnames.ts';
import { f5Source } from './f5.ts';
import { registerReflectorMetrics } from './metrics.ts';
import { istioGatewaySource, istioVirtualServiceSource } from './istio-sources.ts';
import { ambassadorHostSource } from './ambassador-host.ts';
import { kongTcpIngressSource } from './kong-tcpingress.ts';
import { skipperRouteGroupSource } from './skipper-routegroup.ts';
import { crdSource, gatewayRouteSource, httpRouteSource, ingressSource, nodeSource, openshiftRouteSource, podSource, serviceSource } from './sources.ts';
import type { GatewayScope, KubeSourceDeps } from './sources.ts';
import { unstructuredSource } from './unstructured.ts';
import type { UnstructuredSource } from './unstructured.ts';

export const KUBE_SOURCE_NAMES = [
  'service',
  'ingress',
  'crd',
  'gateway-httproute',
  'openshift-route',
  'pod',
  'node',
  'gateway-grpcroute',
  'gateway-tlsroute',
  'gateway-tcproute',
  'gateway-udproute',
  'f5-virtualserver',
  'f5-transportserver',
  'istio-gateway',
  'istio-virtualservice',
  'ambassador-host',
  'kong-tcpingress',
  'skipper-routegroup',
  'contour-httpproxy',
  'gloo-proxy',
  'unstructured',
] as const;
/** The sources that are one KubeObjectSource; `unstructured` is one per resource (unstructuredSourceFromConfig). */
export type KubeSourceName = Exclude<(typeof KUBE_SOURCE_NAMES)[number], 'unstructured'>;
/**
 * Kubernetes sources made of several KubeObjectSources (one per resource they read), built by
 * their own fromConfig in wiring.ts: traefik-proxy reads up to six resources.
 */
export const COMPOSITE_KUBE_SOURCE_NAMES = ['traefik-proxy'] as const;

export interface KubeFactoryDeps {
  logger: Logger;
  /** The run command's registry: the sources' caches are measured on it. */
  metrics?: MetricsRegistry | undefined;
  env?: KubeEnv | undefined;
  onProblem?: ProblemReporter | undefined;
}

export function translateOptionsOf(cfg: Config): TranslateOptions {
  return {
    ...buildTranslateOptions(translateFlagsOf(cfg)),
    publishHostIP: cfg.flags.bool('publish-host-ip'),
    alwaysPublishNotReadyAddresses: cfg.flags.bool('always-publish-not-ready-addresses'),
    exposeInternalIPv6: cfg.flags.bool('expose-internal-ipv6'),
    excludeUnschedulable: cfg.flags.bool('exclude-unschedulable'),
  };
}

/** What every Kubernetes source is built from: its client, options and metrics. */
function sourceDepsOf(name: KubeSourceName | 'unstructured', cfg: Config, deps: KubeFactoryDeps): KubeSourceDeps {
  const inactivity = cfg.flags.num('kube-watch-inactivity-timeout');
  const metrics = deps.metrics;
  return {
    client: kubeClientFromConfig(cfg, { ...deps, rateLimited: true }),
    logger: deps.logger,
    translateOptions: translateOptionsOf(cfg),
    namespace: cfg.flags.str('namespace'),
    ...(inactivity > 0 ? { inactivityTimeoutMs: inactivity } : {}),
    ...(deps.onProblem === undefined ? {} : { onProblem: deps.onProblem }),
    // The system's resolver, as external-dns's look-up uses; only the service source reads it.
    ...(name === 'service' && cfg.flags.bool('resolve-service-load-balancer-hostname') ? { loadBalancerResolver: new DnsHostnameResolver() } : {}),
    ...(metrics === undefined
      ? {}
      : { onReflector: (resource: KubeResource, r: Reflector<KubeObject>) => registerReflectorMetrics(metrics, name, resource.plural, r) }),
  };
}

/** `--source=unstructured`: every `--unstructured-resource`. */
export function unstructuredSourceFromConfig(cfg: Config, deps: KubeFactoryDeps): UnstructuredSource {
  return unstructuredSource(sourceDepsOf('unstructured', cfg, deps), cfg.flags.list('unstructured-resource'));
}

export function kubeSourceFromConfig(name: KubeSourceName, cfg: Config, deps: KubeFactoryDeps): KubeObjectSource {
  const sourceDeps = sourceDepsOf(name, cfg, deps);
  switch (name) {
    case 'service':
      return serviceSource(sourceDeps);
    case 'ingress':
      return ingressSource(sourceDeps, cfg.flags.list('ingress-class'));
    case 'crd':
      return crdSource(sourceDeps, cfg.flags.str('crd-source-apiversion') || 'externaldns.k8s.io/v1alpha1', cfg.flags.str('crd-source-kind') || 'DNSEndpoint');
    case 'gateway-httproute':
      return httpRouteSource(sourceDeps, gatewayScopeOf(cfg));
    case 'openshift-route':
      return openshiftRouteSource(sourceDeps, cfg.flags.str('openshift-router-name'));
    case 'pod':
      return podSource(sourceDeps, {
        ignoreNonHostNetworkPods: cfg.flags.bool('ignore-non-host-network-pods'),
        podSourceDomain: cfg.flags.str('pod-source-domain'),
      });
    case 'node':
      return nodeSource(sourceDeps);
    case 'gateway-grpcroute':
      return gatewayRouteSource(sourceDeps, 'GRPCRoute', gatewayScopeOf(cfg));
    case 'gateway-tlsroute':
      return gatewayRouteSource(sourceDeps, 'TLSRoute', gatewayScopeOf(cfg));
    case 'gateway-tcproute':
      return gatewayRouteSource(sourceDeps, 'TCPRoute', gatewayScopeOf(cfg));
    case 'gateway-udproute':
      return gatewayRouteSource(sourceDeps, 'UDPRoute', gatewayScopeOf(cfg));
    case 'f5-virtualserver':
      return f5Source(sourceDeps, 'VirtualServer');
    case 'f5-transportserver':
      return f5Source(sourceDeps, 'TransportServer');
    case 'istio-gateway':
      return istioGatewaySource(sourceDeps);
    case 'istio-virtualservice':
      return istioVirtualServiceSource(sourceDeps);
    case 'ambassador-host':
      return ambassadorHostSource(sourceDeps);
    case 'kong-tcpingress':
      return kongTcpIngressSource(sourceDeps);
    case 'skipper-routegroup':
      return skipperRouteGroupSource(sourceDeps, cfg.flags.str('skipper-routegroup-groupversion'));
    case 'contour-httpproxy':
      return contourHTTPProxySource(sourceDeps);
    case 'gloo-proxy':
      return glooProxySource(sourceDeps, cfg.flags.list('gloo-namespace'));
  }
}

function gatewayScopeOf(cfg: Config): GatewayScope {
  const labelSelector = cfg.flags.str('gateway-label-filter');
  // Checked here so a typo stops start-up with the flag named, not every list with a 400.
  if (labelSelector !== '') parseSelector(labelSelector, '--gateway-label-filter');
  return {
    namespace: cfg.flags.str('gateway-namespace'),
    labelSelector,
    name: cfg.flags.str('gateway-name'),
    listenerSets: cfg.flags.bool('gateway-listener-sets'),
  };
}
