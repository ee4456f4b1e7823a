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
  /**
   * Let DNSEndpoint A/AAAA/CNAME entries without targets through (name checked only) so that
   * `--default-targets` can fill them in, as external-dns does; otherwise they are problems.
   */
  keepEmptyTargets?: boolean;
}

/** The textual form of the options, as the CLI holds them. */
export interface TranslateFlags extends Omit<TranslateOptions, 'annotationFilter' | 'labelFilter' | 'fqdnTemplate'> {
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
    // Commands whose table lacks the flag (none today) read the default prefixes.
    ...(cfg.flags.has('annotation-prefix') ? { annotationPrefix: cfg.flags.str('annotation-prefix') } : {}),
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
