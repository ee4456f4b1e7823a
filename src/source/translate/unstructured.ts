/**
 * The `unstructured` source's translation, as external-dns's source/unstructured.go: any object
 * (by --unstructured-resource) publishes
 * - the `hostname` annotation's names at the `target` annotation's targets (both needed), then
 * - as external-dns's ApplyTemplates: `--fqdn-target-template`'s `host:target` pairs, then
 *   `--fqdn-template` names at `--target-template` targets, each replacing the endpoints so far
 *   when there are none (or added to them with `--combine-fqdn-annotation`);
 * all with the `ttl` annotation's TTL and the resource label `<kind lower-cased>/<namespace>/<name>`.
 * Templates see external-dns's unstructuredWrapper (`unstructuredTemplateView`). Only the
 * hostname, target, ttl and controller annotations are read, as upstream (no provider-specific
 * properties, set identifier or --ignore-hostname-annotation).
 */
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { GoMap, NO_FIELD } from '../../template/values.ts';
import type { GoStruct } from '../../template/values.ts';
import { isControllerMismatch, parseAnnotations } from './annotations.ts';
import { TemplateExecutionError } from './fqdn-template.ts';
import type { FqdnTemplate } from './fqdn-template.ts';
import { finalizeEndpoints, problemFor } from './hostname.ts';
import { asRecord, readMeta } from './object.ts';
import type { JsonRecord, ObjectMeta } from './object.ts';
import { TEMPLATE_FAILED_SUFFIX } from './options.ts';
import type { TranslateOptions } from './options.ts';
import type { SourceProblem } from '../source.ts';
import { applyTemplates, endpointsForHostsAndTargets } from './apply-templates.ts';

export interface UnstructuredTranslation {
  endpoints: Endpoint[];
  problems: SourceProblem[];
  heldResource?: string;
}

/**
 * external-dns's commonInitialisms: a leading word spelt fully upper-case in Go field names
 * (`dnsNames` → `DNSNames`, `url` → `URL`).
 */
const INITIALISMS: ReadonlySet<string> = new Set([
  'acl', 'api', 'arn', 'ca', 'cidr', 'cpu', 'crd', 'db', 'dns', 'http', 'https', 'id', 'ip', 'json', 'jwk', 'jwt', 'os', 'pem',
  'rbac', 'sql', 'ssl', 'tcp', 'tls', 'ttl', 'udp', 'uid', 'uuid', 'uri', 'url', 'vm', 'xml', 'yaml',
]); // prettier-ignore

/** external-dns's titleCaseKey: `dnsNames` → `DNSNames`, `hostname` → `Hostname`, `url` → `URL`. */
export function titleCaseKey(key: string): string {
  if (key === '' || /^\p{Lu}/u.test(key)) return key;
  const end = /\p{Lu}/u.exec(key)?.index ?? key.length;
  const word = key.slice(0, end);
  if (INITIALISMS.has(word.toLowerCase())) return word.toUpperCase() + key.slice(end);
  return key.charAt(0).toUpperCase() + key.slice(1);
}

/**
 * external-dns's withTitleCaseAliases: a shallow copy with each top-level key also under its Go
 * name (`.Spec.Hostnames` reads `spec.hostnames`) unless that name is a key already. Shallow on
 * purpose, as upstream: nested maps keep their declared keys only.
 */
function withTitleCaseAliases(m: JsonRecord): JsonRecord {
  const out: JsonRecord = { ...m };
  for (const key of Object.keys(m)) {
    const title = titleCaseKey(key);
    if (title === key || Object.hasOwn(m, title)) continue;
    out[title] = m[key];
  }
  return out;
}

const stringMapOf = (m: Readonly<Record<string, string>>): GoMap => new GoMap(m, 'map[string]string', '');

/** Getters of the embedded *unstructured.Unstructured that templates may call (`{{ .GetName }}`). */
const GETTERS = ['GetName', 'GetNamespace', 'GetKind', 'GetAPIVersion', 'GetLabels', 'GetAnnotations', 'GetUID', 'GetResourceVersion', 'GetGeneration'];

/** external-dns's unstructuredWrapper: typed-style fields, the raw sections, and the embedded Unstructured. */
class UnstructuredWrapper implements GoStruct {
  readonly goType = '*source.unstructuredWrapper';
  private readonly values: Readonly<Record<string, unknown>>;

  constructor(obj: JsonRecord, meta: ObjectMeta) {
    const metadata = asRecord(obj['metadata']) ?? {};
    const spec = asRecord(obj['spec']);
    const status = asRecord(obj['status']);
    this.values = {
      Name: meta.name,
      Namespace: meta.namespace,
      Kind: meta.kind,
      APIVersion: meta.apiVersion,
      Labels: stringMapOf(meta.labels),
      Annotations: stringMapOf(meta.annotations),
      Metadata: metadata,
      Spec: spec === undefined ? {} : withTitleCaseAliases(spec),
      Status: status === undefined ? {} : withTitleCaseAliases(status),
      // Promoted from the embedded *unstructured.Unstructured.
      Object: obj,
      Unstructured: new EmbeddedUnstructured(obj),
      GetName: meta.name,
      GetNamespace: meta.namespace,
      GetKind: meta.kind,
      GetAPIVersion: meta.apiVersion,
      GetLabels: stringMapOf(meta.labels),
      GetAnnotations: stringMapOf(meta.annotations),
      GetUID: typeof metadata['uid'] === 'string' ? metadata['uid'] : '',
      GetResourceVersion: typeof metadata['resourceVersion'] === 'string' ? metadata['resourceVersion'] : '',
      GetGeneration: typeof metadata['generation'] === 'number' ? metadata['generation'] : 0,
    };
  }

  field(name: string): unknown {
    return Object.hasOwn(this.values, name) ? this.values[name] : NO_FIELD;
  }

  fields(): unknown[] {
    return Object.entries(this.values)
      .filter(([k]) => !GETTERS.includes(k))
      .map(([, v]) => v);
  }
}

class EmbeddedUnstructured implements GoStruct {
  readonly goType = '*unstructured.Unstructured';
  constructor(private readonly obj: JsonRecord) {}
  field(name: string): unknown {
    return name === 'Object' ? this.obj : NO_FIELD;
  }
  fields(): unknown[] {
    return [this.obj];
  }
}

/** What a template sees first of an unstructured object (then, on an error, external-dns's unstructured retry shape). */
export function unstructuredTemplateView(obj: JsonRecord, meta: ObjectMeta): GoStruct {
  return new UnstructuredWrapper(obj, meta);
}

/** The object's metadata with its namespace as written ('' for cluster-scoped objects). */
function metaOf(obj: JsonRecord): ObjectMeta | undefined {
  const meta = readMeta(obj);
  if (meta === undefined) return undefined;
  const ns = asRecord(obj['metadata'])?.['namespace'];
  return { ...meta, namespace: typeof ns === 'string' ? ns : '' };
}

/** One object → its endpoints. `template` is the compiled template flags (isSource answers "unstructured"). */
export function translateUnstructured(obj: JsonRecord, options: TranslateOptions, template: FqdnTemplate | undefined): UnstructuredTranslation {
  const meta = metaOf(obj);
  if (meta === undefined) return { endpoints: [], problems: [] };
  const none: UnstructuredTranslation = { endpoints: [], problems: [] };
  if (options.annotationFilter !== undefined && !options.annotationFilter.matches(meta.annotations)) return none;
  if (options.labelFilter !== undefined && !options.labelFilter.matches(meta.labels)) return none;
  if (isControllerMismatch(meta.annotations, options.annotationPrefix)) return none;

  const ref = { kind: meta.kind, namespace: meta.namespace, name: meta.name };
  const problems: SourceProblem[] = [];
  const ann = parseAnnotations(meta.annotations, 0, (m) => problems.push(problemFor(ref, m)), options.annotationPrefix);
  const resource = `${meta.kind.toLowerCase()}/${meta.namespace}/${meta.name}`;
  let candidates = endpointsForHostsAndTargets(ann.hostnames, ann.targets, resource);
  if (template !== undefined) {
    try {
      const input = { template, combine: options.combineFqdnAnnotation === true, obj, meta, resource, shape: unstructuredTemplateView };
      candidates = applyTemplates(input, candidates);
    } catch (err) {
      if (!(err instanceof TemplateExecutionError)) throw err;
      problems.push(problemFor(ref, `${err.message}${TEMPLATE_FAILED_SUFFIX}`));
      return { endpoints: [], problems, heldResource: resource };
    }
  }
  // external-dns's WithMinTTL: the annotation's TTL where the endpoint has none.
  const withTTL = ann.ttl > 0 ? candidates.map((ep) => (ep.recordTTL > 0 ? ep : { ...ep, recordTTL: ann.ttl })) : candidates;
  return { endpoints: finalizeEndpoints(ref, withTTL, problems), problems };
}
