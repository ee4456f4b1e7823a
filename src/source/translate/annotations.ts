/**
 * The external-dns annotation vocabulary. With the default `--annotation-prefix`
 * (`external-dns.kubernetes.io/`, external-dns's default since 0.22) the historical
 * `external-dns.alpha.kubernetes.io/` keys are read too, as every external-dns before 0.22 read
 * them; when an object carries the same key under both, the newer prefix wins because it is the one
 * a user adds deliberately today. Any other prefix is read alone: two instances with different
 * prefixes (split-horizon DNS) must never act on each other's annotations.
 */
import type { ProviderSpecificProperty } from '../../endpoint/endpoint.ts';

export const ALPHA_PREFIX = 'external-dns.alpha.kubernetes.io/';
export const STABLE_PREFIX = 'external-dns.kubernetes.io/';
/** `--annotation-prefix`'s default, as external-dns ≥ 0.22 has it. */
export const DEFAULT_ANNOTATION_PREFIX = STABLE_PREFIX;
const DEFAULT_PREFIXES: readonly string[] = [STABLE_PREFIX, ALPHA_PREFIX];

/** The prefixes read for `--annotation-prefix`, the one that wins first. */
export function annotationPrefixes(prefix: string | undefined): readonly string[] {
  return prefix === undefined || prefix === DEFAULT_ANNOTATION_PREFIX ? DEFAULT_PREFIXES : [prefix];
}

/** Objects whose controller annotation has any other value belong to another controller. */
export const CONTROLLER_VALUE = 'dns-controller';
/** Mate's hostname annotation, honoured in `mate` compatibility mode. */
export const MATE_HOSTNAME_KEY = 'zalando.org/dnsname';

/** `alias` values that ask for an alias: both families, or only IPv4 (`A`) or IPv6 (`AAAA`). */
export const ALIAS_VALUES: ReadonlySet<string> = new Set(['true', 'A', 'AAAA']);

const TTL_MIN = 1;
const TTL_MAX = 2147483647;

// Cloudflare settings keep their full annotation name as the property name, as external-dns does.
const CLOUDFLARE_KEYS: readonly string[] = [
  'cloudflare-proxied',
  'cloudflare-custom-hostname',
  'cloudflare-region-key',
  'cloudflare-record-comment',
  'cloudflare-tags',
];
const PREFIXED_PROVIDERS: ReadonlyArray<readonly [string, string]> = [
  ['aws-', 'aws/'],
  ['scw-', 'scw/'],
  ['webhook-', 'webhook/'],
  ['coredns-', 'coredns/'],
];
/** Azure record-set tags, `key=value,…`: the azure provider turns them into record-set metadata. */
const AZURE_TAGS_KEY = 'azure-tags';
const AZURE_TAGS_PROPERTY = 'azure/tags';

export interface ParsedAnnotations {
  hostnames: string[];
  internalHostnames: string[];
  /** Targets from the `target` annotation; empty when not set. */
  targets: string[];
  /** Seconds; the default TTL when the annotation is missing or invalid. */
  ttl: number;
  controller: string | undefined;
  setIdentifier: string;
  providerSpecific: ProviderSpecificProperty[];
  access: string | undefined;
  endpointsType: string | undefined;
  ingressHostnameSource: string | undefined;
}

/** The value of an external-dns annotation under the configured prefix (either prefix by default). */
export function annotationValue(annotations: Readonly<Record<string, string>>, key: string, annotationPrefix?: string): string | undefined {
  for (const prefix of annotationPrefixes(annotationPrefix)) {
    const value = annotations[prefix + key];
    if (value !== undefined) return value;
  }
  return undefined;
}

/** Comma-separated names with spaces removed; empty items dropped. */
export function splitHostnames(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .replaceAll(/\s+/g, '')
    .split(',')
    .filter((h) => h !== '');
}

export function isControllerMismatch(annotations: Readonly<Record<string, string>>, annotationPrefix?: string): boolean {
  const controller = annotationValue(annotations, 'controller', annotationPrefix);
  return controller !== undefined && controller !== CONTROLLER_VALUE;
}

/**
 * Reads every annotation the translators use. Bad values are reported through `problem` and
 * replaced by their default, so one typo never hides the rest of the object.
 */
export function parseAnnotations(
  annotations: Readonly<Record<string, string>>,
  defaultTTL: number,
  problem: (message: string) => void,
  annotationPrefix?: string,
): ParsedAnnotations {
  const value = (key: string): string | undefined => annotationValue(annotations, key, annotationPrefix);
  let ttl = defaultTTL;
  const ttlText = value('ttl');
  if (ttlText !== undefined) {
    try {
      ttl = parseTTL(ttlText);
    } catch (err) {
      problem(`${(err as Error).message}; using ${defaultTTL === 0 ? 'the provider default' : `${defaultTTL}s`}`);
    }
  }
  return {
    hostnames: splitHostnames(value('hostname')),
    internalHostnames: splitHostnames(value('internal-hostname')),
    targets: splitHostnames(value('target')).map((t) => (t.endsWith('.') ? t.slice(0, -1) : t)),
    ttl,
    controller: value('controller'),
    setIdentifier: value('set-identifier') ?? '',
    providerSpecific: providerSpecificFromAnnotations(annotations, annotationPrefix),
    access: value('access'),
    endpointsType: value('endpoints-type'),
    ingressHostnameSource: value('ingress-hostname-source'),
  };
}

/**
 * Provider-specific properties named as external-dns names them (`aws/weight`, `coredns/group`,
 * `azure/tags`, `alias`, `record-type`, …), sorted by name. `alias` keeps `true`, `A` and `AAAA`
 * (an alias of one address family, as external-dns documents for Route53); any other value is no
 * alias.
 */
export function providerSpecificFromAnnotations(annotations: Readonly<Record<string, string>>, annotationPrefix?: string): ProviderSpecificProperty[] {
  const props = new Map<string, string>();
  const prefixes = annotationPrefixes(annotationPrefix);
  // Cloudflare properties are named after the annotation: the alpha name by default (what the
  // Cloudflare webhooks read), the custom prefix's name otherwise, as external-dns names them.
  const cloudflareName = prefixes.length > 1 ? ALPHA_PREFIX : (prefixes[0] ?? ALPHA_PREFIX);
  // The winning prefix last, so that it overwrites the others.
  for (const prefix of [...prefixes].reverse()) {
    for (const [key, value] of Object.entries(annotations)) {
      if (!key.startsWith(prefix)) continue;
      const attr = key.slice(prefix.length);
      if (attr === 'alias') {
        if (ALIAS_VALUES.has(value)) props.set('alias', value);
        continue;
      }
      if (attr === 'record-type') {
        props.set('record-type', value);
        continue;
      }
      if (attr === AZURE_TAGS_KEY) {
        // Passed on as written: the azure provider parses it (adjustEndpoints), as external-dns does.
        props.set(AZURE_TAGS_PROPERTY, value);
        continue;
      }
      const provider = PREFIXED_PROVIDERS.find(([p]) => attr.startsWith(p) && attr.length > p.length);
      if (provider !== undefined) {
        props.set(provider[1] + attr.slice(provider[0].length), value);
      } else if (CLOUDFLARE_KEYS.includes(attr)) {
        props.set(cloudflareName + attr, value);
      }
    }
  }
  return [...props.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, value]) => ({ name, value }));
}

/**
 * A TTL in whole seconds from either plain seconds (`300`) or a Go duration (`5m`, `1h30m`,
 * `1.5s` → 1); must be within 1..2^31-1. Throws with a message naming the bad value.
 */
export function parseTTL(text: string): number {
  const trimmed = text.trim();
  let seconds: number;
  if (/^[+-]?\d+$/.test(trimmed)) {
    seconds = Number(trimmed);
  } else {
    const parsed = parseGoDurationSeconds(trimmed);
    if (parsed === undefined) throw new Error(`TTL ${JSON.stringify(text)} is neither seconds nor a duration like "5m"`);
    seconds = parsed;
  }
  if (!Number.isSafeInteger(seconds) || seconds < TTL_MIN || seconds > TTL_MAX) {
    throw new Error(`TTL ${JSON.stringify(text)} must be between ${TTL_MIN} and ${TTL_MAX} seconds`);
  }
  return seconds;
}

const UNIT_NANOS: Readonly<Record<string, number>> = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Go's time.ParseDuration grammar, truncated to whole seconds; undefined when malformed. */
export function parseGoDurationSeconds(text: string): number | undefined {
  const m = /^([+-]?)((?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+)$/.exec(text);
  if (m === null) return undefined;
  let nanos = 0;
  for (const part of (m[2] ?? '').matchAll(/(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    nanos += Number(part[1]) * (UNIT_NANOS[part[2] ?? ''] ?? 0);
  }
  const seconds = Math.trunc(Math.round(nanos) / 1e9);
  return m[1] === '-' ? -seconds : seconds;
}
