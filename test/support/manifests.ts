/** Kubernetes YAML written by tests and benchmarks into a manifests directory. */

/** A LoadBalancer Service in `default` publishing `hostnames` (comma-separated) at `ip`. */
export function loadBalancerService(name: string, hostnames: string, ip: string): string {
  return `apiVersion: v1
kind: Service
metadata:
  name: ${name}
  namespace: default
  annotations:
    external-dns.alpha.kubernetes.io/hostname: "${hostnames}"
spec:
  type: LoadBalancer
status:
  loadBalancer:
    ingress:
      - ip: ${ip}
`;
}

/** One endpoint of a DNSEndpoint manifest, as external-dns's CRD spells it. */
export interface ManifestEndpoint {
  dnsName: string;
  recordType: string;
  targets: string[];
  recordTTL?: number;
  providerSpecific?: { name: string; value: string }[];
}

/** A DNSEndpoint manifest (external-dns's CRD shape) in `default`. */
export function dnsEndpointManifest(name: string, endpoints: readonly ManifestEndpoint[]): string {
  const lines = [
    'apiVersion: externaldns.k8s.io/v1alpha1',
    'kind: DNSEndpoint',
    'metadata:',
    `  name: ${name}`,
    '  namespace: default',
    'spec:',
    '  endpoints:',
  ];
  for (const e of endpoints) {
    lines.push(`    - dnsName: "${e.dnsName}"`, `      recordType: ${e.recordType}`, `      targets: ${JSON.stringify(e.targets)}`);
    if (e.recordTTL !== undefined) lines.push(`      recordTTL: ${e.recordTTL}`);
    if (e.providerSpecific !== undefined && e.providerSpecific.length > 0) {
      lines.push('      providerSpecific:');
      for (const p of e.providerSpecific) lines.push(`        - name: ${p.name}`, `          value: ${JSON.stringify(p.value)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * One DNSEndpoint in `default` with `count` A records `host-<i>.<zone>` → 10.x.y.z; `changed`
 * gives host-0 another address, so rewriting the file with it makes a one-record change.
 */
export function largeDnsEndpoint(name: string, zone: string, count: number, changed = false): string {
  const endpoints = Array.from({ length: count }, (_, i) => {
    const ip = i === 0 && changed ? '192.0.2.200' : `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    return { dnsName: `host-${i}.${zone}`, recordType: 'A', targets: [ip] };
  });
  return dnsEndpointManifest(name, endpoints);
}
