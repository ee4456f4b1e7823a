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
import { FqdnTemplate } from './fqdn-template.ts';
import type { JsonRecord, ObjectMeta, ObjectOrigin } from './object.ts';

export interface TranslateOptions {
  /** `--annotation-filter`: only objects whose annotations match. */
  annotationFilter?: Selector;
  /** `--label-filter`: only objects whose labels match. */
  labelFilter?: Selector;
  /** `--fqdn-template`; a string is compiled on every call, so long-lived callers pass a compiled one. */
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
  /** `--compatibility`: `mate` also reads `zalando.org/dnsname`. */
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
  fqdnTemplate?: string;
}

/** The translation flags out of the resolved configuration, shared by the manifest and Kubernetes sources. */
export function translateFlagsOf(cfg: Config): TranslateFlags {
  return {
    annotationFilter: cfg.annotationFilter,
    labelFilter: cfg.labelFilter,
    fqdnTemplate: cfg.fqdnTemplate,
    combineFqdnAnnotation: cfg.combineFqdnAnnotation,
    ignoreHostnameAnnotation: cfg.ignoreHostnameAnnotation,
    ignoreIngressTLSSpec: cfg.ignoreIngressTLSSpec,
    ignoreIngressRulesSpec: cfg.ignoreIngressRulesSpec,
    publishInternalServices: cfg.publishInternalServices,
    serviceTypeFilter: cfg.serviceTypeFilter,
    compatibility: cfg.compatibility,
    // --default-targets fills in DNSEndpoint entries that have no targets.
    keepEmptyTargets: cfg.defaultTargets.length > 0,
  };
}

export function buildTranslateOptions(flags: TranslateFlags): TranslateOptions {
  const { annotationFilter, labelFilter, fqdnTemplate, ...rest } = flags;
  const options: TranslateOptions = { ...rest };
  if (annotationFilter !== undefined && annotationFilter.trim() !== '') options.annotationFilter = parseSelector(annotationFilter, '--annotation-filter');
  if (labelFilter !== undefined && labelFilter.trim() !== '') options.labelFilter = parseSelector(labelFilter, '--label-filter');
  if (fqdnTemplate !== undefined && fqdnTemplate.trim() !== '') options.fqdnTemplate = FqdnTemplate.compile(fqdnTemplate);
  if (options.defaultTTL !== undefined && (!Number.isInteger(options.defaultTTL) || options.defaultTTL < 0)) {
    throw new ConfigError(`default TTL must be a whole number of seconds, got ${options.defaultTTL}`, '--default-ttl');
  }
  return options;
}

export function templateOf(options: TranslateOptions): FqdnTemplate | undefined {
  const t = options.fqdnTemplate;
  if (t === undefined || t === '') return undefined;
  return typeof t === 'string' ? FqdnTemplate.compile(t) : t;
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
 * Applies the fqdn template as external-dns does: without `combineFqdnAnnotation` its names are
 * only used when the object produced no endpoints of its own.
 */
export function combineWithTemplate(ctx: KindContext, own: Endpoint[], forHostnames: (hostnames: string[]) => Endpoint[]): Endpoint[] {
  if (ctx.template === undefined) return own;
  const combine = ctx.options.combineFqdnAnnotation === true;
  if (!combine && own.length > 0) return own;
  const templated = forHostnames(ctx.template.execute(ctx.obj, ctx.meta));
  return combine ? [...own, ...templated] : templated;
}
