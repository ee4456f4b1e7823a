/**
 * Gateway API HTTPRoute → endpoints, as external-dns's gateway-httproute source: the route's
 * `spec.hostnames` (plus the hostname annotation) pointing at the addresses in the parent
 * Gateways' `status.addresses`, or at the route's or Gateway's `target` annotation. Wildcard
 * route hostnames are published as written.
 */
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { KubeObject } from '../../kube/resource.ts';
import type { SourceProblem } from '../source.ts';
import { isControllerMismatch, parseAnnotations } from '../translate/annotations.ts';
import { endpointsForHostname, finalizeEndpoints, problemFor, uniqueHostnames } from '../translate/hostname.ts';
import { DEFAULT_NAMESPACE, asArray, asRecord, asString, readMeta, refOf, stringArray } from '../translate/object.ts';
import { templateOf } from '../translate/options.ts';
import type { TranslateOptions } from '../translate/options.ts';
import { commonOf } from '../translate/service.ts';

const GATEWAY_GROUP = 'gateway.networking.k8s.io';

export type GatewayLookup = (namespace: string, name: string) => KubeObject | undefined;

export function translateHTTPRoute(obj: KubeObject, options: TranslateOptions, gateway: GatewayLookup): { endpoints: Endpoint[]; problems: SourceProblem[] } {
  const problems: SourceProblem[] = [];
  const meta = readMeta(obj);
  if (meta === undefined) return { endpoints: [], problems };
  if (options.annotationFilter !== undefined && !options.annotationFilter.matches(meta.annotations)) return { endpoints: [], problems };
  if (options.labelFilter !== undefined && !options.labelFilter.matches(meta.labels)) return { endpoints: [], problems };
  if (isControllerMismatch(meta.annotations)) return { endpoints: [], problems };
  const ref = refOf(meta);
  const ann = parseAnnotations(meta.annotations, options.defaultTTL ?? 0, (m) => problems.push(problemFor(ref, m)));
  const common = commonOf(ann, `httproute/${meta.namespace}/${meta.name}`);

  let targets = ann.targets;
  if (targets.length === 0) {
    const seen = new Set<string>();
    for (const parent of asArray(asRecord(obj['spec'])?.['parentRefs'])) {
      const p = asRecord(parent);
      if (p === undefined) continue;
      const group = asString(p['group']) ?? GATEWAY_GROUP;
      const kind = asString(p['kind']) ?? 'Gateway';
      if (group !== GATEWAY_GROUP || kind !== 'Gateway') continue;
      const gw = gateway(asString(p['namespace']) ?? meta.namespace ?? DEFAULT_NAMESPACE, asString(p['name']) ?? '');
      if (gw === undefined) continue;
      const gwTargets = parseAnnotations(gw.metadata.annotations ?? {}, 0, () => undefined).targets;
      const addresses = gwTargets.length > 0 ? gwTargets : asArray(asRecord(gw['status'])?.['addresses']).map((a) => asString(asRecord(a)?.['value']) ?? '');
      for (const t of addresses) if (t !== '') seen.add(t);
    }
    targets = [...seen];
  }

  const hostnames: string[] = stringArray(asRecord(obj['spec'])?.['hostnames']);
  if (options.ignoreHostnameAnnotation !== true) hostnames.push(...ann.hostnames);
  const template = templateOf(options);
  if (template !== undefined && (hostnames.length === 0 || options.combineFqdnAnnotation === true)) hostnames.push(...template.execute(obj, meta));
  const candidates = targets.length === 0 ? [] : uniqueHostnames(hostnames).flatMap((h) => endpointsForHostname(h, targets, common));
  return { endpoints: finalizeEndpoints(ref, candidates, problems), problems };
}
