/**
 * Ingress → endpoints as external-dns's ingress source: names from `spec.rules[].host`,
 * `spec.tls[].hosts` and the hostname annotation (narrowed by `ingress-hostname-source`), targets
 * from the target annotation or else the load-balancer status.
 */
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { parseAnnotations } from './annotations.ts';
import { endpointsForHostname, problemFor, uniqueHostnames } from './hostname.ts';
import { asArray, path, refAt, stringArray, stringAt } from './object.ts';
import { combineWithTemplate } from './options.ts';
import type { KindContext } from './options.ts';
import { commonOf, statusTargets } from './service.ts';

export const INGRESS_KIND = 'Ingress';

export function ingressCandidates(ctx: KindContext): Endpoint[] {
  const { obj, meta, options } = ctx;
  const annotationsRef = refAt(ctx.ref, ctx.origin, ['metadata', 'annotations']);
  const ann = parseAnnotations(
    meta.annotations,
    options.defaultTTL ?? 0,
    (message) => ctx.problems.push(problemFor(annotationsRef, message)),
    options.annotationPrefix,
  );
  const common = commonOf(ann, `ingress/${meta.namespace}/${meta.name}`);
  const targets = ann.targets.length > 0 ? ann.targets : statusTargets(obj);
  const forHostnames = (hostnames: string[]): Endpoint[] => uniqueHostnames(hostnames).flatMap((h) => endpointsForHostname(h, targets, common));

  const defined: string[] = [];
  if (options.ignoreIngressRulesSpec !== true) {
    for (const rule of asArray(path(obj, 'spec', 'rules'))) {
      const host = stringAt(rule, 'host');
      if (host !== undefined && host !== '') defined.push(host);
    }
  }
  if (options.ignoreIngressTLSSpec !== true) {
    for (const tls of asArray(path(obj, 'spec', 'tls'))) defined.push(...stringArray(path(tls, 'hosts')));
  }
  const annotated = options.ignoreHostnameAnnotation === true ? [] : ann.hostnames;

  let hostnames: string[];
  const source = ann.ingressHostnameSource?.toLowerCase();
  if (source === undefined) hostnames = [...defined, ...annotated];
  else if (source === 'defined-hosts-only') hostnames = defined;
  else if (source === 'annotation-only') hostnames = annotated;
  else {
    // external-dns publishes nothing for an unknown value; say why instead of staying silent.
    ctx.problems.push(
      problemFor(
        annotationsRef,
        `ingress-hostname-source ${JSON.stringify(ann.ingressHostnameSource)} is neither "defined-hosts-only" nor "annotation-only"; no names published`,
      ),
    );
    hostnames = [];
  }
  return combineWithTemplate(ctx, forHostnames(hostnames), forHostnames);
}
