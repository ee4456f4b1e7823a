/**
 * F5 CIS's VirtualServer and TransportServer CRDs (test/support/crds/f5/), for the f5 source tests.
 * A stand-in for test/support/crds/load.ts's loadCrd('f5', …) until that helper is on this branch.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../support/kube-apiserver/server.ts';

const DIR = join(dirname(fileURLToPath(import.meta.url)), '../support/crds/f5');

/** A fresh copy of one CRD (`virtualservers.cis.f5.com` or `transportservers.cis.f5.com`). */
export function f5Crd(name: 'virtualservers.cis.f5.com' | 'transportservers.cis.f5.com'): KubeObject {
  return JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as KubeObject;
}

export const F5_CRD_NAMES = ['virtualservers.cis.f5.com', 'transportservers.cis.f5.com'] as const;
