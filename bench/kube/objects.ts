/**
 * The object sets of the Kubernetes benchmark, one table shared by the API server child (which
 * creates the objects) and the benchmark (which changes them and knows which record each change
 * moves). Each kind names the `--source` flags that read it; the mixed run enables every kind whose
 * sources the binary accepts, so a source that lands later (Istio) is enabled by its row alone.
 *
 * Objects carry what clusters carry besides the fields the sources read (last-applied annotations,
 * container specs, node images and conditions), so the sources' slim caches are measured against
 * realistic objects rather than skeletons.
 */
import type { KubeResource } from '../../src/kube/resource.ts';
import { GATEWAYS, HTTPROUTES, INGRESSES, NODES, PODS, SERVICES } from '../../src/kube/resource.ts';

export const NAMESPACES = Array.from({ length: 20 }, (_, i) => `ns-${i}`);
const ISTIO_NAMESPACE = 'istio-system';
export const ALL_NAMESPACES = [...NAMESPACES, ISTIO_NAMESPACE];

const ANN = 'external-dns.alpha.kubernetes.io';
type Obj = Record<string, unknown> & { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };

/** One change: a merge PATCH of one object, and the record (`name TYPE`) whose update it causes. */
export interface Change {
  resource: KubeResource;
  namespace: string;
  name: string;
  patch: Record<string, unknown>;
  record: string;
}

export interface KindSpec {
  /** The key in object-set specs and in printed figures. */
  key: string;
  /** What the count counts, for the printed object line. */
  label: string;
  /** The `--source` flags that read this kind (all must be accepted by the binary). */
  sources: readonly string[];
  /** CustomResourceDefinitions created before any object. */
  crds?: readonly Obj[];
  /** Supporting objects besides the counted ones (Gateways of the routes, the Istio ingress Service). */
  setup?: (count: number) => Obj[];
  object: (i: number, counts: Readonly<Record<string, number>>) => Obj;
  /** The `seq`-th change to object `n` (each `seq` gives a value the object did not have). */
  change: (n: number, seq: number) => Change;
}

const ns = (i: number): string => NAMESPACES[i % NAMESPACES.length] as string;
const ip = (prefix: string, i: number): string => `${prefix}.${(i >> 8) & 255}.${i & 255}`;
const lastApplied = (kind: string, name: string): string =>
  JSON.stringify({ apiVersion: 'v1', kind, metadata: { name, labels: { app: name, team: 'bench' } }, spec: { replicas: 1 } });

/** A CRD that keeps whatever it is given (the sources, not the schema, are under test here). */
function crd(group: string, plural: string, kind: string, versions: readonly string[]): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: versions.map((name, i) => ({
        name,
        served: true,
        storage: i === 0,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      })),
    },
  };
}

/** A merge patch of one annotation. */
const annotate = (key: string, value: string): Record<string, unknown> => ({ metadata: { annotations: { [`${ANN}/${key}`]: value } } });
/** A TTL no object starts with (the TTL annotation is the change for kinds whose targets come from elsewhere). */
const ttl = (seq: number): string => String(300 + seq);

const ISTIO_GATEWAYS: KubeResource = { apiVersion: 'networking.istio.io/v1', kind: 'Gateway', plural: 'gateways', namespaced: true };
const ISTIO_VIRTUALSERVICES: KubeResource = { apiVersion: 'networking.istio.io/v1', kind: 'VirtualService', plural: 'virtualservices', namespaced: true };
const ISTIO_VERSIONS = ['v1', 'v1beta1', 'v1alpha3'];
const ISTIO_CRDS = [
  crd('networking.istio.io', 'gateways', 'Gateway', ISTIO_VERSIONS),
  crd('networking.istio.io', 'virtualservices', 'VirtualService', ISTIO_VERSIONS),
];

export const KINDS: readonly KindSpec[] = [
  {
    key: 'service',
    label: 'Services',
    sources: ['service'],
    object: (i) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: `svc-${i}`,
        namespace: ns(i),
        annotations: { [`${ANN}/hostname`]: `svc-${i}.example.org`, 'kubectl.kubernetes.io/last-applied-configuration': lastApplied('Service', `svc-${i}`) },
      },
      spec: {
        type: 'LoadBalancer',
        ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080, nodePort: 30000 + (i % 2000) }],
        selector: { app: `svc-${i}` },
        clusterIP: ip('10.96', i),
      },
      status: { loadBalancer: { ingress: [{ ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` }] } },
    }),
    change: (n, seq) => ({
      resource: SERVICES,
      namespace: ns(n),
      name: `svc-${n}`,
      patch: annotate('target', ip('172.16', seq)),
      record: `svc-${n}.example.org A`,
    }),
  },
  {
    key: 'ingress',
    label: 'Ingresses',
    sources: ['ingress'],
    object: (i) => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: `ing-${i}`, namespace: ns(i) },
      spec: {
        ingressClassName: 'nginx',
        rules: [
          {
            host: `ing-${i}.example.org`,
            http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: `svc-${i}`, port: { number: 80 } } } }] },
          },
        ],
        tls: [{ hosts: [`ing-${i}.example.org`], secretName: `tls-${i}` }],
      },
      status: { loadBalancer: { ingress: [{ hostname: 'lb.example.net' }] } },
    }),
    // A hostname target: the record stays a CNAME, so the change is an update.
    change: (n, seq) => ({
      resource: INGRESSES,
      namespace: ns(n),
      name: `ing-${n}`,
      patch: annotate('target', `lb-${seq}.example.net`),
      record: `ing-${n}.example.org CNAME`,
    }),
  },
  {
    key: 'node',
    label: 'Nodes',
    sources: ['node'],
    object: (i) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: nodeName(i),
        labels: {
          'kubernetes.io/hostname': nodeName(i),
          'kubernetes.io/os': 'linux',
          'node.kubernetes.io/instance-type': 'm5.large',
          'topology.kubernetes.io/zone': `zone-${i % 3}`,
        },
        annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
      },
      spec: { podCIDR: `10.244.${i & 255}.0/24`, providerID: `aws:///zone-${i % 3}/i-${(1e12 + i).toString(16)}` },
      status: {
        addresses: [
          { type: 'InternalIP', address: ip('10.240', i) },
          { type: 'ExternalIP', address: ip('100.64', i) },
          { type: 'Hostname', address: nodeName(i) },
        ],
        capacity: { cpu: '2', memory: '8008284Ki', pods: '29' },
        allocatable: { cpu: '1930m', memory: '7318108Ki', pods: '29' },
        conditions: ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((type) => ({
          type,
          status: type === 'Ready' ? 'True' : 'False',
          lastHeartbeatTime: '2026-11-26T10:00:00Z',
          lastTransitionTime: '2026-11-20T10:00:00Z',
          reason: `Kubelet${type}`,
          message: `kubelet reports ${type}`,
        })),
        nodeInfo: { kubeletVersion: 'v1.31.2', containerRuntimeVersion: 'containerd://1.7.22', osImage: 'Amazon Linux 2023', architecture: 'amd64' },
        images: Array.from({ length: 8 }, (_, k) => ({
          names: [`registry.example.org/team/app-${k}@sha256:${'0'.repeat(63)}${k}`],
          sizeBytes: 50_000_000 + k,
        })),
      },
    }),
    change: (n, seq) => ({
      resource: NODES,
      namespace: '',
      name: nodeName(n),
      patch: annotate('target', ip('198.18', seq)),
      record: `${nodeName(n)} A`,
    }),
  },
  {
    key: 'pod',
    label: 'Pods',
    sources: ['pod'],
    // Every Pod publishes its internal-hostname at its Pod IP; every tenth runs on the host network
    // and also publishes a hostname at its Node's ExternalIP (the pod source then watches that Node).
    object: (i, counts) => {
      const hostNet = i % 10 === 0;
      const node = nodeName(i % Math.max(1, counts['node'] ?? 1));
      const podIP = hostNet ? ip('10.240', i % Math.max(1, counts['node'] ?? 1)) : ip('10.244', i);
      return {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: `pod-${i}`,
          namespace: ns(i),
          labels: { app: `app-${i % 500}`, 'pod-template-hash': '5d8f7c9b6d' },
          annotations: {
            [`${ANN}/internal-hostname`]: `pod-${i}.pods.example.org`,
            ...(hostNet ? { [`${ANN}/hostname`]: `hpod-${i}.pods.example.org` } : {}),
          },
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `app-${i % 500}-5d8f7c9b6d`, uid: `uid-${i % 500}`, controller: true }],
        },
        spec: {
          nodeName: node,
          hostNetwork: hostNet,
          containers: [
            {
              name: 'app',
              image: `registry.example.org/team/app-${i % 500}:1.2.3`,
              ports: [{ containerPort: 8080, protocol: 'TCP' }],
              env: [
                { name: 'LOG_LEVEL', value: 'info' },
                { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              ],
              resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '128Mi' } },
            },
          ],
        },
        status: {
          phase: 'Running',
          podIP,
          podIPs: [{ ip: podIP }],
          hostIP: ip('10.240', i % Math.max(1, counts['node'] ?? 1)),
          conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
            type,
            status: 'True',
            lastTransitionTime: '2026-11-20T10:00:00Z',
          })),
          containerStatuses: [{ name: 'app', ready: true, restartCount: 0, image: `registry.example.org/team/app-${i % 500}:1.2.3`, started: true }],
        },
      };
    },
    change: (n, seq) => ({
      resource: PODS,
      namespace: ns(n),
      name: `pod-${n}`,
      patch: annotate('target', ip('198.19', seq)),
      record: `pod-${n}.pods.example.org A`,
    }),
  },
  {
    key: 'httproute',
    label: 'HTTPRoutes',
    sources: ['gateway-httproute'],
    crds: [crd('gateway.networking.k8s.io', 'gateways', 'Gateway', ['v1']), crd('gateway.networking.k8s.io', 'httproutes', 'HTTPRoute', ['v1'])],
    // One Gateway per namespace; its routes publish at its status address.
    setup: () =>
      NAMESPACES.map((namespace, k) => ({
        apiVersion: GATEWAYS.apiVersion,
        kind: 'Gateway',
        metadata: { name: 'gw', namespace },
        spec: {
          gatewayClassName: 'bench',
          listeners: [{ name: 'http', hostname: '*.routes.example.org', port: 80, protocol: 'HTTP' }],
        },
        status: { addresses: [{ type: 'IPAddress', value: `192.0.2.${k + 1}` }] },
      })),
    object: (i) => {
      const parentRef = { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'gw', namespace: ns(i) };
      return {
        apiVersion: HTTPROUTES.apiVersion,
        kind: 'HTTPRoute',
        metadata: { name: `route-${i}`, namespace: ns(i) },
        spec: {
          parentRefs: [parentRef],
          hostnames: [`route-${i}.routes.example.org`],
          rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [{ name: `svc-${i}`, port: 80 }] }],
        },
        status: {
          parents: [
            {
              parentRef,
              controllerName: 'example.org/bench',
              conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: '', lastTransitionTime: '2026-11-20T10:00:00Z' }],
            },
          ],
        },
      };
    },
    // A route's targets are its Gateway's; its own change is the TTL.
    change: (n, seq) => ({
      resource: HTTPROUTES,
      namespace: ns(n),
      name: `route-${n}`,
      patch: annotate('ttl', ttl(seq)),
      record: `route-${n}.routes.example.org A`,
    }),
  },
  {
    key: 'istio-gateway',
    label: 'Istio Gateways',
    sources: ['istio-gateway'],
    crds: ISTIO_CRDS,
    // The ingress gateway Service the Gateways select (their targets, as upstream reads them).
    setup: () => [
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'istio-ingressgateway', namespace: ISTIO_NAMESPACE, labels: { istio: 'ingressgateway' } },
        spec: { type: 'LoadBalancer', selector: { istio: 'ingressgateway' }, ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 8443 }] },
        status: { loadBalancer: { ingress: [{ ip: '192.0.2.200' }] } },
      },
    ],
    // A named host (published by the istio-gateway source) and `*` (not published; lets any
    // VirtualService bind, as upstream's virtualServiceBindsToGateway reads it).
    object: (i) => ({
      apiVersion: ISTIO_GATEWAYS.apiVersion,
      kind: 'Gateway',
      metadata: { name: `igw-${i}`, namespace: ns(i) },
      spec: {
        selector: { istio: 'ingressgateway' },
        servers: [
          {
            port: { number: 443, name: 'https', protocol: 'HTTPS' },
            hosts: [`igw-${i}.istio.example.org`],
            tls: { mode: 'SIMPLE', credentialName: `igw-${i}-cert` },
          },
          { port: { number: 80, name: 'http', protocol: 'HTTP' }, hosts: ['*'] },
        ],
      },
    }),
    change: (n, seq) => ({
      resource: ISTIO_GATEWAYS,
      namespace: ns(n),
      name: `igw-${n}`,
      patch: annotate('ttl', ttl(seq)),
      record: `igw-${n}.istio.example.org A`,
    }),
  },
  {
    key: 'istio-virtualservice',
    label: 'Istio VirtualServices',
    // Upstream's virtualservice source reads Gateways through the same API group; it needs no other source.
    sources: ['istio-virtualservice'],
    crds: ISTIO_CRDS,
    // Each VirtualService binds to the Istio Gateway of the same index (created by the istio-gateway
    // row; the Gateways and the ingress Service are created whenever Istio objects are).
    object: (i) => ({
      apiVersion: ISTIO_VIRTUALSERVICES.apiVersion,
      kind: 'VirtualService',
      metadata: { name: `vs-${i}`, namespace: ns(i) },
      spec: {
        hosts: [`vs-${i}.istio.example.org`],
        gateways: [`${ns(i)}/igw-${i}`],
        http: [{ match: [{ uri: { prefix: '/' } }], route: [{ destination: { host: `svc-${i}.${ns(i)}.svc.cluster.local`, port: { number: 80 } } }] }],
      },
    }),
    change: (n, seq) => ({
      resource: ISTIO_VIRTUALSERVICES,
      namespace: ns(n),
      name: `vs-${n}`,
      patch: annotate('ttl', ttl(seq)),
      record: `vs-${n}.istio.example.org A`,
    }),
  },
];

function nodeName(i: number): string {
  return `node-${i}.nodes.example.org`;
}

/** The service+ingress run, at `n` of each. */
export function serviceIngressSet(n: number): Record<string, number> {
  return { service: n, ingress: n };
}

/**
 * Issue #20's mixed run, scaled (1 = the issue's sizes). The Istio VirtualServices bind to
 * Gateways of the same index, so there are as many Gateways as VirtualServices.
 */
export function mixedSet(scale: number): Record<string, number> {
  const s = (n: number): number => Math.max(1, Math.round(n * scale));
  return { service: s(5000), ingress: s(5000), node: s(2000), pod: s(5000), httproute: s(2000), 'istio-gateway': s(1000), 'istio-virtualservice': s(1000) };
}

export function kindOf(key: string): KindSpec {
  const k = KINDS.find((x) => x.key === key);
  if (k === undefined) throw new Error(`unknown object kind ${key}`);
  return k;
}

/** Every object of a set, in creation order: CRDs, supporting objects, then the counted objects. */
export function* objectsOf(counts: Readonly<Record<string, number>>): Generator<Obj> {
  const kinds = Object.keys(counts).map(kindOf);
  const crds = new Map<string, Obj>();
  for (const k of kinds) for (const c of k.crds ?? []) crds.set(c.metadata.name, c);
  yield* crds.values();
  for (const k of kinds) yield* k.setup?.(counts[k.key] ?? 0) ?? [];
  for (const k of kinds) {
    const n = counts[k.key] ?? 0;
    for (let i = 0; i < n; i++) yield k.object(i, counts);
  }
}
