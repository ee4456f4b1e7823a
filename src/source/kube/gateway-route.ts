/**
 * Gateway API routes → endpoints, as external-dns's gateway-httproute, -grpcroute, -tlsroute,
 * -tcproute and -udproute sources (one implementation: upstream's gatewayRouteSource; the kinds
 * differ only in the listener protocol they attach to and whether they carry hostnames). A route is
 * published only through parents that accepted it (`status.parents[]` with `Accepted=True` for a
 * parentRef the route's spec also lists), on the listeners its `sectionName`/`port` select whose
 * protocol matches the kind's (HTTP and HTTPS are one; a TCPRoute also attaches to TLS listeners)
 * and whose `allowedRoutes` let it in. Each route hostname is intersected with
 * the listener hostname (a `*.` wildcard matches any deeper name, never the bare suffix) and the
 * more specific name is published, pointing at the Gateway's `target` annotation or else its
 * `status.addresses`. A route without hostnames takes the listener's; TCPRoutes and UDPRoutes have
 * none (their names come from listeners, annotations and --fqdn-template). With --gateway-listener-sets
 * a parent may also be a ListenerSet (see gateway-parents.ts).
 */
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { KubeObject } from '../../kube/resource.ts';
import type { SourceProblem } from '../source.ts';
import { annotationValue, isControllerMismatch, parseAnnotations } from '../translate/annotations.ts';
import { endpointsForHostname, finalizeEndpoints, problemFor, suitableType } from '../translate/hostname.ts';
import { DEFAULT_NAMESPACE, asArray, asRecord, asString, readMeta, refOf, stringArray } from '../translate/object.ts';
import type { JsonRecord, ObjectMeta } from '../translate/object.ts';
import { runTemplate, templateOf } from '../translate/options.ts';
import type { TranslateOptions } from '../translate/options.ts';
import { commonOf } from '../translate/service.ts';
import { GATEWAY_GROUP, GATEWAY_KIND, conditionTrue, resolveParent } from './gateway-parents.ts';
import type { ParentLookups } from './gateway-parents.ts';
import { labelSelectorMatches } from './label-selector.ts';

/** What tells the route kinds apart, as upstream's gatewayRoute implementations. */
interface RouteKind {
  /** The listener protocol the kind attaches to (compared by protocolMatches). */
  protocol: string;
  /** Whether `spec.hostnames` is read (TCPRoute and UDPRoute have no hostnames). */
  hostnames: boolean;
}

export const GATEWAY_ROUTE_KINDS = {
  HTTPRoute: { protocol: 'HTTP', hostnames: true },
  GRPCRoute: { protocol: 'HTTPS', hostnames: true },
  TLSRoute: { protocol: 'TLS', hostnames: true },
  TCPRoute: { protocol: 'TCP', hostnames: false },
  UDPRoute: { protocol: 'UDP', hostnames: false },
} as const satisfies Record<string, RouteKind>;

export type GatewayRouteKind = keyof typeof GATEWAY_ROUTE_KINDS;

/** Values of the `gateway-hostname-source` annotation. */
export const HOSTNAME_SOURCE_ANNOTATION_ONLY = 'annotation-only';
export const HOSTNAME_SOURCE_DEFINED_HOSTS_ONLY = 'defined-hosts-only';

/** Labels of a namespace are undefined when unknown (a `Selector` listener then admits nothing). */
export type GatewayLookups = ParentLookups;

export function translateGatewayRoute(
  kind: GatewayRouteKind,
  obj: KubeObject,
  options: TranslateOptions,
  lookups: GatewayLookups,
): { endpoints: Endpoint[]; problems: SourceProblem[]; heldResource?: string } {
  const problems: SourceProblem[] = [];
  const meta = readMeta(obj);
  if (meta === undefined) return { endpoints: [], problems };
  if (options.annotationFilter !== undefined && !options.annotationFilter.matches(meta.annotations)) return { endpoints: [], problems };
  if (options.labelFilter !== undefined && !options.labelFilter.matches(meta.labels)) return { endpoints: [], problems };
  if (isControllerMismatch(meta.annotations, options.annotationPrefix)) return { endpoints: [], problems };
  const ref = refOf(meta);
  const ann = parseAnnotations(meta.annotations, options.defaultTTL ?? 0, (m) => problems.push(problemFor(ref, m)), options.annotationPrefix);
  const route: RouteKind = GATEWAY_ROUTE_KINDS[kind];
  const common = commonOf(ann, `${kind.toLowerCase()}/${meta.namespace}/${meta.name}`);

  const routeHosts = runTemplate(
    () =>
      routeHostnames(route.hostnames ? stringArray(asRecord(obj['spec'])?.['hostnames']) : [], obj, meta, options, ann.hostnames, (m) =>
        problems.push(problemFor(ref, m)),
      ),
    (m) => problems.push(problemFor(ref, m)),
  );
  if (routeHosts === undefined) return { endpoints: [], problems, heldResource: common.resource };
  const targetsByHost = new Map<string, Set<string>>();
  for (const parent of acceptedParents(obj, meta.namespace, lookups, options)) {
    for (const lis of parent.listeners) {
      if (!protocolMatches(route.protocol, asString(lis['protocol']) ?? '')) continue;
      if (typeof parent.port === 'number' && lis['port'] !== parent.port) continue;
      if (!routeAllowed(lis, parent.ownerNamespace, meta.namespace, kind, lookups)) continue;
      addMatches(targetsByHost, asString(lis['hostname']) ?? '', routeHosts, parent.targets);
    }
  }
  const candidates = [...targetsByHost.keys()].sort().flatMap((h) => endpointsForHostname(h, [...(targetsByHost.get(h) ?? [])].sort(), common));
  return { endpoints: finalizeEndpoints(ref, candidates, problems), problems };
}

/**
 * The parents that accepted the route (a `status.parents[]` entry, `Accepted=True`, for a
 * Gateway API parentRef the spec still lists) and resolve to a Gateway or ListenerSet, with the
 * listeners their `sectionName` selects and the parentRef's `port`.
 */
function acceptedParents(
  obj: KubeObject,
  routeNamespace: string,
  lookups: GatewayLookups,
  options: TranslateOptions,
): { listeners: JsonRecord[]; ownerNamespace: string; targets: readonly string[]; port: unknown }[] {
  const specRefs = asArray(asRecord(obj['spec'])?.['parentRefs'])
    .map(asRecord)
    .filter((p): p is JsonRecord => p !== undefined);
  if (specRefs.length === 0) return [];
  const out: { listeners: JsonRecord[]; ownerNamespace: string; targets: readonly string[]; port: unknown }[] = [];
  for (const status of asArray(asRecord(obj['status'])?.['parents'])) {
    const parentRef = asRecord(asRecord(status)?.['parentRef']);
    if (parentRef === undefined || !specRefs.some((r) => sameParent(r, parentRef, routeNamespace))) continue;
    if ((asString(parentRef['group']) || GATEWAY_GROUP) !== GATEWAY_GROUP) continue;
    if (!conditionTrue(asRecord(status)?.['conditions'], 'Accepted')) continue;
    const parentNamespace = asString(parentRef['namespace']) || routeNamespace;
    const parent = resolveParent(asString(parentRef['kind']) || GATEWAY_KIND, parentNamespace, asString(parentRef['name']) ?? '', lookups, options);
    const listeners = parent?.listeners(asString(parentRef['sectionName']) ?? '');
    if (parent === undefined || listeners === undefined) continue;
    out.push({ listeners: [...listeners], ownerNamespace: parent.ownerNamespace, targets: parent.targets, port: parentRef['port'] });
  }
  return out;
}

/** Adds the listener's targets under each route hostname that overlaps the listener hostname. */
function addMatches(targetsByHost: Map<string, Set<string>>, lisHost: string, routeHosts: readonly string[], targets: readonly string[]): void {
  for (const rtHost of routeHosts) {
    if (lisHost === '' && rtHost === '') continue;
    const host = matchingHost(lisHost, rtHost);
    if (host === undefined) continue;
    const set = targetsByHost.get(host) ?? new Set<string>();
    for (const t of targets) set.add(t);
    targetsByHost.set(host, set);
  }
}

/** Route hostnames; '' stands for "whatever the listener says" (a route without hostnames). */
function routeHostnames(
  specHosts: readonly string[],
  obj: KubeObject,
  meta: ObjectMeta,
  options: TranslateOptions,
  annotated: readonly string[],
  problem: (m: string) => void,
): string[] {
  const hostnames = [...specHosts];
  const template = templateOf(options, meta.kind);
  if (template !== undefined && (hostnames.length === 0 || options.combineFqdnAnnotation === true)) hostnames.push(...template.execute(obj, meta));
  const source = annotationValue(meta.annotations, 'gateway-hostname-source', options.annotationPrefix);
  switch (source?.toLowerCase()) {
    case HOSTNAME_SOURCE_ANNOTATION_ONLY:
      return options.ignoreHostnameAnnotation === true ? [] : [...annotated];
    case HOSTNAME_SOURCE_DEFINED_HOSTS_ONLY:
      return hostnames;
    case undefined:
      break;
    default:
      problem(
        `gateway-hostname-source ${JSON.stringify(source)} is neither ${HOSTNAME_SOURCE_ANNOTATION_ONLY} nor ${HOSTNAME_SOURCE_DEFINED_HOSTS_ONLY}; ignored`,
      );
  }
  if (specHosts.length === 0) hostnames.push('');
  if (options.ignoreHostnameAnnotation !== true) hostnames.push(...annotated);
  return hostnames;
}

function sameParent(spec: JsonRecord, status: JsonRecord, routeNamespace: string): boolean {
  const g = (r: JsonRecord): string => asString(r['group']) || GATEWAY_GROUP;
  const k = (r: JsonRecord): string => asString(r['kind']) || 'Gateway';
  const ns = (r: JsonRecord): string => asString(r['namespace']) || routeNamespace || DEFAULT_NAMESPACE;
  return g(spec) === g(status) && k(spec) === k(status) && asString(spec['name']) === asString(status['name']) && ns(spec) === ns(status);
}

/**
 * Upstream's gwProtocolMatches(route, listener): HTTP and HTTPS are the same protocol, and a TCP
 * route also matches a TLS listener (not the other way round).
 */
export function protocolMatches(route: string, listener: string): boolean {
  const a = route === 'HTTPS' ? 'HTTP' : route;
  let b = listener === 'HTTPS' ? 'HTTP' : listener;
  if (a === 'TCP' && b === 'TLS') b = 'TCP';
  return a === b;
}

function routeAllowed(lis: JsonRecord, gwNamespace: string, routeNamespace: string, kind: GatewayRouteKind, lookups: GatewayLookups): boolean {
  const allowed = asRecord(lis['allowedRoutes']);
  const namespaces = asRecord(allowed?.['namespaces']);
  const from = asString(namespaces?.['from']) ?? 'Same';
  switch (from) {
    case 'All':
      break;
    case 'Same':
      if (gwNamespace !== routeNamespace) return false;
      break;
    case 'Selector': {
      const labels = lookups.namespaceLabels(routeNamespace);
      if (labels === undefined || !labelSelectorMatches(asRecord(namespaces?.['selector']), labels)) return false;
      break;
    }
    default:
      return false;
  }
  const kinds = asArray(allowed?.['kinds']).map(asRecord);
  if (kinds.length === 0) return true;
  return kinds.some((k) => (asString(k?.['group']) || GATEWAY_GROUP) === GATEWAY_GROUP && asString(k?.['kind']) === kind);
}

/**
 * The more specific of two overlapping hostnames, or undefined when they do not overlap: '' matches
 * anything, and `*.example.org` matches `a.example.org` and `a.b.example.org`, not `example.org`.
 * IP addresses and invalid names match nothing.
 */
export function matchingHost(a: string, b: string): string | undefined {
  let x = canonicalHost(a);
  let y = canonicalHost(b);
  if (x === undefined || y === undefined) return undefined;
  if (x === '') return y;
  if (y === '' || x === y) return x;
  // Put the shorter (or, at equal length, the wildcard) one first: only it can be the pattern.
  if (y.length < x.length || (x.length === y.length && y.startsWith('*.'))) [x, y] = [y, x];
  return x.startsWith('*.') && y.endsWith(x.slice(1)) ? y : undefined;
}

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function canonicalHost(host: string): string | undefined {
  if (host === '') return '';
  const lower = host.toLowerCase();
  const bare = lower.startsWith('*.') ? lower.slice(2) : lower;
  if (suitableType(bare) !== 'CNAME' || bare.length > 253 || !bare.split('.').every((l) => l.length <= 63 && LABEL.test(l))) return undefined;
  return lower;
}
