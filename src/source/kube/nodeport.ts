/**
 * NodePort Services, which the pure translator cannot handle because their targets are the nodes'
 * addresses: ExternalIP addresses by default (InternalIP when no node has one), or as the `access`
 * annotation says (`public` → ExternalIP, `private` → InternalIP), as external-dns does. Beside
 * them, each port with a nodePort gets an SRV record `_<service name>._<protocol>.<hostname>` →
 * `0 50 <nodePort> <hostname>` (external-dns names it after the Service, not the port, so ports of
 * one protocol share one SRV record with a target each).
 */
import { isIPv6 } from 'node:net';
import { LABEL_RESOURCE, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { KubeObject } from '../../kube/resource.ts';
import type { SourceProblem } from '../source.ts';
import { parseAnnotations } from '../translate/annotations.ts';
import { endpointsForHostname, finalizeEndpoints, problemFor, uniqueHostnames } from '../translate/hostname.ts';
import type { EndpointCommon } from '../translate/hostname.ts';
import { isKopsWorker, kopsNodePortNames } from '../translate/compatibility.ts';
import { asArray, asRecord, asString, readMeta, refOf } from '../translate/object.ts';
import type { ObjectMeta } from '../translate/object.ts';
import { fqdnTargetEndpoints, runTemplate, templateOf } from '../translate/options.ts';
import type { TranslateOptions } from '../translate/options.ts';
import { commonOf } from '../translate/service.ts';

export function isNodePort(obj: KubeObject): boolean {
  return asString(asRecord(obj['spec'])?.['type']) === 'NodePort';
}

function addresses(nodes: Iterable<KubeObject>, type: string): string[] {
  const out = new Set<string>();
  for (const node of nodes) {
    for (const a of asArray(asRecord(node['status'])?.['addresses'])) {
      const rec = asRecord(a);
      if (asString(rec?.['type']) === type) {
        const v = asString(rec?.['address']);
        if (v !== undefined && v !== '') out.add(v);
      }
    }
  }
  return [...out].sort();
}

/**
 * As external-dns: ExternalIP addresses (plus InternalIP IPv6 ones with `exposeInternalIPv6`, as
 * those are usually globally routable), InternalIP when no node has an external one; `access`
 * forces one side. Unschedulable nodes are skipped unless `excludeUnschedulable` is false.
 */
export function nodePortTargets(
  nodes: Iterable<KubeObject>,
  access: string | undefined,
  opts: { exposeInternalIPv6?: boolean; excludeUnschedulable?: boolean } = {},
): string[] {
  const list = [...nodes].filter((n) => opts.excludeUnschedulable === false || asRecord(n['spec'])?.['unschedulable'] !== true);
  if (access === 'private') return addresses(list, 'InternalIP');
  const external = addresses(list, 'ExternalIP');
  const internal = addresses(list, 'InternalIP');
  const exposed = opts.exposeInternalIPv6 === true ? internal.filter((ip) => isIPv6(ip)) : [];
  if (access === 'public' || external.length > 0) return [...external, ...exposed];
  return internal;
}

/**
 * Endpoints of a NodePort Service, or undefined when its `target` annotation decides the targets
 * (the generic Service translation handles that case, without SRV records, as external-dns).
 */
export function translateNodePort(
  obj: KubeObject,
  options: TranslateOptions,
  nodes: Iterable<KubeObject>,
  slices: Iterable<KubeObject> = [],
): { endpoints: Endpoint[]; problems: SourceProblem[]; heldResource?: string } | undefined {
  const problems: SourceProblem[] = [];
  const meta = readMeta(obj);
  if (meta === undefined) return { endpoints: [], problems };
  const ref = refOf(meta);
  // Annotation problems were already reported by the generic translation of the same object.
  const ann = parseAnnotations(meta.annotations, options.defaultTTL ?? 0, () => undefined, options.annotationPrefix);
  if (ann.targets.length > 0) return undefined;
  const local = asString(asRecord(obj['spec'])?.['externalTrafficPolicy']) === 'Local';
  // Read twice (targets, kOps compatibility): a reflector hands out a one-pass iterator.
  const nodeList = [...nodes];
  const targets = nodePortTargets(local ? nodesWithEndpoints(nodeList, slices) : nodeList, ann.access, options);
  const common = commonOf(ann, `service/${meta.namespace}/${meta.name}`);
  const forHostnames = (hostnames: readonly string[]): Endpoint[] =>
    uniqueHostnames(hostnames).flatMap((h) => {
      const name = h.replace(/\.$/, '');
      return [...(targets.length === 0 ? [] : endpointsForHostname(name, targets, common)), ...srvEndpoints(obj, meta.name, name, common)];
    });
  // external-dns treats internal-hostname on a NodePort Service like hostname: node addresses.
  let candidates = options.ignoreHostnameAnnotation === true ? [] : forHostnames([...ann.hostnames, ...ann.internalHostnames]);
  if (candidates.length === 0 && options.compatibility === 'kops-dns-controller') candidates = kopsNodePortEndpoints(meta, nodeList, common, options);
  const template = templateOf(options, meta.kind);
  if (template !== undefined) {
    // As external-dns: the host:target pairs first, then --fqdn-template names with the node targets.
    const combine = options.combineFqdnAnnotation === true;
    const templated = runTemplate(
      () => {
        let out = candidates;
        if (out.length === 0 || combine) out = [...out, ...fqdnTargetEndpoints(template, obj, meta, common.resource)];
        if (out.length === 0 || combine) out = [...out, ...forHostnames(template.execute(obj, meta))];
        return out;
      },
      (m) => problems.push(problemFor(ref, m)),
    );
    if (templated === undefined) return { endpoints: [], problems, heldResource: common.resource };
    candidates = templated;
  }
  return { endpoints: finalizeEndpoints(ref, candidates, problems), problems };
}

/** `--compatibility kops-dns-controller` on a NodePort Service: the addresses of the kOps worker nodes. */
function kopsNodePortEndpoints(meta: ObjectMeta, nodes: Iterable<KubeObject>, common: EndpointCommon, options: TranslateOptions): Endpoint[] {
  const kops = kopsNodePortNames(meta);
  if (kops === undefined) return [];
  const workers = [...nodes].filter(isKopsWorker);
  const targets = addresses(workers, kops.addressType);
  // As external-dns: internal IPv6 addresses are reachable from outside too, so external names
  // take them with --expose-internal-ipv6.
  if (kops.addressType === 'ExternalIP' && options.exposeInternalIPv6 === true) {
    targets.push(...addresses(workers, 'InternalIP').filter((ip) => isIPv6(ip) && !targets.includes(ip)));
  }
  if (targets.length === 0) return [];
  return uniqueHostnames(kops.names).flatMap((h) => endpointsForHostname(h.replace(/\.$/, ''), targets, common));
}

/**
 * With `externalTrafficPolicy: Local` only nodes running the Service's Pods answer. As external-dns,
 * prefer nodes with ready endpoints, then serving (terminating but still serving) ones, then any;
 * the nodes come from the EndpointSlices' `nodeName` rather than from a Pod cache.
 */
export function nodesWithEndpoints(nodes: Iterable<KubeObject>, slices: Iterable<KubeObject>): KubeObject[] {
  const tiers: Set<string>[] = [new Set(), new Set(), new Set()];
  for (const slice of slices) {
    for (const raw of asArray(slice['endpoints'])) {
      const ep = asRecord(raw);
      const name = asString(ep?.['nodeName']);
      if (name === undefined || name === '') continue;
      const conditions = asRecord(ep?.['conditions']);
      if (conditions?.['ready'] !== false) tiers[0]?.add(name);
      if (conditions?.['serving'] ?? conditions?.['ready'] !== false) tiers[1]?.add(name);
      tiers[2]?.add(name);
    }
  }
  const chosen = tiers.find((t) => t.size > 0) ?? new Set<string>();
  return [...nodes].filter((n) => chosen.has(n.metadata.name));
}

/** One SRV endpoint per protocol, with a target per port that has a nodePort. */
export function srvEndpoints(svc: KubeObject, serviceName: string, hostname: string, common: EndpointCommon): Endpoint[] {
  const byName = new Map<string, string[]>();
  for (const p of asArray(asRecord(svc['spec'])?.['ports'])) {
    const port = asRecord(p);
    const nodePort = Number(port?.['nodePort'] ?? 0);
    if (!Number.isInteger(nodePort) || nodePort <= 0) continue;
    const protocol = (asString(port?.['protocol']) ?? '').toLowerCase() || 'tcp';
    const name = `_${serviceName}._${protocol}.${hostname}`;
    const list = byName.get(name) ?? [];
    const target = `0 50 ${nodePort} ${hostname}`;
    if (!list.includes(target)) list.push(target);
    byName.set(name, list);
  }
  return [...byName].map(([dnsName, targets]) =>
    newEndpoint({
      dnsName,
      targets,
      recordType: 'SRV',
      setIdentifier: common.setIdentifier,
      recordTTL: common.ttl,
      labels: { [LABEL_RESOURCE]: common.resource },
      providerSpecific: common.providerSpecific,
    }),
  );
}
