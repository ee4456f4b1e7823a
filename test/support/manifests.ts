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

/**
 * One DNSEndpoint in `default` with `count` A records `host-<i>.<zone>` → 10.x.y.z; `changed`
 * gives host-0 another address, so rewriting the file with it makes a one-record change.
 */
export function largeDnsEndpoint(name: string, zone: string, count: number, changed = false): string {
  const lines = [
    'apiVersion: externaldns.k8s.io/v1alpha1',
    'kind: DNSEndpoint',
    'metadata:',
    `  name: ${name}`,
    '  namespace: default',
    'spec:',
    '  endpoints:',
  ];
  for (let i = 0; i < count; i++) {
    const ip = i === 0 && changed ? '192.0.2.200' : `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    lines.push(`    - dnsName: host-${i}.${zone}`, '      recordType: A', `      targets: ["${ip}"]`);
  }
  return `${lines.join('\n')}\n`;
}
