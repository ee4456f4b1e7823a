/**
 * What the operand's service account may do: read what its source reads (the same grants as
 * deploy/rbac.yaml gives `hostwarden run` for that source), write Events, and patch the status of
 * its own ExternalDNS object (ProviderAuthorized).
 */
import { EXTERNALDNSES, GROUP } from './types.ts';
import type { ExternalDNS } from './types.ts';
import { withDefaults } from './defaults.ts';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

export interface ClusterRole {
  apiVersion: 'rbac.authorization.k8s.io/v1';
  kind: 'ClusterRole';
  metadata: Record<string, unknown>;
  rules: PolicyRule[];
}

export interface ClusterRoleBinding {
  apiVersion: 'rbac.authorization.k8s.io/v1';
  kind: 'ClusterRoleBinding';
  metadata: Record<string, unknown>;
  roleRef: { apiGroup: 'rbac.authorization.k8s.io'; kind: 'ClusterRole'; name: string };
  subjects: { kind: 'ServiceAccount'; name: string; namespace: string }[];
}

const LIST_WATCH = ['list', 'watch'];

/** `externaldns.k8s.io/v1alpha1` + `DNSEndpoint` → the group and the default plural. */
function crdTarget(apiVersion: string, kind: string): { group: string; plural: string } {
  return { group: apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '', plural: `${kind.toLowerCase()}s` };
}

export function sourceRules(ed: ExternalDNS): PolicyRule[] {
  const src = withDefaults(ed.spec).source ?? {};
  if (src.type === 'Service') {
    return [{ apiGroups: [''], resources: ['services', 'nodes'], verbs: LIST_WATCH }];
  }
  if (src.type === 'OpenShiftRoute') {
    return [{ apiGroups: ['route.openshift.io'], resources: ['routes'], verbs: LIST_WATCH }];
  }
  if (src.type === 'CRD') {
    const t = crdTarget(src.crd?.apiVersion || 'externaldns.k8s.io/v1alpha1', src.crd?.kind || 'DNSEndpoint');
    return [
      { apiGroups: [t.group], resources: [t.plural], verbs: LIST_WATCH },
      { apiGroups: [t.group], resources: [`${t.plural}/status`], verbs: ['patch'] },
    ];
  }
  return [];
}

/**
 * Cluster-scoped RBAC, owned by the cluster-scoped ExternalDNS. (Named after the operand
 * Deployment plus the namespace, so two operators with different operand namespaces do not clash.)
 */
export function operandRbac(
  ed: ExternalDNS,
  o: { name: string; namespace: string; labels: Record<string, string>; owner: Record<string, unknown> },
): { clusterRole: ClusterRole; clusterRoleBinding: ClusterRoleBinding } {
  const roleName = `${o.namespace}-${o.name}`;
  const metadata = { name: roleName, labels: o.labels, ownerReferences: [o.owner] };
  return {
    clusterRole: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata,
      rules: [
        ...sourceRules(ed),
        { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create'] },
        { apiGroups: [GROUP], resources: [`${EXTERNALDNSES.plural}`], verbs: ['get'], resourceNames: [ed.metadata.name] },
        { apiGroups: [GROUP], resources: [`${EXTERNALDNSES.plural}/status`], verbs: ['patch'], resourceNames: [ed.metadata.name] },
      ],
    },
    clusterRoleBinding: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
      subjects: [{ kind: 'ServiceAccount', name: o.name, namespace: o.namespace }],
    },
  };
}
