/**
 * `--compatibility`: the annotations of the tools external-dns grew out of, read for a Service
 * that produced no endpoints of its own, as external-dns's legacy service source does:
 * - `mate`: `zalando.org/dnsname`;
 * - `molecule`: `domainName` (comma list), only on Services labelled `dns=route53`;
 * - `kops-dns-controller`: `dns.alpha.kubernetes.io/external` and `/internal` (comma lists). On a
 *   LoadBalancer Service both are published at the load balancer; on a NodePort Service (the
 *   Kubernetes source, which knows the Nodes: see kube/nodeport.ts) at the addresses of nodes
 *   labelled `node-role.kubernetes.io/node`, ExternalIP for `external` and InternalIP for
 *   `internal`, and nothing when both are set, as the kOps dns-controller does.
 * Targets are the load balancer's status (IPs → A, hostnames → CNAME), not `spec.externalIPs`.
 */
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { MATE_HOSTNAME_KEY, splitHostnames } from './annotations.ts';
import { endpointsForHostname, uniqueHostnames } from './hostname.ts';
import type { EndpointCommon } from './hostname.ts';
import type { JsonRecord, ObjectMeta } from './object.ts';

export const MOLECULE_HOSTNAME_KEY = 'domainName';
export const KOPS_EXTERNAL_KEY = 'dns.alpha.kubernetes.io/external';
export const KOPS_INTERNAL_KEY = 'dns.alpha.kubernetes.io/internal';
export const KOPS_NODE_ROLE_LABEL = 'node-role.kubernetes.io/node';

/** Hostnames the compatibility mode reads from a Service with this type, labels and annotations. */
export function legacyHostnames(mode: string | undefined, serviceType: string, meta: ObjectMeta): string[] {
  const a = meta.annotations;
  switch (mode) {
    case 'mate':
      return splitHostnames(a[MATE_HOSTNAME_KEY]);
    case 'molecule':
      return meta.labels['dns'] === 'route53' ? splitHostnames(a[MOLECULE_HOSTNAME_KEY]) : [];
    case 'kops-dns-controller':
      return serviceType === 'LoadBalancer' ? [...splitHostnames(a[KOPS_EXTERNAL_KEY]), ...splitHostnames(a[KOPS_INTERNAL_KEY])] : [];
    default:
      return [];
  }
}

/** Endpoints at the load balancer for the names the compatibility mode reads. */
export function legacyServiceEndpoints(
  mode: string | undefined,
  serviceType: string,
  meta: ObjectMeta,
  lbTargets: readonly string[],
  common: EndpointCommon,
): Endpoint[] {
  if (lbTargets.length === 0) return [];
  return uniqueHostnames(legacyHostnames(mode, serviceType, meta)).flatMap((h) => endpointsForHostname(h, lbTargets, common));
}

/** kOps NodePort semantics: names and which node address type they publish; undefined when none apply. */
export function kopsNodePortNames(meta: ObjectMeta): { names: string[]; addressType: 'ExternalIP' | 'InternalIP' } | undefined {
  const external = meta.annotations[KOPS_EXTERNAL_KEY];
  const internal = meta.annotations[KOPS_INTERNAL_KEY];
  // Both set: the kOps dns-controller publishes nothing, and external-dns mimics it.
  if ((external === undefined) === (internal === undefined)) return undefined;
  return external !== undefined
    ? { names: splitHostnames(external), addressType: 'ExternalIP' }
    : { names: splitHostnames(internal), addressType: 'InternalIP' };
}

/** Whether a Node carries the kOps worker role label (control-plane and other roles are left out). */
export function isKopsWorker(node: JsonRecord): boolean {
  const labels = (node['metadata'] as { labels?: Record<string, string> } | undefined)?.labels;
  return labels !== undefined && Object.hasOwn(labels, KOPS_NODE_ROLE_LABEL);
}
