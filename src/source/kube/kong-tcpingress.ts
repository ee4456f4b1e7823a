/**
 * The `kong-tcpingress` source, as external-dns's source/kong_tcpingress.go: Kong TCPIngresses
 * (`configuration.konghq.com/v1beta1`) publish the `hostname` annotation's names (unless
 * --ignore-hostname-annotation) and every rule's `host` (SNI), at the `target` annotation's targets
 * or else the TCPIngress's own `status.loadBalancer.ingress` IPs and hostnames. --annotation-filter,
 * --label-filter and the `controller` annotation select objects; upstream applies no templates here.
 */
import type { KubeObject } from '../../kube/resource.ts';
import { KONG_TCPINGRESSES } from '../../kube/resource.ts';
import { slimTcpIngress } from '../../kube/slim-ingress-crds.ts';
import { stubObject } from '../../kube/slim.ts';
import type { SourceProblem } from '../source.ts';
import { isControllerMismatch, parseAnnotations } from '../translate/annotations.ts';
import { endpointsForHostname, finalizeEndpoints, problemFor } from '../translate/hostname.ts';
import { asArray, asRecord, readMeta, refOf } from '../translate/object.ts';
import type { TranslateOptions } from '../translate/options.ts';
import { commonOf, statusTargets } from '../translate/service.ts';
import { KubeObjectSource } from './kube-source.ts';
import type { Translation } from './kube-source.ts';
import { common, reflector } from './sources.ts';
import type { KubeSourceDeps } from './sources.ts';

/** Rules' `host` values that are non-empty strings (upstream's conversion rejects other types). */
function ruleHosts(obj: KubeObject): string[] {
  return asArray(asRecord(obj['spec'])?.['rules']).flatMap((r) => {
    const host = asRecord(r)?.['host'];
    return typeof host === 'string' && host !== '' ? [host] : [];
  });
}

/** One TCPIngress → its endpoints. */
export function translateTcpIngress(obj: KubeObject, options: TranslateOptions): Translation {
  const meta = readMeta(obj);
  const problems: SourceProblem[] = [];
  if (meta === undefined) return { endpoints: [], problems };
  if (options.annotationFilter !== undefined && !options.annotationFilter.matches(meta.annotations)) return { endpoints: [], problems };
  if (options.labelFilter !== undefined && !options.labelFilter.matches(meta.labels)) return { endpoints: [], problems };
  if (isControllerMismatch(meta.annotations, options.annotationPrefix)) return { endpoints: [], problems };
  const ref = refOf(meta);
  const ann = parseAnnotations(meta.annotations, options.defaultTTL ?? 0, (m) => problems.push(problemFor(ref, m)), options.annotationPrefix);
  const targets = ann.targets.length > 0 ? ann.targets : statusTargets(obj);
  const shared = commonOf(ann, `tcpingress/${meta.namespace}/${meta.name}`);
  // As upstream: the annotation's names first, then the rules' hosts.
  const hostnames = [...(options.ignoreHostnameAnnotation === true ? [] : ann.hostnames), ...ruleHosts(obj)];
  const candidates = hostnames.flatMap((h) => endpointsForHostname(h, targets, shared));
  return { endpoints: finalizeEndpoints(ref, candidates, problems), problems };
}

/** TCPIngresses in --namespace; nothing else is read (targets are in their own status). */
export function kongTcpIngressSource(deps: KubeSourceDeps): KubeObjectSource {
  return new KubeObjectSource({
    ...common(deps, 'kong-tcpingress'),
    // Nothing re-reads a TCPIngress after its translation: the cache keeps a stub.
    primary: reflector(deps, KONG_TCPINGRESSES, slimTcpIngress, { retain: stubObject }),
    translate: (obj) => translateTcpIngress(obj, deps.translateOptions),
  });
}
