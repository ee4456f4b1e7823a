/**
 * The test API server for the Kubernetes benchmark, in its own process so that the benchmark's
 * RSS is Hostwarden's alone. Fills N Services and N Ingresses, writes a kubeconfig, and reports
 * its path over IPC; exits when the parent disconnects.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApiServer } from '../../test/support/kube-apiserver/server.ts';

const n = Number(process.argv[2] ?? '10000');
const namespaces = Array.from({ length: 20 }, (_, i) => `ns-${i}`);
const api = await startTestApiServer({ historyLimit: 4 * n + 10_000, bookmarkIntervalMs: 30_000, namespaces });
for (let i = 0; i < n; i++) {
  api.create({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: `svc-${i}`,
      namespace: `ns-${i % 20}`,
      annotations: {
        'external-dns.alpha.kubernetes.io/hostname': `svc-${i}.example.org`,
        'kubectl.kubernetes.io/last-applied-configuration':
          '{"apiVersion":"v1","kind":"Service","metadata":{"name":"x"},"spec":{"type":"LoadBalancer","ports":[{"port":80}]}}',
      },
    },
    spec: {
      type: 'LoadBalancer',
      ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080, nodePort: 30000 + (i % 2000) }],
      selector: { app: `svc-${i}` },
      clusterIP: `10.96.${(i >> 8) & 255}.${i & 255}`,
    },
    status: { loadBalancer: { ingress: [{ ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` }] } },
  });
  api.create({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: `ing-${i}`, namespace: `ns-${i % 20}` },
    spec: {
      ingressClassName: 'nginx',
      rules: [
        {
          host: `ing-${i}.example.org`,
          http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: `svc-${i}`, port: { number: 80 } } } }] },
        },
      ],
      tls: [{ hosts: [`ing-${i}.example.org`], secretName: `tls-${i}` }],
    },
    status: { loadBalancer: { ingress: [{ hostname: 'lb.example.net' }] } },
  });
}
const dir = await mkdtemp(join(tmpdir(), 'hostwarden-bench-kube-'));
const kubeconfig = await api.writeKubeconfig(dir);
process.send?.({ kubeconfig });
process.on('disconnect', () => {
  void api
    .stop()
    .then(() => rm(dir, { recursive: true, force: true }))
    .finally(() => process.exit(0));
});
