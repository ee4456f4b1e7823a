/**
 * The `ambassador-host` source, as external-dns's source/ambassador_host.go: Emissary-ingress /
 * Ambassador Hosts (`getambassador.io/v3alpha1`) carrying the `external-dns.ambassador-service`
 * annotation publish `spec.hostname` at the `target` annotation's targets, or else at the load
 * balancer of the Service the annotation names (`namespace/name`, `name.namespace` or `name` in
 * `default`): its `spec.externalIPs` when set, else its `status.loadBalancer.ingress` IPs and
 * hostnames. Hosts without the annotation are ignored. --annotation-filter and --label-filter
 * apply; upstream reads neither the hostname nor the controller annotation here, and no templates.
 */
import type { KubeObject } from '../../kube/resource.ts';
import { AMBASSADOR_HOSTS, SERVICES, keyOf } from '../../kube/resource.ts';
import { slimAmbassadorHost } from '../../kube/slim-ingress-crds.ts';
import { slimService } from '../../kube/slim.ts';
import type { SourceProblem } from '../source.ts';
import { parseAnnotations } from '../translate/annotations.ts';
import { endpointsForHostname, finalizeEndpoints, problemFor } from '../translate/hostname.ts';
import { asRecord, readMeta, refOf } from '../translate/object.ts';
import type { TranslateOptions } from '../translate/options.ts';
import { commonOf, loadBalancerTargets } from '../translate/service.ts';
import { KubeObjectSource } from './kube-source.ts';
import type { Translation } from './kube-source.ts';
import { ReaderIndex } from './reader-index.ts';
import { common, reflector } from './sources.ts';
import type { KubeSourceDeps } from './sources.ts';

/** The annotation naming the Service whose load balancer a Host points at (not prefixed: upstream's literal key). */
export const AMBASSADOR_SERVICE_ANNOTATION = 'external-dns.ambassador-service';

export interface AmbassadorHostTranslation extends Translation {
  /** `namespace/name` of the Service the translation looked up, if any: its changes re-translate the Host. */
  readService?: string;
}

/**
 * external-dns's parseAmbLoadBalancerService: `namespace/name`; without a slash `name.namespace`
 * (split at the first dot, so `svc.foo.bar` is Service `svc` in namespace `foo.bar`); a bare name
 * is in `default`. More than one slash is an error.
 */
export function parseAmbassadorService(service: string): { namespace: string; name: string } {
  const parts = service.split('/');
  if (parts.length === 2) return { namespace: parts[0] as string, name: parts[1] as string };
  if (parts.length > 2) throw new Error(`invalid external-dns service: ${service}`);
  const dot = service.indexOf('.');
  return dot < 0 ? { namespace: 'default', name: service } : { namespace: service.slice(dot + 1), name: service.slice(0, dot) };
}

/** One Host → its endpoints; `service` looks a Service up by `namespace/name`. */
export function translateAmbassadorHost(
  obj: KubeObject,
  options: TranslateOptions,
  service: (key: string) => KubeObject | undefined,
): AmbassadorHostTranslation {
  const meta = readMeta(obj);
  const problems: SourceProblem[] = [];
  if (meta === undefined) return { endpoints: [], problems };
  if (options.annotationFilter !== undefined && !options.annotationFilter.matches(meta.annotations)) return { endpoints: [], problems };
  if (options.labelFilter !== undefined && !options.labelFilter.matches(meta.labels)) return { endpoints: [], problems };
  const annotated = meta.annotations[AMBASSADOR_SERVICE_ANNOTATION];
  // Upstream ignores a Host without the annotation (a debug line), whatever else it says.
  if (annotated === undefined) return { endpoints: [], problems };
  const ref = refOf(meta);
  const ann = parseAnnotations(meta.annotations, options.defaultTTL ?? 0, (m) => problems.push(problemFor(ref, m)), options.annotationPrefix);
  let targets = ann.targets;
  let readService: string | undefined;
  if (targets.length === 0) {
    let where: { namespace: string; name: string };
    try {
      where = parseAmbassadorService(annotated);
    } catch (err) {
      problems.push(problemFor(ref, `${AMBASSADOR_SERVICE_ANNOTATION}: ${(err as Error).message}; the Host is skipped`));
      return { endpoints: [], problems };
    }
    readService = `${where.namespace}/${where.name}`;
    const svc = service(readService);
    if (svc === undefined) {
      problems.push(problemFor(ref, `Service ${readService} (${AMBASSADOR_SERVICE_ANNOTATION}) not found; the Host is skipped`));
      return { endpoints: [], problems, readService };
    }
    targets = loadBalancerTargets(svc);
  }
  // A hostname that is not a string (upstream's conversion rejects it) publishes nothing.
  const raw = asRecord(obj['spec'])?.['hostname'];
  const hostname = typeof raw === 'string' ? raw : '';
  const candidates = hostname === '' ? [] : endpointsForHostname(hostname, targets, commonOf(ann, `host/${meta.namespace}/${meta.name}`));
  const endpoints = finalizeEndpoints(ref, candidates, problems);
  return readService === undefined ? { endpoints, problems } : { endpoints, problems, readService };
}

/**
 * Hosts (in --namespace), with the Services their annotation names (in every namespace, as
 * upstream reads them by name wherever they are); a Service's change re-translates only the Hosts
 * that read it.
 */
export function ambassadorHostSource(deps: KubeSourceDeps): KubeObjectSource {
  const hosts = reflector(deps, AMBASSADOR_HOSTS, slimAmbassadorHost);
  const services = reflector(deps, SERVICES, slimService, { namespace: '' });
  const readers = new ReaderIndex();
  return new KubeObjectSource({
    ...common(deps, 'ambassador-host'),
    primary: hosts,
    secondary: [{ reflector: services, affects: (obj, old) => readers.readersOf(keyOf((obj ?? old) as KubeObject), (k) => hosts.get(k) !== undefined) }],
    translate: (obj) => {
      const key = keyOf(obj);
      const r = translateAmbassadorHost(obj, deps.translateOptions, (k) => services.get(k));
      readers.set(key, r.readService);
      return { endpoints: r.endpoints, problems: r.problems };
    },
  });
}
