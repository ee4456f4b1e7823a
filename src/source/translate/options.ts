/**
 * Options shared by every translator, and the per-object context they receive. Options come from
 * flags with external-dns names; `buildTranslateOptions` compiles the textual ones once so bad
 * flags fail at start-up with a ConfigError naming the flag.
 */
import type { Config } from '../../config/config.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { ConfigError } from '../../errors.ts';
import { parseSelector } from '../selector.ts';
import type { Selector } from '../selector.ts';
import type { ObjectRef, SourceProblem } from '../source.ts';
import { FqdnTemplate, TemplateExecutionError } from './fqdn-template.ts';
import { endpointsForHostname } from './hostname.ts';
import type { JsonRecord, ObjectMeta, ObjectOrigin } from './object.ts';

export interface TranslateOptions {
  /** `--annotation-filter`: only objects whose annotations match. */
  annotationFilter?: Selector;
  /** `--label-filter`: only objects whose labels match. */
  labelFilter?: Selector;
  /**
   * `--fqdn-template` (with `--target-template` and `--fqdn-target-template` when compiled from
   * flags); a string is compiled on every call, so long-lived callers pass a compiled one.
   */
  fqdnTemplate?: string | FqdnTemplate;
  /** `--combine-fqdn-annotation`: template names are added to annotated ones instead of being a fallback. */
  combineFqdnAnnotation?: boolean;
  /** `--ignore-hostname-annotation`. */
  ignoreHostnameAnnotation?: boolean;
  /** TTL in seconds when an object sets none; 0 leaves it to the provider. */
  defaultTTL?: number;
  /** `--ignore-ingress-tls-spec`. */
  ignoreIngressTLSSpec?: boolean;
  /** `--ignore-ingress-rules-spec`. */
  ignoreIngressRulesSpec?: boolean;
  /** `--publish-internal-services`: ClusterIP services get their cluster IP as target. */
  publishInternalServices?: boolean;
  /** `--service-type-filter`: only these service types (empty: all). */
  serviceTypeFilter?: readonly string[];
  /**
   * `--annotation-prefix`: the prefix of every external-dns annotation key; undefined or the default
   * reads both `external-dns.kubernetes.io/` and `external-dns.alpha.kubernetes.io/`.
   */
  annotationPrefix?: string;
  /** `--compatibility`: also read the annotations of mate, molecule or the kOps dns-controller. */
  compatibility?: string;
  /** `--publish-host-ip`: headless Services publish their Pods' host IPs (Kubernetes service source). */
  publishHostIP?: boolean;
  /** `--always-publish-not-ready-addresses`: headless Services publish not-ready endpoints too. */
  alwaysPublishNotReadyAddresses?: boolean;
  /** `--expose-internal-ipv6`: node targets include the nodes' InternalIP IPv6 addresses beside the external ones. */
  exposeInternalIPv6?: boolean;
  /** `--exclude-unschedulable` (external-dns's default: true): NodePort targets skip cordoned nodes. */
  excludeUnschedulable?: boolean;
  /**
   * `--resolve-service-load-balancer-hostname`: when set, each hostname in a LoadBalancer Service's
   * `status.loadBalancer.ingress` is replaced by its addresses (A/AAAA instead of a CNAME). The
   * Kubernetes service source looks the names up before translating and passes what it knows, so
   * translation stays synchronous and pure.
   */
  loadBalancerAddresses?: (hostname: string) => LookedUpAddresses;
  /**
   * Let DNSEndpoint A/AAAA/CNAME entries without targets through (name checked only) so that
   * `--default-targets` can fill them in, as external-dns does; otherwise they are problems.
   */
  keepEmptyTargets?: boolean;
}

/** The addresses of one load-balancer hostname, as far as they are known. */
export interface LookedUpAddresses {
  addresses: readonly string[];
  /** Why there are none (or only older ones); reported as a problem of the Service. */
  problem?: string;
}

/** The textual form of the options, as the CLI holds them. */
export interface TranslateFlags extends Omit<TranslateOptions, 'annotationFilter' | 'labelFilter' | 'fqdnTemplate' | 'loadBalancerAddresses'> {
  annotationFilter?: string;
  labelFilter?: string;
  /** `--fqdn-template` values (repeatable; one value may hold several templates separated by commas). */
  fqdnTemplate?: string | readonly string[];
  /** `--target-template` values. */
  targetTemplate?: readonly string[];
  /** `--fqdn-target-template` values. */
  fqdnTargetTemplate?: readonly string[];
}

/** The translation flags out of the resolved configuration, shared by the manifest and Kubernetes sources. */
export function translateFlagsOf(cfg: Config): TranslateFlags {
  return {
    annotationFilter: cfg.annotationFilter,
    labelFilter: cfg.labelFilter,
    fqdnTemplate: cfg.fqdnTemplates,
    targetTemplate: cfg.targetTemplates,
    fqdnTargetTemplate: cfg.fqdnTargetTemplates,
    combineFqdnAnnotation: cfg.combineFqdnAnnotation,
    ignoreHostnameAnnotation: cfg.ignoreHostnameAnnotation,
    ignoreIngressTLSSpec: cfg.ignoreIngressTLSSpec,
    ignoreIngressRulesSpec: cfg.ignoreIngressRulesSpec,
    publishInternalServices: cfg.publishInternalServices,
    serviceTypeFilter: cfg.serviceTypeFilter,
    compatibility: cfg.compatibility,
    // Commands whose table lacks the flag (none today) read the default prefixes.
    ...(cfg.flags.has('annotation-prefix') ? { annotationPrefix: cfg.flags.str('annotation-prefix') } : {}),
    // --default-targets fills in DNSEndpoint entries that have no targets.
    keepEmptyTargets: cfg.defaultTargets.length > 0,
  };
}

/** external-dns's checks, in its words: an empty prefix would read bare keys such as `hostname`. */
function checkAnnotationPrefix(prefix: string | undefined): void {
  if (prefix === undefined) return;
  if (prefix === '') throw new ConfigError('--annotation-prefix cannot be empty', '--annotation-prefix');
  if (!prefix.endsWith('/')) throw new ConfigError("--annotation-prefix must end with '/'", '--annotation-prefix');
}

export function buildTranslateOptions(flags: TranslateFlags): TranslateOptions {
  const { annotationFilter, labelFilter, fqdnTemplate, targetTemplate, fqdnTargetTemplate, ...rest } = flags;
  const options: TranslateOptions = { ...rest };
  checkAnnotationPrefix(rest.annotationPrefix);
  if (annotationFilter !== undefined && annotationFilter.trim() !== '') options.annotationFilter = parseSelector(annotationFilter, '--annotation-filter');
  if (labelFilter !== undefined && labelFilter.trim() !== '') options.labelFilter = parseSelector(labelFilter, '--label-filter');
  const templates = FqdnTemplate.fromFlags({
    fqdn: typeof fqdnTemplate === 'string' ? [fqdnTemplate] : fqdnTemplate,
    target: targetTemplate,
    fqdnTarget: fqdnTargetTemplate,
  });
  if (templates !== undefined) options.fqdnTemplate = templates;
  if (options.defaultTTL !== undefined && (!Number.isInteger(options.defaultTTL) || options.defaultTTL < 0)) {
    throw new ConfigError(`default TTL must be a whole number of seconds, got ${options.defaultTTL}`, '--default-ttl');
  }
  return options;
}

/** external-dns's source name for a kind, which `isSource` answers for. */
const SOURCE_OF_KIND: Readonly<Record<string, string>> = {
  Service: 'service',
  Ingress: 'ingress',
  Route: 'openshift-route',
  Pod: 'pod',
  HTTPRoute: 'gateway-httproute',
  GRPCRoute: 'gateway-grpcroute',
  TLSRoute: 'gateway-tlsroute',
  TCPRoute: 'gateway-tcproute',
  UDPRoute: 'gateway-udproute',
  DNSEndpoint: 'crd',
  Node: 'node',
  IngressRoute: 'traefik-proxy',
  IngressRouteTCP: 'traefik-proxy',
  IngressRouteUDP: 'traefik-proxy',
  RouteGroup: 'skipper-routegroup',
};

/** The compiled templates, with `isSource` bound to the external-dns source of `kind` when given. */
export function templateOf(options: TranslateOptions, kind?: string): FqdnTemplate | undefined {
  const t = options.fqdnTemplate;
  if (t === undefined || t === '') return undefined;
  const compiled = typeof t === 'string' ? FqdnTemplate.compile(t) : t;
  const source = kind === undefined ? undefined : SOURCE_OF_KIND[kind];
  return source === undefined ? compiled : compiled.withSource(source);
}

/** How a problem about a template that failed on an object ends: what happens to its records. */
export const TEMPLATE_FAILED_SUFFIX = "; the object's records are kept as they are until the template works on it";

/**
 * Runs a template for one object; an execution error becomes a problem and undefined. The caller
 * then returns no endpoints and marks the object held (`heldResource`): its other names would be a
 * partial, misleading answer, and its records must not be deleted for a template's failure.
 * Other errors propagate.
 */
export function runTemplate<T>(run: () => T, problem: (message: string) => void): T | undefined {
  try {
    return run();
  } catch (err) {
    if (!(err instanceof TemplateExecutionError)) throw err;
    problem(`${err.message}${TEMPLATE_FAILED_SUFFIX}`);
    return undefined;
  }
}

/** Everything a kind translator needs about one object. */
export interface KindContext {
  obj: JsonRecord;
  meta: ObjectMeta;
  ref: ObjectRef;
  origin: ObjectOrigin;
  options: TranslateOptions;
  template: FqdnTemplate | undefined;
  problems: SourceProblem[];
}

/**
 * external-dns's CombineWithEndpoints: with any template flag set, the templated endpoints replace
 * an object's own when it has none, or are added to them with `--combine-fqdn-annotation`.
 */
export function combineTemplated(ctx: KindContext, own: Endpoint[], templated: () => Endpoint[]): Endpoint[] {
  if (ctx.template === undefined) return own;
  const combine = ctx.options.combineFqdnAnnotation === true;
  if (!combine && own.length > 0) return own;
  return combine ? [...own, ...templated()] : templated();
}

/** Applies `--fqdn-template` as external-dns does: its names get the object's own targets. */
export function combineWithTemplate(ctx: KindContext, own: Endpoint[], forHostnames: (hostnames: string[]) => Endpoint[]): Endpoint[] {
  const template = ctx.template;
  return template === undefined ? own : combineTemplated(ctx, own, () => forHostnames(template.execute(ctx.obj, ctx.meta)));
}

/** `--fqdn-target-template`'s `host:target` pairs as endpoints, merged per host and type. */
export function fqdnTargetEndpoints(template: FqdnTemplate, obj: JsonRecord, meta: ObjectMeta, resource: string): Endpoint[] {
  const byHost = new Map<string, string[]>();
  for (const { host, target } of template.hostTargets(obj, meta)) byHost.set(host, [...(byHost.get(host) ?? []), target]);
  return [...byHost].flatMap(([host, targets]) => endpointsForHostname(host, targets, { ttl: 0, setIdentifier: '', providerSpecific: [], resource }));
}

/** Applies `--fqdn-target-template` as external-dns's ApplyFQDNTargetTemplate (Services). */
export function combineWithFqdnTargetTemplate(ctx: KindContext, own: Endpoint[], resource: string): Endpoint[] {
  const template = ctx.template;
  if (template === undefined) return own;
  return combineTemplated(ctx, own, () => fqdnTargetEndpoints(template, ctx.obj, ctx.meta, resource));
}
