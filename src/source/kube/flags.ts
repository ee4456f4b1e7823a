/**
 * Flags of the Kubernetes sources, events and leader election (external-dns names where
 * external-dns has them). Listed once in EXTRA_FLAGS in src/cli/wiring.ts.
 */
import type { FlagSpec } from '../../config/flags.ts';

export const EVENT_TYPES = ['RecordReady', 'RecordDeleted', 'RecordError'] as const;

export const KUBE_FLAGS: readonly FlagSpec[] = [
  { name: 'kubeconfig', kind: 'string', default: '', help: 'Kubeconfig file (else $KUBECONFIG, ~/.kube/config, or the in-cluster service account).' },
  { name: 'kube-context', kind: 'string', default: '', help: 'Context of the kubeconfig to use (empty: its current context).' },
  { name: 'request-timeout', kind: 'duration', default: '30s', help: 'Timeout of Kubernetes API requests other than watches (0s: none).' },
  { name: 'namespace', kind: 'string', default: '', help: 'Watch objects in this namespace only (empty: all namespaces).' },
  { name: 'publish-host-ip', kind: 'bool', default: false, help: 'Headless Services publish the host IP of their Pods instead of the Pod IP.' },
  { name: 'always-publish-not-ready-addresses', kind: 'bool', default: false, help: 'Headless Services publish not-ready endpoints too, as if every Service set publishNotReadyAddresses.' },
  { name: 'ingress-class', kind: 'list', default: [], help: 'Only Ingresses of these classes (spec.ingressClassName or the kubernetes.io/ingress.class annotation).' },
  { name: 'gateway-namespace', kind: 'string', default: '', help: 'Namespace of the Gateways routes may attach to (empty: all namespaces, whatever --namespace says).' },
  { name: 'gateway-label-filter', kind: 'string', default: '', help: 'Only Gateways whose labels match this selector.' },
  { name: 'gateway-name', kind: 'string', default: '', help: 'Only routes attached to Gateways of this name.' },
  { name: 'openshift-router-name', kind: 'string', default: '', help: 'openshift-route source: target the canonical hostname of this router only (status.ingress[].routerName; empty: the first router that admitted the route).' },
  { name: 'crd-source-apiversion', kind: 'string', default: 'externaldns.k8s.io/v1alpha1', help: 'API version of the DNSEndpoint custom resource read by the crd source.' },
  { name: 'crd-source-kind', kind: 'string', default: 'DNSEndpoint', help: 'Kind of the custom resource read by the crd source.' },
  { name: 'kube-watch-inactivity-timeout', kind: 'duration', default: '3m', help: 'List again when a watch sent nothing, not even a bookmark, for this long.' },
  { name: 'emit-events', kind: 'list', default: [...EVENT_TYPES], help: 'Kubernetes Events written on source objects: RecordReady, RecordDeleted, RecordError (empty: none).' },
  { name: 'leader-elect', kind: 'bool', default: false, help: 'Only the holder of a coordination.k8s.io Lease applies changes (on by default when running in a cluster).' },
  { name: 'leader-election-namespace', kind: 'string', default: '', help: 'Namespace of the leader Lease (default: the service account namespace, else "default").' },
  { name: 'leader-election-id', kind: 'string', default: 'hostwarden-leader', help: 'Name of the leader Lease.' },
  { name: 'leader-election-lease-duration', kind: 'duration', default: '15s', help: 'How long a Lease stays valid without renewal.' },
  { name: 'leader-election-renew-deadline', kind: 'duration', default: '10s', help: 'A leader that could not renew for this long stops applying changes.' },
  { name: 'leader-election-retry-period', kind: 'duration', default: '2s', help: 'Time between attempts to acquire or renew the Lease.' },
];
