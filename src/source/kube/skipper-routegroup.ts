/**
 * The `skipper-routegroup` source, as external-dns's source/skipper_routegroup.go: Skipper
 * RouteGroups (`zalando.org/v1`, or --skipper-routegroup-groupversion) publish `spec.hosts` and the
 * `hostname` annotation's names (unless --ignore-hostname-annotation) at the `target` annotation's
 * targets or else `status.loadBalancer.routeGroup` IPs and hostnames. --annotation-filter,
 * --label-filter and the `controller` annotation select objects; --fqdn-template names are added
 * (--combine-fqdn-annotation) or used when the RouteGroup has none. Upstream lists RouteGroups over
 * plain HTTP on every sync; Hostwarden watches them like its other sources (same objects, same RBAC).
 */
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { ConfigError } from '../../errors.ts';
import type { KubeObject, KubeResource } from '../../kube/resource.ts';
import { ROUTEGROUPS } from '../../kube/resource.ts';
import { routeGroupStatusList, slimRouteGroup } from '../../kube/slim-ingress-crds.ts';
import type { SourceProblem } from '../source.ts';
import { isControllerMismatch, parseAnnotations } from '../translate/annotations.ts';
import { endpointsForHostname, finalizeEndpoints, problemFor } from '../translate/hostname.ts';
import { asArray, asRecord, readMeta, refOf } from '../translate/object.ts';
import { combineTemplated, runTemplate, templateOf } from '../translate/options.ts';
import type { KindContext, TranslateOptions } from '../translate/options.ts';
import { commonOf } from '../translate/service.ts';
import { KubeObjectSource } from './kube-source.ts';
import type { Translation } from './kube-source.ts';
import { common, primaryView, reflector } from './sources.ts';
import type { KubeSourceDeps } from './sources.ts';

/** --skipper-routegroup-groupversion's default, as external-dns's DefaultRoutegroupVersion. */
export const DEFAULT_ROUTEGROUP_VERSION = ROUTEGROUPS.apiVersion;

/** The RouteGroup resource at `groupVersion` (`group/version`); a bad value names the flag. */
export function routeGroupResource(groupVersion: string): KubeResource {
  const gv = groupVersion === '' ? DEFAULT_ROUTEGROUP_VERSION : groupVersion;
  if (!/^[a-z0-9.-]+\/v[a-z0-9]+$/.test(gv))
    throw new ConfigError(
      `--skipper-routegroup-groupversion must look like group/version, got ${JSON.stringify(groupVersion)}`,
      '--skipper-routegroup-groupversion',
    );
  return { ...ROUTEGROUPS, apiVersion: gv };
}

/** `status.loadBalancer.routeGroup` IPs and hostnames, in order (upstream's targetsFromRouteGroupStatus). */
function statusTargets(obj: KubeObject): string[] {
  return routeGroupStatusList(asRecord(obj['status'])?.['loadBalancer']).flatMap((e) => {
    const r = asRecord(e);
    const out: string[] = [];
    if (typeof r?.['ip'] === 'string' && r['ip'] !== '') out.push(r['ip']);
    if (typeof r?.['hostname'] === 'string' && r['hostname'] !== '') out.push(r['hostname']);
    return out;
  });
}

function specHosts(obj: KubeObject): string[] {
  return asArray(asRecord(obj['spec'])?.['hosts']).filter((h): h is string => typeof h === 'string' && h !== '');
}

/** One RouteGroup → its endpoints. */
export function translateRouteGroup(obj: KubeObject, options: TranslateOptions): Translation {
  const meta = readMeta(obj);
  const problems: SourceProblem[] = [];
  if (meta === undefined) return { endpoints: [], problems };
  if (options.labelFilter !== undefined && !options.labelFilter.matches(meta.labels)) return { endpoints: [], problems };
  if (options.annotationFilter !== undefined && !options.annotationFilter.matches(meta.annotations)) return { endpoints: [], problems };
  if (isControllerMismatch(meta.annotations, options.annotationPrefix)) return { endpoints: [], problems };
  const ref = refOf(meta);
  const ann = parseAnnotations(meta.annotations, options.defaultTTL ?? 0, (m) => problems.push(problemFor(ref, m)), options.annotationPrefix);
  const targets = ann.targets.length > 0 ? ann.targets : statusTargets(obj);
  const shared = commonOf(ann, `routegroup/${meta.namespace}/${meta.name}`);
  const forHostnames = (hostnames: readonly string[]): Endpoint[] => hostnames.flatMap((h) => endpointsForHostname(h, targets, shared));
  // As upstream: spec.hosts first, then the annotation's names.
  const own = forHostnames([...specHosts(obj), ...(options.ignoreHostnameAnnotation === true ? [] : ann.hostnames)]);
  const template = templateOf(options, meta.kind);
  const ctx: KindContext = { obj, meta, ref, origin: {}, options, template, problems };
  const candidates = runTemplate(
    () => combineTemplated(ctx, own, () => forHostnames(template?.execute(obj, meta) ?? [])),
    (m) => problems.push(problemFor(ref, m)),
  );
  // external-dns fails the whole sync when a template fails on one RouteGroup; Hostwarden keeps that object's records.
  if (candidates === undefined) return { endpoints: [], problems, heldResource: shared.resource };
  return { endpoints: finalizeEndpoints(ref, candidates, problems), problems };
}

/** RouteGroups in --namespace, at `groupVersion` (--skipper-routegroup-groupversion). */
export function skipperRouteGroupSource(deps: KubeSourceDeps, groupVersion = DEFAULT_ROUTEGROUP_VERSION): KubeObjectSource {
  const resource = routeGroupResource(groupVersion);
  const view = primaryView(deps, slimRouteGroup);
  return new KubeObjectSource({
    ...common(deps, 'skipper-routegroup'),
    // One call per resource constant (the RBAC tests scan these); another group version reads the same plural.
    primary: resource.apiVersion === ROUTEGROUPS.apiVersion ? reflector(deps, ROUTEGROUPS, view) : reflector(deps, resource, view),
    translate: (obj) => translateRouteGroup(obj, deps.translateOptions),
  });
}
