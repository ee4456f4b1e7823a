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
