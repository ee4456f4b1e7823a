/**
 * external-dns's template `Engine.ApplyTemplates`, shared by the sources whose templates give the
 * targets too (gloo-proxy, traefik-proxy, f5-virtualserver, f5-transportserver, unstructured):
 * first `--fqdn-target-template`'s `host:target` pairs, then `--fqdn-template`'s names at
 * `--target-template`'s targets (none without it). Each pass replaces an object's endpoints only
 * when it has none, or adds to them with `--combine-fqdn-annotation` (upstream's
 * CombineWithEndpoints). Template endpoints carry no TTL, set identifier or provider properties.
 */
import { LABEL_RESOURCE, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../../endpoint/endpoint.ts';
import type { FqdnTemplate, TemplateShape } from './fqdn-template.ts';
import { suitableType } from './hostname.ts';
import type { JsonRecord, ObjectMeta } from './object.ts';

export interface TemplateInput {
  template: FqdnTemplate;
  /** --combine-fqdn-annotation. */
  combine: boolean;
  obj: JsonRecord;
  meta: ObjectMeta;
  /** The `resource` label of the object's endpoints. */
  resource: string;
  /** What the templates see of the object (unstructured shows upstream's wrapper). */
  shape?: TemplateShape | undefined;
}

/** Throws TemplateExecutionError when a template fails on the object (the caller holds its records). */
export function applyTemplates(input: TemplateInput, own: Endpoint[]): Endpoint[] {
  const { template, obj, meta, resource, shape } = input;
  const paired = combineWith(input.combine, own, () => {
    const byHost = new Map<string, string[]>();
    for (const { host, target } of template.hostTargets(obj, meta, shape)) byHost.set(host, [...(byHost.get(host) ?? []), target]);
    return [...byHost].flatMap(([host, targets]) => endpointsForHostsAndTargets([host], targets, resource));
  });
  return combineWith(input.combine, paired, () => {
    const hostnames = template.execute(obj, meta, shape);
    if (hostnames.length === 0) return [];
    return endpointsForHostsAndTargets(hostnames, template.targets(obj, meta, shape), resource);
  });
}

function combineWith(combine: boolean, existing: Endpoint[], templated: () => Endpoint[]): Endpoint[] {
  if (!combine && existing.length > 0) return existing;
  return combine ? [...existing, ...templated()] : templated();
}

/**
 * external-dns's EndpointsForHostsAndTargets: each (sorted, unique) name gets one endpoint per
 * record type of the (sorted, unique) targets. A CNAME holds one target, so several hostname
 * targets become one CNAME each (the planner chooses), as everywhere in Hostwarden.
 */
export function endpointsForHostsAndTargets(hostnames: readonly string[], targets: readonly string[], resource: string): Endpoint[] {
  if (hostnames.length === 0 || targets.length === 0) return [];
  const byType = new Map<RecordType, Set<string>>();
  for (const t of targets) {
    const type = suitableType(t);
    byType.set(type, (byType.get(type) ?? new Set()).add(t));
  }
  const types = [...byType.keys()].sort();
  const out: Endpoint[] = [];
  for (const dnsName of [...new Set(hostnames)].sort()) {
    for (const recordType of types) {
      const sorted = [...(byType.get(recordType) ?? [])].sort();
      const groups = recordType === 'CNAME' ? sorted.map((t) => [t]) : [sorted];
      for (const group of groups) out.push(newEndpoint({ dnsName, recordType, targets: group, labels: { [LABEL_RESOURCE]: resource } }));
    }
  }
  return out;
}
