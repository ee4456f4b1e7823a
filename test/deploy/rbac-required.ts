/**
 * What the Kubernetes code needs from the API server, as (group, resource, verb) triples, and a
 * scan of src/ that finds the API calls the code makes, so the RBAC rules can be compared with
 * both.
 *
 * The table below is the reference while the Kubernetes code has no table of its own. When
 * src/kube/permissions.ts exports `KUBE_PERMISSIONS` (same shape as `Permission`, with `feature`
 * set), requiredPermissions() uses that instead, so the code states what it needs next to the
 * calls that need it. Either way the scan keeps the table honest: an API call in src/ that no
 * entry covers fails the test.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** `source:<name>` is needed only when that source runs; the others always. */
export type Feature = `source:${string}` | 'events' | 'leader-election';

export interface Permission {
  feature: Feature;
  /** '' is the core group. */
  group: string;
  /** With a subresource: `dnsendpoints/status`. */
  resource: string;
  verb: string;
  /** Leases are only needed in Hostwarden's own namespace (a Role); the rest cluster-wide. */
  scope: 'cluster' | 'namespace';
}

const READ = ['get', 'list', 'watch'];

function perms(feature: Feature, group: string, resources: string[], verbs: string[], scope: Permission['scope'] = 'cluster'): Permission[] {
  return resources.flatMap((resource) => verbs.map((verb) => ({ feature, group, resource, verb, scope })));
}

/** Issue 4: the sources read their objects (informers list and watch, lookups get). */
export const PERMISSIONS_TABLE: readonly Permission[] = [
  ...perms('source:service', '', ['services', 'endpoints', 'pods', 'nodes'], READ),
  ...perms('source:service', 'discovery.k8s.io', ['endpointslices'], READ),
  ...perms('source:ingress', 'networking.k8s.io', ['ingresses'], READ),
  ...perms('source:crd', 'externaldns.k8s.io', ['dnsendpoints'], READ),
  ...perms('source:crd', 'externaldns.k8s.io', ['dnsendpoints/status'], ['update', 'patch']),
  ...perms('source:gateway-httproute', 'gateway.networking.k8s.io', ['gateways', 'httproutes'], READ),
  // RecordReady/RecordDeleted/RecordError; a repeated event is patched (count), not re-created.
  ...perms('events', '', ['events'], ['create', 'patch']),
  ...perms('events', 'events.k8s.io', ['events'], ['create', 'patch']),
  ...perms('leader-election', 'coordination.k8s.io', ['leases'], ['get', 'create', 'update'], 'namespace'),
];

export async function requiredPermissions(root: string): Promise<readonly Permission[]> {
  const file = join(root, 'src/kube/permissions.ts');
  if (!existsSync(file)) return PERMISSIONS_TABLE;
  const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  const table = mod['KUBE_PERMISSIONS'];
  return Array.isArray(table) ? (table as Permission[]) : PERMISSIONS_TABLE;
}

export function permissionKey(p: { group: string; resource: string; verb: string }): string {
  return `${p.group === '' ? 'core' : p.group}/${p.resource}:${p.verb}`;
}

/** A call found in src/: what it needs, and where it is. */
export interface FoundCall {
  where: string;
  call: string;
  /** Exact triples the call needs; for custom objects the group/resource is an argument, so only the verb is known. */
  needs: { group: string | undefined; resource: string | undefined; verb: string }[];
}

/** client-node typed API kinds → (group, plural). Events exist in two groups; either API may be used. */
const KINDS: Readonly<Record<string, { group: string; resource: string }[]>> = {
  Service: [{ group: '', resource: 'services' }],
  Endpoints: [{ group: '', resource: 'endpoints' }],
  Pod: [{ group: '', resource: 'pods' }],
  Node: [{ group: '', resource: 'nodes' }],
  EndpointSlice: [{ group: 'discovery.k8s.io', resource: 'endpointslices' }],
  Ingress: [{ group: 'networking.k8s.io', resource: 'ingresses' }],
  Event: [{ group: '', resource: 'events' }, { group: 'events.k8s.io', resource: 'events' }],
  Lease: [{ group: 'coordination.k8s.io', resource: 'leases' }],
  Namespace: [{ group: '', resource: 'namespaces' }],
  ConfigMap: [{ group: '', resource: 'configmaps' }],
  Secret: [{ group: '', resource: 'secrets' }],
  CustomObject: [],
};

const VERBS: Readonly<Record<string, string>> = { list: 'list', read: 'get', create: 'create', patch: 'patch', replace: 'update', delete: 'delete', watch: 'watch' };

// e.g. listServiceForAllNamespaces, readNamespacedLease, patchNamespacedCustomObjectStatus; only
// the kinds above, so `.readFile(` in the same file is not taken for an API call.
const KIND_NAMES = Object.keys(KINDS).sort((a, b) => b.length - a.length).join('|');
const CALL = new RegExp(`\\.(list|read|create|patch|replace|delete|watch)(Namespaced|Cluster)?(${KIND_NAMES})(ForAllNamespaces)?(Status)?\\s*\\(`, 'g');
// Paths handed to informers and Watch: '/api/v1/services', '/apis/networking.k8s.io/v1/ingresses',
// '/api/v1/namespaces/${ns}/pods'.
const PATH = /['"`](\/apis?\/(?:([a-z0-9.-]+)\/)?v[0-9a-z]+\/(?:namespaces\/\$\{[^}]+\}\/)?([a-z]+))['"`]/g;

function sourceFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => join(dir, f));
}

export function scanApiCalls(root: string): FoundCall[] {
  const found: FoundCall[] = [];
  for (const file of sourceFiles(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    if (!text.includes('@kubernetes/client-node') && !/['"`]\/apis?\//.test(text)) continue;
    const rel = file.slice(root.length + 1);
    for (const m of text.matchAll(CALL)) {
      const [, op = '', , kind = '', , status] = m;
      const verb = VERBS[op] ?? op;
      const line = text.slice(0, m.index).split('\n').length;
      const call = m[0].slice(1).replace(/\s*\($/, '');
      if (kind === 'CustomObject') {
        found.push({ where: `${rel}:${line}`, call, needs: [{ group: undefined, resource: status === undefined ? undefined : '*/status', verb }] });
        continue;
      }
      const needs = (KINDS[kind] ?? []).map((t) => ({ group: t.group, resource: status === undefined ? t.resource : `${t.resource}/status`, verb }));
      found.push({ where: `${rel}:${line}`, call, needs });
    }
    for (const m of text.matchAll(PATH)) {
      const [, path = '', group, resource = ''] = m;
      const line = text.slice(0, m.index).split('\n').length;
      const g = path.startsWith('/api/') ? '' : group;
      found.push({ where: `${rel}:${line}`, call: path, needs: ['list', 'watch'].map((verb) => ({ group: g, resource, verb })) });
    }
  }
  return found;
}

/** Calls whose needs no permission in `table` covers, as readable lines. */
export function uncoveredCalls(calls: readonly FoundCall[], table: readonly Permission[]): string[] {
  const problems: string[] = [];
  for (const c of calls) {
    for (const need of c.needs) {
      const covered = table.some(
        (p) =>
          p.verb === need.verb &&
          (need.group === undefined || p.group === need.group) &&
          (need.resource === undefined || (need.resource === '*/status' ? p.resource.endsWith('/status') : p.resource === need.resource)),
      );
      const events = c.needs.length > 1 && c.needs.every((n) => n.resource === 'events');
      const anyEvent = events && c.needs.some((n) => table.some((p) => p.verb === n.verb && p.group === n.group && p.resource === 'events'));
      if (!covered && !anyEvent) problems.push(`${c.where}: ${c.call} needs ${need.group === '' ? 'core' : (need.group ?? '?')}/${need.resource ?? '?'}:${need.verb}, which no permission lists`);
    }
  }
  return problems;
}

/** The grants an install needs: every `source:` feature for the sources it runs, plus the rest. */
export function expectedGrants(table: readonly Permission[], sources: readonly string[] | 'all'): { cluster: Set<string>; namespaced: Set<string> } {
  const wanted = table.filter((p) => !p.feature.startsWith('source:') || sources === 'all' || sources.includes(p.feature.slice('source:'.length)));
  return {
    cluster: new Set(wanted.filter((p) => p.scope === 'cluster').map(permissionKey)),
    namespaced: new Set(wanted.filter((p) => p.scope === 'namespace').map(permissionKey)),
  };
}
