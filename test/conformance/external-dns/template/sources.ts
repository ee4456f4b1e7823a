/**
 * Replays external-dns's `*_fqdn_test.go` cases (service, ingress, OpenShift route, pod, node, F5, Istio, Traefik) through the
 * real Kubernetes sources: each case's objects go to a fresh test API server and are read back by
 * reflectors, so what a template sees is what a cluster would give it (the cache keeps whole
 * objects when a template is set). The case shape is the source conformance suite's.
 */
import type { Endpoint } from '../../../../src/endpoint/endpoint.ts';
import { KubeClient } from '../../../../src/kube/client.ts';
import { silentLogger } from '../../../../src/log.ts';
import type { KubeObjectSource } from '../../../../src/source/kube/kube-source.ts';
import { ingressSource, nodeSource, openshiftRouteSource, podSource, serviceSource } from '../../../../src/source/kube/sources.ts';
import { istioGatewaySource, istioVirtualServiceSource } from '../../../../src/source/kube/istio-sources.ts';
import { traefikProxySource } from '../../../../src/source/kube/traefik-proxy.ts';
import type { TraefikProxySource } from '../../../../src/source/kube/traefik-proxy.ts';
import { glooProxySource } from '../../../../src/source/kube/gloo-proxy-source.ts';
import { buildTranslateOptions } from '../../../../src/source/translate/options.ts';
import type { TranslateOptions } from '../../../../src/source/translate/options.ts';
import { startTestApiServer } from '../../../support/kube-apiserver/server.ts';
import type { KubeObject } from '../../../support/kube-apiserver/server.ts';
import { f5Source } from '../../../../src/source/kube/f5.ts';
import { loadCrds } from '../../../support/crds/load.ts';
import { schemalessCrd } from '../../../kube/harness.ts';

export interface SourceEndpoint {
  dnsName: string;
  recordType: string;
  targets: string[];
}

export interface SourceCaseOptions {
  fqdnTemplate?: string[];
  targetTemplate?: string[];
  fqdnTargetTemplate?: string[];
  combineFqdnAnnotation?: boolean;
  publishInternalServices?: boolean;
  publishHostIP?: boolean;
  alwaysPublishNotReadyAddresses?: boolean;
  serviceTypeFilter?: string[];
  ignoreHostnameAnnotation?: boolean;
  openshiftRouterName?: string;
  /** pod source: --pod-source-domain. */
  podSourceDomain?: string;
  exposeInternalIPv6?: boolean;
  excludeUnschedulable?: boolean;
  /** --annotation-filter (upstream's traefik tests set one every object matches). */
  annotationFilter?: string;
  /** gloo-proxy source: --gloo-namespace values (absent: gloo-system, as upstream's test). */
  glooNamespaces?: string[];
}

export interface SourceCase {
  name: string;
  upstreamTest: string;
  source: SourceName;
  objects: KubeObject[];
  options: SourceCaseOptions;
  expected: SourceEndpoint[];
  differs?: string;
  hostwarden?: SourceEndpoint[];
}

type SourceDeps = Parameters<typeof serviceSource>[0];
type CaseSource = Pick<KubeObjectSource | TraefikProxySource, 'endpoints' | 'close'>;

/** How each source kind of the case data is built. */
const SOURCES = {
  service: (deps: SourceDeps) => serviceSource(deps),
  ingress: (deps: SourceDeps) => ingressSource(deps, []),
  'openshift-route': (deps: SourceDeps, o: SourceCaseOptions) => openshiftRouteSource(deps, o.openshiftRouterName ?? ''),
  pod: (deps: SourceDeps, o: SourceCaseOptions) => podSource(deps, { podSourceDomain: o.podSourceDomain ?? '' }),
  node: (deps: SourceDeps) => nodeSource(deps),
  'f5-virtualserver': (deps: SourceDeps) => f5Source(deps, 'VirtualServer'),
  'f5-transportserver': (deps: SourceDeps) => f5Source(deps, 'TransportServer'),
  'istio-gateway': (deps: SourceDeps) => istioGatewaySource(deps),
  'istio-virtualservice': (deps: SourceDeps) => istioVirtualServiceSource(deps),
  'traefik-proxy': (deps: SourceDeps) => traefikProxySource(deps),
  'gloo-proxy': (deps: SourceDeps, o: SourceCaseOptions) => glooProxySource(deps, o.glooNamespaces ?? ['gloo-system']),
} satisfies Record<string, (deps: SourceDeps, o: SourceCaseOptions) => CaseSource>;
type SourceName = keyof typeof SOURCES;

function optionsOf(o: SourceCaseOptions): TranslateOptions {
  return {
    ...buildTranslateOptions({
      fqdnTemplate: o.fqdnTemplate ?? [],
      targetTemplate: o.targetTemplate ?? [],
      fqdnTargetTemplate: o.fqdnTargetTemplate ?? [],
      combineFqdnAnnotation: o.combineFqdnAnnotation === true,
      ignoreHostnameAnnotation: o.ignoreHostnameAnnotation === true,
      publishInternalServices: o.publishInternalServices === true,
      serviceTypeFilter: o.serviceTypeFilter ?? [],
      ...(o.annotationFilter === undefined ? {} : { annotationFilter: o.annotationFilter }),
    }),
    publishHostIP: o.publishHostIP === true,
    alwaysPublishNotReadyAddresses: o.alwaysPublishNotReadyAddresses === true,
    exposeInternalIPv6: o.exposeInternalIPv6 === true,
    excludeUnschedulable: o.excludeUnschedulable === true,
  };
}

function routeCrd(): ReturnType<typeof schemalessCrd> {
  return schemalessCrd('route.openshift.io', 'routes', 'Route');
}

/** The endpoints the case's source answers. */
export async function sourceAnswer(c: SourceCase): Promise<SourceEndpoint[]> {
  const namespaces = [...new Set(c.objects.map((o) => o.metadata.namespace ?? 'default'))].filter((n) => n !== 'default' && n !== 'kube-system');
  const api = await startTestApiServer({ bookmarkIntervalMs: 60_000, namespaces });
  const logger = silentLogger();
  const client = new KubeClient({ config: api.kubeConfig(), logger });
  let source: CaseSource | undefined;
  try {
    api.create(routeCrd());
    for (const crd of ['f5', 'istio', 'traefik', 'gloo'].flatMap(loadCrds)) api.create(crd);
    for (const obj of c.objects) api.create(obj);
    const deps = { client, logger, translateOptions: optionsOf(c.options), namespace: '', syncTimeoutMs: 10_000 };
    source = SOURCES[c.source](deps, c.options);
    return (await source.endpoints()).map(endpointOf);
  } finally {
    await source?.close();
    client.close();
    await api.stop();
  }
}

function endpointOf(e: Endpoint): SourceEndpoint {
  return { dnsName: e.dnsName, recordType: e.recordType, targets: [...e.targets] };
}

const keyOf = (e: SourceEndpoint): string => JSON.stringify([e.dnsName, e.recordType, [...e.targets].sort()]);

/** Order-insensitive comparison with targets as sets, as upstream's ValidateEndpoints. */
export function sourceMismatches(actual: readonly SourceEndpoint[], expected: readonly SourceEndpoint[]): string[] {
  const a = actual.map(keyOf).sort();
  const e = expected.map(keyOf).sort();
  const missing = e.filter((k) => !a.includes(k));
  const extra = a.filter((k) => !e.includes(k));
  return [...missing.map((k) => `missing ${k}`), ...extra.map((k) => `unexpected ${k}`)];
}
