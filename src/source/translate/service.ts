/**
 * Service → endpoints, following external-dns's service source for what can be decided from the
 * Service object alone: LoadBalancer (status or externalIPs), ExternalName, and ClusterIP with
 * `publishInternalServices` or `internal-hostname`. NodePort and headless services need Nodes and
 * Pods; they produce nothing here and are left to the Kubernetes source.
 */
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { parseAnnotations } from './annotations.ts';
import type { ParsedAnnotations } from './annotations.ts';
import { legacyServiceEndpoints } from './compatibility.ts';
import { endpointsForHostname, problemFor, uniqueHostnames } from './hostname.ts';
import type { EndpointCommon } from './hostname.ts';
import { asArray, path, refAt, stringArray, stringAt } from './object.ts';
import type { JsonRecord } from './object.ts';
import { combineWithFqdnTargetTemplate, combineWithTemplate } from './options.ts';
import type { KindContext, LookedUpAddresses } from './options.ts';

export const SERVICE_KIND = 'Service';

/** False when `serviceTypeFilter` excludes the service. */
export function serviceTypeAllowed(obj: JsonRecord, filter: readonly string[] | undefined): boolean {
  return filter === undefined || filter.length === 0 || filter.includes(serviceType(obj));
}

export function serviceType(obj: JsonRecord): string {
  return stringAt(obj, 'spec', 'type') ?? 'ClusterIP';
}

export function serviceCandidates(ctx: KindContext): Endpoint[] {
  const { obj, meta, options } = ctx;
  const ann = parseAnnotations(
    meta.annotations,
    options.defaultTTL ?? 0,
    (message) => ctx.problems.push(problemFor(refAt(ctx.ref, ctx.origin, ['metadata', 'annotations']), message)),
    options.annotationPrefix,
  );
  const common = commonOf(ann, `service/${meta.namespace}/${meta.name}`);
  const targets = ann.targets.length > 0 ? ann.targets : serviceTargets(ctx);
  const forHostnames = (hostnames: string[], ts: readonly string[]): Endpoint[] =>
    uniqueHostnames(hostnames).flatMap((h) => endpointsForHostname(h, ts, common));

  let own: Endpoint[] = [];
  if (options.ignoreHostnameAnnotation !== true) {
    own = [...forHostnames(ann.hostnames, targets), ...forHostnames(ann.internalHostnames, clusterIPs(obj))];
  }
  if (own.length === 0) own = legacyServiceEndpoints(options.compatibility, serviceType(obj), meta, statusTargets(obj), common);
  // As external-dns: the host:target pairs first, then --fqdn-template names with the Service's targets.
  own = combineWithFqdnTargetTemplate(ctx, own, common.resource);
  return combineWithTemplate(ctx, own, (hostnames) => forHostnames(hostnames, targets));
}

export function commonOf(ann: ParsedAnnotations, resource: string): EndpointCommon {
  return { ttl: ann.ttl, setIdentifier: ann.setIdentifier, providerSpecific: ann.providerSpecific, resource };
}

function serviceTargets(ctx: KindContext): string[] {
  const { obj } = ctx;
  switch (serviceType(obj)) {
    case 'LoadBalancer':
      return ctx.options.loadBalancerAddresses === undefined ? loadBalancerTargets(obj) : resolvedLoadBalancerTargets(ctx, ctx.options.loadBalancerAddresses);
    case 'ExternalName': {
      const external = stringArray(path(obj, 'spec', 'externalIPs'));
      if (external.length > 0) return external;
      const name = stringAt(obj, 'spec', 'externalName');
      return name === undefined || name === '' ? [] : [name.replace(/\.$/, '')];
    }
    case 'ClusterIP':
      return ctx.options.publishInternalServices === true ? clusterIPs(obj) : [];
    default:
      return [];
  }
}

/** `spec.externalIPs` when set (they win, as in external-dns), else every load-balancer IP and hostname. */
export function loadBalancerTargets(obj: JsonRecord): string[] {
  const external = stringArray(path(obj, 'spec', 'externalIPs'));
  if (external.length > 0) return external;
  return statusTargets(obj);
}

/**
 * As `loadBalancerTargets`, with each status hostname replaced by its looked-up addresses
 * (--resolve-service-load-balancer-hostname); a name without addresses adds none, as in external-dns.
 */
function resolvedLoadBalancerTargets(ctx: KindContext, lookup: (hostname: string) => LookedUpAddresses): string[] {
  const external = stringArray(path(ctx.obj, 'spec', 'externalIPs'));
  if (external.length > 0) return external;
  return statusTargets(ctx.obj, (hostname) => {
    const found = lookup(hostname);
    if (found.problem !== undefined) ctx.problems.push(problemFor(refAt(ctx.ref, ctx.origin, ['status', 'loadBalancer', 'ingress']), found.problem));
    return found.addresses;
  });
}

/** IPs and hostnames in `status.loadBalancer.ingress`, shared with Ingress; `hostnameTargets` maps a hostname (no trailing dot) to its targets. */
export function statusTargets(obj: JsonRecord, hostnameTargets: (hostname: string) => readonly string[] = (h) => [h]): string[] {
  const targets: string[] = [];
  for (const entry of asArray(path(obj, 'status', 'loadBalancer', 'ingress'))) {
    const ip = stringAt(entry, 'ip');
    const hostname = stringAt(entry, 'hostname');
    if (ip !== undefined && ip !== '') targets.push(ip);
    if (hostname !== undefined && hostname !== '') targets.push(...hostnameTargets(hostname.replace(/\.$/, '')));
  }
  return targets;
}

/** Cluster IPs (dual-stack aware); none for headless services. */
export function clusterIPs(obj: JsonRecord): string[] {
  const ips = stringArray(path(obj, 'spec', 'clusterIPs'));
  const all = ips.length > 0 ? ips : [stringAt(obj, 'spec', 'clusterIP') ?? ''];
  return all.filter((ip) => ip !== '' && ip !== 'None');
}
