/**
 * Discovery documents (legacy, unaggregated form: clients that ask for aggregated discovery fall
 * back to it), /version, and minimal OpenAPI v3 documents: enough for kubectl to find each kind and
 * to see that the server does field validation itself, so it skips client-side schema checks.
 */
import { createHash } from 'node:crypto';
import { apiVersionOf, verbsOf } from './resources.ts';
import type { ResourceRegistry, ResourceType } from './resources.ts';

/** kubectl here is a dispatcher that runs the client matching the server's minor version. */
export const SERVER_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.4',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-04-01T00:00:00Z',
  goVersion: 'go1.23.6',
  compiler: 'gc',
  platform: 'linux/amd64',
};

function sortedGroups(resources: ResourceRegistry): [string, string[]][] {
  return [...resources.groups().entries()].filter(([g]) => g !== '').sort(([a], [b]) => a.localeCompare(b));
}

export function apiVersions(hostPort: string): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: hostPort }] };
}

function groupDoc(group: string, versions: string[]): Record<string, unknown> {
  const vs = versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
  return { name: group, versions: vs, preferredVersion: vs[0] };
}

export function apiGroupList(resources: ResourceRegistry): Record<string, unknown> {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: sortedGroups(resources).map(([g, vs]) => groupDoc(g, vs)) };
}

export function apiGroup(resources: ResourceRegistry, group: string): Record<string, unknown> | undefined {
  const vs = resources.groups().get(group);
  if (group === '' || vs === undefined) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(group, vs) };
}

function typesIn(resources: ResourceRegistry, group: string, version: string): ResourceType[] {
  return resources.all().filter((t) => t.group === group && t.versions.includes(version));
}

export function apiResourceList(resources: ResourceRegistry, group: string, version: string): Record<string, unknown> | undefined {
  const types = typesIn(resources, group, version);
  if (types.length === 0) return undefined;
  const list: Record<string, unknown>[] = [];
  for (const t of types) {
    const r: Record<string, unknown> = { name: t.plural, singularName: t.singular, namespaced: t.namespaced, kind: t.kind, verbs: verbsOf(t) };
    if (t.shortNames.length > 0) r.shortNames = t.shortNames;
    if (t.categories.length > 0) r.categories = t.categories;
    list.push(r);
    if (t.hasStatus) list.push({ name: `${t.plural}/status`, singularName: '', namespaced: t.namespaced, kind: t.kind, verbs: ['get', 'patch', 'update'] });
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf(group, version), resources: list };
}

function groupVersions(resources: ResourceRegistry): { path: string; group: string; version: string }[] {
  const out = [{ path: 'api/v1', group: '', version: 'v1' }];
  for (const [g, vs] of sortedGroups(resources)) for (const v of vs) out.push({ path: `apis/${g}/${v}`, group: g, version: v });
  return out;
}

/** `/openapi/v3`: one entry per group-version; the hash changes when the served types do. */
export function openApiV3Root(resources: ResourceRegistry): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const gv of groupVersions(resources)) {
    const served = typesIn(resources, gv.group, gv.version)
      .map((t) => `${t.plural}:${t.hasStatus}`)
      .sort()
      .join(',');
    const hash = createHash('sha256').update(served).digest('hex').slice(0, 32).toUpperCase();
    paths[gv.path] = { serverRelativeURL: `/openapi/v3/${gv.path}?hash=${hash}` };
  }
  return { paths };
}

const FIELD_VALIDATION = {
  name: 'fieldValidation',
  in: 'query',
  description: 'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields.',
  schema: { type: 'string', uniqueItems: true },
};

/** A document with each kind's schema (open) and its PATCH operation, which declares fieldValidation. */
export function openApiV3GroupVersion(resources: ResourceRegistry, group: string, version: string): Record<string, unknown> | undefined {
  const types = typesIn(resources, group, version);
  if (types.length === 0 && !(group === '' && version === 'v1')) return undefined;
  const schemas: Record<string, unknown> = {};
  const paths: Record<string, unknown> = {};
  const prefix = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  for (const t of types) {
    const gvk = { group: t.group, version, kind: t.kind };
    const schemaName = `${group === '' ? 'io.k8s.api.core' : group}.${version}.${t.kind}`;
    schemas[schemaName] = { type: 'object', 'x-kubernetes-group-version-kind': [gvk], 'x-kubernetes-preserve-unknown-fields': true };
    const ref = { $ref: `#/components/schemas/${schemaName}` };
    const op = (action: string): Record<string, unknown> => ({
      operationId: `${action}${t.kind}`,
      parameters: action === 'patch' || action === 'put' || action === 'post' ? [FIELD_VALIDATION] : [],
      responses: { '200': { description: 'OK', content: { 'application/json': { schema: ref } } } },
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
    });
    const base = t.namespaced ? `${prefix}/namespaces/{namespace}/${t.plural}` : `${prefix}/${t.plural}`;
    paths[base] = { get: op('list'), post: op('post') };
    paths[`${base}/{name}`] = { get: op('get'), put: op('put'), patch: op('patch'), delete: op('delete') };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: SERVER_VERSION.gitVersion }, paths, components: { schemas } };
}
