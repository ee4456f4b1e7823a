/**
 * Upstream's Go tests build Gateway API objects with a fake clientset, which stores anything; the
 * test API server validates them by upstream's CRDs, as a cluster would. This fills in the fields a
 * cluster requires that the cases leave out and that external-dns never reads (a Gateway's class,
 * a listener's port, a route's rules, a route status's controllerName and condition details), so each
 * case keeps its meaning and is storable. A listener without a name gets `listener-<index>` (no case
 * refers to such a name); a TLSRoute without hostnames is written at v1alpha2, the version that
 * allows that (experimental channel).
 */
import type { KubeObject } from '../../../support/kube-apiserver/types.ts';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const GROUP = 'gateway.networking.k8s.io/';
/** Route kinds whose CRDs require at least one rule. */
const RULES_REQUIRED = new Set(['TLSRoute', 'TCPRoute', 'UDPRoute']);

export function completeForApiServer(obj: KubeObject): KubeObject {
  if (!(obj.apiVersion ?? '').startsWith(GROUP)) return obj;
  const out = structuredClone(obj);
  const spec: Obj = isObj(out.spec) ? out.spec : {};
  out.spec = spec;
  if (out.kind === 'Gateway') {
    spec.gatewayClassName ??= 'test';
    if (Array.isArray(spec.listeners)) {
      spec.listeners.forEach((l: unknown, i) => {
        if (!isObj(l)) return;
        if (l.name === undefined || l.name === '') l.name = `listener-${i}`;
        l.port ??= 1;
      });
    }
  }
  if (RULES_REQUIRED.has(out.kind ?? '') && spec.rules === undefined) spec.rules = [{ backendRefs: [{ name: 'backend', port: 1 }] }];
  // TLSRoute v1 requires hostnames; v1alpha2 (experimental channel) does not, and reads back the same.
  if (out.kind === 'TLSRoute' && spec.hostnames === undefined) out.apiVersion = `${GROUP}v1alpha2`;
  if (isObj(out.status) && out.kind !== 'Gateway' && out.kind !== 'ListenerSet') completeRouteStatus(out.status);
  return out;
}

/** Route status: controllerName and the conditions' reason, message and time are required. */
function completeRouteStatus(status: Obj): void {
  status.parents ??= [];
  if (!Array.isArray(status.parents)) return;
  for (const p of status.parents as unknown[]) {
    if (!isObj(p)) continue;
    p.controllerName ??= 'example.org/gateway-controller';
    for (const c of Array.isArray(p.conditions) ? (p.conditions as unknown[]) : []) {
      if (!isObj(c)) continue;
      c.reason ??= typeof c.type === 'string' && c.type !== '' ? c.type : 'Unknown';
      c.message ??= '';
      c.lastTransitionTime ??= '2026-01-01T00:00:00Z';
    }
  }
}
