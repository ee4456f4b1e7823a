/**
 * Resource types and their REST paths. Types are named statically (no discovery round trip), as
 * the sources know exactly what they read.
 */

export interface KubeResource {
  /** `v1`, `networking.k8s.io/v1`, `externaldns.k8s.io/v1alpha1`. */
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

/** Metadata fields every cached object keeps. */
export interface KubeMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: KubeMeta;
  [field: string]: unknown;
}

export const SERVICES: KubeResource = { apiVersion: 'v1', kind: 'Service', plural: 'services', namespaced: true };
export const INGRESSES: KubeResource = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', plural: 'ingresses', namespaced: true };
/** F5 Container Ingress Services (k8s-bigip-ctlr) custom resources, as external-dns's f5-virtualserver and f5-transportserver read them. */
export const VIRTUALSERVERS: KubeResource = { apiVersion: 'cis.f5.com/v1', kind: 'VirtualServer', plural: 'virtualservers', namespaced: true };
export const TRANSPORTSERVERS: KubeResource = { apiVersion: 'cis.f5.com/v1', kind: 'TransportServer', plural: 'transportservers', namespaced: true };
export const HTTPROUTES: KubeResource = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', plural: 'httproutes', namespaced: true };
export const GRPCROUTES: KubeResource = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GRPCRoute', plural: 'grpcroutes', namespaced: true };
/** v1 since Gateway API v1.5 (external-dns reads TLSRoutes at v1). */
export const TLSROUTES: KubeResource = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'TLSRoute', plural: 'tlsroutes', namespaced: true };
/** Experimental channel only: v1alpha2, as external-dns reads them. */
export const TCPROUTES: KubeResource = { apiVersion: 'gateway.networking.k8s.io/v1alpha2', kind: 'TCPRoute', plural: 'tcproutes', namespaced: true };
export const UDPROUTES: KubeResource = { apiVersion: 'gateway.networking.k8s.io/v1alpha2', kind: 'UDPRoute', plural: 'udproutes', namespaced: true };
export const ROUTES: KubeResource = { apiVersion: 'route.openshift.io/v1', kind: 'Route', plural: 'routes', namespaced: true };
export const GATEWAYS: KubeResource = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', plural: 'gateways', namespaced: true };
/** Gateway API v1.5: listeners added to a Gateway from another object (read with --gateway-listener-sets). */
export const LISTENERSETS: KubeResource = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'ListenerSet', plural: 'listenersets', namespaced: true };
/** Istio's networking.istio.io/v1 (GA since Istio 1.22), the version external-dns's istio sources watch. */
export const ISTIO_GATEWAYS: KubeResource = { apiVersion: 'networking.istio.io/v1', kind: 'Gateway', plural: 'gateways', namespaced: true };
export const ISTIO_VIRTUALSERVICES: KubeResource = {
  apiVersion: 'networking.istio.io/v1',
  kind: 'VirtualService',
  plural: 'virtualservices',
  namespaced: true,
};
/** Traefik's CRDs (traefik-proxy source): traefik.io since Traefik v2.10, traefik.containo.us before (--traefik-enable-legacy). */
export const TRAEFIK_INGRESSROUTES: KubeResource = { apiVersion: 'traefik.io/v1alpha1', kind: 'IngressRoute', plural: 'ingressroutes', namespaced: true };
export const TRAEFIK_INGRESSROUTETCPS: KubeResource = {
  apiVersion: 'traefik.io/v1alpha1',
  kind: 'IngressRouteTCP',
  plural: 'ingressroutetcps',
  namespaced: true,
};
export const TRAEFIK_INGRESSROUTEUDPS: KubeResource = {
  apiVersion: 'traefik.io/v1alpha1',
  kind: 'IngressRouteUDP',
  plural: 'ingressrouteudps',
  namespaced: true,
};
export const LEGACY_TRAEFIK_INGRESSROUTES: KubeResource = {
  apiVersion: 'traefik.containo.us/v1alpha1',
  kind: 'IngressRoute',
  plural: 'ingressroutes',
  namespaced: true,
};
export const LEGACY_TRAEFIK_INGRESSROUTETCPS: KubeResource = {
  apiVersion: 'traefik.containo.us/v1alpha1',
  kind: 'IngressRouteTCP',
  plural: 'ingressroutetcps',
  namespaced: true,
};
export const LEGACY_TRAEFIK_INGRESSROUTEUDPS: KubeResource = {
  apiVersion: 'traefik.containo.us/v1alpha1',
  kind: 'IngressRouteUDP',
  plural: 'ingressrouteudps',
  namespaced: true,
};
/** Emissary-ingress / Ambassador Hosts, at the version external-dns's ambassador-host source reads. */
export const AMBASSADOR_HOSTS: KubeResource = { apiVersion: 'getambassador.io/v3alpha1', kind: 'Host', plural: 'hosts', namespaced: true };
/** Kong TCPIngresses, at the version external-dns's kong-tcpingress source reads. */
export const KONG_TCPINGRESSES: KubeResource = { apiVersion: 'configuration.konghq.com/v1beta1', kind: 'TCPIngress', plural: 'tcpingresses', namespaced: true };
/** Skipper RouteGroups at external-dns's default --skipper-routegroup-groupversion. */
export const ROUTEGROUPS: KubeResource = { apiVersion: 'zalando.org/v1', kind: 'RouteGroup', plural: 'routegroups', namespaced: true };
export const NODES: KubeResource = { apiVersion: 'v1', kind: 'Node', plural: 'nodes', namespaced: false };
export const PODS: KubeResource = { apiVersion: 'v1', kind: 'Pod', plural: 'pods', namespaced: true };
export const NAMESPACES: KubeResource = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false };
export const ENDPOINTSLICES: KubeResource = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', plural: 'endpointslices', namespaced: true };
export const LEASES: KubeResource = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', plural: 'leases', namespaced: true };
export const SECRETS: KubeResource = { apiVersion: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true };
export const CONFIGMAPS: KubeResource = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
export const EVENTS: KubeResource = { apiVersion: 'events.k8s.io/v1', kind: 'Event', plural: 'events', namespaced: true };
/** Contour's HTTPProxy (the contour-httpproxy source). */
export const HTTPPROXIES: KubeResource = { apiVersion: 'projectcontour.io/v1', kind: 'HTTPProxy', plural: 'httpproxies', namespaced: true };
/** Gloo's Proxy, and the gateway.solo.io objects whose annotations it reads (the gloo-proxy source). */
export const GLOO_PROXIES: KubeResource = { apiVersion: 'gloo.solo.io/v1', kind: 'Proxy', plural: 'proxies', namespaced: true };
export const GLOO_VIRTUALSERVICES: KubeResource = { apiVersion: 'gateway.solo.io/v1', kind: 'VirtualService', plural: 'virtualservices', namespaced: true };
export const GLOO_GATEWAYS: KubeResource = { apiVersion: 'gateway.solo.io/v1', kind: 'Gateway', plural: 'gateways', namespaced: true };

/** API groups Kubernetes serves itself; a resource of any other group comes from a CustomResourceDefinition. */
const BUILTIN_GROUPS: ReadonlySet<string> = new Set([
  '',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'apps',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

/** The name of the CustomResourceDefinition that serves a resource (`plural.group`); undefined for built-in kinds. */
export function crdNameOf(resource: KubeResource): string | undefined {
  const slash = resource.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : resource.apiVersion.slice(0, slash);
  return BUILTIN_GROUPS.has(group) ? undefined : `${resource.plural}.${group}`;
}

/** The resource of a custom kind, with the plural Kubernetes derives by default (`DNSEndpoint` → `dnsendpoints`). */
export function customResource(apiVersion: string, kind: string): KubeResource {
  return { apiVersion, kind, plural: `${kind.toLowerCase()}s`, namespaced: true };
}

function groupPrefix(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

/** The collection, across namespaces when `namespace` is ''. */
export function collectionPath(res: KubeResource, namespace: string): string {
  const ns = res.namespaced && namespace !== '' ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${groupPrefix(res.apiVersion)}${ns}/${res.plural}`;
}

export function objectPath(res: KubeResource, namespace: string, name: string): string {
  return `${collectionPath(res, namespace)}/${encodeURIComponent(name)}`;
}

/** Cache key: `namespace/name`, or `name` for cluster-scoped objects. */
export function keyOf(obj: { metadata: { name: string; namespace?: string | undefined } }): string {
  const ns = obj.metadata.namespace ?? '';
  return ns === '' ? obj.metadata.name : `${ns}/${obj.metadata.name}`;
}
