/**
 * Until the shared loadCrd (test/support/crds/load.ts) lands here: the CRD restated in
 * test/support/crds/<project>/<name>.json, a fresh copy each call.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../kube-apiserver/server.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

export function loadCrdLocal(project: string, name: string): KubeObject {
  return JSON.parse(readFileSync(join(HERE, project, `${name}.json`), 'utf8')) as KubeObject;
}
