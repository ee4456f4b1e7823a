/**
 * Traefik's CRDs as restated under test/support/crds/traefik/. A local stand-in for helper
 * "infra"'s loadCrd('traefik', name) from test/support/crds/load.ts until that lands here: same
 * files, same result (a fresh copy of the CRD object per call).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../support/kube-apiserver/server.ts';

const DIR = join(dirname(fileURLToPath(import.meta.url)), '../support/crds/traefik');

export const TRAEFIK_CRD_NAMES = ['ingressroutes', 'ingressroutetcps', 'ingressrouteudps'].flatMap((plural) =>
  ['traefik.io', 'traefik.containo.us'].map((group) => `${plural}.${group}`),
);

export function loadTraefikCrd(name: string): KubeObject {
  return JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as KubeObject;
}
