/**
 * The Kubernetes sources (`service`, `ingress`, `crd`, the `gateway-*route` sources, `openshift-route`, `pod`, `node`): a reflector per
 * resource type feeding KubeObjectSource, translated by the same code as the manifest source.
 */
import { ConfigError, errorMessage } from '../../errors.ts';
import type { KubeClient } from '../../kube/client.ts';
import { isStatus } from '../../kube/errors.ts';
import { Reflector } from '../../kube/reflector.ts';
import {
  ENDPOINTSLICES,
  GATEWAYS,
  GRPCROUTES,
  HTTPROUTES,
  INGRESSES,
  LISTENERSETS,
  NAMESPACES,
  NODES,
  PODS,
  ROUTES,
  SERVICES,
  TCPROUTES,
  TLSROUTES,
  UDPROUTES,
  customResource,
  keyOf,
  objectPath,
} from '../../kube/resource.ts';
import type { KubeObject, KubeResource } from '../../kube/resource.ts';
import {
  slimEndpointSlice,
  slimGateway,
  slimGeneric,
  slimGatewayRoute,
  slimIngress,
  slimListenerSet,
  slimNamespace,
  nodeTemplateView,
  slimNode,
  slimPod,
  slimPodSource,
  podTemplateView,
  slimRoute,
  slimService,
  stubObject,
  templateView,
} from '../../kube/slim.ts';
import type { Logger } from '../../log.ts';
import type { ProblemReporter } from '../source.ts';
import type { TranslateOptions } from '../translate/options.ts';
import { translateNode } from '../translate/node.ts';
import { translateRoute } from '../translate/route.ts';
import { translateObject } from '../translate/translate.ts';
import { SliceIndex, headlessNeedsPods, isHeadless, translateHeadless } from './headless.ts';
import { translateGatewayRoute } from './gateway-route.ts';
import type { GatewayRouteKind } from './gateway-route.ts';
import { KubeObjectSource } from './kube-source.ts';
import { LoadBalancerAddresses, LoadBalancerLookups } from './lb-hostnames.ts';
import type { HostnameResolver } from './lb-hostnames.ts';
import { isNodePort, translateNodePort } from './nodeport.ts';
import { mergeEndpoints } from './merge.ts';
import { translatePod } from './pod.ts';
import type { PodOptions } from './pod.ts';
import type { Translation } from './kube-source.ts';

export interface KubeSourceDeps {
  client: KubeClient;
  logger: Logger;
  translateOptions: TranslateOptions;
  /** '' for every namespace. */
  namespace: string;
  inactivityTimeoutMs?: number;
  onProblem?: ProblemReporter;
  syncTimeoutMs?: number;
  /** Set with --resolve-service-load-balancer-hostname: the service source publishes load-balancer hostnames' addresses. */
  loadBalancerResolver?: HostnameResolver;
  /** Told about every reflector a source creates (metrics). */
  onReflector?: (resource: KubeResource, reflector: Reflector<KubeObject>) => void;
}

export function reflector(
  deps: KubeSourceDeps,
  resource: KubeResource,
  transform: (raw: Record<string, unknown>) => KubeObject,
  scope: { namespace?: string; labelSelector?: string; retain?: (obj: KubeObject) => KubeObject } = {},
): Reflector<KubeObject> {
  const r = new Reflector<KubeObject>({
    client: deps.client,
    resource,
    namespace: resource.namespaced ? (scope.namespace ?? deps.namespace) : '',
    logger: deps.logger,
    transform,
    ...(scope.retain === undefined ? {} : { retain: scope.retain }),
    ...(scope.labelSelector === undefined || scope.labelSelector === '' ? {} : { labelSelector: scope.labelSelector }),
    ...(deps.inactivityTimeoutMs === undefined ? {} : { inactivityTimeoutMs: deps.inactivityTimeoutMs }),
  });
  deps.onReflector?.(resource, r);
  return r;
}

export function common(
  deps: KubeSourceDeps,
  name: string,
): Pick<ConstructorParameters<typeof KubeObjectSource>[0], 'name' | 'logger' | 'onProblem' | 'syncTimeoutMs' | 'onClose' | 'merge'> {
  return {
    name,
    // Every external-dns Kubernetes source merges the endpoints several objects ask for (one
    // record with all their targets); the planner would otherwise keep only one object's.
    merge: mergeEndpoints,
    onClose: () => deps.client.close(),
    logger: deps.logger.child({ source: name }),
    ...(deps.onProblem === undefined ? {} : { onProblem: deps.onProblem }),
    ...(deps.syncTimeoutMs === undefined ? {} : { syncTimeoutMs: deps.syncTimeoutMs }),
  };
}

/** The primary objects' cache transform: whole objects when a template may read any field. */
function primaryView(deps: KubeSourceDeps, slim: (raw: Record<string, unknown>) => KubeObject): (raw: Record<string, unknown>) => KubeObject {
  return deps.translateOptions.fqdnTemplate === undefined ? slim : templateView;
}

function translated(obj: KubeObject, options: TranslateOptions): Translation {
  // Objects being deleted still hold their records until they are gone, as in external-dns.
  const r = translateObject(obj, options);
  return r.heldResource === undefined
    ? { endpoints: r.endpoints, problems: r.problems }
    : { endpoints: r.endpoints, problems: r.problems, heldResource: r.heldResource };
}

/**
 * Services, with the Nodes (NodePort targets, NodeExternalIP), the EndpointSlices (headless
 * Services) and, only once a Service reads host IPs, the Pods they depend on.
 */
export function serviceSource(deps: KubeSourceDeps): KubeObjectSource {
  const options = deps.translateOptions;
  const services = reflector(deps, SERVICES, primaryView(deps, slimService));
  const nodes = reflector(deps, NODES, slimNode);
  const slices = reflector(deps, ENDPOINTSLICES, slimEndpointSlice);
  const pods = reflector(deps, PODS, slimPod);
  const index = new SliceIndex();
  // Registered before the source's own handlers, so the index is current when they ask it.
  slices.onChange((_type, key, obj) => index.update(key, obj));
  const slicesOf = (svc: KubeObject): KubeObject[] => index.slicesOf(keyOf(svc)).flatMap((k) => slices.get(k) ?? []);
  const lookups = deps.loadBalancerResolver === undefined ? undefined : new LoadBalancerLookups(new LoadBalancerAddresses(deps.loadBalancerResolver));
  /** Keys of the Services whose translation reads Nodes (NodePort, headless); deleted ones are skipped by the source. */
  const readsNodes = new Set<string>();
  const source: KubeObjectSource = new KubeObjectSource({
    ...common(deps, 'service'),
    primary: services,
    secondary: [
      // Most Services never read Nodes: a node joining or leaving re-translates only those that do.
      {
        reflector: nodes,
        affects: () => {
          for (const k of readsNodes) if (services.get(k) === undefined) readsNodes.delete(k);
          return [...readsNodes];
        },
      },
      { reflector: slices, affects: (obj, old) => [obj, old].flatMap((s) => (s === undefined ? [] : index.serviceOf(s))) },
      { reflector: pods, lazy: options.publishHostIP !== true, affects: (obj, old) => index.servicesOfPod(keyOf((obj ?? old) as KubeObject)) },
    ],
    translate: (obj) => {
      readsNodes.delete(keyOf(obj));
      const r = translateObject(obj, lookups?.optionsFor(keyOf(obj), options) ?? options);
      if (r.outcome !== 'translated') return { endpoints: r.endpoints, problems: r.problems };
      // The generic translation failed: the special ones run the same templates, and would fail too.
      if (r.heldResource !== undefined) return { endpoints: [], problems: r.problems, heldResource: r.heldResource };
      if (isNodePort(obj) || isHeadless(obj)) readsNodes.add(keyOf(obj));
      let special: Translation | undefined;
      if (isNodePort(obj)) {
        special = translateNodePort(obj, options, nodes.items(), slicesOf(obj));
      } else if (isHeadless(obj)) {
        const readsPods = headlessNeedsPods(obj, options);
        if (readsPods) source.need(pods);
        special = translateHeadless(obj, options, {
          slices: slicesOf(obj),
          pod: readsPods ? (k) => pods.get(k) : undefined,
          node: (name) => nodes.get(name),
        });
      }
      // Filters and the controller annotation apply to NodePort and headless Services as to the rest.
      if (special === undefined) return { endpoints: r.endpoints, problems: r.problems };
      const problems = [...r.problems, ...special.problems];
      return special.heldResource === undefined
        ? { endpoints: special.endpoints, problems }
        : { endpoints: special.endpoints, problems, heldResource: special.heldResource };
    },
    ...(lookups === undefined
      ? {}
      : {
          refresh: () => lookups.refresh((key) => services.get(key) !== undefined),
          onClose: () => {
            deps.loadBalancerResolver?.close?.();
            deps.client.close();
          },
        }),
  });
  return source;
}

const INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

export function ingressSource(deps: KubeSourceDeps, classes: readonly string[]): KubeObjectSource {
  return new KubeObjectSource({
    ...common(deps, 'ingress'),
    // Nothing re-reads an Ingress after its translation (it has no dependent objects), so the
    // cache keeps a stub: at 10k Ingresses about 8 MB less heap.
    primary: reflector(deps, INGRESSES, primaryView(deps, slimIngress), { retain: stubObject }),
    translate: (obj) => {
      if (classes.length > 0) {
        const spec = obj['spec'] as { ingressClassName?: string } | undefined;
        const cls = spec?.ingressClassName ?? obj.metadata.annotations?.[INGRESS_CLASS_ANNOTATION];
        if (cls === undefined || !classes.includes(cls)) return { endpoints: [], problems: [] };
      }
      return translated(obj, deps.translateOptions);
    },
  });
}

/**
 * Nodes (`--source=node`): each Node's name, or the template's names, with its addresses. The
 * slim view keeps what the translation reads (addresses, unschedulable, labels, annotations); with
 * a template, the whole Node but its status conditions.
 */
export function nodeSource(deps: KubeSourceDeps): KubeObjectSource {
  return new KubeObjectSource({
    ...common(deps, 'node'),
    primary: reflector(deps, NODES, deps.translateOptions.fqdnTemplate === undefined ? slimNode : nodeTemplateView),
    translate: (obj) => translateNode(obj, deps.translateOptions),
  });
}

/** OpenShift Routes (`route.openshift.io/v1`); `routerName` is --openshift-router-name ('' for the first admitting router). */
export function openshiftRouteSource(deps: KubeSourceDeps, routerName = ''): KubeObjectSource {
  return new KubeObjectSource({
    ...common(deps, 'openshift-route'),
    primary: reflector(deps, ROUTES, primaryView(deps, slimRoute), { retain: stubObject }),
    translate: (obj) => translateRoute(obj, deps.translateOptions, routerName),
  });
}

export function crdSource(deps: KubeSourceDeps, apiVersion: string, kind: string): KubeObjectSource {
  if (!/^[a-z0-9.-]+\/v[a-z0-9]+$/.test(apiVersion))
    throw new ConfigError(`--crd-source-apiversion must look like group/version, got ${JSON.stringify(apiVersion)}`, '--crd-source-apiversion');
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind)) throw new ConfigError(`--crd-source-kind must be a Kind name, got ${JSON.stringify(kind)}`, '--crd-source-kind');
  const resource = customResource(apiVersion, kind);
  const writer = new ObservedGenerationWriter(deps.client, resource, deps.logger.child({ source: 'crd' }));
  return new KubeObjectSource({
    ...common(deps, 'crd'),
    primary: reflector(deps, resource, slimGeneric),
    // The translator recognises DNSEndpoint by its group; a renamed CRD is read the same way.
    translate: (obj) => translated({ ...obj, apiVersion: 'externaldns.k8s.io/v1alpha1', kind: 'DNSEndpoint' }, deps.translateOptions),
    afterList: (objects) => writer.write(objects),
  });
}

/**
 * Pods (external-dns's `pod` source), with the Nodes whose addresses the `hostname` annotation
 * publishes; a Node's change re-translates only the Pods that read it.
 */
export function podSource(deps: KubeSourceDeps, pod: PodOptions = {}): KubeObjectSource {
  const nodes = reflector(deps, NODES, slimNode);
  const pods = reflector(deps, PODS, deps.translateOptions.fqdnTemplate === undefined ? slimPodSource : podTemplateView);
  /** Node name → keys of the Pods whose translation read it. */
  const readers = new Map<string, Set<string>>();
  const readerOf = new Map<string, string>();
  const forget = (key: string): void => {
    const name = readerOf.get(key);
    if (name === undefined) return;
    readerOf.delete(key);
    readers.get(name)?.delete(key);
    if (readers.get(name)?.size === 0) readers.delete(name);
  };
  return new KubeObjectSource({
    ...common(deps, 'pod'),
    primary: pods,
    secondary: [
      {
        reflector: nodes,
        affects: (obj, old) => {
          const name = (obj ?? old)?.metadata.name ?? '';
          const keys = [...(readers.get(name) ?? [])];
          for (const k of keys) if (pods.get(k) === undefined) forget(k);
          return keys;
        },
      },
    ],
    translate: (obj) => {
      const key = keyOf(obj);
      forget(key);
      const r = translatePod(obj, deps.translateOptions, pod, (name) => nodes.get(name));
      if (r.readNode !== undefined) {
        readerOf.set(key, r.readNode);
        readers.set(r.readNode, (readers.get(r.readNode) ?? new Set()).add(key));
      }
      return r.heldResource === undefined
        ? { endpoints: r.endpoints, problems: r.problems }
        : { endpoints: r.endpoints, problems: r.problems, heldResource: r.heldResource };
    },
  });
}

/** Which Gateways routes attach to: external-dns's --gateway-namespace, --gateway-label-filter, --gateway-name. */
export interface GatewayScope {
  /** '' for every namespace (not --namespace: routes may attach to Gateways elsewhere). */
  namespace?: string;
  labelSelector?: string;
  name?: string;
  /** --gateway-listener-sets: routes may attach to ListenerSets (read in every namespace, as external-dns). */
  listenerSets?: boolean;
}

/** The reflector of one Gateway API route kind (one call per resource: the RBAC tests scan these). */
function routeReflector(deps: KubeSourceDeps, kind: GatewayRouteKind): Reflector<KubeObject> {
  const view = primaryView(deps, slimGatewayRoute);
  switch (kind) {
    case 'HTTPRoute':
      return reflector(deps, HTTPROUTES, view);
    case 'GRPCRoute':
      return reflector(deps, GRPCROUTES, view);
    case 'TLSRoute':
      return reflector(deps, TLSROUTES, view);
    case 'TCPRoute':
      return reflector(deps, TCPROUTES, view);
    case 'UDPRoute':
      return reflector(deps, UDPROUTES, view);
  }
}

/** HTTPRoutes, with their parent Gateways and the Namespaces (listener `allowedRoutes` selectors). */
export function httpRouteSource(deps: KubeSourceDeps, scope: GatewayScope = {}): KubeObjectSource {
  return gatewayRouteSource(deps, 'HTTPRoute', scope);
}

/** Routes of one Gateway API kind, with their parent Gateways, the Namespaces and (optionally) ListenerSets. */
export function gatewayRouteSource(deps: KubeSourceDeps, kind: GatewayRouteKind, scope: GatewayScope = {}): KubeObjectSource {
  const gateways = reflector(deps, GATEWAYS, slimGateway, {
    namespace: scope.namespace ?? '',
    ...(scope.labelSelector === undefined ? {} : { labelSelector: scope.labelSelector }),
  });
  const namespaces = reflector(deps, NAMESPACES, slimNamespace);
  const listenerSets = scope.listenerSets === true ? reflector(deps, LISTENERSETS, slimListenerSet, { namespace: '' }) : undefined;
  return new KubeObjectSource({
    ...common(deps, `gateway-${kind.toLowerCase()}`),
    primary: routeReflector(deps, kind),
    secondary: listenerSets === undefined ? [gateways, namespaces] : [gateways, namespaces, listenerSets],
    translate: (obj) =>
      translateGatewayRoute(kind, obj, deps.translateOptions, {
        gateway: (ns, name) => (scope.name === undefined || scope.name === '' || scope.name === name ? gateways.get(`${ns}/${name}`) : undefined),
        listenerSet: listenerSets === undefined ? undefined : (ns, name) => listenerSets.get(`${ns}/${name}`),
        namespaceLabels: (ns) => {
          const n = namespaces.get(ns);
          return n === undefined ? undefined : (n.metadata.labels ?? {});
        },
      }),
  });
}

/**
 * Writes `status.observedGeneration` of every DNSEndpoint whose generation the sources have read,
 * once per generation, through the status subresource (so spec writers never see a conflict).
 * Without permission (external-dns's chart grants `update`, not `patch`, on the status) the first
 * 403 in a namespace logs one warning, and that namespace is left alone for `FORBIDDEN_RETRY_MS`.
 */
export class ObservedGenerationWriter {
  private readonly client: KubeClient;
  private readonly resource: KubeResource;
  private readonly log: Logger;
  private readonly written = new Map<string, number>();
  private readonly inFlight = new Set<string>();
  /** Namespaces that answered 403, with the time (ms) to try again; each is warned about once. */
  private readonly forbiddenUntil = new Map<string, number>();
  private readonly warned = new Set<string>();

  constructor(client: KubeClient, resource: KubeResource, logger: Logger) {
    this.client = client;
    this.resource = resource;
    this.log = logger;
  }

  write(objects: Iterable<KubeObject>): void {
    const seen = new Set<string>();
    for (const obj of objects) {
      const key = keyOf(obj);
      seen.add(key);
      const generation = obj.metadata.generation;
      if (generation === undefined) continue;
      const observed = (obj['status'] as { observedGeneration?: number } | undefined)?.observedGeneration;
      if (observed === generation || this.written.get(key) === generation || this.inFlight.has(key)) continue;
      const namespace = obj.metadata.namespace ?? '';
      if ((this.forbiddenUntil.get(namespace) ?? 0) > Date.now()) continue;
      this.inFlight.add(key);
      const path = `${objectPath(this.resource, namespace, obj.metadata.name)}/status`;
      this.client
        .request('PATCH', path, { body: { status: { observedGeneration: generation } }, contentType: 'application/merge-patch+json' })
        .then(
          () => {
            this.written.set(key, generation);
            this.forbiddenUntil.delete(namespace);
          },
          (err: unknown) =>
            isStatus(err, 403)
              ? this.forbidden(namespace, err)
              : this.log.warn({ object: key, err: errorMessage(err) }, 'cannot write status.observedGeneration'),
        )
        .finally(() => this.inFlight.delete(key));
    }
    for (const key of this.written.keys()) if (!seen.has(key)) this.written.delete(key);
  }

  private forbidden(namespace: string, err: unknown): void {
    this.forbiddenUntil.set(namespace, Date.now() + FORBIDDEN_RETRY_MS);
    if (this.warned.has(namespace)) return;
    this.warned.add(namespace);
    this.log.warn(
      {
        verb: 'patch',
        resource: `${this.resource.plural}/status`,
        apiVersion: this.resource.apiVersion,
        namespace,
        feature: 'status.observedGeneration',
        err: errorMessage(err),
      },
      'no permission to patch the status in this namespace: status.observedGeneration is not written there; syncing goes on',
    );
  }
}

/** How long a namespace whose status writes got 403 is left alone before one write tries again. */
const FORBIDDEN_RETRY_MS = 10 * 60_000;
