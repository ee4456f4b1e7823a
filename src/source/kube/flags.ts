/**
 * Flags of the Kubernetes sources (external-dns names where external-dns has them): which objects
 * they read and how they translate them. The client's own flags are in src/kube/flags.ts. Listed
 * once in EXTRA_FLAGS in src/cli/wiring.ts.
 */
import type { FlagSpec } from '../../config/flags.ts';

export const KUBE_SOURCE_FLAGS: readonly FlagSpec[] = [
  { name: 'namespace', kind: 'string', default: '', help: 'Watch objects in this namespace only (empty: all namespaces).' },
  { name: 'publish-host-ip', kind: 'bool', default: false, help: 'Headless Services publish the host IP of their Pods instead of the Pod IP.' },
  {
    name: 'always-publish-not-ready-addresses',
    kind: 'bool',
    default: false,
    help: 'Headless Services publish not-ready endpoints too, as if every Service set publishNotReadyAddresses.',
  },
  {
    name: 'expose-internal-ipv6',
    kind: 'bool',
    default: false,
    help: "The node source, NodePort Services and headless Services with endpoints-type NodeExternalIP also publish the nodes' InternalIP IPv6 addresses beside their ExternalIPs.",
  },
  {
    name: 'exclude-unschedulable',
    kind: 'bool',
    default: true,
    help: 'The node source and NodePort Services skip nodes marked unschedulable (--no-exclude-unschedulable keeps them).',
  },
  {
    name: 'resolve-service-load-balancer-hostname',
    kind: 'bool',
    default: false,
    help: "LoadBalancer Services publish the A/AAAA addresses of their load balancers' hostnames instead of CNAMEs to them (looked up through the system's resolver before each sync, answers kept for their TTL up to 60s; a name without addresses adds no targets).",
  },
  {
    name: 'ingress-class',
    kind: 'list',
    default: [],
    help: 'Only Ingresses of these classes (spec.ingressClassName or the kubernetes.io/ingress.class annotation).',
  },
  {
    name: 'gateway-namespace',
    kind: 'string',
    default: '',
    help: 'Namespace of the Gateways routes may attach to (empty: all namespaces, whatever --namespace says).',
  },
  { name: 'gateway-label-filter', kind: 'string', default: '', help: 'Only Gateways whose labels match this selector.' },
  { name: 'gateway-name', kind: 'string', default: '', help: 'Only routes attached to Gateways of this name.' },
  {
    name: 'gateway-listener-sets',
    kind: 'bool',
    default: false,
    help: 'gateway-*route sources: routes may also attach to ListenerSets (Gateway API v1.5 CRDs; needs list/watch on listenersets).',
  },
  {
    name: 'openshift-router-name',
    kind: 'string',
    default: '',
    help: 'openshift-route source: target the canonical hostname of this router only (status.ingress[].routerName; empty: the first router that admitted the route).',
  },
  {
    name: 'traefik-enable-legacy',
    kind: 'bool',
    default: false,
    help: 'traefik-proxy source: also read IngressRoutes, IngressRouteTCPs and IngressRouteUDPs of the legacy traefik.containo.us group (Traefik before v2.10).',
  },
  {
    name: 'traefik-disable-new',
    kind: 'bool',
    default: false,
    help: 'traefik-proxy source: do not read the traefik.io group (with --traefik-enable-legacy, only the legacy group is read).',
  },
  {
    name: 'crd-source-apiversion',
    kind: 'string',
    default: 'externaldns.k8s.io/v1alpha1',
    help: 'API version of the DNSEndpoint custom resource read by the crd source.',
  },
  { name: 'crd-source-kind', kind: 'string', default: 'DNSEndpoint', help: 'Kind of the custom resource read by the crd source.' },
  {
    name: 'skipper-routegroup-groupversion',
    kind: 'string',
    default: 'zalando.org/v1',
    help: 'skipper-routegroup source: the group/version of the RouteGroups read (external-dns: "The resource version for skipper routegroup").',
  },
  {
    name: 'ignore-non-host-network-pods',
    kind: 'bool',
    default: false,
    help: 'pod source: skip Pods not running with host networking (by default every Pod is read, as in external-dns).',
  },
  { name: 'pod-source-domain', kind: 'string', default: '', help: 'pod source: also publish each Pod as <pod name>.<domain> at its Pod IP.' },
  {
    name: 'listen-endpoint-events',
    kind: 'bool',
    default: false,
    help: 'Accepted for external-dns: the service source always watches EndpointSlices, and their changes trigger a sync.',
  },
  {
    name: 'gloo-namespace',
    kind: 'list',
    default: ['gloo-system'],
    help: 'gloo-proxy source: namespaces of the Gloo Proxies to read (repeatable).',
  },
  {
    name: 'unstructured-resource',
    kind: 'list',
    default: [],
    help: 'unstructured source: a resource to read, as resource.version.group (e.g. virtualmachineinstances.v1.kubevirt.io, configmaps.v1); repeatable. Needs get/list/watch on it (chart: unstructured.resources).',
  },
];
