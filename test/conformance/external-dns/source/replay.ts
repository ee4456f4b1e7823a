/**
 * Replays external-dns's source test cases (the JSON files beside this file, facts only) through
 * Hostwarden's Kubernetes sources: each case's objects are written to a fresh test API server and
 * read back by the real source (reflectors over @kubernetes/client-node's HTTP), so the whole path
 * — list, slimming, translation — is what a cluster would see.
 *
 * The objects are those upstream's tests build, with what its fake client lets them omit filled in
 * for a real API server: Pods get one container, NodePort Service ports a port number; a change
 * that matters (a Node given a name) is stated in the case's `adapted`. Options absent from a case
 * are zero, as in upstream's test `Config` (so `excludeUnschedulable` is off unless set).
 */
import { readFile, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Endpoint } from '../../../../src/endpoint/endpoint.ts';
import { KubeClient } from '../../../../src/kube/client.ts';
import { silentLogger } from '../../../../src/log.ts';
import type { KubeObjectSource } from '../../../../src/source/kube/kube-source.ts';
import {
  crdSource,
  gatewayRouteSource,
  httpRouteSource,
  ingressSource,
  nodeSource,
  openshiftRouteSource,
  podSource,
  serviceSource,
} from '../../../../src/source/kube/sources.ts';
import { istioGatewaySource, istioVirtualServiceSource } from '../../../../src/source/kube/istio-sources.ts';
import { ambassadorHostSource } from '../../../../src/source/kube/ambassador-host.ts';
import { kongTcpIngressSource } from '../../../../src/source/kube/kong-tcpingress.ts';
import { skipperRouteGroupSource } from '../../../../src/source/kube/skipper-routegroup.ts';
import { contourHTTPProxySource } from '../../../../src/source/kube/contour-httpproxy.ts';
import { glooProxySource } from '../../../../src/source/kube/gloo-proxy-source.ts';
import type { KubeSourceDeps } from '../../../../src/source/kube/sources.ts';
import { traefikProxySource } from '../../../../src/source/kube/traefik-proxy.ts';
import type { TraefikProxySource } from '../../../../src/source/kube/traefik-proxy.ts';
import { unstructuredSource } from '../../../../src/source/kube/unstructured.ts';
import type { Source } from '../../../../src/source/source.ts';
import { buildTranslateOptions } from '../../../../src/source/translate/options.ts';
import type { TranslateOptions } from '../../../../src/source/translate/options.ts';
import { FakeHostnameResolver } from '../../../support/fake-resolver.ts';
import type { FakeAnswer } from '../../../support/fake-resolver.ts';
import { startTestApiServer } from '../../../support/kube-apiserver/server.ts';
import type { KubeObject, TestApiServer } from '../../../support/kube-apiserver/server.ts';
import { f5Source } from '../../../../src/source/kube/f5.ts';
import { loadCrds } from '../../../support/crds/load.ts';
import { DNSENDPOINT_CRD, gatewayCrd, schemalessCrd } from '../../../kube/harness.ts';
import { completeForApiServer } from './complete.ts';

/** An endpoint as the data writes it (upstream's fields; absent means empty). */
export interface CaseEndpoint {
  dnsName: string;
  targets: string[];
  recordType: string;
  recordTTL?: number;
  setIdentifier?: string;
  providerSpecific?: { name: string; value: string }[];
  /** Compared only when the case sets them, as upstream's ValidateEndpoints does. */
  labels?: Record<string, string>;
}

/** Flags of the case, with Hostwarden's (= external-dns's) flag meanings. */
export interface CaseOptions {
  namespace?: string;
  annotationFilter?: string;
  labelFilter?: string;
  fqdnTemplate?: string;
  targetTemplate?: string;
  fqdnTargetTemplate?: string;
  combineFqdnAnnotation?: boolean;
  ignoreHostnameAnnotation?: boolean;
  ignoreIngressTLSSpec?: boolean;
  ignoreIngressRulesSpec?: boolean;
  publishInternalServices?: boolean;
  publishHostIP?: boolean;
  serviceTypeFilter?: string[];
  compatibility?: string;
  ingressClass?: string[];
  gatewayName?: string;
  gatewayNamespace?: string;
  gatewayLabelFilter?: string;
  openshiftRouterName?: string;
  exposeInternalIPv6?: boolean;
  /** Absent is false, as in upstream's test Config (the flag's default is true). */
  excludeUnschedulable?: boolean;
  /** Load-balancer hostnames are looked up through a fake resolver answering the case's `dnsAnswers`. */
  resolveServiceLoadBalancerHostname?: boolean;
  /** pod source: --ignore-non-host-network-pods. */
  ignoreNonHostNetworkPods?: boolean;
  /** pod source: --pod-source-domain. */
  podSourceDomain?: string;
  /** traefik-proxy source: --traefik-enable-legacy. */
  traefikEnableLegacy?: boolean;
  /** traefik-proxy source: --traefik-disable-new. */
  traefikDisableNew?: boolean;
  /** gloo-proxy source: --gloo-namespace values (absent: none, as upstream's test Config). */
  glooNamespaces?: string[];
  /** unstructured source: --unstructured-resource values. */
  unstructuredResources?: string[];
}

export type SourceKind =
  | 'service'
  | 'ingress'
  | 'crd'
  | 'gateway-httproute'
  | 'openshift-route'
  | 'pod'
  | 'node'
  | 'gateway-grpcroute'
  | 'gateway-tlsroute'
  | 'gateway-tcproute'
  | 'gateway-udproute'
  | 'f5-virtualserver'
  | 'f5-transportserver'
  | 'istio-gateway'
  | 'istio-virtualservice'
  | 'traefik-proxy'
  | 'ambassador-host'
  | 'kong-tcpingress'
  | 'skipper-routegroup'
  | 'contour-httpproxy'
  | 'gloo-proxy'
  | 'unstructured';

/** What a source answered: its endpoints, or that `endpoints()` failed. */
export type Answer = CaseEndpoint[] | { error: true };

export interface SourceCase {
  name: string;
  upstreamTest: string;
  source: SourceKind;
  objects: KubeObject[];
  options: CaseOptions;
  /**
   * What DNS answers while the case runs (upstream's test asks the Internet); every other name does
   * not exist. A target `<address of NAME>` (`<address6 of NAME>`) in `expected` stands for NAME's
   * A (AAAA) answers here.
   */
  dnsAnswers?: Record<string, FakeAnswer>;
  /** Upstream's endpoints; absent when upstream asserts only their number. */
  expected?: CaseEndpoint[];
  /** The number of endpoints, where that is all upstream asserts (its indexer tests). */
  expectedCount?: number;
  /** Upstream expects Endpoints() to fail. */
  expectError?: boolean;
  /** Log lines upstream also asserts (not compared: Hostwarden's wording is its own). */
  upstreamLogs?: string[];
  /** Set when Hostwarden deliberately answers differently; `hostwarden` is then its answer. */
  differs?: string;
  hostwarden?: Answer;
  /** How the objects were changed so that a real API server accepts them (upstream uses a fake client). */
  adapted?: string;
  /**
   * Why the project's CRD schema refuses one of upstream's objects as it stands (upstream's fake
   * client stores anything); the case then runs with schema-less CRDs, to keep upstream's answer.
   */
  crdRefuses?: string;
  /** unstructured source: what upstream's fake discovery serves besides the objects' resources. */
  discovery?: { groupVersion: string; resources: { name: string; kind: string }[] }[];
}

export interface CaseFile {
  upstream: string;
  cases: SourceCase[];
}

/** gateway_test.go's host matching between a listener and a route hostname, in both orders. */
export interface MatchingHostCase {
  name: string;
  upstreamTest: string;
  a: string;
  b: string;
  ok: boolean;
  /** The matched (more specific) host, when `ok`. */
  host?: string;
}

export interface FunctionFile {
  upstream: string;
  function: 'matchingHost';
  cases: MatchingHostCase[];
}

const HERE = dirname(fileURLToPath(import.meta.url));

async function loadJson(): Promise<{ file: string; data: CaseFile | FunctionFile }[]> {
  const names = (await readdir(HERE)).filter((n) => n.endsWith('.json')).sort();
  return Promise.all(names.map(async (file) => ({ file, data: JSON.parse(await readFile(join(HERE, file), 'utf8')) as CaseFile | FunctionFile })));
}

/** Files of source cases (objects in, endpoints out). */
export async function loadCaseFiles(): Promise<{ file: string; data: CaseFile }[]> {
  return (await loadJson()).flatMap((f) => ('function' in f.data ? [] : [{ file: f.file, data: f.data }]));
}

/** Files of cases that test one function of a source (gateway_test.go). */
export async function loadFunctionFiles(): Promise<{ file: string; data: FunctionFile }[]> {
  return (await loadJson()).flatMap((f) => ('function' in f.data ? [{ file: f.file, data: f.data }] : []));
}

const CRDS: KubeObject[] = [
  DNSENDPOINT_CRD,
  gatewayCrd('gateways', 'Gateway'),
  gatewayCrd('httproutes', 'HTTPRoute'),
  routeCrd(),
  gatewayCrd('grpcroutes', 'GRPCRoute'),
  gatewayCrd('tlsroutes', 'TLSRoute', 'v1alpha2'),
  gatewayCrd('tcproutes', 'TCPRoute', 'v1alpha2'),
  gatewayCrd('udproutes', 'UDPRoute', 'v1alpha2'),
  ...['f5', 'traefik', 'istio', 'ambassador', 'kong', 'skipper', 'contour', 'gloo'].flatMap(loadCrds),
];

/** The CRD with each version's schema replaced by one that keeps and accepts anything. */
function schemaless(crd: KubeObject): KubeObject {
  const anything = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
  const spec = crd['spec'] as { versions: Record<string, unknown>[] };
  return { ...crd, spec: { ...spec, versions: spec.versions.map((v) => ({ ...v, schema: anything })) } };
}

function routeCrd(): ReturnType<typeof schemalessCrd> {
  return schemalessCrd('route.openshift.io', 'routes', 'Route');
}

export function translateOptionsOf(o: CaseOptions): TranslateOptions {
  return {
    ...buildTranslateOptions({
      ...(o.annotationFilter === undefined ? {} : { annotationFilter: o.annotationFilter }),
      ...(o.labelFilter === undefined ? {} : { labelFilter: o.labelFilter }),
      ...(o.fqdnTemplate === undefined ? {} : { fqdnTemplate: o.fqdnTemplate }),
      ...(o.targetTemplate === undefined ? {} : { targetTemplate: [o.targetTemplate] }),
      ...(o.fqdnTargetTemplate === undefined ? {} : { fqdnTargetTemplate: [o.fqdnTargetTemplate] }),
      combineFqdnAnnotation: o.combineFqdnAnnotation === true,
      ignoreHostnameAnnotation: o.ignoreHostnameAnnotation === true,
      ignoreIngressTLSSpec: o.ignoreIngressTLSSpec === true,
      ignoreIngressRulesSpec: o.ignoreIngressRulesSpec === true,
      publishInternalServices: o.publishInternalServices === true,
      serviceTypeFilter: o.serviceTypeFilter ?? [],
      ...(o.compatibility === undefined ? {} : { compatibility: o.compatibility }),
    }),
    publishHostIP: o.publishHostIP === true,
    exposeInternalIPv6: o.exposeInternalIPv6 === true,
    excludeUnschedulable: o.excludeUnschedulable === true,
  };
}

const ROUTE_KIND_OF = {
  'gateway-grpcroute': 'GRPCRoute',
  'gateway-tlsroute': 'TLSRoute',
  'gateway-tcproute': 'TCPRoute',
  'gateway-udproute': 'UDPRoute',
} as const;

function sourceOf(c: SourceCase, deps: KubeSourceDeps): KubeObjectSource | TraefikProxySource | Source {
  const o = c.options;
  switch (c.source) {
    case 'unstructured':
      return unstructuredSource(deps, o.unstructuredResources ?? []);
    case 'service':
      return serviceSource(deps);
    case 'ingress':
      return ingressSource(deps, o.ingressClass ?? []);
    case 'crd':
      return crdSource(deps, 'externaldns.k8s.io/v1alpha1', 'DNSEndpoint');
    case 'gateway-httproute':
      return httpRouteSource(deps, {
        ...(o.gatewayNamespace === undefined ? {} : { namespace: o.gatewayNamespace }),
        ...(o.gatewayLabelFilter === undefined ? {} : { labelSelector: o.gatewayLabelFilter }),
        ...(o.gatewayName === undefined ? {} : { name: o.gatewayName }),
      });
    case 'openshift-route':
      return openshiftRouteSource(deps, o.openshiftRouterName ?? '');
    case 'pod':
      return podSource(deps, { ignoreNonHostNetworkPods: o.ignoreNonHostNetworkPods === true, podSourceDomain: o.podSourceDomain ?? '' });
    case 'node':
      return nodeSource(deps);
    case 'gateway-grpcroute':
    case 'gateway-tlsroute':
    case 'gateway-tcproute':
    case 'gateway-udproute':
      return gatewayRouteSource(deps, ROUTE_KIND_OF[c.source], {
        ...(o.gatewayNamespace === undefined ? {} : { namespace: o.gatewayNamespace }),
        ...(o.gatewayLabelFilter === undefined ? {} : { labelSelector: o.gatewayLabelFilter }),
        ...(o.gatewayName === undefined ? {} : { name: o.gatewayName }),
      });
    case 'f5-virtualserver':
      return f5Source(deps, 'VirtualServer');
    case 'f5-transportserver':
      return f5Source(deps, 'TransportServer');
    case 'istio-gateway':
      return istioGatewaySource(deps);
    case 'istio-virtualservice':
      return istioVirtualServiceSource(deps);
    case 'traefik-proxy':
      return traefikProxySource(deps, { enableLegacy: o.traefikEnableLegacy === true, disableNew: o.traefikDisableNew === true });
    case 'ambassador-host':
      return ambassadorHostSource(deps);
    case 'kong-tcpingress':
      return kongTcpIngressSource(deps);
    case 'skipper-routegroup':
      return skipperRouteGroupSource(deps);
    case 'contour-httpproxy':
      return contourHTTPProxySource(deps);
    case 'gloo-proxy':
      return glooProxySource(deps, o.glooNamespaces ?? []);
  }
}

/** API groups the test API server serves itself; other groups of --unstructured-resource get a CRD. */
const BUILTIN_GROUPS: ReadonlySet<string> = new Set(['', 'apps', 'discovery.k8s.io', 'networking.k8s.io', 'coordination.k8s.io', 'events.k8s.io']);

/**
 * Schema-less CRDs for the unstructured source's custom resources (upstream's fake discovery
 * serves whatever the case names): the kind is the case's objects' of that group/version.
 */
export function unstructuredCrds(c: Pick<SourceCase, 'source' | 'options' | 'objects' | 'discovery'>): (typeof DNSENDPOINT_CRD)[] {
  if (c.source !== 'unstructured') return [];
  const wanted: { group: string; version: string; kind: string; plural: string }[] = [];
  for (const arg of c.options.unstructuredResources ?? []) {
    const [, version = '', ...rest] = arg.split('.');
    const group = rest.join('.');
    const kind = c.objects.find((o) => o.apiVersion === `${group}/${version}`)?.kind;
    if (kind !== undefined) wanted.push({ group, version, kind, plural: `${kind.toLowerCase()}s` });
  }
  for (const d of c.discovery ?? []) {
    const [group = '', version = ''] = d.groupVersion.split('/');
    for (const r of d.resources) wanted.push({ group, version, kind: r.kind, plural: r.name });
  }
  const out: (typeof DNSENDPOINT_CRD)[] = [];
  for (const { group, version, kind, plural } of wanted) {
    if (BUILTIN_GROUPS.has(group) || out.some((crd) => crd.metadata.name === `${plural}.${group}`)) continue;
    out.push({
      ...DNSENDPOINT_CRD,
      metadata: { name: `${plural}.${group}` },
      spec: {
        ...DNSENDPOINT_CRD.spec,
        group,
        names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
        versions: DNSENDPOINT_CRD.spec.versions.map((v) => ({ ...v, name: version })),
      },
    });
  }
  return out;
}

/** Objects without a namespace land in `default`, as the Go fake client would keep them findable. */
function namespacesOf(objects: readonly KubeObject[]): string[] {
  const out = new Set<string>();
  for (const o of objects) {
    if (o.kind === 'Namespace' || (o.kind === 'Node' && o.apiVersion === 'v1')) continue;
    const ns = o.metadata.namespace;
    if (ns !== undefined && ns !== '' && ns !== 'default' && ns !== 'kube-system') out.add(ns);
  }
  return [...out];
}

/** Runs one case on a fresh API server and returns what the source answered. */
export async function answerOf(c: SourceCase): Promise<Answer> {
  const declared = new Set(c.objects.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name));
  const api: TestApiServer = await startTestApiServer({ bookmarkIntervalMs: 60_000, namespaces: namespacesOf(c.objects).filter((n) => !declared.has(n)) });
  const logger = silentLogger();
  const client = new KubeClient({ config: api.kubeConfig(), logger });
  let source: KubeObjectSource | TraefikProxySource | Source | undefined;
  try {
    for (const crd of CRDS) api.create(c.crdRefuses === undefined ? crd : schemaless(crd));
    for (const crd of unstructuredCrds(c)) api.create(crd);
    for (const obj of c.objects) {
      if (obj.kind === 'Namespace' && ['default', 'kube-system'].includes(obj.metadata.name)) continue;
      api.create(completeForApiServer(obj));
    }
    let options: TranslateOptions;
    try {
      options = translateOptionsOf(c.options);
    } catch {
      return { error: true };
    }
    let built: KubeObjectSource | TraefikProxySource | Source;
    try {
      built = sourceOf(c, {
        client,
        logger,
        translateOptions: options,
        namespace: c.options.namespace ?? '',
        syncTimeoutMs: 10_000,
        ...(c.options.resolveServiceLoadBalancerHostname === true ? { loadBalancerResolver: new FakeHostnameResolver(c.dnsAnswers ?? {}) } : {}),
      });
    } catch {
      // A flag the source refuses (an invalid --unstructured-resource) stops start-up.
      return { error: true };
    }
    source = built;
    try {
      return (await source.endpoints()).map(caseEndpointOf);
    } catch {
      return { error: true };
    }
  } finally {
    await source?.close?.();
    client.close();
    await api.stop();
  }
}

export function caseEndpointOf(e: Endpoint): CaseEndpoint {
  return {
    dnsName: e.dnsName,
    targets: [...e.targets],
    recordType: e.recordType,
    ...(e.recordTTL === 0 ? {} : { recordTTL: e.recordTTL }),
    ...(e.setIdentifier === '' ? {} : { setIdentifier: e.setIdentifier }),
    ...(e.providerSpecific.length === 0 ? {} : { providerSpecific: e.providerSpecific.map((p) => ({ name: p.name, value: p.value })) }),
    labels: { ...e.labels },
  };
}

function keyOf(e: CaseEndpoint): string {
  return `${e.dnsName}\u0000${e.recordType}\u0000${e.setIdentifier ?? ''}\u0000${[...e.targets].sort().join(',')}`;
}

function normalized(e: CaseEndpoint, withLabels: boolean): unknown {
  return {
    dnsName: e.dnsName,
    targets: [...e.targets].sort(),
    recordType: e.recordType,
    recordTTL: e.recordTTL ?? 0,
    setIdentifier: e.setIdentifier ?? '',
    providerSpecific: [...(e.providerSpecific ?? [])].sort((a, b) => a.name.localeCompare(b.name)),
    ...(withLabels ? { labels: e.labels ?? {} } : {}),
  };
}

/**
 * Differences between an answer and the expected endpoints, compared as upstream's
 * ValidateEndpoints does: order-insensitive, targets as sets, labels only where expected sets them.
 */
export function mismatches(actual: Answer, expected: Answer): string[] {
  if (!Array.isArray(expected) || !Array.isArray(actual)) {
    return JSON.stringify(actual) === JSON.stringify(expected) ? [] : [`expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
  }
  const errs: string[] = [];
  if (actual.length !== expected.length) errs.push(`expected ${expected.length} endpoints, got ${actual.length}`);
  const a = [...actual].sort((x, y) => keyOf(x).localeCompare(keyOf(y)));
  const e = [...expected].sort((x, y) => keyOf(x).localeCompare(keyOf(y)));
  for (let i = 0; i < Math.max(a.length, e.length); i++) {
    const want = e[i];
    const got = a[i];
    const withLabels = want?.labels !== undefined;
    const w = want === undefined ? undefined : JSON.stringify(normalized(want, withLabels));
    const g = got === undefined ? undefined : JSON.stringify(normalized(got, withLabels));
    if (w !== g) errs.push(`expected ${w ?? 'nothing'}\n       got ${g ?? 'nothing'}`);
  }
  return errs;
}

/** What the case says Hostwarden must answer. */
export function expectedAnswer(c: SourceCase): Answer {
  if (c.differs !== undefined) {
    if (c.hostwarden === undefined) throw new Error(`${c.name}: a differs case needs "hostwarden"`);
    return c.hostwarden;
  }
  return c.expectError === true ? { error: true } : withAnswers(c.expected ?? [], c.dnsAnswers ?? {});
}

/** Replaces the `<address of NAME>` placeholders of upstream's look-ups with the case's answers. */
function withAnswers(expected: CaseEndpoint[], answers: Record<string, FakeAnswer>): CaseEndpoint[] {
  const placeholder = /^<address(6?) of (.+)>$/;
  return expected.map((e) => ({
    ...e,
    targets: e.targets.flatMap((t) => {
      const m = placeholder.exec(t);
      if (m === null) return [t];
      const answer = answers[m[2] as string];
      if (answer === undefined || 'error' in answer) throw new Error(`${t}: dnsAnswers has no addresses for ${m[2]}`);
      return [...((m[1] === '6' ? answer.AAAA : answer.A) ?? [])];
    }),
  }));
}

/** Differences for a case: against its endpoints, or only in number where upstream asserts only that. */
export function caseMismatches(c: SourceCase, actual: Answer): string[] {
  if (c.differs === undefined && c.expectError !== true && c.expectedCount !== undefined) {
    if (!Array.isArray(actual)) return [`expected ${c.expectedCount} endpoints, got ${JSON.stringify(actual)}`];
    return actual.length === c.expectedCount ? [] : [`expected ${c.expectedCount} endpoints, got ${actual.length}: ${actual.map((e) => e.dnsName).join(', ')}`];
  }
  return mismatches(actual, expectedAnswer(c));
}
