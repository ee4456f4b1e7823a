/**
 * The `pod` source, as external-dns's source/pod.go: every Pod (only host-network ones with
 * --ignore-non-host-network-pods) publishes
 * - `internal-hostname` names at its Pod IP,
 * - `hostname` names at its Node's ExternalIP addresses and InternalIP IPv6 ones (IPv6 internal
 *   addresses are usually routable; external-dns reads them here without --expose-internal-ipv6),
 * - `<pod name>.<--pod-source-domain>` at its Pod IP,
 * - with `--compatibility=kops-dns-controller`, kOps's `dns.alpha.kubernetes.io/internal` (Pod IP)
 *   and `/external` (Node addresses) as well;
 * the `target` annotation replaces the Pod IP and Node addresses of the external-dns annotations.
 * `--fqdn-target-template`, then `--fqdn-template` names (at every `status.podIPs` address) apply
 * as external-dns's template engine does. Endpoints of several Pods with the same name, type and
 * TTL are merged into one (a DaemonSet's Pods behind one name), see `mergeEndpoints` (merge.ts).
 */
import { LABEL_RESOURCE, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../../endpoint/endpoint.ts';
import type { KubeObject } from '../../kube/resource.ts';
import { annotationValue, isControllerMismatch, parseAnnotations, splitHostnames } from '../translate/annotations.ts';
import { KOPS_EXTERNAL_KEY, KOPS_INTERNAL_KEY } from '../translate/compatibility.ts';
import { TemplateExecutionError } from '../translate/fqdn-template.ts';
import { finalizeEndpoints, problemFor, suitableType } from '../translate/hostname.ts';
import { asArray, asRecord, asString, readMeta, refOf, resourceLabelOf } from '../translate/object.ts';
import { TEMPLATE_FAILED_SUFFIX, combineTemplated, combineWithFqdnTargetTemplate, templateOf } from '../translate/options.ts';
import type { KindContext, TranslateOptions } from '../translate/options.ts';
import type { Translation } from './kube-source.ts';

export interface PodOptions {
  /** --ignore-non-host-network-pods (external-dns's default: false, every Pod is read). */
  ignoreNonHostNetworkPods?: boolean;
  /** --pod-source-domain: each Pod is also published as `<name>.<domain>`. */
  podSourceDomain?: string;
}

export interface PodTranslation extends Translation {
  /** The Node whose addresses the translation read, if any: its changes re-translate the Pod. */
  readNode?: string;
}

/** Endpoints keyed as external-dns's endpointMap: name, type and TTL; targets in insertion order. */
class EndpointMap {
  private readonly map = new Map<string, { name: string; type: RecordType; targets: string[] }>();

  add(name: string, target: string): void {
    const type = suitableType(target);
    const key = `${name}\u0000${type}`;
    const entry = this.map.get(key) ?? { name, type, targets: [] };
    entry.targets.push(target);
    this.map.set(key, entry);
  }

  endpoints(ttl: number, resource: string): Endpoint[] {
    return [...this.map.values()].map((e) =>
      newEndpoint({ dnsName: e.name, recordType: e.type, targets: e.targets, recordTTL: ttl, labels: { [LABEL_RESOURCE]: resource } }),
    );
  }
}

function hostNetwork(obj: KubeObject): boolean {
  return asRecord(obj['spec'])?.['hostNetwork'] === true;
}

function nodeNameOf(obj: KubeObject): string {
  return asString(asRecord(obj['spec'])?.['nodeName']) ?? '';
}

function podIP(obj: KubeObject): string {
  return asString(asRecord(obj['status'])?.['podIP']) ?? '';
}

/** `status.podIPs`, as external-dns's template names read (not `status.podIP`). */
function podIPs(obj: KubeObject): string[] {
  return asArray(asRecord(obj['status'])?.['podIPs']).flatMap((p) => {
    const ip = asString(asRecord(p)?.['ip']);
    return ip === undefined || ip === '' ? [] : [ip];
  });
}

/** external-dns's node targets for `hostname`: ExternalIP addresses, and InternalIP ones that are IPv6. */
function nodeAddresses(node: KubeObject): string[] {
  return asArray(asRecord(node['status'])?.['addresses']).flatMap((a) => {
    const rec = asRecord(a);
    const address = asString(rec?.['address']) ?? '';
    const type = asString(rec?.['type']);
    if (address === '') return [];
    return type === 'ExternalIP' || (type === 'InternalIP' && suitableType(address) === 'AAAA') ? [address] : [];
  });
}

/**
 * One Pod → its endpoints. `node` looks a Node up by name. Filters and the controller annotation
 * apply as external-dns's pod indexer applies them.
 */
export function translatePod(obj: KubeObject, options: TranslateOptions, pod: PodOptions, node: (name: string) => KubeObject | undefined): PodTranslation {
  const meta = readMeta(obj);
  if (meta === undefined) return { endpoints: [], problems: [] };
  const ref = refOf(meta);
  const none: PodTranslation = { endpoints: [], problems: [] };
  if (options.annotationFilter !== undefined && !options.annotationFilter.matches(meta.annotations)) return none;
  if (options.labelFilter !== undefined && !options.labelFilter.matches(meta.labels)) return none;
  if (isControllerMismatch(meta.annotations, options.annotationPrefix)) return none;

  const problems: PodTranslation['problems'] = [];
  const ann = parseAnnotations(meta.annotations, options.defaultTTL ?? 0, (m) => problems.push(problemFor(ref, m)), options.annotationPrefix);
  const resource = resourceLabelOf(meta);
  const map = new EndpointMap();
  let readNode: string | undefined;
  const ip = podIP(obj);
  const atPodIP = (name: string): void => {
    // A Pod without an address yet (Pending) has nothing to publish; external-dns would emit an empty target.
    if (ip !== '') map.add(name, ip);
  };
  const atNode = (names: string[]): void => {
    const name = nodeNameOf(obj);
    readNode = name;
    const n = name === '' ? undefined : node(name);
    if (n === undefined) return;
    const addresses = nodeAddresses(n);
    for (const h of names) for (const a of addresses) map.add(h, a);
  };
  const atTargets = (names: string[]): void => {
    for (const h of names) for (const t of ann.targets) map.add(h, t);
  };

  if (!(pod.ignoreNonHostNetworkPods === true && !hostNetwork(obj))) {
    const targeted = ann.targets.length > 0;
    if (targeted) atTargets(ann.internalHostnames);
    else ann.internalHostnames.forEach(atPodIP);
    if (annotationValue(meta.annotations, 'hostname', options.annotationPrefix) !== undefined) {
      if (targeted) atTargets(ann.hostnames);
      else atNode(ann.hostnames);
    }
    if (options.compatibility === 'kops-dns-controller') {
      splitHostnames(meta.annotations[KOPS_INTERNAL_KEY]).forEach(atPodIP);
      const external = meta.annotations[KOPS_EXTERNAL_KEY];
      if (external !== undefined) atNode(splitHostnames(external));
    }
    if (pod.podSourceDomain !== undefined && pod.podSourceDomain !== '') {
      const name = `${meta.name}.${pod.podSourceDomain}`;
      if (targeted) atTargets([name]);
      else atPodIP(name);
    }
  }
  let candidates = map.endpoints(ann.ttl, resource);
  const template = templateOf(options, 'Pod');
  if (template !== undefined) {
    const ctx: KindContext = { obj, meta, ref, origin: {}, options, template, problems };
    try {
      candidates = combineWithFqdnTargetTemplate(ctx, candidates, resource);
      candidates = combineTemplated(ctx, candidates, () => {
        const names = new EndpointMap();
        for (const h of template.execute(obj, meta)) for (const a of podIPs(obj)) names.add(h, a);
        return names.endpoints(ann.ttl, resource);
      });
    } catch (err) {
      if (!(err instanceof TemplateExecutionError)) throw err;
      problems.push(problemFor(ref, `${err.message}${TEMPLATE_FAILED_SUFFIX}`));
      return { endpoints: [], problems, heldResource: resource };
    }
  }
  const endpoints = finalizeEndpoints(ref, candidates, problems);
  return readNode === undefined ? { endpoints, problems } : { endpoints, problems, readNode };
}
