/**
 * What a template sees of a Kubernetes object, in the two shapes external-dns gives it
 * (source/template/engine.go):
 * - first the typed Go object: `.Name`, `.Namespace`, `.Labels`, `.Annotations`, `.Kind`,
 *   `.APIVersion` promoted from the embedded ObjectMeta/TypeMeta, `.ObjectMeta.…`, and Go field
 *   names for everything else (`.Spec.ClusterIP` reads `spec.clusterIP`). A lower-case field is
 *   an error there, as in Go (`can't evaluate field hostname in type v1.ServiceSpec`);
 * - when that fails, a retry on the unstructured shape (`.Spec.hostnames` with JSON keys, plus
 *   `.Metadata`, `.Status`, `.Object`) where a missing key is an error.
 * Hostwarden holds objects as JSON, not Go structs: below the top level (where the fields of each
 * kind are known), the Go field of a key the object leaves out cannot be told from a misspelt one,
 * so an absent capitalised field is the zero value.
 */
import { GoMap, NO_FIELD, ZERO } from '../../template/values.ts';
import type { GoStruct } from '../../template/values.ts';
import { asRecord } from './object.ts';
import type { JsonRecord, ObjectMeta } from './object.ts';

/** JSON keys whose Go type is `map[string]string` (index of a missing key is ""), not a struct. */
const STRING_MAPS: ReadonlySet<string> = new Set(['labels', 'annotations', 'selector', 'nodeSelector', 'data', 'stringData', 'matchLabels']);

/** `Name` → `name`, `ClusterIP` → `clusterIP`, `APIVersion` → `apiVersion`, `IP` → `ip`. */
export function jsonName(goName: string): string {
  const run = /^[A-Z]+/.exec(goName)?.[0].length ?? 0;
  if (run === 0) return goName;
  if (run === goName.length) return goName.toLowerCase();
  const lower = run === 1 ? 1 : run - 1;
  return goName.slice(0, lower).toLowerCase() + goName.slice(lower);
}

const stringMap = (m: Readonly<Record<string, string>>): GoMap => new GoMap(m, 'map[string]string', '');

/** A JSON object seen as a Go struct: capitalised names resolve to their JSON key. */
class JsonStruct implements GoStruct {
  constructor(
    readonly goType: string,
    private readonly json: JsonRecord,
    private readonly pkg: string,
  ) {}

  field(name: string): unknown {
    if (!/^\p{Lu}/u.test(name)) return NO_FIELD;
    const key = jsonName(name);
    if (Object.hasOwn(this.json, key)) return typedValue(this.json[key], key, `${this.pkg}.${name}`, this.pkg);
    if (Object.hasOwn(this.json, name)) return typedValue(this.json[name], name, `${this.pkg}.${name}`, this.pkg);
    return ZERO;
  }

  fields(): unknown[] {
    return Object.entries(this.json).map(([k, v]) => typedValue(v, k, this.goType, this.pkg));
  }
}

function typedValue(value: unknown, key: string, goType: string, pkg: string): unknown {
  if (Array.isArray(value)) return value.map((v) => typedValue(v, '', goType, pkg));
  const rec = asRecord(value);
  if (rec === undefined) return value === null ? ZERO : value;
  if (STRING_MAPS.has(key) && Object.values(rec).every((v) => typeof v === 'string')) return stringMap(rec as Record<string, string>);
  return new JsonStruct(goType, rec, pkg);
}

/** `networking.k8s.io/v1` → `v1` (the Go package name in type names). */
function packageOf(apiVersion: string): string {
  return apiVersion.slice(apiVersion.lastIndexOf('/') + 1) || 'v1';
}

/** The typed object: ObjectMeta and TypeMeta promoted, Go names for the rest. */
class TypedObject implements GoStruct {
  readonly goType: string;
  private readonly pkg: string;

  constructor(
    private readonly obj: JsonRecord,
    private readonly meta: ObjectMeta,
  ) {
    this.pkg = packageOf(meta.apiVersion);
    this.goType = `*${this.pkg}.${meta.kind}`;
  }

  field(name: string): unknown {
    const promoted = this.metaField(name);
    if (promoted !== NO_FIELD) return promoted;
    if (name === 'ObjectMeta') return new ObjectMetaStruct(this.obj, this.meta);
    if (name === 'TypeMeta') return new JsonStruct('v1.TypeMeta', { kind: this.meta.kind, apiVersion: this.meta.apiVersion }, 'v1');
    // external-dns's routeGroup type keeps a Metadata() method for old templates (`{{.Metadata.Name}}`).
    if (name === 'Metadata' && this.meta.kind === 'RouteGroup') return new ObjectMetaStruct(this.obj, this.meta);
    if (!/^\p{Lu}/u.test(name)) return NO_FIELD;
    const key = jsonName(name);
    // The top level of a Kubernetes type is known (Spec and Status, or a ConfigMap's Data …), so a
    // misspelt field there fails as in Go; deeper down an absent field cannot be told from a typo.
    if (!Object.hasOwn(this.obj, key)) return (ROOT_FIELDS[this.meta.kind] ?? DEFAULT_ROOT_FIELDS).includes(name) ? ZERO : NO_FIELD;
    const goType = key === 'spec' || key === 'status' ? `${this.pkg}.${this.meta.kind}${name}` : `${this.pkg}.${name}`;
    return typedValue(this.obj[key], key, goType, this.pkg);
  }

  private metaField(name: string): unknown {
    if (name === 'Kind') return this.meta.kind;
    if (name === 'APIVersion') return this.meta.apiVersion;
    // ObjectMeta's getters (`{{ .GetName }}`), which Go templates may call as methods.
    const getter = /^Get(\p{Lu}\w*)$/u.exec(name)?.[1];
    if (getter !== undefined && OBJECT_META_FIELDS.has(getter)) return new ObjectMetaStruct(this.obj, this.meta).field(getter);
    return OBJECT_META_FIELDS.has(name) ? new ObjectMetaStruct(this.obj, this.meta).field(name) : NO_FIELD;
  }

  fields(): unknown[] {
    return [this.meta.kind, this.meta.apiVersion, ...new ObjectMetaStruct(this.obj, this.meta).fields()];
  }
}

/** Go fields beside TypeMeta and ObjectMeta of the API types templates meet; most have Spec and Status. */
const DEFAULT_ROOT_FIELDS: readonly string[] = ['Spec', 'Status'];
const ROOT_FIELDS: Readonly<Record<string, readonly string[]>> = {
  ConfigMap: ['Immutable', 'Data', 'BinaryData'],
  Secret: ['Immutable', 'Data', 'StringData', 'Type'],
  EndpointSlice: ['AddressType', 'Endpoints', 'Ports'],
  Endpoints: ['Subsets'],
};

const OBJECT_META_FIELDS: ReadonlySet<string> = new Set([
  'Name',
  'GenerateName',
  'Namespace',
  'SelfLink',
  'UID',
  'ResourceVersion',
  'Generation',
  'CreationTimestamp',
  'DeletionTimestamp',
  'DeletionGracePeriodSeconds',
  'Labels',
  'Annotations',
  'OwnerReferences',
  'Finalizers',
  'ManagedFields',
]);

class ObjectMetaStruct implements GoStruct {
  readonly goType = 'v1.ObjectMeta';
  constructor(
    private readonly obj: JsonRecord,
    private readonly meta: ObjectMeta,
  ) {}

  field(name: string): unknown {
    if (!OBJECT_META_FIELDS.has(name)) return NO_FIELD;
    if (name === 'Name') return this.meta.name;
    if (name === 'Namespace') return this.meta.namespace;
    if (name === 'Labels') return stringMap(this.meta.labels);
    if (name === 'Annotations') return stringMap(this.meta.annotations);
    const metadata = asRecord(this.obj['metadata']) ?? {};
    const key = name === 'UID' ? 'uid' : jsonName(name);
    return Object.hasOwn(metadata, key) ? typedValue(metadata[key], key, `v1.${name}`, 'v1') : ZERO;
  }

  fields(): unknown[] {
    return [this.meta.name, this.meta.namespace, stringMap(this.meta.labels), stringMap(this.meta.annotations)];
  }
}

/** The typed shape, tried first. */
export function typedTemplateData(obj: JsonRecord, meta: ObjectMeta): GoStruct {
  return new TypedObject(obj, meta);
}

/** external-dns's fqdnTemplateData: the unstructured shape of the retry. */
class UnstructuredData implements GoStruct {
  readonly goType = '*template.fqdnTemplateData';
  private readonly values: Readonly<Record<string, unknown>>;

  constructor(obj: JsonRecord, meta: ObjectMeta) {
    this.values = {
      Name: meta.name,
      Namespace: meta.namespace,
      Kind: meta.kind,
      APIVersion: meta.apiVersion,
      Labels: stringMap(meta.labels),
      Annotations: stringMap(meta.annotations),
      Metadata: asRecord(obj['metadata']) ?? {},
      Spec: asRecord(obj['spec']) ?? {},
      Status: asRecord(obj['status']) ?? {},
      Object: obj,
    };
  }

  field(name: string): unknown {
    return Object.hasOwn(this.values, name) ? this.values[name] : NO_FIELD;
  }

  fields(): unknown[] {
    return Object.values(this.values);
  }
}

export function unstructuredTemplateData(obj: JsonRecord, meta: ObjectMeta): GoStruct {
  return new UnstructuredData(obj, meta);
}
