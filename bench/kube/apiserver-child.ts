/**
 * The test API server for the Kubernetes benchmark, in its own process so that the benchmark's
 * RSS is Hostwarden's alone. Fills the object set given as JSON counts per kind (see objects.ts;
 * a bare number N means N Services + N Ingresses), writes a kubeconfig, and reports its path over
 * IPC; exits when the parent disconnects.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApiServer } from '../../test/support/kube-apiserver/server.ts';
import type { ObjectInput } from '../../test/support/kube-apiserver/server.ts';
import { ALL_NAMESPACES, objectsOf, serviceIngressSet } from './objects.ts';

const spec = process.argv[2] ?? '10000';
const counts = /^\d+$/.test(spec) ? serviceIngressSet(Number(spec)) : (JSON.parse(spec) as Record<string, number>);
const total = Object.values(counts).reduce((a, b) => a + b, 0);
const api = await startTestApiServer({ historyLimit: 2 * total + 10_000, bookmarkIntervalMs: 30_000, namespaces: ALL_NAMESPACES });
for (const obj of objectsOf(counts)) api.create(obj as ObjectInput);
const dir = await mkdtemp(join(tmpdir(), 'hostwarden-bench-kube-'));
const kubeconfig = await api.writeKubeconfig(dir);
process.send?.({ kubeconfig });
process.on('disconnect', () => {
  void api
    .stop()
    .then(() => rm(dir, { recursive: true, force: true }))
    .finally(() => process.exit(0));
});
