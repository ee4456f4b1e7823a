/**
 * Istio Gateways and VirtualServices → endpoints, as external-dns's istio-gateway and
 * istio-virtualservice sources (source/istio_gateway.go, istio_virtualservice.go).
 *
 * A Gateway publishes its servers' hosts (a `namespace/` prefix dropped, `*` skipped) and its
 * `hostname` annotation. Its targets are, in order: the `target` annotation; else the
 * load-balancer status of the Ingress its `ingress` annotation names (`name` or `namespace/name`,
 * the Gateway's namespace by default); else the Services (in --namespace) whose `spec.selector`
 * includes every pair of the Gateway's `spec.selector`: their `externalIPs`, or else their
 * load-balancer IPs and hostnames.
 *
 * A VirtualService publishes its hosts and `hostname` annotation at its own `target` annotation,
 * or else at the targets of each Gateway in `spec.gateways` (`mesh` skipped, `name` or
 * `namespace/name`) it binds to for that host: the Gateway is in a namespace `exportTo` allows and
 * has a server host equal to it, a `*.` suffix of it, or `*`, in a namespace part (`ns/host`) that
 * admits the VirtualService. --fqdn-template names go through the same Gateway matching.
 *
 * Where upstream fails the whole source (an Ingress that does not exist, a reference with more
 * than one `/`, a template that fails), Hostwarden reports a problem on the object and holds its
 * records (neither updated nor deleted), and the other objects keep syncing.
 */
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { KubeObject } from '../../kube/resource.ts';
import type { SourceProblem } from '../source.ts';
import { annotationValue, isControllerMismatch, parseAnnotations } from '../translate/annotations.ts';
import type { ParsedAnnotations } from '../translate/annotations.ts';
import { endpointsForHostname, finalizeEndpoints, problemFor } from '../translate/hostname.ts';
import type { EndpointCommon } from '../translate/hostname.ts';
import { asArray, asRecord, asString, readMeta, refOf, stringArray, stringMap } from '../translate/object.ts';
import type { ObjectMeta } from '../translate/object.ts';
import { TEMPLATE_FAILED_SUFFIX, templateOf } from '../translate/options.ts';
import type { TranslateOptions } from '../translate/options.ts';
import { TemplateExecutionError } from '../translate/fqdn-template.ts';
import { commonOf } from '../translate/service.ts';
import type { Translation } from './kube-source.ts';

/** The built-in gateway of every sidecar: never a Gateway object. */
export const ISTIO_MESH_GATEWAY = 'mesh';

/** What the translation looks up in the other caches. */
export interface IstioLookups {
  /** An Istio Gateway (in the caches' namespace scope). */
  gateway(namespace: string, name: string): KubeObject | undefined;
  ingress(namespace: string, name: string): KubeObject | undefined;
  /**
   * Cached Services (in --namespace, or all namespaces) that `selector` may pick: at least every
   * one whose selector includes all its pairs (the translation checks each).
   */
  services(selector: Readonly<Record<string, string>>): Iterable<KubeObject>;
}

/** A target that cannot be worked out; upstream fails its whole Endpoints() for it. */
class IstioTargetError extends Error {}

/** upstream's ParseIngress: `name` or `namespace/name` ('' namespace when absent). */
export function parseNamespacedName(value: string): { namespace: string; name: string } {
  const parts = value.split('/');
  if (parts.length === 1) return { namespace: '', name: parts[0] as string };
  if (parts.length === 2) return { namespace: parts[0] as string, name: parts[1] as string };
  throw new IstioTargetError(`invalid ingress name (name or namespace/name) found ${JSON.stringify(value)}`);
}

function loadBalancerTargets(obj: KubeObject): string[] {
  return asArray(asRecord(asRecord(obj['status'])?.['loadBalancer'])?.['ingress']).flatMap((e) => {
    const ip = asString(asRecord(e)?.['ip']) ?? '';
    const hostname = asString(asRecord(e)?.['hostname']) ?? '';
    if (ip !== '') return [ip];
    return hostname !== '' ? [hostname] : [];
  });
}

/** Whether the Gateway's `spec.selector` picks the Service: the Service's selector includes every pair (an empty one picks all). */
export function selectsService(gateway: KubeObject, svc: KubeObject): boolean {
  return picks(gatewaySelector(gateway), svc);
}

function gatewaySelector(gateway: KubeObject): Record<string, string> {
  return stringMap(asRecord(gateway['spec'])?.['selector']);
}

function picks(selector: Readonly<Record<string, string>>, svc: KubeObject): boolean {
  const own = stringMap(asRecord(svc['spec'])?.['selector']);
  return Object.entries(selector).every(([k, v]) => own[k] === v);
}

/** `namespace/name` of the Ingress the Gateway's `ingress` annotation names, if it names a well-formed one. */
export function ingressKeyOf(gateway: KubeObject, options: TranslateOptions): string | undefined {
  const meta = readMeta(gateway);
  const value = meta === undefined ? '' : (annotationValue(meta.annotations, 'ingress', options.annotationPrefix) ?? '');
  if (meta === undefined || value === '') return undefined;
  try {
    const ref = parseNamespacedName(value);
    return `${ref.namespace === '' ? meta.namespace : ref.namespace}/${ref.name}`;
  } catch {
    return undefined;
  }
}

/** `namespace/name` of each Gateway the VirtualService names (`mesh` and malformed references left out). */
export function gatewayKeysOf(vs: KubeObject): string[] {
  const namespace = readMeta(vs)?.namespace ?? '';
  return stringArray(asRecord(vs['spec'])?.['gateways']).flatMap((ref) => {
    if (ref === '' || ref === ISTIO_MESH_GATEWAY) return [];
    try {
      const parsed = parseNamespacedName(ref);
      return [`${parsed.namespace === '' ? namespace : parsed.namespace}/${parsed.name}`];
    } catch {
      return [];
    }
  });
}

/** Every Service the Gateway's selector picks, as EndpointTargetsFromServices. */
function serviceTargets(gateway: KubeObject, lookups: IstioLookups): string[] {
  const out = new Set<string>();
  const selector = gatewaySelector(gateway);
  for (const svc of lookups.services(selector)) {
    if (!picks(selector, svc)) continue;
    const spec = asRecord(svc['spec']);
    const external = stringArray(spec?.['externalIPs']);
    for (const t of external.length > 0 ? external : loadBalancerTargets(svc)) out.add(t);
  }
  return [...out].sort();
}

/** A Gateway's targets (upstream's targetsFromGateway); throws IstioTargetError when they cannot be known. */
export function gatewayTargets(gateway: KubeObject, lookups: IstioLookups, options: TranslateOptions): string[] {
  const meta = readMeta(gateway);
  if (meta === undefined) return [];
  const annotated = parseAnnotations(meta.annotations, 0, () => undefined, options.annotationPrefix).targets;
  if (annotated.length > 0) return annotated;
  const ingress = annotationValue(meta.annotations, 'ingress', options.annotationPrefix) ?? '';
  if (ingress !== '') {
    let ref: { namespace: string; name: string };
    try {
      ref = parseNamespacedName(ingress);
    } catch (err) {
      throw new IstioTargetError(`failed to parse Ingress annotation on Gateway (${meta.namespace}/${meta.name}): ${(err as Error).message}`);
    }
    const namespace = ref.namespace === '' ? meta.namespace : ref.namespace;
    const found = lookups.ingress(namespace, ref.name);
    if (found === undefined)
      throw new IstioTargetError(
        `the Ingress ${namespace}/${ref.name} named by the ingress annotation of Gateway ${meta.namespace}/${meta.name} does not exist`,
      );
    return loadBalancerTargets(found);
  }
  return serviceTargets(gateway, lookups);
}

function serverHosts(gateway: KubeObject): string[] {
  return asArray(asRecord(gateway['spec'])?.['servers']).flatMap((s) => stringArray(asRecord(s)?.['hosts']));
}

/** Drops a `namespace/` prefix (exactly one '/'), as upstream. */
function withoutNamespace(host: string): string {
  const parts = host.split('/');
  return parts.length === 2 ? (parts[1] as string) : host;
}

/** Filters and the controller annotation, as upstream's indexers apply them. */
function selected(meta: ObjectMeta, options: TranslateOptions): boolean {
  if (options.annotationFilter !== undefined && !options.annotationFilter.matches(meta.annotations)) return false;
  if (options.labelFilter !== undefined && !options.labelFilter.matches(meta.labels)) return false;
  return !isControllerMismatch(meta.annotations, options.annotationPrefix);
}

interface Context {
  obj: KubeObject;
  meta: ObjectMeta;
  options: TranslateOptions;
  ann: ParsedAnnotations;
  common: EndpointCommon;
  problems: SourceProblem[];
}

/** external-dns's CombineWithEndpoints around a source's own endpoints. */
function withTemplate(ctx: Context, source: string, own: Endpoint[], forHostnames: (hostnames: string[]) => Endpoint[]): Endpoint[] {
  const template = templateOf(ctx.options)?.withSource(source);
  if (template === undefined) return own;
  const combine = ctx.options.combineFqdnAnnotation === true;
  if (!combine && own.length > 0) return own;
  const templated = forHostnames(template.execute(ctx.obj, ctx.meta));
  return combine ? [...own, ...templated] : templated;
}

/** Runs a translation body; a target or template failure becomes a problem and holds the object's records. */
function guarded(obj: KubeObject, options: TranslateOptions, resourceKind: string, source: string, body: (ctx: Context) => Endpoint[]): Translation {
  const meta = readMeta(obj);
  if (meta === undefined || !selected(meta, options)) return { endpoints: [], problems: [] };
  const ref = refOf(meta);
  const problems: SourceProblem[] = [];
  const ann = parseAnnotations(meta.annotations, options.defaultTTL ?? 0, (m) => problems.push(problemFor(ref, m)), options.annotationPrefix);
  const common = commonOf(ann, `${resourceKind}/${meta.namespace}/${meta.name}`);
  let candidates: Endpoint[];
  try {
    candidates = body({ obj, meta, options, ann, common, problems });
  } catch (err) {
    if (err instanceof TemplateExecutionError) {
      problems.push(problemFor(ref, `${err.message}${TEMPLATE_FAILED_SUFFIX}`));
    } else if (err instanceof IstioTargetError) {
      problems.push(problemFor(ref, `${source}: ${err.message}; the object's records are kept as they are until it can be resolved`));
    } else {
      throw err;
    }
    return { endpoints: [], problems, heldResource: common.resource };
  }
  return { endpoints: finalizeEndpoints(ref, candidates, problems), problems };
}

/** One Istio Gateway (`--source=istio-gateway`). */
export function translateIstioGateway(obj: KubeObject, options: TranslateOptions, lookups: IstioLookups): Translation {
  return guarded(obj, options, 'gateway', 'istio-gateway', (ctx) => {
    const forHostnames = (hostnames: readonly string[]): Endpoint[] => {
      // Targets are resolved even for a Gateway without hosts, so a broken reference is always reported.
      const targets = gatewayTargets(obj, lookups, options);
      if (targets.length === 0) return [];
      return hostnames.flatMap((h) => endpointsForHostname(h, targets, ctx.common));
    };
    const hostnames = serverHosts(obj)
      .filter((h) => h !== '')
      .map(withoutNamespace)
      .filter((h) => h !== '*');
    if (options.ignoreHostnameAnnotation !== true) hostnames.push(...ctx.ann.hostnames);
    return withTemplate(ctx, 'istio-gateway', forHostnames(hostnames), forHostnames);
  });
}

/** One VirtualService (`--source=istio-virtualservice`). */
export function translateVirtualService(obj: KubeObject, options: TranslateOptions, lookups: IstioLookups): Translation {
  return guarded(obj, options, 'virtualservice', 'istio-virtualservice', (ctx) => {
    const viaGateways = (host: string): string[] => virtualServiceTargets(obj, ctx.meta, host, lookups, options);
    const own: Endpoint[] = [];
    const publish = (host: string): void => {
      const targets = ctx.ann.targets.length > 0 ? ctx.ann.targets : viaGateways(host);
      own.push(...endpointsForHostname(host, targets, ctx.common));
    };
    for (const host of stringArray(asRecord(obj['spec'])?.['hosts'])) if (host !== '' && host !== '*') publish(withoutNamespace(host));
    if (options.ignoreHostnameAnnotation !== true) ctx.ann.hostnames.forEach(publish);
    // As upstream, template names take the Gateways' targets, not the target annotation.
    return withTemplate(ctx, 'istio-virtualservice', own, (hostnames) => hostnames.flatMap((h) => endpointsForHostname(h, viaGateways(h), ctx.common)));
  });
}

/** The targets of every Gateway the VirtualService binds to for `host`, without repeats (upstream's targetsFromVirtualService). */
function virtualServiceTargets(vs: KubeObject, meta: ObjectMeta, host: string, lookups: IstioLookups, options: TranslateOptions): string[] {
  const targets: string[] = [];
  for (const ref of stringArray(asRecord(vs['spec'])?.['gateways'])) {
    if (ref === '' || ref === ISTIO_MESH_GATEWAY) continue;
    const parsed = parseNamespacedName(ref);
    const gateway = lookups.gateway(parsed.namespace === '' ? meta.namespace : parsed.namespace, parsed.name);
    // A Gateway that does not exist (yet) binds nothing, as upstream.
    if (gateway === undefined || !bindsToGateway(vs, meta.namespace, gateway, host)) continue;
    for (const t of gatewayTargets(gateway, lookups, options)) if (!targets.includes(t)) targets.push(t);
  }
  return targets;
}

/**
 * upstream's virtualServiceBindsToGateway (Istio's Server.hosts rules): the VirtualService is
 * exported to the Gateway's namespace, and a server host admits its namespace and matches `host`.
 */
export function bindsToGateway(vs: KubeObject, vsNamespace: string, gateway: KubeObject, host: string): boolean {
  const gwNamespace = readMeta(gateway)?.namespace ?? '';
  const exportTo = stringArray(asRecord(vs['spec'])?.['exportTo']);
  if (exportTo.length > 0 && !exportTo.some((ns) => ns === '*' || ns === gwNamespace || (ns === '.' && gwNamespace === vsNamespace))) return false;
  for (const entry of serverHosts(gateway)) {
    const parts = entry.split('/');
    if (parts.length > 2) continue;
    const namespace = parts.length === 2 ? (parts[0] as string) : '*';
    const server = parts.length === 2 ? (parts[1] as string) : entry;
    if (!(namespace === '*' || namespace === vsNamespace || (namespace === '.' && vsNamespace === gwNamespace))) continue;
    if (server === '*' || server === host) return true;
    if (server.startsWith('*.') && host.endsWith(server.slice(1))) return true;
  }
  return false;
}
