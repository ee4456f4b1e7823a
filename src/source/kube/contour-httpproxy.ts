/**
 * The `contour-httpproxy` source, as external-dns's source/contour_httpproxy.go: every Contour
 * HTTPProxy (projectcontour.io/v1) publishes its `spec.virtualhost.fqdn` and, unless
 * --ignore-hostname-annotation, the names of its `hostname` annotation, at the targets of its
 * `target` annotation or else the addresses and hostnames of its `status.loadBalancer.ingress`
 * (which Contour copies from its Envoy Service). With --fqdn-template the template's names are the
 * fallback for proxies without names (delegated ones, included by a root proxy), or are added to
 * them with --combine-fqdn-annotation; they get the same targets. Records carry upstream's resource
 * label, `HTTPProxy/<namespace>/<name>`.
 */
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { HTTPPROXIES } from '../../kube/resource.ts';
import type { KubeObject } from '../../kube/resource.ts';
import { slimMeta, stubObject, templateView } from '../../kube/slim.ts';
import type { SourceProblem } from '../source.ts';
import { isControllerMismatch, parseAnnotations } from '../translate/annotations.ts';
import { endpointsForHostname, finalizeEndpoints, problemFor } from '../translate/hostname.ts';
import { asArray, asRecord, asString, readMeta, refOf } from '../translate/object.ts';
import { combineTemplated, runTemplate, templateOf } from '../translate/options.ts';
import type { TranslateOptions } from '../translate/options.ts';
import { commonOf, statusTargets } from '../translate/service.ts';
import { KubeObjectSource } from './kube-source.ts';
import type { Translation } from './kube-source.ts';
import { common, reflector } from './sources.ts';
import type { KubeSourceDeps } from './sources.ts';

export const CONTOUR_SOURCE = 'contour-httpproxy';

type Raw = Record<string, unknown>;

/** HTTPProxies: metadata, the virtual host's fqdn and the load-balancer status; routes, includes and TLS are dropped. */
export function slimHTTPProxy(raw: Raw): KubeObject {
  const obj: KubeObject = { apiVersion: String(raw['apiVersion'] ?? ''), kind: String(raw['kind'] ?? ''), metadata: slimMeta(raw, false) };
  const fqdn = asRecord(asRecord(raw['spec'])?.['virtualhost'])?.['fqdn'];
  obj['spec'] = fqdn === undefined ? {} : { virtualhost: { fqdn } };
  const ingress = asArray(asRecord(asRecord(raw['status'])?.['loadBalancer'])?.['ingress']).flatMap((e) => {
    const r = asRecord(e);
    if (r === undefined) return [];
    const out: Raw = {};
    if (r['ip'] !== undefined) out['ip'] = r['ip'];
    if (r['hostname'] !== undefined) out['hostname'] = r['hostname'];
    return [out];
  });
  if (ingress.length > 0) obj['status'] = { loadBalancer: { ingress } };
  return obj;
}

/** HTTPProxies a template reads: the whole object but what upstream's informer drops too (status conditions). */
export function httpProxyTemplateView(raw: Raw): KubeObject {
  const obj = templateView(raw);
  const status = asRecord(obj['status']);
  if (status !== undefined && 'conditions' in status) {
    const { conditions: _conditions, ...rest } = status;
    obj['status'] = rest;
  }
  return obj;
}

/** One HTTPProxy → its endpoints; filters and the controller annotation apply as upstream's indexer applies them. */
export function translateHTTPProxy(obj: KubeObject, options: TranslateOptions): Translation {
  const problems: SourceProblem[] = [];
  const meta = readMeta(obj);
  if (meta === undefined) return { endpoints: [], problems };
  if (options.annotationFilter !== undefined && !options.annotationFilter.matches(meta.annotations)) return { endpoints: [], problems };
  if (options.labelFilter !== undefined && !options.labelFilter.matches(meta.labels)) return { endpoints: [], problems };
  if (isControllerMismatch(meta.annotations, options.annotationPrefix)) return { endpoints: [], problems };
  const ref = refOf(meta);
  const problem = (m: string): void => {
    problems.push(problemFor(ref, m));
  };
  const ann = parseAnnotations(meta.annotations, options.defaultTTL ?? 0, problem, options.annotationPrefix);
  const resource = `HTTPProxy/${meta.namespace}/${meta.name}`;
  const common = commonOf(ann, resource);
  const targets = ann.targets.length > 0 ? ann.targets : statusTargets(obj);
  const forHostnames = (hostnames: readonly string[]): Endpoint[] => hostnames.flatMap((h) => endpointsForHostname(h, targets, common));

  const fqdn = asString(asRecord(asRecord(obj['spec'])?.['virtualhost'])?.['fqdn']) ?? '';
  const own = forHostnames([...(fqdn === '' ? [] : [fqdn]), ...(options.ignoreHostnameAnnotation === true ? [] : ann.hostnames)]);
  const template = templateOf(options)?.withSource(CONTOUR_SOURCE);
  const candidates = runTemplate(
    () => combineTemplated({ obj, meta, ref, origin: {}, options, template, problems }, own, () => forHostnames(template?.execute(obj, meta) ?? [])),
    problem,
  );
  if (candidates === undefined) return { endpoints: [], problems, heldResource: resource };
  return { endpoints: finalizeEndpoints(ref, candidates, problems), problems };
}

/** HTTPProxies in --namespace (all by default); nothing re-reads a proxy after its translation, so the cache keeps a stub. */
export function contourHTTPProxySource(deps: KubeSourceDeps): KubeObjectSource {
  const view = deps.translateOptions.fqdnTemplate === undefined ? slimHTTPProxy : httpProxyTemplateView;
  return new KubeObjectSource({
    ...common(deps, CONTOUR_SOURCE),
    primary: reflector(deps, HTTPPROXIES, view, { retain: stubObject }),
    resourceKind: 'HTTPProxy',
    translate: (obj) => translateHTTPProxy(obj, deps.translateOptions),
  });
}
