/**
 * Node → endpoints, as external-dns's node source: the name is the Node's own name (unless a
 * `--fqdn-template` or `--fqdn-target-template` replaces it; `--combine-fqdn-annotation` keeps
 * both), the targets the `target` annotation or else the Node's addresses: every ExternalIP, with
 * `--expose-internal-ipv6` also the IPv6 InternalIPs, and every InternalIP when there is no
 * ExternalIP. Upstream reads neither the hostname annotation nor the set-identifier and
 * provider-specific ones on Nodes; the TTL and controller annotations apply.
 */
import { isIPv6 } from 'node:net';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { SourceProblem } from '../source.ts';
import { isControllerMismatch, parseAnnotations } from './annotations.ts';
import { TemplateExecutionError } from './fqdn-template.ts';
import { endpointsForHostname, finalizeEndpoints, problemFor, uniqueHostnames } from './hostname.ts';
import type { EndpointCommon } from './hostname.ts';
import { asArray, asRecord, path, readMeta, stringAt } from './object.ts';
import type { JsonRecord } from './object.ts';
import { TEMPLATE_FAILED_SUFFIX, combineWithFqdnTargetTemplate, combineWithTemplate, templateOf } from './options.ts';
import type { KindContext, TranslateOptions } from './options.ts';

export const NODE_KIND = 'Node';

export interface NodeTranslation {
  endpoints: Endpoint[];
  problems: SourceProblem[];
  /** As TranslateResult's: set when the Node could not be translated. */
  heldResource?: string;
}

/** A Node without any ExternalIP or InternalIP: upstream fails the whole source on it. */
class NoNodeAddressError extends Error {}

/** `node/<name>`: Nodes have no namespace. */
export function nodeResourceLabel(name: string): string {
  return `node/${name}`;
}

/** external-dns's nodeAddresses (k8s GetPreferredNodeAddress, plus IPv6 InternalIPs on request). */
export function nodeAddresses(node: unknown, exposeInternalIPv6: boolean): string[] {
  const external: string[] = [];
  const internal: string[] = [];
  for (const a of asArray(path(node, 'status', 'addresses'))) {
    const address = stringAt(a, 'address');
    if (address === undefined || address === '') continue;
    const type = stringAt(a, 'type');
    if (type === 'ExternalIP') external.push(address);
    else if (type === 'InternalIP') internal.push(address);
  }
  if (external.length > 0) return exposeInternalIPv6 ? [...external, ...internal.filter((ip) => isIPv6(ip))] : external;
  return internal;
}

export function isUnschedulable(node: unknown): boolean {
  return asRecord(path(node, 'spec'))?.['unschedulable'] === true;
}

/** Endpoints of one Node before validation. */
export function nodeCandidates(ctx: KindContext): Endpoint[] {
  const { obj, meta, options } = ctx;
  const ann = parseAnnotations(
    meta.annotations,
    options.defaultTTL ?? 0,
    (message) => ctx.problems.push(problemFor(ctx.ref, message)),
    options.annotationPrefix,
  );
  const common: EndpointCommon = { ttl: ann.ttl, setIdentifier: '', providerSpecific: [], resource: nodeResourceLabel(meta.name) };
  const forHostnames = (hostnames: string[]): Endpoint[] => {
    // As upstream, the addresses are read (and their absence is an error) whenever names are asked for.
    const targets = ann.targets.length > 0 ? ann.targets : nodeAddresses(obj, options.exposeInternalIPv6 === true);
    if (targets.length === 0) throw new NoNodeAddressError(`could not find node address for ${meta.name}`);
    return uniqueHostnames(hostnames).flatMap((h) => endpointsForHostname(h, targets, common));
  };
  const template = ctx.template;
  // The Node's own name unless a name template replaces it (a --target-template alone does not).
  const own = template === undefined || !template.hasDnsNameTemplate || options.combineFqdnAnnotation === true ? forHostnames([meta.name]) : [];
  return combineWithTemplate(ctx, combineWithFqdnTargetTemplate(ctx, own, common.resource), forHostnames);
}

function filteredOut(meta: NonNullable<ReturnType<typeof readMeta>>, obj: JsonRecord, options: TranslateOptions): boolean {
  if (options.annotationFilter !== undefined && !options.annotationFilter.matches(meta.annotations)) return true;
  if (options.labelFilter !== undefined && !options.labelFilter.matches(meta.labels)) return true;
  if (isControllerMismatch(meta.annotations, options.annotationPrefix)) return true;
  // --exclude-unschedulable (on by default, as upstream): cordoned Nodes publish nothing.
  return options.excludeUnschedulable !== false && isUnschedulable(obj);
}

/**
 * One Node with the filters every source applies (annotation, label, controller annotation) and
 * `--exclude-unschedulable`. A Node without addresses, or one a template fails on, is a problem
 * and has its records held: upstream fails the whole source then, so none of its records change.
 */
export function translateNode(input: unknown, options: TranslateOptions): NodeTranslation {
  const problems: SourceProblem[] = [];
  const obj = asRecord(input);
  const parsed = readMeta(input);
  if (obj === undefined || parsed === undefined || parsed.kind !== NODE_KIND) return { endpoints: [], problems };
  // Nodes are cluster-scoped: no namespace in refs, problems or the resource label.
  const meta = { ...parsed, namespace: '' };
  if (filteredOut(meta, obj, options)) return { endpoints: [], problems };
  const ref = { kind: NODE_KIND, namespace: '', name: meta.name };
  const ctx: KindContext = { obj, meta, ref, origin: {}, options, template: templateOf(options, NODE_KIND), problems };
  let candidates: Endpoint[];
  try {
    candidates = nodeCandidates(ctx);
  } catch (err) {
    const message =
      err instanceof TemplateExecutionError
        ? `${err.message}${TEMPLATE_FAILED_SUFFIX}`
        : err instanceof NoNodeAddressError
          ? `${err.message}: it has no ExternalIP or InternalIP address (and no target annotation); its records are kept as they are`
          : `could not be translated: ${(err as Error).message}`;
    problems.push(problemFor(ref, message));
    return { endpoints: [], problems, heldResource: nodeResourceLabel(meta.name) };
  }
  return { endpoints: finalizeEndpoints(ref, candidates, problems), problems };
}
