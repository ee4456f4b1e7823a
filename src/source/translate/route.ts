/**
 * OpenShift Route → endpoints, as external-dns's openshift-route source: the name is the `host`
 * the first router that admitted the route (`status.ingress[]` with `Admitted=True`, narrowed to
 * one router by `--openshift-router-name`) reports — a router fills it in for routes created
 * without `spec.host` — plus the hostname annotation (unless `--ignore-hostname-annotation`), then
 * the fqdn template; targets from the target annotation, else that router's canonical hostname.
 * A router that has not admitted the route is not serving it, so it must not receive its traffic.
 */
import { TemplateExecutionError } from './fqdn-template.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { SourceProblem } from '../source.ts';
import { isControllerMismatch, parseAnnotations } from './annotations.ts';
import { endpointsForHostname, finalizeEndpoints, problemFor, uniqueHostnames } from './hostname.ts';
import { asArray, asRecord, asString, path, readMeta, refOf, resourceLabelOf, stringAt } from './object.ts';
import { TEMPLATE_FAILED_SUFFIX, combineWithTemplate, templateOf } from './options.ts';
import type { KindContext, TranslateOptions } from './options.ts';
import { commonOf } from './service.ts';

export const ROUTE_KIND = 'Route';
export const ROUTE_GROUP = 'route.openshift.io';
/** Type of the `status.ingress[].conditions[]` entry a router sets once it serves the route. */
export const ROUTE_ADMITTED_CONDITION = 'Admitted';

export interface RouteTranslation {
  endpoints: Endpoint[];
  problems: SourceProblem[];
  /** As TranslateResult's: set when the route could not be translated. */
  heldResource?: string;
}

/** True when a router's `status.ingress[]` entry says it admitted the route. */
export function routerAdmitted(ingress: unknown): boolean {
  return asArray(path(ingress, 'conditions')).some((c) => stringAt(c, 'type') === ROUTE_ADMITTED_CONDITION && stringAt(c, 'status') === 'True');
}

/** The admitting router's entry: its canonical hostname (the target) and the host it serves. */
export interface RouterStatus {
  targets: string[];
  host: string;
}

/**
 * The first admitting router (of `routerName` when not empty): at most one target, since several
 * would be competing CNAMEs for one name.
 */
export function routeStatus(obj: unknown, routerName = ''): RouterStatus {
  for (const ingress of asArray(path(obj, 'status', 'ingress'))) {
    const canonical = stringAt(ingress, 'routerCanonicalHostname') ?? '';
    if (canonical === '' || !routerAdmitted(ingress)) continue;
    if (routerName === '' || stringAt(ingress, 'routerName') === routerName) return { targets: [canonical], host: stringAt(ingress, 'host') ?? '' };
  }
  return { targets: [], host: '' };
}

export function routeStatusTargets(obj: unknown, routerName = ''): string[] {
  return routeStatus(obj, routerName).targets;
}

/** Endpoints of one Route before validation; the template applies as for the other kinds. */
export function routeCandidates(ctx: KindContext, routerName = ''): Endpoint[] {
  const { obj, meta, options } = ctx;
  const ann = parseAnnotations(
    meta.annotations,
    options.defaultTTL ?? 0,
    (message) => ctx.problems.push(problemFor(ctx.ref, message)),
    options.annotationPrefix,
  );
  const common = commonOf(ann, `route/${meta.namespace}/${meta.name}`);
  const status = routeStatus(obj, routerName);
  const targets = ann.targets.length > 0 ? ann.targets : status.targets;
  const forHostnames = (hostnames: string[]): Endpoint[] => uniqueHostnames(hostnames).flatMap((h) => endpointsForHostname(h, targets, common));
  // As upstream, the name is the admitting router's status host, not spec.host: a router fills it
  // in for routes created without one, and a route no router admitted is served by none.
  const host = status.host;
  // As upstream, --ignore-hostname-annotation drops only the annotation, never the route's host.
  const hostnames = [...(host === '' ? [] : [host]), ...(options.ignoreHostnameAnnotation === true ? [] : ann.hostnames)];
  return combineWithTemplate(ctx, forHostnames(hostnames), forHostnames);
}

export function isRouteApiVersion(apiVersion: string): boolean {
  return apiVersion === '' || apiVersion.startsWith(`${ROUTE_GROUP}/`);
}

/**
 * One Route with the filters every source applies (annotation, label, controller annotation).
 * Kept apart from translateObject because the router name is this source's own setting.
 */
export function translateRoute(input: unknown, options: TranslateOptions, routerName = ''): RouteTranslation {
  const problems: SourceProblem[] = [];
  const obj = asRecord(input);
  const meta = readMeta(input);
  if (obj === undefined || meta === undefined || meta.kind !== ROUTE_KIND || !isRouteApiVersion(asString(obj['apiVersion']) ?? ''))
    return { endpoints: [], problems };
  if (options.annotationFilter !== undefined && !options.annotationFilter.matches(meta.annotations)) return { endpoints: [], problems };
  if (options.labelFilter !== undefined && !options.labelFilter.matches(meta.labels)) return { endpoints: [], problems };
  if (isControllerMismatch(meta.annotations, options.annotationPrefix)) return { endpoints: [], problems };
  const ref = refOf(meta);
  const ctx: KindContext = { obj, meta, ref, origin: {}, options, template: templateOf(options, meta.kind), problems };
  let candidates: Endpoint[];
  try {
    candidates = routeCandidates(ctx, routerName);
  } catch (err) {
    // As in translateObject: the route's records are held, and one odd object must not stop a sync.
    const message = err instanceof TemplateExecutionError ? `${err.message}${TEMPLATE_FAILED_SUFFIX}` : `could not be translated: ${(err as Error).message}`;
    problems.push(problemFor(ref, message));
    return { endpoints: [], problems, heldResource: resourceLabelOf(meta) };
  }
  return { endpoints: finalizeEndpoints(ref, candidates, problems), problems };
}
