/**
 * Headless Services (`clusterIP: None`), as external-dns's service source: the names point at the
 * endpoints in the Service's EndpointSlices — one A/AAAA record per hostname with every address,
 * plus `<pod hostname>.<hostname>` for endpoints whose Pod has a hostname. Pure: the caller hands
 * in the Service's slices and lookups for Pods and Nodes, so this is testable without a cluster.
 *
 * Differences from external-dns, both because Pods are only watched when a target needs them:
 * - without Pods, the per-pod name comes from the endpoint's `hostname` (which Kubernetes fills
 *   from the Pod's `spec.hostname` when its `spec.subdomain` names the Service, as StatefulSets do)
 *   and the node from the endpoint's `nodeName`;
 * - a `target` annotation on a Pod is honoured only for Services that read Pods (host IPs).
 */
import { isIPv6 } from 'node:net';
import { LABEL_RESOURCE, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { KubeObject } from '../../kube/resource.ts';
import type { SourceProblem } from '../source.ts';
import { parseAnnotations } from '../translate/annotations.ts';
import type { ParsedAnnotations } from '../translate/annotations.ts';
import { finalizeEndpoints, problemFor, suitableType, uniqueHostnames } from '../translate/hostname.ts';
import { asArray, asRecord, asString, readMeta, refOf } from '../translate/object.ts';
import type { ObjectMeta } from '../translate/object.ts';
import { fqdnTargetEndpoints, runTemplate, templateOf } from '../translate/options.ts';
import type { TranslateOptions } from '../translate/options.ts';
import { commonOf } from '../translate/service.ts';

/** Values of the `endpoints-type` annotation. */
export const ENDPOINTS_TYPE_NODE_EXTERNAL_IP = 'NodeExternalIP';
export const ENDPOINTS_TYPE_HOST_IP = 'HostIP';

/** Label EndpointSlices carry to name the Service they belong to. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export interface HeadlessInputs {
  /** The EndpointSlices labelled with this Service's name, in its namespace. */
  slices: Iterable<KubeObject>;
  /** `namespace/name` → Pod, or undefined when Pods are not watched. */
  pod: ((key: string) => KubeObject | undefined) | undefined;
  node: (name: string) => KubeObject | undefined;
}

export function isHeadless(obj: KubeObject): boolean {
  const spec = asRecord(obj['spec']);
  const type = asString(spec?.['type']) ?? 'ClusterIP';
  return type === 'ClusterIP' && asString(spec?.['clusterIP']) === 'None';
}

/** Whether translating this Service reads Pods (their host IP). */
export function headlessNeedsPods(obj: KubeObject, options: TranslateOptions): boolean {
  if (!isHeadless(obj)) return false;
  if (options.publishHostIP === true) return true;
  return parseAnnotations(obj.metadata.annotations ?? {}, 0, () => undefined, options.annotationPrefix).endpointsType === ENDPOINTS_TYPE_HOST_IP;
}

/**
 * Endpoints of a headless Service, or undefined when its `target` annotation decides the targets
 * (the generic Service translation handles that case).
 */
export function translateHeadless(
  obj: KubeObject,
  options: TranslateOptions,
  inputs: HeadlessInputs,
): { endpoints: Endpoint[]; problems: SourceProblem[]; heldResource?: string } | undefined {
  const meta = readMeta(obj);
  if (meta === undefined) return { endpoints: [], problems: [] };
  // Annotation problems were already reported by the generic translation of the same object.
  const ann = parseAnnotations(meta.annotations, options.defaultTTL ?? 0, () => undefined, options.annotationPrefix);
  if (ann.targets.length > 0) return undefined;
  const problems: SourceProblem[] = [];
  const targetsByName = new Map<string, string[]>();
  const collect = (hostnames: readonly string[]): void => {
    for (const h of uniqueHostnames(hostnames)) addHeadlessTargets(h.replace(/\.$/, ''), obj, meta, ann, options, inputs, targetsByName);
  };
  if (options.ignoreHostnameAnnotation !== true) collect([...ann.hostnames, ...ann.internalHostnames]);
  const common = commonOf(ann, `service/${meta.namespace}/${meta.name}`);
  const template = templateOf(options, meta.kind);
  let pairs: Endpoint[] = [];
  if (template !== undefined) {
    // As external-dns: the host:target pairs first, then --fqdn-template names with the Pods' targets.
    const combine = options.combineFqdnAnnotation === true;
    const done = runTemplate(
      () => {
        if (targetsByName.size === 0 || combine) pairs = fqdnTargetEndpoints(template, obj, meta, common.resource);
        if (targetsByName.size + pairs.length === 0 || combine) collect(template.execute(obj, meta));
        return true;
      },
      (m) => problems.push(problemFor(refOf(meta), m)),
    );
    if (done === undefined) return { endpoints: [], problems, heldResource: common.resource };
  }

  const candidates: Endpoint[] = [...pairs];
  for (const name of [...targetsByName.keys()].sort()) {
    const byType = new Map<Endpoint['recordType'], string[]>();
    for (const t of targetsByName.get(name) ?? []) {
      const type = suitableType(t);
      const list = byType.get(type) ?? [];
      if (!list.includes(t)) list.push(t);
      byType.set(type, list);
    }
    for (const type of [...byType.keys()].sort()) {
      candidates.push(
        newEndpoint({
          dnsName: name,
          targets: (byType.get(type) ?? []).sort(),
          recordType: type,
          setIdentifier: common.setIdentifier,
          recordTTL: common.ttl,
          labels: { [LABEL_RESOURCE]: common.resource },
          providerSpecific: common.providerSpecific,
        }),
      );
    }
  }
  return { endpoints: finalizeEndpoints(refOf(meta), candidates, problems), problems };
}

function addHeadlessTargets(
  hostname: string,
  svc: KubeObject,
  meta: ObjectMeta,
  ann: ParsedAnnotations,
  options: TranslateOptions,
  inputs: HeadlessInputs,
  out: Map<string, string[]>,
): void {
  const spec = asRecord(svc['spec']);
  const endpointsType = ann.endpointsType;
  const useHostIP = endpointsType === ENDPOINTS_TYPE_HOST_IP || (endpointsType !== ENDPOINTS_TYPE_NODE_EXTERNAL_IP && options.publishHostIP === true);
  const usePodIP = endpointsType !== ENDPOINTS_TYPE_NODE_EXTERNAL_IP && !useHostIP;
  const publishNotReady = spec?.['publishNotReadyAddresses'] === true || options.alwaysPublishNotReadyAddresses === true;
  const add = (name: string, targets: readonly string[]): void => {
    if (targets.length === 0) return;
    const list = out.get(name) ?? [];
    list.push(...targets);
    out.set(name, list);
  };

  for (const slice of inputs.slices) {
    const addressType = asString(slice['addressType']);
    // FQDN slices hold names, not addresses; only node and host IPs can still be read from them.
    if (usePodIP && addressType !== 'IPv4' && addressType !== 'IPv6') continue;
    for (const raw of asArray(slice['endpoints'])) {
      const ep = asRecord(raw);
      if (ep === undefined) continue;
      // A missing `ready` means ready, as the EndpointSlice API defines.
      const ready = asRecord(ep['conditions'])?.['ready'] !== false;
      if (!ready && !publishNotReady) continue;
      const ref = asRecord(ep['targetRef']);
      if (ref === undefined || asString(ref['kind']) !== 'Pod') continue;
      const podName = asString(ref['name']) ?? '';
      let pod: KubeObject | undefined;
      if (inputs.pod !== undefined) {
        pod = inputs.pod(`${asString(ref['namespace']) ?? meta.namespace}/${podName}`);
        // As external-dns: an endpoint whose Pod is not (yet) known is left out.
        if (pod === undefined) continue;
      }
      const podSpec = asRecord(pod?.['spec']);
      const podHostname = pod === undefined ? asString(ep['hostname']) : asString(podSpec?.['hostname']);
      const names = podHostname === undefined || podHostname === '' ? [hostname] : [hostname, `${podHostname}.${hostname}`];

      let targets: string[] = pod === undefined ? [] : parseAnnotations(pod.metadata.annotations ?? {}, 0, () => undefined, options.annotationPrefix).targets;
      if (targets.length === 0) {
        if (endpointsType === ENDPOINTS_TYPE_NODE_EXTERNAL_IP) {
          const nodeName = asString(podSpec?.['nodeName']) ?? asString(ep['nodeName']) ?? '';
          const node = inputs.node(nodeName);
          targets = nodeAddresses(node, 'ExternalIP');
          // As external-dns, --expose-internal-ipv6 adds the node's internal IPv6 addresses.
          if (options.exposeInternalIPv6 === true) targets.push(...nodeAddresses(node, 'InternalIP').filter((ip) => isIPv6(ip)));
        } else if (useHostIP) {
          const hostIP = asString(asRecord(pod?.['status'])?.['hostIP']);
          targets = hostIP === undefined || hostIP === '' ? [] : [hostIP];
        } else {
          // Further addresses of one endpoint have no defined meaning; external-dns uses the first too.
          const first = asString(asArray(ep['addresses'])[0]);
          targets = first === undefined || first === '' ? [] : [first];
        }
      }
      for (const name of names) add(name, targets);
    }
  }
}

export function nodeAddresses(node: KubeObject | undefined, type: string): string[] {
  const out: string[] = [];
  for (const a of asArray(asRecord(node?.['status'])?.['addresses'])) {
    const rec = asRecord(a);
    const v = asString(rec?.['address']);
    if (asString(rec?.['type']) === type && v !== undefined && v !== '' && !out.includes(v)) out.push(v);
  }
  return out;
}

/**
 * Which EndpointSlices belong to which Service, and which Services each Pod backs, kept current
 * from the slice reflector's changes so a slice or Pod change re-translates only its Services.
 */
export class SliceIndex {
  private readonly byService = new Map<string, Set<string>>();
  private readonly byPod = new Map<string, Set<string>>();
  /** slice key → [service key, pod keys] as last indexed. */
  private readonly slices = new Map<string, { service: string | undefined; pods: string[] }>();

  update(sliceKey: string, slice: KubeObject | undefined): void {
    const before = this.slices.get(sliceKey);
    if (before !== undefined) {
      if (before.service !== undefined) remove(this.byService, before.service, sliceKey);
      for (const p of before.pods) remove(this.byPod, p, sliceKey);
      this.slices.delete(sliceKey);
    }
    if (slice === undefined) return;
    const service = this.serviceOf(slice)[0];
    const pods = podKeysOf(slice);
    this.slices.set(sliceKey, { service, pods });
    if (service !== undefined) add(this.byService, service, sliceKey);
    for (const p of pods) add(this.byPod, p, sliceKey);
  }

  /** `namespace/name` of the Service a slice belongs to (none for slices without the label). */
  serviceOf(slice: KubeObject): string[] {
    const name = slice.metadata.labels?.[SERVICE_NAME_LABEL];
    return name === undefined || name === '' ? [] : [`${slice.metadata.namespace ?? ''}/${name}`];
  }

  slicesOf(serviceKey: string): string[] {
    return [...(this.byService.get(serviceKey) ?? [])].sort();
  }

  servicesOfPod(podKey: string): string[] {
    const out = new Set<string>();
    for (const sliceKey of this.byPod.get(podKey) ?? []) {
      const service = this.slices.get(sliceKey)?.service;
      if (service !== undefined) out.add(service);
    }
    return [...out];
  }
}

function podKeysOf(slice: KubeObject): string[] {
  const out = new Set<string>();
  for (const raw of asArray(slice['endpoints'])) {
    const ref = asRecord(asRecord(raw)?.['targetRef']);
    if (ref === undefined || asString(ref['kind']) !== 'Pod') continue;
    out.add(`${asString(ref['namespace']) ?? slice.metadata.namespace ?? ''}/${asString(ref['name']) ?? ''}`);
  }
  return [...out];
}

function add(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key) ?? new Set<string>();
  set.add(value);
  map.set(key, set);
}

function remove(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  if (set === undefined) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}
