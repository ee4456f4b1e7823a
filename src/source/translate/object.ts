/**
 * Defensive readers for Kubernetes objects given as plain JSON (parsed YAML or API responses):
 * nothing here trusts the shape of its input, so one odd object never throws out of a source.
 */
import type { ObjectRef } from '../source.ts';

export type JsonRecord = Record<string, unknown>;

/** Where an object was read from, when known (manifests); API objects have no origin. */
export interface ObjectOrigin {
  file?: string;
  line?: number;
  /** Line of a value inside the object (e.g. `['spec', 'endpoints', 1]`), for precise problems. */
  lineOf?: (path: readonly (string | number)[]) => number | undefined;
}

export interface ObjectMeta {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** Objects without a namespace are treated as living in `default`, as `kubectl apply` would place them. */
export const DEFAULT_NAMESPACE = 'default';

export function asRecord(value: unknown): JsonRecord | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonRecord) : undefined;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Strings as-is; numbers and booleans as text (unquoted YAML scalars); anything else undefined. */
export function asString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

export function path(value: unknown, ...keys: string[]): unknown {
  let current: unknown = value;
  for (const key of keys) {
    const rec = asRecord(current);
    if (rec === undefined) return undefined;
    current = rec[key];
  }
  return current;
}

export function stringAt(value: unknown, ...keys: string[]): string | undefined {
  return asString(path(value, ...keys));
}

export function stringArray(value: unknown): string[] {
  return asArray(value)
    .map(asString)
    .filter((s): s is string => s !== undefined);
}

/** A string map such as labels or annotations; unquoted YAML numbers and booleans become strings. */
export function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const rec = asRecord(value);
  if (rec === undefined) return out;
  for (const [k, v] of Object.entries(rec)) {
    const s = asString(v);
    if (s !== undefined) out[k] = s;
  }
  return out;
}

/** Type and metadata, or undefined when kind or name is missing. */
export function readMeta(obj: unknown): ObjectMeta | undefined {
  const kind = stringAt(obj, 'kind');
  const name = stringAt(obj, 'metadata', 'name');
  if (kind === undefined || kind === '' || name === undefined || name === '') return undefined;
  const namespace = stringAt(obj, 'metadata', 'namespace');
  return {
    apiVersion: stringAt(obj, 'apiVersion') ?? '',
    kind,
    name,
    namespace: namespace === undefined || namespace === '' ? DEFAULT_NAMESPACE : namespace,
    labels: stringMap(path(obj, 'metadata', 'labels')),
    annotations: stringMap(path(obj, 'metadata', 'annotations')),
  };
}

export function refOf(meta: Pick<ObjectMeta, 'kind' | 'namespace' | 'name'>, origin: ObjectOrigin = {}): ObjectRef {
  const ref: ObjectRef = { kind: meta.kind, namespace: meta.namespace, name: meta.name };
  if (origin.file !== undefined) ref.file = origin.file;
  if (origin.line !== undefined) ref.line = origin.line;
  return ref;
}

/** The first part of the `resource` label each kind's endpoints carry (`service/<namespace>/<name>`). */
const RESOURCE_OF_KIND: Readonly<Record<string, string>> = {
  Service: 'service',
  Ingress: 'ingress',
  DNSEndpoint: 'crd',
  Route: 'route',
  HTTPRoute: 'httproute',
  GRPCRoute: 'grpcroute',
  TLSRoute: 'tlsroute',
  TCPRoute: 'tcproute',
  UDPRoute: 'udproute',
};

/**
 * The `resource` label the object's endpoints carry, which the TXT registry stores with each
 * record: how a record is tied back to its object when the object cannot be translated.
 */
export function resourceLabelOf(meta: Pick<ObjectMeta, 'kind' | 'namespace' | 'name'>): string {
  return `${resourceKindOf(meta.kind)}/${meta.namespace}/${meta.name}`;
}

/** The first part of the `resource` label of a kind's objects (`Service` → `service`). */
export function resourceKindOf(kind: string): string {
  return RESOURCE_OF_KIND[kind] ?? kind.toLowerCase();
}

/**
 * A held-resources entry that holds every record of one kind (`httproute/*`): what a source holds
 * while its API resource is not served and it has never listed it, so records written earlier
 * (before a restart, or by a previous install) are neither updated nor deleted meanwhile.
 */
export function heldKind(resourceKind: string): string {
  return `${resourceKind}/*`;
}

/** The object's ref, pointing at the line of `at` inside it when the origin knows it. */
export function refAt(ref: ObjectRef, origin: ObjectOrigin, at: readonly (string | number)[]): ObjectRef {
  const line = origin.lineOf?.(at);
  return line === undefined ? ref : { ...ref, line };
}
