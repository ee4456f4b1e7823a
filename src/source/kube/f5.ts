/**
 * external-dns's `f5-virtualserver` and `f5-transportserver` sources (source/f5_virtualserver.go,
 * source/f5_transportserver.go): F5 Container Ingress Services' VirtualServer and TransportServer
 * (`cis.f5.com/v1`). One implementation, as the two upstream files are the same code on two types;
 * they differ only in that a VirtualServer also publishes its `spec.hostAliases`.
 *
 * An object publishes only once F5 CIS has given it an address: `status.vsAddress` set and not
 * `None` (any case); the status text (`OK`, `ERROR`) is not read, as upstream. Its names
 * (`spec.host`, and for a VirtualServer each non-empty `spec.hostAliases` entry) then point at the
 * `target` annotation, else `spec.virtualServerAddress`, else `status.vsAddress`, with the `ttl`
 * annotation. The hostname annotation, set-identifier and provider-specific annotations are not
 * read (upstream passes none). Then `--fqdn-target-template` and `--fqdn-template` with
 * `--target-template` apply as external-dns's ApplyTemplates: the template names replace the
 * object's own when it has none (no address yet), or are added with `--combine-fqdn-annotation`.
 *
 * Where upstream fails the whole source (an object whose fields have the wrong type, a template
 * that fails on one object), the object is reported and its records held; the rest sync.
 */
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { Reflector } from '../../kube/reflector.ts';
import { TRANSPORTSERVERS, VIRTUALSERVERS } from '../../kube/resource.ts';
import type { KubeObject } from '../../kube/resource.ts';
import { slimMeta, stubObject } from '../../kube/slim.ts';
import type { SourceProblem } from '../source.ts';
import { isControllerMismatch, parseAnnotations } from '../translate/annotations.ts';
import { TemplateExecutionError } from '../translate/fqdn-template.ts';
import { endpointsForHostname, finalizeEndpoints, problemFor } from '../translate/hostname.ts';
import { asRecord, readMeta, refOf } from '../translate/object.ts';
import type { JsonRecord } from '../translate/object.ts';
import { TEMPLATE_FAILED_SUFFIX, templateOf } from '../translate/options.ts';
import type { TranslateOptions } from '../translate/options.ts';
import { KubeObjectSource } from './kube-source.ts';
import type { Translation } from './kube-source.ts';
import { common, primaryView, reflector } from './sources.ts';
import type { KubeSourceDeps } from './sources.ts';
import { applyTemplates } from '../translate/apply-templates.ts';

/** What tells the two kinds apart. */
export const F5_KINDS = {
  VirtualServer: { source: 'f5-virtualserver', hostAliases: true },
  TransportServer: { source: 'f5-transportserver', hostAliases: false },
} as const;

export type F5Kind = keyof typeof F5_KINDS;

/** The fields read, with the JSON type each must have (upstream converts into F5's Go types). */
const SPEC_FIELDS = { host: 'string', hostAliases: 'string[]', virtualServerAddress: 'string' } as const;
const STATUS_FIELDS = { vsAddress: 'string' } as const;

/** The object's fields as read, or the problem with their shape. */
interface F5Fields {
  host: string;
  hostAliases: string[];
  virtualServerAddress: string;
  vsAddress: string;
}

function fieldsOf(obj: JsonRecord, kind: F5Kind): F5Fields | string {
  const out: F5Fields = { host: '', hostAliases: [], virtualServerAddress: '', vsAddress: '' };
  const parts = [
    ['spec', SPEC_FIELDS],
    ['status', STATUS_FIELDS],
  ] as const;
  for (const [part, fields] of parts) {
    const value = obj[part];
    if (value === undefined || value === null) continue;
    const rec = asRecord(value);
    if (rec === undefined) return `${part} is not an object`;
    for (const [field, type] of Object.entries(fields)) {
      const v = rec[field];
      if (v === undefined || v === null) continue;
      // A TransportServer has no hostAliases: upstream's type drops the field, so it is not checked.
      if (field === 'hostAliases' && !F5_KINDS[kind].hostAliases) continue;
      const ok = type === 'string' ? typeof v === 'string' : Array.isArray(v) && v.every((s) => typeof s === 'string');
      if (!ok) return `${part}.${field} is not ${type === 'string' ? 'a string' : 'a list of strings'}`;
      (out as unknown as Record<string, unknown>)[field] = v;
    }
  }
  return out;
}

/** Upstream's hasValidVirtualServerIP / hasValidTransportServerIP: F5 CIS writes `None` until it has an address. */
export function hasValidAddress(vsAddress: string): boolean {
  const normalized = vsAddress.toLowerCase();
  return normalized !== 'none' && normalized !== '';
}

/** One VirtualServer or TransportServer → its endpoints. */
export function translateF5(kind: F5Kind, obj: KubeObject, options: TranslateOptions): Translation {
  const problems: SourceProblem[] = [];
  const meta = readMeta(obj);
  if (meta === undefined) return { endpoints: [], problems };
  // The source's indexer: --annotation-filter, --label-filter and the controller annotation.
  if (options.annotationFilter !== undefined && !options.annotationFilter.matches(meta.annotations)) return { endpoints: [], problems };
  if (options.labelFilter !== undefined && !options.labelFilter.matches(meta.labels)) return { endpoints: [], problems };
  if (isControllerMismatch(meta.annotations, options.annotationPrefix)) return { endpoints: [], problems };
  const { source } = F5_KINDS[kind];
  const ref = refOf(meta);
  const resource = `${source}/${meta.namespace}/${meta.name}`;
  const fields = fieldsOf(obj, kind);
  if (typeof fields === 'string') {
    problems.push(problemFor(ref, `cannot be read as an F5 ${kind}: ${fields}; the object's records are kept as they are until it is fixed`));
    return { endpoints: [], problems, heldResource: resource };
  }
  let candidates: Endpoint[] = [];
  if (hasValidAddress(fields.vsAddress)) {
    const ann = parseAnnotations(meta.annotations, options.defaultTTL ?? 0, (m) => problems.push(problemFor(ref, m)), options.annotationPrefix);
    const address = fields.virtualServerAddress !== '' ? fields.virtualServerAddress : fields.vsAddress;
    const targets = ann.targets.length > 0 ? ann.targets : [address];
    const common = { ttl: ann.ttl, setIdentifier: '', providerSpecific: [], resource };
    // An empty host (F5 allows a VirtualServer without one) names nothing, as empty aliases.
    const names = [fields.host, ...(F5_KINDS[kind].hostAliases ? fields.hostAliases : [])].filter((h) => h !== '');
    candidates = names.flatMap((h) => endpointsForHostname(h, targets, common));
  }
  const template = templateOf(options)?.withSource(source);
  if (template !== undefined) {
    try {
      candidates = applyTemplates({ template, combine: options.combineFqdnAnnotation === true, obj, meta, resource }, candidates);
    } catch (err) {
      if (!(err instanceof TemplateExecutionError)) throw err;
      problems.push(problemFor(ref, `${err.message}${TEMPLATE_FAILED_SUFFIX}`));
      return { endpoints: [], problems, heldResource: resource };
    }
  }
  // Upstream warns on every sync; the source reports a problem when it changes.
  if (candidates.length === 0) problems.push(problemFor(ref, nothingToPublish(kind, fields)));
  return { endpoints: finalizeEndpoints(ref, candidates, problems), problems };
}

function nothingToPublish(kind: F5Kind, fields: F5Fields): string {
  if (!hasValidAddress(fields.vsAddress))
    return `F5 ${kind} is missing a valid IP address (status.vsAddress is ${fields.vsAddress === '' ? 'not set' : JSON.stringify(fields.vsAddress)}), skipping endpoint creation`;
  return `F5 ${kind} has no spec.host to publish, skipping endpoint creation`;
}

/** The cache's view without a template: identity, labels, annotations and the fields read, wrong types kept so they are reported. */
export function slimF5(raw: Record<string, unknown>): KubeObject {
  const obj: KubeObject = { apiVersion: String(raw['apiVersion'] ?? ''), kind: String(raw['kind'] ?? ''), metadata: slimMeta(raw) };
  const parts = [
    ['spec', SPEC_FIELDS],
    ['status', STATUS_FIELDS],
  ] as const;
  for (const [part, fields] of parts) {
    const value = raw[part];
    const rec = asRecord(value);
    if (rec === undefined) {
      if (value !== undefined) obj[part] = value;
      continue;
    }
    const kept: Record<string, unknown> = {};
    for (const field of Object.keys(fields)) if (rec[field] !== undefined) kept[field] = rec[field];
    obj[part] = kept;
  }
  return obj;
}

/** The reflector of one kind (one call per resource: the RBAC tests scan these). */
function f5Reflector(deps: KubeSourceDeps, kind: F5Kind): Reflector<KubeObject> {
  const view = primaryView(deps, slimF5);
  // Nothing reads an object back after its translation: the cache keeps a stub, as for Ingresses.
  return kind === 'VirtualServer'
    ? reflector(deps, VIRTUALSERVERS, view, { retain: stubObject })
    : reflector(deps, TRANSPORTSERVERS, view, { retain: stubObject });
}

/** `--source=f5-virtualserver` or `--source=f5-transportserver`. */
export function f5Source(deps: KubeSourceDeps, kind: F5Kind): KubeObjectSource {
  return new KubeObjectSource({
    ...common(deps, F5_KINDS[kind].source),
    primary: f5Reflector(deps, kind),
    resourceKind: F5_KINDS[kind].source,
    translate: (obj) => translateF5(kind, obj, deps.translateOptions),
  });
}
