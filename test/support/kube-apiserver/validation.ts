/**
 * The little validation the test API server does: names, namespaces, CRD names. Messages follow
 * kube-apiserver's wording so clients that match on them behave the same.
 */
import { ApiError, isRecord } from './types.ts';
import type { KubeObject } from './types.ts';
import type { ResourceType } from './resources.ts';

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function invalid(t: ResourceType, name: string, causes: string[]): ApiError {
  const kind = t.kind;
  return new ApiError(422, 'Invalid', `${kind} "${name}" is invalid: ${causes.join(', ')}`, { name, group: t.group, kind });
}

/** Throws 422 Invalid when the object's name cannot be stored. */
export function validateForCreate(t: ResourceType, obj: KubeObject): void {
  const name = obj.metadata.name;
  if (typeof name !== 'string' || name === '') {
    throw invalid(t, '', ['metadata.name: Required value: name or generateName is required']);
  }
  if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) {
    throw invalid(t, name, [
      `metadata.name: Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
    ]);
  }
  if (t.plural === 'customresourcedefinitions' && t.group === 'apiextensions.k8s.io') {
    const spec = isRecord(obj.spec) ? obj.spec : {};
    const names = isRecord(spec.names) ? spec.names : {};
    const want = `${String(names.plural)}.${String(spec.group)}`;
    if (name !== want) throw invalid(t, name, [`metadata.name: Invalid value: "${name}": must be spec.names.plural+"."+spec.group`]);
    const versions = Array.isArray(spec.versions) ? spec.versions : [];
    if (typeof names.kind !== 'string' || versions.length === 0) {
      throw invalid(t, name, ['spec.names.kind: Required value, spec.versions: Required value']);
    }
  }
}

/** Labels and annotations must be string maps; a number there is a 400 in kube-apiserver too. */
export function validateMetadataShape(obj: KubeObject): void {
  for (const field of ['labels', 'annotations'] as const) {
    const m = obj.metadata[field];
    if (m === undefined || m === null) continue;
    if (!isRecord(m) || Object.values(m).some((v) => typeof v !== 'string')) {
      throw new ApiError(400, 'BadRequest', `metadata.${field}: must be a map of strings`);
    }
  }
}
