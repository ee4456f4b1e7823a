/**
 * Every Kubernetes API call the DNSRecord controller makes, as RBAC needs it. deploy/dnsrecord
 * grants exactly these; test/dnsrecord/deploy.test.ts checks both the grants and that the code
 * makes no call outside this table.
 */
export interface DNSRecordPermission {
  /** `core` for the core group. */
  group: string;
  resource: string;
  verb: string;
  /** Leases are needed only in the controller's own namespace (a Role). */
  scope: 'cluster' | 'namespace';
}

const p = (group: string, resource: string, verbs: string[], scope: DNSRecordPermission['scope'] = 'cluster'): DNSRecordPermission[] =>
  verbs.map((verb) => ({ group, resource, verb, scope }));

export const DNSRECORD_PERMISSIONS: readonly DNSRecordPermission[] = [
  // The reflector lists and watches; each reconcile reads the object fresh, then patches
  // finalizers and the operation annotation.
  ...p('extensions.gardener.cloud', 'dnsrecords', ['get', 'list', 'watch', 'patch']),
  ...p('extensions.gardener.cloud', 'dnsrecords/status', ['patch']),
  ...p('core', 'secrets', ['get']),
  // IsShootNamespace and GetCluster: a shoot namespace's Cluster says whether the shoot failed or
  // is being force-deleted.
  ...p('core', 'namespaces', ['get']),
  ...p('extensions.gardener.cloud', 'clusters', ['get']),
  // Events on the DNSRecords, written through events.k8s.io.
  ...p('events.k8s.io', 'events', ['create']),
  ...p('coordination.k8s.io', 'leases', ['get', 'create', 'update'], 'namespace'),
];

export function permissionKey(x: { group: string; resource: string; verb: string }): string {
  return `${x.group}/${x.resource}:${x.verb}`;
}
