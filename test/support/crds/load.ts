/**
 * Upstream CustomResourceDefinitions restated as JSON under test/support/crds/<project>/<plural>.<group>.json,
 * and the small steps tests need to serve them from the test API server.
 *
 *   const crd = loadCrd('gateway-api', 'httproutes.gateway.networking.k8s.io');
 *   await installCrd(api, crd);            // created and served (every served version answers a list)
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeObject, TestApiServer } from '../kube-apiserver/server.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

/** A CustomResourceDefinition as the JSON files hold it (apiextensions.k8s.io/v1). */
export interface CrdObject {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: {
    group: string;
    scope: 'Namespaced' | 'Cluster';
    names: { plural: string; singular?: string; kind: string; listKind?: string; shortNames?: string[]; categories?: string[] };
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      subresources?: { status?: Record<string, never> };
      schema?: { openAPIV3Schema: Record<string, unknown> };
      [field: string]: unknown;
    }[];
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

/**
 * The CRD in test/support/crds/<project>/<name>.json (`name` is `<plural>.<group>`), a fresh copy
 * each call so tests may change it. Throws naming the file when it is missing or is not that CRD.
 */
export function loadCrd(project: string, name: string): CrdObject {
  const file = join(HERE, project, `${name}.json`);
  const crd = JSON.parse(readFileSync(file, 'utf8')) as CrdObject;
  if (crd.kind !== 'CustomResourceDefinition' || crd.metadata?.name !== name) {
    throw new Error(`${file}: expected the CustomResourceDefinition ${name}, found ${String(crd.kind)} ${String(crd.metadata?.name)}`);
  }
  return crd;
}

/** Every CRD restated for one project (test/support/crds/<project>/*.json), in name order. */
export function loadCrds(project: string): CrdObject[] {
  const names = readdirSync(join(HERE, project))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
  return names.map((name) => loadCrd(project, name));
}

/** Served versions of a CRD (the apiVersions its objects may use). */
export function servedApiVersions(crd: CrdObject): string[] {
  return crd.spec.versions.filter((v) => v.served).map((v) => `${crd.spec.group}/${v.name}`);
}

/**
 * Creates the CRD in the test API server and waits until every served version answers a list over
 * HTTP, as tests against a real cluster wait for `Established`. Returns the stored CRD.
 */
export async function installCrd(api: TestApiServer, crd: CrdObject, timeoutMs = 5000): Promise<KubeObject> {
  const stored = api.create(crd);
  await waitUntilServed(api, crd, timeoutMs);
  return stored;
}

/** Installs several CRDs (e.g. every Gateway API kind a test reads). */
export async function installCrds(api: TestApiServer, crds: readonly CrdObject[], timeoutMs = 5000): Promise<void> {
  for (const crd of crds) await installCrd(api, crd, timeoutMs);
}

/** Polls each served version's collection until it answers 200; fails after `timeoutMs`. */
export async function waitUntilServed(api: TestApiServer, crd: CrdObject, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const paths = crd.spec.versions.filter((v) => v.served).map((v) => `/apis/${crd.spec.group}/${v.name}/${crd.spec.names.plural}?limit=1`);
  const token = api.kubeConfig().getCurrentUser()?.token ?? '';
  for (const path of paths) {
    for (let i = 0; ; i++) {
      const res = await fetch(api.url + path, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      if (res.status === 200) break;
      if (Date.now() > deadline || i > 1000) throw new Error(`CRD ${crd.metadata.name}: ${path} answers ${res.status} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
