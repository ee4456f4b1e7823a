/**
 * NodePort Services, which the pure translator cannot handle because their targets are the nodes'
 * addresses: ExternalIP addresses by default (InternalIP when no node has one), or as the `access`
 * annotation says (`public` → ExternalIP, `private` → InternalIP), as external-dns does. SRV
 * records for the ports are not produced yet.
 */
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { KubeObject } from '../../kube/resource.ts';
import type { SourceProblem } from '../source.ts';
import { parseAnnotations } from '../translate/annotations.ts';
import { endpointsForHostname, finalizeEndpoints, problemFor, uniqueHostnames } from '../translate/hostname.ts';
import { asArray, asRecord, asString, readMeta, refOf } from '../translate/object.ts';
import { templateOf } from '../translate/options.ts';
import type { TranslateOptions } from '../translate/options.ts';
import { commonOf } from '../translate/service.ts';

export function isNodePort(obj: KubeObject): boolean {
  return asString(asRecord(obj['spec'])?.['type']) === 'NodePort';
}

function addresses(nodes: Iterable<KubeObject>, type: string): string[] {
  const out = new Set<string>();
  for (const node of nodes) {
    for (const a of asArray(asRecord(node['status'])?.['addresses'])) {
      const rec = asRecord(a);
      if (asString(rec?.['type']) === type) {
        const v = asString(rec?.['address']);
        if (v !== undefined && v !== '') out.add(v);
      }
    }
  }
  return [...out].sort();
}

export function nodePortTargets(nodes: Iterable<KubeObject>, access: string | undefined): string[] {
  const list = [...nodes];
  if (access === 'private') return addresses(list, 'InternalIP');
  const external = addresses(list, 'ExternalIP');
  if (access === 'public' || external.length > 0) return external;
  return addresses(list, 'InternalIP');
}

export function translateNodePort(obj: KubeObject, options: TranslateOptions, nodes: Iterable<KubeObject>): { endpoints: Endpoint[]; problems: SourceProblem[] } {
  const problems: SourceProblem[] = [];
  const meta = readMeta(obj);
  if (meta === undefined) return { endpoints: [], problems };
  const ref = refOf(meta);
  const ann = parseAnnotations(meta.annotations, options.defaultTTL ?? 0, (m) => problems.push(problemFor(ref, m)));
  const targets = ann.targets.length > 0 ? ann.targets : nodePortTargets(nodes, ann.access);
  const hostnames = options.ignoreHostnameAnnotation === true ? [] : [...ann.hostnames];
  const template = templateOf(options);
  if (template !== undefined && (hostnames.length === 0 || options.combineFqdnAnnotation === true)) hostnames.push(...template.execute(obj, meta));
  const common = commonOf(ann, `service/${meta.namespace}/${meta.name}`);
  const candidates = targets.length === 0 ? [] : uniqueHostnames(hostnames).flatMap((h) => endpointsForHostname(h, targets, common));
  return { endpoints: finalizeEndpoints(ref, candidates, problems), problems };
}
