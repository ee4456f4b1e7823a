/**
 * The resource types the test API server serves: the built-in ones it starts with and the ones
 * CustomResourceDefinitions add. Discovery, routing and the store all read this one table, so a
 * resource is either fully served or not at all.
 */
import type { JsonSchema } from './schema.ts';
import type { KubeObject } from './types.ts';

export interface ResourceType {
  readonly group: string;
  readonly version: string;
  /** Every version served (CRDs may list several); objects are stored once, whatever the version. */
  readonly versions: readonly string[];
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly hasStatus: boolean;
  /** Only `create` is served (the access reviews, answered by the configured function): nothing is stored. */
  readonly createOnly: boolean;
  /** Set for types that a CRD defines; its name (`plural.group`). */
  readonly crd?: string;
  /** The openAPIV3Schema of each served version that has one (CRDs only): objects are pruned and validated by it. */
  readonly schemas?: ReadonlyMap<string, JsonSchema>;
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function verbsOf(t: ResourceType): string[] {
  return t.createOnly ? ['create'] : ALL_VERBS;
}

export function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** Key identifying a resource across versions: `group/plural`. */
export function typeKey(group: string, plural: string): string {
  return `${group}/${plural}`;
}

interface BuiltinSpec {
  g: string;
  v: string;
  plural: string;
  kind: string;
  ns: boolean;
  status?: boolean;
  short?: string[];
  createOnly?: boolean;
}

const BUILTINS: readonly BuiltinSpec[] = [
  { g: '', v: 'v1', plural: 'namespaces', kind: 'Namespace', ns: false, status: true, short: ['ns'] },
  { g: '', v: 'v1', plural: 'services', kind: 'Service', ns: true, status: true, short: ['svc'] },
  { g: '', v: 'v1', plural: 'endpoints', kind: 'Endpoints', ns: true, short: ['ep'] },
  { g: '', v: 'v1', plural: 'pods', kind: 'Pod', ns: true, status: true, short: ['po'] },
  { g: '', v: 'v1', plural: 'nodes', kind: 'Node', ns: false, status: true, short: ['no'] },
  { g: '', v: 'v1', plural: 'configmaps', kind: 'ConfigMap', ns: true, short: ['cm'] },
  { g: '', v: 'v1', plural: 'secrets', kind: 'Secret', ns: true },
  { g: '', v: 'v1', plural: 'serviceaccounts', kind: 'ServiceAccount', ns: true, short: ['sa'] },
  { g: '', v: 'v1', plural: 'events', kind: 'Event', ns: true, short: ['ev'] },
  { g: 'events.k8s.io', v: 'v1', plural: 'events', kind: 'Event', ns: true, short: ['ev'] },
  { g: 'networking.k8s.io', v: 'v1', plural: 'ingresses', kind: 'Ingress', ns: true, status: true, short: ['ing'] },
  { g: 'networking.k8s.io', v: 'v1', plural: 'ingressclasses', kind: 'IngressClass', ns: false },
  { g: 'discovery.k8s.io', v: 'v1', plural: 'endpointslices', kind: 'EndpointSlice', ns: true },
  { g: 'coordination.k8s.io', v: 'v1', plural: 'leases', kind: 'Lease', ns: true },
  {
    g: 'apiextensions.k8s.io',
    v: 'v1',
    plural: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    ns: false,
    status: true,
    short: ['crd', 'crds'],
  },
  { g: 'authorization.k8s.io', v: 'v1', plural: 'subjectaccessreviews', kind: 'SubjectAccessReview', ns: false, createOnly: true },
  { g: 'authorization.k8s.io', v: 'v1', plural: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', ns: false, createOnly: true },
  { g: 'authorization.k8s.io', v: 'v1', plural: 'localsubjectaccessreviews', kind: 'LocalSubjectAccessReview', ns: true, createOnly: true },
  { g: 'apps', v: 'v1', plural: 'deployments', kind: 'Deployment', ns: true, status: true, short: ['deploy'] },
  { g: 'policy', v: 'v1', plural: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', ns: true, status: true, short: ['pdb'] },
  { g: 'rbac.authorization.k8s.io', v: 'v1', plural: 'roles', kind: 'Role', ns: true },
  { g: 'rbac.authorization.k8s.io', v: 'v1', plural: 'rolebindings', kind: 'RoleBinding', ns: true },
  { g: 'rbac.authorization.k8s.io', v: 'v1', plural: 'clusterroles', kind: 'ClusterRole', ns: false },
  { g: 'rbac.authorization.k8s.io', v: 'v1', plural: 'clusterrolebindings', kind: 'ClusterRoleBinding', ns: false },
  { g: 'admissionregistration.k8s.io', v: 'v1', plural: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', ns: false },
  { g: 'admissionregistration.k8s.io', v: 'v1', plural: 'mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration', ns: false },
];

function builtin(s: BuiltinSpec): ResourceType {
  return {
    group: s.g,
    version: s.v,
    versions: [s.v],
    plural: s.plural,
    singular: s.kind.toLowerCase(),
    kind: s.kind,
    listKind: `${s.kind}List`,
    namespaced: s.ns,
    shortNames: s.short ?? [],
    categories: [],
    hasStatus: s.status ?? false,
    createOnly: s.createOnly ?? false,
  };
}

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The resource type a CRD object declares, or undefined when it lacks what serving needs. */
export function resourceTypeFromCrd(crd: KubeObject): ResourceType | undefined {
  const spec = asRecord(crd.spec);
  const names = asRecord(spec.names);
  const group = spec.group;
  const plural = names.plural;
  const kind = names.kind;
  if (typeof group !== 'string' || typeof plural !== 'string' || typeof kind !== 'string') return undefined;
  const versions = (Array.isArray(spec.versions) ? spec.versions : []).map(asRecord).filter((v) => v.served !== false);
  const names_ = versions.map((v) => v.name).filter((n): n is string => typeof n === 'string');
  if (names_.length === 0) return undefined;
  const storage = versions.find((v) => v.storage === true) ?? versions[0];
  const hasStatus = versions.some((v) => asRecord(v.subresources).status !== undefined);
  const schemas = new Map<string, JsonSchema>();
  for (const v of versions) {
    const schema = asRecord(asRecord(v.schema).openAPIV3Schema);
    if (typeof v.name === 'string' && Object.keys(schema).length > 0) schemas.set(v.name, schema);
  }
  return {
    group,
    version: typeof storage?.name === 'string' ? storage.name : names_[0]!,
    versions: names_,
    plural,
    singular: typeof names.singular === 'string' ? names.singular : kind.toLowerCase(),
    kind,
    listKind: typeof names.listKind === 'string' ? names.listKind : `${kind}List`,
    namespaced: spec.scope !== 'Cluster',
    shortNames: strings(names.shortNames),
    categories: strings(names.categories),
    hasStatus,
    createOnly: false,
    crd: crd.metadata.name,
    schemas,
  };
}

/** The table of served resources; CRDs are added and removed as their objects come and go. */
export class ResourceRegistry {
  private readonly types = new Map<string, ResourceType>();

  constructor() {
    for (const s of BUILTINS) this.add(builtin(s));
  }

  add(t: ResourceType): void {
    this.types.set(typeKey(t.group, t.plural), t);
  }

  removeCrd(crdName: string): ResourceType | undefined {
    for (const [k, t] of this.types) {
      if (t.crd === crdName) {
        this.types.delete(k);
        return t;
      }
    }
    return undefined;
  }

  /** The type served at `group/version/plural`, if that version is served. */
  lookup(group: string, version: string, plural: string): ResourceType | undefined {
    const t = this.types.get(typeKey(group, plural));
    return t !== undefined && t.versions.includes(version) ? t : undefined;
  }

  /** The type of a kind (for store helpers that get whole objects). */
  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    for (const t of this.types.values()) {
      if (t.kind === kind && t.versions.some((v) => apiVersionOf(t.group, v) === apiVersion)) return t;
    }
    return undefined;
  }

  all(): ResourceType[] {
    return [...this.types.values()];
  }

  /** Served groups with their versions, core ('') included, in a stable order. */
  groups(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const t of this.types.values()) {
      const vs = out.get(t.group) ?? [];
      for (const v of t.versions) if (!vs.includes(v)) vs.push(v);
      out.set(t.group, vs);
    }
    return out;
  }
}
