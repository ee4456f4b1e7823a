/**
 * The Kubernetes permissions the PrivateLink controller needs, next to the code that needs them.
 * deploy/privatelink/rbac.json grants exactly these; test/privatelink/deploy.test.ts compares both
 * with the API calls found in this folder.
 */
export interface PrivateLinkPermission {
  /** '' is the core group. */
  group: string;
  resource: string;
  verb: string;
  scope: 'cluster' | 'namespace';
}

const HIVE = 'hive.openshift.io';

function grant(group: string, resources: string[], verbs: string[], scope: PrivateLinkPermission['scope'] = 'cluster'): PrivateLinkPermission[] {
  return resources.flatMap((resource) => verbs.map((verb) => ({ group, resource, verb, scope })));
}

export const PRIVATELINK_PERMISSIONS: readonly PrivateLinkPermission[] = [
  // Reflectors list and watch; the reconciler GETs by key and patches finalizers and annotations.
  ...grant(HIVE, ['clusterdeployments'], ['get', 'list', 'watch', 'patch']),
  ...grant(HIVE, ['clusterdeployments/status'], ['patch']),
  ...grant(HIVE, ['clusterprovisions', 'clusterdeprovisions', 'hiveconfigs'], ['get', 'list', 'watch']),
  // AWS credentials (cluster namespaces and --hive-namespace) and admin kubeconfigs.
  ...grant('', ['secrets'], ['get']),
  // Leader election, in the controller's own namespace.
  ...grant('coordination.k8s.io', ['leases'], ['get', 'create', 'update'], 'namespace'),
];
