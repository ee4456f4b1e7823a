/**
 * Replays external-dns's `*_fqdn_test.go` cases (service, ingress, OpenShift route, pod, node) through the
 * real Kubernetes sources: each case's objects go to a fresh test API server and are read back by
 * reflectors, so what a template sees is what a cluster would give it (the cache keeps whole
 * objects when a template is set). The case shape is the source conformance suite's.
 */
import type { Endpoint } from '../../../../src/endpoint/endpoint.ts';
import { KubeClient } from '../../../../src/kube/client.ts';
import { silentLogger } from '../../../../src/log.ts';
import type { KubeObjectSource } from '../../../../src/source/kube/kube-source.ts';
import { ingressSource, nodeSource, openshiftRouteSource, podSource, serviceSource } from '../../../../src/source/kube/sources.ts';
import { buildTranslateOptions } from '../../../../src/source/translate/options.ts';
import type { TranslateOptions } from '../../../../src/source/translate/options.ts';
import { startTestApiServer } from '../../../support/kube-apiserver/server.ts';
import type { KubeObject } from '../../../support/kube-apiserver/server.ts';
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
}

export interface SourceCase {
  name: string;
  upstreamTest: string;
  source: 'service' | 'ingress' | 'openshift-route' | 'pod' | 'node';
  objects: KubeObject[];
  options: SourceCaseOptions;
  expected: SourceEndpoint[];
  differs?: string;
  hostwarden?: SourceEndpoint[];
}

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
  let source: KubeObjectSource | undefined;
  try {
    api.create(routeCrd());
    for (const obj of c.objects) api.create(obj);
    const deps = { client, logger, translateOptions: optionsOf(c.options), namespace: '', syncTimeoutMs: 10_000 };
    source =
      c.source === 'service'
        ? serviceSource(deps)
        : c.source === 'ingress'
          ? ingressSource(deps, [])
          : c.source === 'pod'
            ? podSource(deps, { podSourceDomain: c.options.podSourceDomain ?? '' })
            : c.source === 'node'
              ? nodeSource(deps)
              : openshiftRouteSource(deps, c.options.openshiftRouterName ?? '');
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
