/**
 * RBAC as kube-apiserver's authorizer chain answers a SubjectAccessReview: the `system:masters`
 * group is allowed everything (the privileged-group authorizer in front of RBAC), then the rules of
 * every ClusterRoleBinding apply in every namespace and cluster-wide, and a RoleBinding's rules only
 * to requests in its own namespace. A request with no namespace (cluster-scoped, or "all
 * namespaces" from a SubjectAccessReview) is therefore granted by ClusterRoleBindings alone: that is
 * the property a cluster-wide check relies on. Matching follows rbac/v1's rule semantics
 * (verbs, apiGroups, `resource/subresource` and `*`/`*\/subresource`, resourceNames, nonResourceURLs
 * with a trailing `*`), subjects are Users, Groups and ServiceAccounts (a RoleBinding's
 * ServiceAccount without a namespace means its own), and ClusterRole aggregation by label selector
 * is resolved at evaluation time instead of by a controller.
 */
import { isRecord } from './types.ts';
import type { KubeObject } from './types.ts';

export interface RbacObjects {
  clusterRoles(): readonly KubeObject[];
  clusterRoleBindings(): readonly KubeObject[];
  roles(namespace: string): readonly KubeObject[];
  roleBindings(namespace: string): readonly KubeObject[];
}

export interface AccessUser {
  name: string;
  groups: readonly string[];
}

/** authorization.k8s.io/v1 resourceAttributes or nonResourceAttributes, as one request. */
export type AccessRequest =
  | { kind: 'resource'; namespace: string; verb: string; group: string; resource: string; subresource: string; name: string }
  | { kind: 'nonResource'; verb: string; path: string };

export interface AccessDecision {
  allowed: boolean;
  reason: string;
}

interface Rule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
  nonResourceURLs: string[];
}

interface Subject {
  kind: string;
  name: string;
  namespace: string;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function rulesOf(role: KubeObject | undefined): Rule[] {
  const raw = Array.isArray(role?.['rules']) ? (role['rules'] as unknown[]) : [];
  return raw.filter(isRecord).map((r) => ({
    verbs: strings(r['verbs']),
    apiGroups: strings(r['apiGroups']),
    resources: strings(r['resources']),
    resourceNames: strings(r['resourceNames']),
    nonResourceURLs: strings(r['nonResourceURLs']),
  }));
}

function subjectsOf(binding: KubeObject): Subject[] {
  const raw = Array.isArray(binding['subjects']) ? (binding['subjects'] as unknown[]) : [];
  return raw
    .filter(isRecord)
    .map((s) => ({ kind: String(s['kind'] ?? ''), name: String(s['name'] ?? ''), namespace: typeof s['namespace'] === 'string' ? s['namespace'] : '' }));
}

/** Does the subject name this user? `bindingNamespace` is '' for a ClusterRoleBinding. */
function appliesTo(s: Subject, user: AccessUser, bindingNamespace: string): boolean {
  switch (s.kind) {
    case 'User':
      return s.name === user.name;
    case 'Group':
      return user.groups.includes(s.name);
    case 'ServiceAccount': {
      const ns = s.namespace !== '' ? s.namespace : bindingNamespace;
      return ns !== '' && user.name === `system:serviceaccount:${ns}:${s.name}`;
    }
    default:
      return false;
  }
}

function resourceMatches(rule: Rule, resource: string, subresource: string): boolean {
  const combined = subresource === '' ? resource : `${resource}/${subresource}`;
  return rule.resources.some((r) => r === '*' || r === combined || (subresource !== '' && r === `*/${subresource}`));
}

function urlMatches(rule: Rule, path: string): boolean {
  return rule.nonResourceURLs.some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))));
}

export function ruleAllows(rule: Rule, req: AccessRequest): boolean {
  if (!rule.verbs.some((v) => v === '*' || v === req.verb)) return false;
  if (req.kind === 'nonResource') return urlMatches(rule, req.path);
  return (
    rule.apiGroups.some((g) => g === '*' || g === req.group) &&
    resourceMatches(rule, req.resource, req.subresource) &&
    (rule.resourceNames.length === 0 || rule.resourceNames.includes(req.name))
  );
}

function labelsMatch(selector: unknown, labels: Record<string, string>): boolean {
  if (!isRecord(selector)) return false;
  const want = isRecord(selector['matchLabels']) ? (selector['matchLabels'] as Record<string, unknown>) : {};
  return Object.entries(want).every(([k, v]) => labels[k] === v);
}

export class RbacAuthorizer {
  constructor(private readonly objects: RbacObjects) {}

  /** A ClusterRole's rules, with those of the ClusterRoles its aggregationRule selects. */
  private clusterRoleRules(name: string): Rule[] {
    const all = this.objects.clusterRoles();
    const role = all.find((r) => r.metadata.name === name);
    if (role === undefined) return [];
    const agg = isRecord(role['aggregationRule']) ? role['aggregationRule'] : undefined;
    const selectors = Array.isArray(agg?.['clusterRoleSelectors']) ? (agg['clusterRoleSelectors'] as unknown[]) : [];
    const aggregated = all.filter((r) => r !== role && selectors.some((s) => labelsMatch(s, r.metadata.labels ?? {})));
    return [...rulesOf(role), ...aggregated.flatMap((r) => rulesOf(r))];
  }

  private roleRules(binding: KubeObject, namespace: string): Rule[] {
    const ref = isRecord(binding['roleRef']) ? binding['roleRef'] : {};
    const name = String(ref['name'] ?? '');
    if (ref['kind'] === 'ClusterRole') return this.clusterRoleRules(name);
    if (ref['kind'] === 'Role' && namespace !== '') return rulesOf(this.objects.roles(namespace).find((r) => r.metadata.name === name));
    return [];
  }

  authorize(user: AccessUser, req: AccessRequest): AccessDecision {
    if (user.groups.includes('system:masters')) return { allowed: true, reason: '' };
    const namespace = req.kind === 'resource' ? req.namespace : '';
    const visit = (binding: KubeObject, bindingKind: string, ns: string): AccessDecision | undefined => {
      const subject = subjectsOf(binding).find((s) => appliesTo(s, user, ns));
      if (subject === undefined || !this.roleRules(binding, ns).some((r) => ruleAllows(r, req))) return undefined;
      const ref = binding['roleRef'] as Record<string, unknown>;
      const where = ns === '' ? '' : ` in namespace "${ns}"`;
      return {
        allowed: true,
        reason: `RBAC: allowed by ${bindingKind} "${binding.metadata.name}"${where} of ${String(ref['kind'])} "${String(ref['name'])}" to ${subject.kind} "${subject.name}"`,
      };
    };
    for (const b of this.objects.clusterRoleBindings()) {
      const d = visit(b, 'ClusterRoleBinding', '');
      if (d !== undefined) return d;
    }
    if (namespace !== '') {
      for (const b of this.objects.roleBindings(namespace)) {
        const d = visit(b, 'RoleBinding', namespace);
        if (d !== undefined) return d;
      }
    }
    // kube-apiserver reports no reason when no authorizer had an opinion.
    return { allowed: false, reason: '' };
  }
}

/** The request a SubjectAccessReview spec asks about, or why the spec is invalid (422 as kube-apiserver says it). */
export function accessOfReview(
  spec: Record<string, unknown>,
  pathNamespace?: string,
): { user: AccessUser; request: AccessRequest } | { invalid: string; field: string } {
  const ra = isRecord(spec['resourceAttributes']) ? spec['resourceAttributes'] : undefined;
  const nra = isRecord(spec['nonResourceAttributes']) ? spec['nonResourceAttributes'] : undefined;
  if (ra === undefined && nra === undefined)
    return { invalid: 'exactly one of nonResourceAttributes or resourceAttributes must be specified', field: 'spec.resourceAttributes' };
  if (ra !== undefined && nra !== undefined)
    return { invalid: 'cannot be specified in combination with resourceAttributes', field: 'spec.nonResourceAttributes' };
  const name = typeof spec['user'] === 'string' ? spec['user'] : '';
  const groups = strings(spec['groups']);
  if (name === '' && groups.length === 0) return { invalid: 'at least one of user or group must be specified', field: 'spec.user' };
  const str = (r: Record<string, unknown>, k: string): string => (typeof r[k] === 'string' ? r[k] : '');
  const user = { name, groups };
  if (nra !== undefined) return { user, request: { kind: 'nonResource', verb: str(nra, 'verb'), path: str(nra, 'path') } };
  const attrs = ra!;
  const namespace = str(attrs, 'namespace');
  if (pathNamespace !== undefined && namespace !== '' && namespace !== pathNamespace) {
    return { invalid: `must match metadata.namespace`, field: 'spec.resourceAttributes.namespace' };
  }
  return {
    user,
    request: {
      kind: 'resource',
      namespace: pathNamespace ?? namespace,
      verb: str(attrs, 'verb'),
      group: str(attrs, 'group'),
      resource: str(attrs, 'resource'),
      subresource: str(attrs, 'subresource'),
      name: str(attrs, 'name'),
    },
  };
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/**
 * kube-apiserver's RBAC escalation prevention on writes of roles and bindings: a role may only hold
 * rules its writer already has (unless the writer may `escalate` that role), and a binding may only
 * name a role whose rules its writer has (unless the writer may `bind` that role). Rules are
 * checked entry by entry (verb × group × resource × resourceName); a wildcard entry needs a
 * wildcard grant. Returns kube-apiserver's 403 message, or undefined when allowed.
 */
export function escalationDenied(
  authorizer: RbacAuthorizer,
  rolesOf: (kind: string, name: string, namespace: string) => readonly KubeObject[],
  user: AccessUser,
  write: { plural: string; namespace: string; name: string },
  obj: Record<string, unknown>,
): string | undefined {
  const holds = (rules: readonly Rule[]): boolean =>
    rules.every((r) =>
      r.nonResourceURLs.length > 0
        ? r.verbs.every((verb) => r.nonResourceURLs.every((path) => authorizer.authorize(user, { kind: 'nonResource', verb, path }).allowed))
        : r.verbs.every((verb) =>
            r.apiGroups.every((group) =>
              r.resources.every((res) => {
                const [resource = '', subresource = ''] = res.split('/');
                const names = r.resourceNames.length === 0 ? [''] : r.resourceNames;
                return names.every(
                  (name) => authorizer.authorize(user, { kind: 'resource', namespace: write.namespace, verb, group, resource, subresource, name }).allowed,
                );
              }),
            ),
          ),
    );
  const may = (verb: string, resource: string, name: string, namespace: string): boolean =>
    authorizer.authorize(user, { kind: 'resource', namespace, verb, group: RBAC_GROUP, resource, subresource: '', name }).allowed;
  const meta = isRecord(obj['metadata']) ? obj['metadata'] : {};
  const name = write.name !== '' ? write.name : String(meta['name'] ?? '');
  if (write.plural === 'clusterroles' || write.plural === 'roles') {
    if (!Array.isArray(obj['rules']) || may('escalate', write.plural, name, write.namespace) || holds(rulesOf(obj as KubeObject))) return undefined;
    return `${write.plural}.${RBAC_GROUP} "${name}" is forbidden: user "${user.name}" (groups=${JSON.stringify(user.groups)}) is attempting to grant RBAC permissions not currently held`;
  }
  if (write.plural === 'clusterrolebindings' || write.plural === 'rolebindings') {
    const ref = isRecord(obj['roleRef']) ? obj['roleRef'] : undefined;
    if (ref === undefined) return undefined;
    const refKind = String(ref['kind'] ?? '');
    const refName = String(ref['name'] ?? '');
    const refPlural = refKind === 'ClusterRole' ? 'clusterroles' : 'roles';
    if (may('bind', refPlural, refName, refKind === 'ClusterRole' ? '' : write.namespace)) return undefined;
    if (holds(rolesOf(refKind, refName, write.namespace).flatMap((r) => rulesOf(r)))) return undefined;
    return `${write.plural}.${RBAC_GROUP} "${name}" is forbidden: user "${user.name}" (groups=${JSON.stringify(user.groups)}) is attempting to grant RBAC permissions not currently held (binding ${refKind} "${refName}")`;
  }
  return undefined;
}
