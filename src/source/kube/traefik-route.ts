/**
 * Traefik IngressRoute, IngressRouteTCP and IngressRouteUDP → endpoints, as external-dns's
 * traefik-proxy source: names from the hostname annotation (unless --ignore-hostname-annotation)
 * and, for IngressRoutes and IngressRouteTCPs, from the `Host`, `HostHeader` and `HostSNI` calls of
 * each `spec.routes[].match` rule (read with upstream's two regular expressions, so a rule it reads
 * differently is read the same way here); targets only from the target annotation (a route says
 * nothing about where Traefik is reachable). Then upstream's ApplyTemplates: --fqdn-target-template
 * first, then --fqdn-template with --target-template. The group (traefik.io or the legacy
 * traefik.containo.us) makes no difference to the translation.
 */
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { KubeObject } from '../../kube/resource.ts';
import { templateView, slimMeta } from '../../kube/slim.ts';
import type { SourceProblem } from '../source.ts';
import { isControllerMismatch, parseAnnotations } from '../translate/annotations.ts';
import { endpointsForHostname, finalizeEndpoints, problemFor } from '../translate/hostname.ts';
import { asArray, asRecord, asString, readMeta, refOf } from '../translate/object.ts';
import { runTemplate, templateOf } from '../translate/options.ts';
import type { TranslateOptions } from '../translate/options.ts';
import { commonOf } from '../translate/service.ts';
import { applyTemplates } from '../translate/apply-templates.ts';

export type TraefikRouteKind = 'IngressRoute' | 'IngressRouteTCP' | 'IngressRouteUDP';

/**
 * upstream's traefikHostExtractor and traefikValueProcessor. Go's `\s` is `[\t\n\f\r ]` and its `.`
 * is anything but a newline, which JavaScript's `\s` and `.` are not (they differ on \v, \r and the
 * Unicode spaces and line separators), so both are spelled out.
 */
const HOST_EXTRACTOR = /(?:HostSNI|HostHeader|Host)[\t\n\f\r ]*\([\t\n\f\r ]*(`[^\n]*?`)[\t\n\f\r ]*\)/g;
const VALUE_PROCESSOR = /`([^,`]+)`/g;

/** Hostnames of one `match` rule, in order, as upstream reads them (`*` and empty values left out). */
export function hostsOfMatch(match: string): string[] {
  const out: string[] = [];
  for (const entry of match.match(HOST_EXTRACTOR) ?? []) {
    for (const value of entry.match(VALUE_PROCESSOR) ?? []) {
      // strings.Trim(host, "`"): the regex guarantees one backtick at each end.
      const host = value.replace(/^`+|`+$/g, '');
      // Host(`*`) and HostSNI(`*`) (TLS passthrough) name no host.
      if (host !== '*' && host !== '') out.push(host);
    }
  }
  return out;
}

/**
 * The cache keeps only what the translation reads: metadata and each route's `match`; services,
 * middlewares and TLS options are dropped. With a template, the object is kept whole (but managed
 * fields), as a template may read any field.
 */
export function slimTraefikRoute(raw: Record<string, unknown>): KubeObject {
  const obj: KubeObject = { apiVersion: String(raw['apiVersion'] ?? ''), kind: String(raw['kind'] ?? ''), metadata: slimMeta(raw) };
  const routes = asArray(asRecord(raw['spec'])?.['routes']).map((r) => {
    const match = asRecord(r)?.['match'];
    return typeof match === 'string' ? { match } : {};
  });
  if (routes.length > 0) obj['spec'] = { routes };
  return obj;
}

export function traefikRouteView(fqdnTemplate: TranslateOptions['fqdnTemplate']): (raw: Record<string, unknown>) => KubeObject {
  return fqdnTemplate === undefined ? slimTraefikRoute : templateView;
}

export interface TraefikTranslation {
  endpoints: Endpoint[];
  problems: SourceProblem[];
  heldResource?: string;
}

/** One route object of `kind` (its group is the reflector's business, not the translation's). */
export function translateTraefikRoute(kind: TraefikRouteKind, obj: KubeObject, options: TranslateOptions): TraefikTranslation {
  const problems: SourceProblem[] = [];
  const meta = readMeta(obj);
  if (meta === undefined) return { endpoints: [], problems };
  // upstream's indexer: annotation filter, label filter, controller annotation.
  if (options.annotationFilter !== undefined && !options.annotationFilter.matches(meta.annotations)) return { endpoints: [], problems };
  if (options.labelFilter !== undefined && !options.labelFilter.matches(meta.labels)) return { endpoints: [], problems };
  if (isControllerMismatch(meta.annotations, options.annotationPrefix)) return { endpoints: [], problems };
  const ref = refOf({ ...meta, kind });
  const ann = parseAnnotations(meta.annotations, options.defaultTTL ?? 0, (m) => problems.push(problemFor(ref, m)), options.annotationPrefix);
  const common = commonOf(ann, `${kind.toLowerCase()}/${meta.namespace}/${meta.name}`);
  const hostnames = options.ignoreHostnameAnnotation === true ? [] : [...ann.hostnames];
  if (kind !== 'IngressRouteUDP') {
    for (const route of asArray(asRecord(obj['spec'])?.['routes'])) {
      const match = asString(asRecord(route)?.['match']);
      if (match !== undefined) hostnames.push(...hostsOfMatch(match));
    }
  }
  const own = hostnames.flatMap((h) => endpointsForHostname(h, ann.targets, common));
  const template = templateOf(options, kind);
  const candidates =
    template === undefined
      ? own
      : runTemplate(
          () => applyTemplates({ template, combine: options.combineFqdnAnnotation === true, obj, meta: { ...meta, kind }, resource: common.resource }, own),
          (m) => problems.push(problemFor(ref, m)),
        );
  if (candidates === undefined) return { endpoints: [], problems, heldResource: common.resource };
  return { endpoints: finalizeEndpoints(ref, candidates, problems), problems };
}
