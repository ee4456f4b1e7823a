/**
 * Gloo Proxy → endpoints, as external-dns's source/gloo_proxy.go. A Proxy (gloo.solo.io/v1) in one
 * of the --gloo-namespace namespaces publishes the `domains` of every virtual host of its listeners
 * (`httpListener.virtualHosts`, and the `aggregateListener` virtual hosts its HTTP filter chains
 * reference), a trailing dot removed. Targets, first that gives any:
 * 1. the Proxy's `target` annotation;
 * 2. for each `*v1.Gateway` (gateway.solo.io) in a listener's `metadataStatic.sources`, the Ingress
 *    its `ingress` annotation names (`namespace/name`, or `name` in the Gateway's namespace): each
 *    load-balancer entry's IP, else its hostname;
 * 3. the Proxy's own Service (same namespace and name): the IPs and hostnames of its load balancer
 *    when it is of type LoadBalancer.
 * A virtual host's TTL, set identifier and provider-specific properties come from the annotations of
 * the `*v1.VirtualService` objects its `metadata.sources` / `metadataStatic.sources` name (later ones
 * win). Templates apply as upstream's ApplyTemplates: --fqdn-target-template pairs, then
 * --fqdn-template names with --target-template targets, as a fallback for a Proxy that publishes
 * nothing, or added with --combine-fqdn-annotation.
 *
 * Where upstream fails the whole source (a Gateway, Ingress, VirtualService or Service the Proxy
 * refers to does not exist, an unparsable `ingress` annotation), Hostwarden reports a problem for
 * that Proxy and holds its records (resource label `proxy/<namespace>/<name>`), as for a failing
 * template; the other Proxies keep syncing, and the Proxy is translated again when the object appears.
 */
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { KubeObject } from '../../kube/resource.ts';
import type { SourceProblem } from '../source.ts';
import { annotationValue, isControllerMismatch, parseAnnotations } from '../translate/annotations.ts';
import { endpointsForHostname, finalizeEndpoints, problemFor } from '../translate/hostname.ts';
import { asArray, asRecord, asString, readMeta, refOf, stringArray, stringMap } from '../translate/object.ts';
import type { JsonRecord, ObjectMeta } from '../translate/object.ts';
import { runTemplate, templateOf } from '../translate/options.ts';
import type { TranslateOptions } from '../translate/options.ts';
import { commonOf, statusTargets } from '../translate/service.ts';
import type { Translation } from './kube-source.ts';
import { applyTemplates } from '../translate/apply-templates.ts';

export const GLOO_SOURCE = 'gloo-proxy';
/** external-dns's --gloo-namespace default. */
export const DEFAULT_GLOO_NAMESPACES: readonly string[] = ['gloo-system'];

/** The objects a Proxy refers to, by namespace and name. */
export interface GlooLookups {
  service: (namespace: string, name: string) => KubeObject | undefined;
  ingress: (namespace: string, name: string) => KubeObject | undefined;
  virtualService: (namespace: string, name: string) => KubeObject | undefined;
  gateway: (namespace: string, name: string) => KubeObject | undefined;
}

/** Dependency keys (`<plural>/<namespace>/<name>`) whose objects the translation read or looked for. */
export interface GlooTranslation extends Translation {
  reads: string[];
}

/** A referenced object that does not exist: upstream fails the source, Hostwarden holds this Proxy. */
class MissingReference extends Error {}

/** How problems name the objects a Proxy refers to. */
const REFERENCED: Readonly<Record<string, string>> = {
  services: 'Service',
  ingresses: 'Ingress',
  virtualservices: 'VirtualService (gateway.solo.io)',
  gateways: 'Gateway (gateway.solo.io)',
};

type Lookup = (plural: string, namespace: string, name: string) => KubeObject;

const recs = (v: unknown): JsonRecord[] =>
  asArray(v).flatMap((x) => {
    const r = asRecord(x);
    return r === undefined ? [] : [r];
  });

/** The virtual hosts of one listener: HTTP ones, then the aggregate ones its filter chains reference. */
function virtualHosts(listener: JsonRecord): JsonRecord[] {
  const out = recs(asRecord(listener['httpListener'])?.['virtualHosts']);
  const aggregate = asRecord(listener['aggregateListener']);
  const shared = asRecord(asRecord(aggregate?.['httpResources'])?.['virtualHosts']) ?? {};
  for (const chain of recs(aggregate?.['httpFilterChains'])) {
    for (const ref of stringArray(chain['virtualHostRefs'])) {
      const vh = Object.hasOwn(shared, ref) ? asRecord(shared[ref]) : undefined;
      if (vh !== undefined) out.push(vh);
    }
  }
  return out;
}

/** `namespace/name` or `name` (upstream's ParseIngress); undefined when there are more parts. */
function parseIngressRef(value: string): { namespace: string; name: string } | undefined {
  const parts = value.split('/');
  if (parts.length === 2) return { namespace: parts[0] ?? '', name: parts[1] ?? '' };
  return parts.length === 1 ? { namespace: '', name: value } : undefined;
}

/** An Ingress's load-balancer targets as upstream's Gloo source reads them: each entry's IP, else its hostname. */
function ingressTargets(ingress: KubeObject): string[] {
  return recs(asRecord(asRecord(ingress['status'])?.['loadBalancer'])?.['ingress']).flatMap((lb) => {
    const ip = asString(lb['ip']) ?? '';
    const hostname = asString(lb['hostname']) ?? '';
    return ip !== '' ? [ip] : hostname !== '' ? [hostname] : [];
  });
}

/** The Ingress a listener's Gateway source names in its `ingress` annotation, if any. */
function gatewayIngress(src: JsonRecord, lookup: Lookup, options: TranslateOptions): KubeObject | undefined {
  const ref = asRecord(src['resourceRef']);
  const gateway = readMeta(lookup('gateways', asString(ref?.['namespace']) ?? '', asString(ref?.['name']) ?? ''));
  const value = annotationValue(gateway?.annotations ?? {}, 'ingress', options.annotationPrefix);
  if (value === undefined || value === '') return undefined;
  const parsed = parseIngressRef(value);
  if (parsed === undefined)
    throw new MissingReference(
      `failed to parse Ingress annotation on Gateway (${gateway?.namespace ?? ''}/${gateway?.name ?? ''}): invalid ingress name (name or namespace/name) found ${JSON.stringify(value)}`,
    );
  return lookup('ingresses', parsed.namespace || (gateway?.namespace ?? ''), parsed.name);
}

/** Targets of the Ingresses the listeners' Gateways name in their `ingress` annotation. */
function gatewayIngressTargets(listeners: JsonRecord[], lookup: Lookup, options: TranslateOptions): string[] {
  return listeners
    .flatMap((l) => recs(asRecord(l['metadataStatic'])?.['sources']))
    .filter((src) => src['resourceKind'] === '*v1.Gateway')
    .flatMap((src) => {
      const ingress = gatewayIngress(src, lookup, options);
      return ingress === undefined ? [] : ingressTargets(ingress);
    });
}

/** The annotations of the VirtualServices a virtual host was built from (metadata, then metadataStatic sources). */
function virtualServiceAnnotations(vh: JsonRecord, lookup: Lookup): Record<string, string> {
  const refs = [
    ...recs(asRecord(vh['metadata'])?.['sources'])
      .filter((s) => s['kind'] === '*v1.VirtualService')
      .map((s) => [asString(s['namespace']) ?? '', asString(s['name']) ?? ''] as const),
    ...recs(asRecord(vh['metadataStatic'])?.['sources'])
      .filter((s) => s['resourceKind'] === '*v1.VirtualService')
      .map((s) => asRecord(s['resourceRef']))
      .map((r) => [asString(r?.['namespace']) ?? '', asString(r?.['name']) ?? ''] as const),
  ];
  const out: Record<string, string> = {};
  for (const [ns, name] of refs) Object.assign(out, stringMap(asRecord(lookup('virtualservices', ns, name)['metadata'])?.['annotations']));
  return out;
}

function proxyTargets(
  obj: KubeObject,
  meta: ObjectMeta,
  listeners: JsonRecord[],
  lookup: Lookup,
  options: TranslateOptions,
  problem: (m: string) => void,
): string[] {
  const annotated = parseAnnotations(meta.annotations, 0, () => undefined, options.annotationPrefix).targets;
  if (annotated.length > 0) return annotated;
  const fromGateways = gatewayIngressTargets(listeners, lookup, options);
  if (fromGateways.length > 0) return fromGateways;
  const svc = lookup('services', meta.namespace, meta.name);
  if (asString(asRecord(svc['spec'])?.['type']) === 'LoadBalancer') return statusTargets(svc);
  problem(`Service ${meta.namespace}/${meta.name} is not of type LoadBalancer: no targets for this Proxy`);
  return [];
}

/** One Proxy → its endpoints, with the keys of the objects it read. */
export function translateGlooProxy(obj: KubeObject, options: TranslateOptions, glooNamespaces: readonly string[], lookups: GlooLookups): GlooTranslation {
  const problems: SourceProblem[] = [];
  const reads: string[] = [];
  const none: GlooTranslation = { endpoints: [], problems, reads };
  const meta = readMeta(obj);
  if (meta === undefined || !glooNamespaces.includes(meta.namespace)) return none;
  if (options.annotationFilter !== undefined && !options.annotationFilter.matches(meta.annotations)) return none;
  if (options.labelFilter !== undefined && !options.labelFilter.matches(meta.labels)) return none;
  if (isControllerMismatch(meta.annotations, options.annotationPrefix)) return none;
  const ref = refOf(meta);
  const problem = (m: string): void => {
    problems.push(problemFor(ref, m));
  };
  const resource = `proxy/${meta.namespace}/${meta.name}`;
  const lookup: Lookup = (plural, namespace, name) => {
    reads.push(`${plural}/${namespace}/${name}`);
    const byPlural: Readonly<Record<string, GlooLookups[keyof GlooLookups]>> = {
      services: lookups.service,
      ingresses: lookups.ingress,
      virtualservices: lookups.virtualService,
      gateways: lookups.gateway,
    };
    const found = byPlural[plural]?.(namespace, name);
    if (found === undefined) throw new MissingReference(`${REFERENCED[plural] ?? plural} ${namespace}/${name} not found`);
    return found;
  };
  const listeners = recs(asRecord(obj['spec'])?.['listeners']);
  let own: Endpoint[] = [];
  try {
    const targets = proxyTargets(obj, meta, listeners, lookup, options, problem);
    for (const vh of listeners.flatMap(virtualHosts)) {
      const ann = parseAnnotations(virtualServiceAnnotations(vh, lookup), options.defaultTTL ?? 0, problem, options.annotationPrefix);
      const common = commonOf(ann, resource);
      for (const domain of stringArray(vh['domains'])) own.push(...endpointsForHostname(domain.replace(/\.$/, ''), targets, common));
    }
  } catch (err) {
    if (!(err instanceof MissingReference)) throw err;
    problem(`${err.message}; the Proxy's records are kept as they are until it is found`);
    return { endpoints: [], problems, reads, heldResource: resource };
  }
  const template = templateOf(options)?.withSource(GLOO_SOURCE);
  if (template !== undefined) {
    const templated = runTemplate(() => applyTemplates({ template, combine: options.combineFqdnAnnotation === true, obj, meta, resource }, own), problem);
    if (templated === undefined) return { endpoints: [], problems, reads, heldResource: resource };
    own = templated;
  }
  return { endpoints: finalizeEndpoints(ref, own, problems), problems, reads };
}
