/** The resource types the operator reads and writes, besides ExternalDNS itself (types.ts). */
import type { KubeResource } from '../kube/resource.ts';

export const DEPLOYMENTS: KubeResource = { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments', namespaced: true };
export { SECRETS } from '../kube/resource.ts';
export const SERVICE_ACCOUNTS: KubeResource = { apiVersion: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', namespaced: true };
export const PODS: KubeResource = { apiVersion: 'v1', kind: 'Pod', plural: 'pods', namespaced: true };
export const CLUSTER_ROLES: KubeResource = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', plural: 'clusterroles', namespaced: false };
export const CLUSTER_ROLE_BINDINGS: KubeResource = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  plural: 'clusterrolebindings',
  namespaced: false,
};
export const INFRASTRUCTURES: KubeResource = { apiVersion: 'config.openshift.io/v1', kind: 'Infrastructure', plural: 'infrastructures', namespaced: false };
export const CREDENTIALS_REQUESTS: KubeResource = {
  apiVersion: 'cloudcredential.openshift.io/v1',
  kind: 'CredentialsRequest',
  plural: 'credentialsrequests',
  namespaced: true,
};
/** Where the Cloud Credential Operator expects CredentialsRequests. */
export const CCO_NAMESPACE = 'openshift-cloud-credential-operator';
