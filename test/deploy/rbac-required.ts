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
export type Feature = `source:${string}` | 'events' | 'leader-election' | 'embedded-serials' | 'embedded-replicas';

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

const LIST_WATCH = ['list', 'watch'];

/** Folders of components deployed separately, with RBAC of their own. */
const SEPARATE_COMPONENTS = [
  'src/admission/',
  'src/dnsrecord/',
  'src/operator/',
  'src/privatelink/',
  'src/cli/dnsrecord-controller.ts',
  'src/cli/operator.ts',
  'src/cli/privatelink-controller.ts',
];

function perms(feature: Feature, group: string, resources: string[], verbs: string[], scope: Permission['scope'] = 'cluster'): Permission[] {
  return resources.flatMap((resource) => verbs.map((verb) => ({ feature, group, resource, verb, scope })));
}

/**
 * What the code in src/kube and src/source/kube does today: reflectors list and watch (no single
 * GETs), the crd source PATCHes status, events are POSTed to events.k8s.io, leader election GETs,
 * POSTs and PUTs its Lease. A new call fails the scan test until it is listed here (and granted).
 */
export const PERMISSIONS_TABLE: readonly Permission[] = [
  ...perms('source:service', '', ['services'], LIST_WATCH),
  // NodePort Services publish the nodes' addresses, so the service source follows Nodes too.
  ...perms('source:service', '', ['nodes'], LIST_WATCH),
  // Headless Services publish their EndpointSlices' addresses; Pods are read for host IPs
  // (endpoints-type HostIP, --publish-host-ip) and their hostname and target annotation.
  ...perms('source:service', 'discovery.k8s.io', ['endpointslices'], LIST_WATCH),
  ...perms('source:service', '', ['pods'], LIST_WATCH),
  ...perms('source:ingress', 'networking.k8s.io', ['ingresses'], LIST_WATCH),
  ...perms('source:crd', 'externaldns.k8s.io', ['dnsendpoints'], LIST_WATCH),
  ...perms('source:crd', 'externaldns.k8s.io', ['dnsendpoints/status'], ['patch']),
  ...perms('source:gateway-httproute', 'gateway.networking.k8s.io', ['gateways', 'httproutes'], LIST_WATCH),
  // Listener allowedRoutes.namespaces.selector matches the route's Namespace labels.
  ...perms('source:gateway-httproute', '', ['namespaces'], LIST_WATCH),
  // The other route sources: their own kind, and the Gateways and Namespaces every route source reads.
  ...['grpcroutes', 'tlsroutes', 'tcproutes', 'udproutes'].flatMap((plural) => [
    ...perms(`source:gateway-${plural.slice(0, -1)}`, 'gateway.networking.k8s.io', ['gateways', plural], LIST_WATCH),
    ...perms(`source:gateway-${plural.slice(0, -1)}`, '', ['namespaces'], LIST_WATCH),
  ]),
  // --gateway-listener-sets: routes may attach to ListenerSets (Gateway API v1.5), read only with the flag.
  ...perms('source:gateway-listener-sets', 'gateway.networking.k8s.io', ['listenersets'], LIST_WATCH),
  // pod: Pods, and the Nodes whose addresses the hostname annotation publishes.
  ...perms('source:pod', '', ['pods', 'nodes'], LIST_WATCH),
  ...perms('source:openshift-route', 'route.openshift.io', ['routes'], LIST_WATCH),
  // --source=node publishes each Node's name with its addresses.
  ...perms('source:node', '', ['nodes'], LIST_WATCH),
  // f5-virtualserver, f5-transportserver: F5 CIS's own kinds, nothing else.
  ...perms('source:f5-virtualserver', 'cis.f5.com', ['virtualservers'], LIST_WATCH),
  ...perms('source:f5-transportserver', 'cis.f5.com', ['transportservers'], LIST_WATCH),
  // istio-gateway: Istio Gateways, the ingress-gateway Services their selector picks and the Ingresses of the ingress annotation.
  ...perms('source:istio-gateway', 'networking.istio.io', ['gateways'], LIST_WATCH),
  ...perms('source:istio-gateway', '', ['services'], LIST_WATCH),
  ...perms('source:istio-gateway', 'networking.k8s.io', ['ingresses'], LIST_WATCH),
  // istio-virtualservice: VirtualServices, and what the istio-gateway source reads of the Gateways they bind to.
  ...perms('source:istio-virtualservice', 'networking.istio.io', ['virtualservices', 'gateways'], LIST_WATCH),
  ...perms('source:istio-virtualservice', '', ['services'], LIST_WATCH),
  ...perms('source:istio-virtualservice', 'networking.k8s.io', ['ingresses'], LIST_WATCH),
  // traefik-proxy: the three route kinds in traefik.io and (--traefik-enable-legacy) traefik.containo.us.
  ...['traefik.io', 'traefik.containo.us'].flatMap((group) =>
    perms('source:traefik-proxy', group, ['ingressroutes', 'ingressroutetcps', 'ingressrouteudps'], LIST_WATCH),
  ),
  // ambassador-host: Hosts, and the Services their external-dns.ambassador-service annotation names.
  ...perms('source:ambassador-host', 'getambassador.io', ['hosts'], LIST_WATCH),
  ...perms('source:ambassador-host', '', ['services'], LIST_WATCH),
  ...perms('source:kong-tcpingress', 'configuration.konghq.com', ['tcpingresses'], LIST_WATCH),
  ...perms('source:skipper-routegroup', 'zalando.org', ['routegroups'], LIST_WATCH),
  // contour-httpproxy reads Contour's HTTPProxies only (targets come from their own status).
  ...perms('source:contour-httpproxy', 'projectcontour.io', ['httpproxies'], LIST_WATCH),
  // gloo-proxy: Proxies, the VirtualServices and Gateways they name, the Proxy's Service, the Ingress a Gateway names.
  ...perms('source:gloo-proxy', 'gloo.solo.io', ['proxies'], LIST_WATCH),
  ...perms('source:gloo-proxy', 'gateway.solo.io', ['virtualservices', 'gateways'], LIST_WATCH),
  ...perms('source:gloo-proxy', '', ['services'], LIST_WATCH),
  ...perms('source:gloo-proxy', 'networking.k8s.io', ['ingresses'], LIST_WATCH),
  // unstructured: whatever --unstructured-resource names (user-chosen, so granted from the chart's
  // unstructured.resources; see chart.test.ts), after discovery documents (open to every client).
  ...perms('events', 'events.k8s.io', ['events'], ['create']),
  ...perms('leader-election', 'coordination.k8s.io', ['leases'], ['get', 'create', 'update'], 'namespace'),
  // The embedded provider's SOA serials (--embedded-serial-configmap), in the Lease's namespace.
  ...perms('embedded-serials', '', ['configmaps'], ['get', 'create', 'patch'], 'namespace'),
  // Embedded replica sets: followers watch the Lease (the leader's transfer address; granted with
  // the Lease whatever the provider), and every replica reads (or the first creates) the set's TSIG key Secret.
  ...perms('leader-election', 'coordination.k8s.io', ['leases'], ['watch'], 'namespace'),
  ...perms('embedded-replicas', '', ['secrets'], ['get', 'create'], 'namespace'),
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
  Event: [
    { group: '', resource: 'events' },
    { group: 'events.k8s.io', resource: 'events' },
  ],
  Lease: [{ group: 'coordination.k8s.io', resource: 'leases' }],
  Namespace: [{ group: '', resource: 'namespaces' }],
  ConfigMap: [{ group: '', resource: 'configmaps' }],
  Secret: [{ group: '', resource: 'secrets' }],
  CustomObject: [],
};

const VERBS: Readonly<Record<string, string>> = {
  list: 'list',
  read: 'get',
  create: 'create',
  patch: 'patch',
  replace: 'update',
  delete: 'delete',
  watch: 'watch',
};

// e.g. listServiceForAllNamespaces, readNamespacedLease, patchNamespacedCustomObjectStatus; only
// the kinds above, so `.readFile(` in the same file is not taken for an API call.
const KIND_NAMES = Object.keys(KINDS)
  .sort((a, b) => b.length - a.length)
  .join('|');
const CALL = new RegExp(`\\.(list|read|create|patch|replace|delete|watch)(Namespaced|Cluster)?(${KIND_NAMES})(ForAllNamespaces)?(Status)?\\s*\\(`, 'g');
// Paths handed to informers and Watch: '/api/v1/services', '/apis/networking.k8s.io/v1/ingresses',
// '/api/v1/namespaces/${ns}/pods'.
const PATH = /['"`](\/apis?\/(?:([a-z0-9.-]+)\/)?v[0-9a-z]+\/(?:namespaces\/\$\{[^}]+\}\/)?([a-z]+))['"`]/g;

function sourceFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).map((f) => join(dir, f));
}

export interface Scan {
  calls: FoundCall[];
  /** Requests whose resource the scan could not work out (e.g. inside the generic reflector). */
  unresolved: string[];
}

type Target = { group: string; resource: string };

/** `export const SERVICES: KubeResource = { apiVersion: 'v1', …, plural: 'services', … }`. */
function resourceConstants(root: string): Map<string, Target> {
  const out = new Map<string, Target>();
  const file = join(root, 'src/kube/resource.ts');
  if (!existsSync(file)) return out;
  for (const m of readFileSync(file, 'utf8').matchAll(/export const (\w+): KubeResource = \{([^}]*)\}/g)) {
    const apiVersion = /apiVersion: '([^']+)'/.exec(m[2] ?? '')?.[1];
    const plural = /plural: '([^']+)'/.exec(m[2] ?? '')?.[1];
    if (apiVersion !== undefined && plural !== undefined)
      out.set(m[1] ?? '', { group: apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '', resource: plural });
  }
  return out;
}

// The crd source builds its resource with customResource(--crd-source-apiversion, --crd-source-kind),
// DNSEndpoint by default: that is what the manifests grant.
const CUSTOM: Target = { group: 'externaldns.k8s.io', resource: 'dnsendpoints' };

/** The first argument after `from`, up to a top-level comma or closing parenthesis. */
function firstArg(text: string, from: number): string {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) return text.slice(from, i).trim();
      depth--;
    } else if (c === ',' && depth === 0) return text.slice(from, i).trim();
  }
  return text.slice(from).trim();
}

function resolveTarget(expr: string, constants: Map<string, Target>, fileText: string): Target | undefined {
  const name = /^([\w.]+)$/.exec(expr)?.[1];
  if (name === undefined) return undefined;
  const constant = constants.get(name);
  if (constant !== undefined) return constant;
  return /\bresource$/.test(name) && fileText.includes('customResource(') ? CUSTOM : undefined;
}

const METHOD_VERBS: Readonly<Record<string, [collection: string, object: string]>> = {
  GET: ['list', 'get'],
  POST: ['create', 'create'],
  PUT: ['update', 'update'],
  PATCH: ['patch', 'patch'],
  DELETE: ['deletecollection', 'delete'],
};

/** Calls through the project's own REST client (src/kube/client.ts) and the reflectors built on it. */
function scanRestClient(rel: string, text: string, constants: Map<string, Target>, out: Scan): void {
  for (const m of text.matchAll(/\breflector\(/g)) {
    const args = text.slice((m.index ?? 0) + m[0].length);
    const second = firstArg(args, args.indexOf(',') + 1);
    if (second.includes(':')) continue; // the helper's own definition
    const target = resolveTarget(second, constants, text);
    const line = text.slice(0, m.index).split('\n').length;
    if (target === undefined) out.unresolved.push(`${rel}:${line}: reflector(…, ${second})`);
    else out.calls.push({ where: `${rel}:${line}`, call: `reflector(${second})`, needs: ['list', 'watch'].map((verb) => ({ ...target, verb })) });
  }
  // One named object watched (src/kube/object-watch.ts): `new ObjectWatch({ …, resource: LEASES, … })`.
  for (const m of text.matchAll(/new ObjectWatch\(\{[^}]*?\bresource:\s*(\w+)/g)) {
    const line = text.slice(0, m.index).split('\n').length;
    const target = resolveTarget(m[1] ?? '', constants, text);
    if (target === undefined) out.unresolved.push(`${rel}:${line}: ObjectWatch ${m[1] ?? ''}`);
    else out.calls.push({ where: `${rel}:${line}`, call: `ObjectWatch(${m[1] ?? ''})`, needs: [{ ...target, verb: 'watch' }] });
  }
  for (const m of text.matchAll(/\.request(?:<[^>(]*>)?\(\s*'([A-Z]+)',\s*/g)) {
    const line = text.slice(0, m.index).split('\n').length;
    let expr = firstArg(text, (m.index ?? 0) + m[0].length);
    if (/^\w+$/.test(expr)) {
      // A path held in a local: the nearest `const path = …` before the call.
      const before = text.slice(0, m.index);
      const decl = [...before.matchAll(new RegExp(`const ${expr}\\s*=\\s*([^;\\n]+)`, 'g'))].pop();
      if (decl?.[1] !== undefined) expr = decl[1];
    }
    const pathCall = /\b(objectPath|collectionPath)\(/.exec(expr);
    const verbs = METHOD_VERBS[m[1] ?? ''];
    const target = pathCall === null ? undefined : resolveTarget(firstArg(expr, pathCall.index + pathCall[0].length), constants, text);
    if (pathCall === null || verbs === undefined || target === undefined) {
      out.unresolved.push(`${rel}:${line}: request ${m[1] ?? ''} ${expr}`);
      continue;
    }
    const verb = pathCall[1] === 'objectPath' ? verbs[1] : verbs[0];
    const resource = expr.includes('/status') ? `${target.resource}/status` : target.resource;
    out.calls.push({ where: `${rel}:${line}`, call: `${m[1] ?? ''} ${expr}`, needs: [{ group: target.group, resource, verb }] });
  }
}

export function scanApiCalls(root: string): Scan {
  const out: Scan = { calls: [], unresolved: [] };
  const constants = resourceConstants(root);
  for (const file of sourceFiles(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    const rel = file.slice(root.length + 1);
    // The admission webhook, DNSRecord controller, operator and PrivateLink controller run as their
    // own Deployments with their own RBAC (deploy/<component>/, each checked by its own test); their
    // calls are not the sync engine's.
    if (SEPARATE_COMPONENTS.some((dir) => rel.startsWith(dir))) continue;
    scanRestClient(rel, text, constants, out);
    if (!text.includes('@kubernetes/client-node') && !/['"`]\/apis?\//.test(text)) continue;
    for (const m of text.matchAll(CALL)) {
      const [, op = '', , kind = '', , status] = m;
      const verb = VERBS[op] ?? op;
      const line = text.slice(0, m.index).split('\n').length;
      const call = m[0].slice(1).replace(/\s*\($/, '');
      if (kind === 'CustomObject') {
        out.calls.push({ where: `${rel}:${line}`, call, needs: [{ group: undefined, resource: status === undefined ? undefined : '*/status', verb }] });
        continue;
      }
      const needs = (KINDS[kind] ?? []).map((t) => ({ group: t.group, resource: status === undefined ? t.resource : `${t.resource}/status`, verb }));
      out.calls.push({ where: `${rel}:${line}`, call, needs });
    }
    for (const m of text.matchAll(PATH)) {
      const [, path = '', group, resource = ''] = m;
      const line = text.slice(0, m.index).split('\n').length;
      const g = path.startsWith('/api/') ? '' : group;
      out.calls.push({ where: `${rel}:${line}`, call: path, needs: ['list', 'watch'].map((verb) => ({ group: g, resource, verb })) });
    }
  }
  return out;
}

/** Permissions in `table` that no call found in src/ uses. */
export function unusedPermissions(calls: readonly FoundCall[], table: readonly Permission[]): string[] {
  const used = new Set(
    calls.flatMap((c) => c.needs.filter((n) => n.group !== undefined && n.resource !== undefined).map((n) => permissionKey(n as Target & { verb: string }))),
  );
  return table.map(permissionKey).filter((k) => !used.has(k));
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
      if (!covered && !anyEvent)
        problems.push(
          `${c.where}: ${c.call} needs ${need.group === '' ? 'core' : (need.group ?? '?')}/${need.resource ?? '?'}:${need.verb}, which no permission lists`,
        );
    }
  }
  return problems;
}

/** The grants an install needs: every `source:` feature for the sources it runs, plus the rest. */
export function expectedGrants(table: readonly Permission[], sources: readonly string[] | 'all'): { cluster: Set<string>; namespaced: Set<string> } {
  // Sources and the optional features (events: --events-emit) are granted only when chosen.
  const chosen = (feature: string): boolean => sources === 'all' || sources.includes(feature);
  // Events and the embedded replica set's grants (provider embedded) are granted only when chosen.
  const optional = (f: string): boolean => f === 'events' || f === 'embedded-replicas';
  const wanted = table.filter((p) => (p.feature.startsWith('source:') ? chosen(p.feature.slice('source:'.length)) : !optional(p.feature) || chosen(p.feature)));
  return {
    cluster: new Set(wanted.filter((p) => p.scope === 'cluster').map(permissionKey)),
    namespaced: new Set(wanted.filter((p) => p.scope === 'namespace').map(permissionKey)),
  };
}
