/**
 * Cache transforms for the istio-gateway and istio-virtualservice sources: only what their
 * translation reads (see slim.ts for why). Istio objects carry long route and TLS sections, and
 * the Services they select are read only for their selector and addresses.
 */
import { slimMeta } from './slim.ts';
import type { KubeObject } from './resource.ts';

type Raw = Record<string, unknown>;

function rec(v: unknown): Raw | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Raw) : undefined;
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function strings(v: unknown): string[] {
  return arr(v).filter((s): s is string => typeof s === 'string');
}

function stringMap(v: unknown): Record<string, string> | undefined {
  const r = rec(v);
  if (r === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(r)) if (typeof val === 'string') out[k] = val;
  return out;
}

function base(raw: Raw, keepUid = true): KubeObject {
  return { apiVersion: String(raw['apiVersion'] ?? ''), kind: String(raw['kind'] ?? ''), metadata: slimMeta(raw, keepUid) };
}

/** `status.loadBalancer.ingress[]` ip/hostname pairs, or undefined when there are none. */
function loadBalancer(raw: Raw): Raw | undefined {
  const ingress = arr(rec(rec(raw['status'])?.['loadBalancer'])?.['ingress']).flatMap((e) => {
    const r = rec(e);
    if (r === undefined) return [];
    const out: Raw = {};
    if (typeof r['ip'] === 'string') out['ip'] = r['ip'];
    if (typeof r['hostname'] === 'string') out['hostname'] = r['hostname'];
    return [out];
  });
  return ingress.length === 0 ? undefined : { loadBalancer: { ingress } };
}

/** Istio Gateways: the servers' hosts and the selector of the ingress-gateway Services. */
export function slimIstioGateway(raw: Raw): KubeObject {
  const obj = base(raw);
  const spec = rec(raw['spec']);
  const s: Raw = {};
  const selector = stringMap(spec?.['selector']);
  if (selector !== undefined) s['selector'] = selector;
  // A server that is not an object is kept as one without hosts, so the translation still sees it.
  s['servers'] = arr(spec?.['servers']).map((v) => ({ hosts: strings(rec(v)?.['hosts']) }));
  obj['spec'] = s;
  return obj;
}

/** VirtualServices: hosts, the Gateways they bind to and where they are exported. */
export function slimVirtualService(raw: Raw): KubeObject {
  const obj = base(raw);
  const spec = rec(raw['spec']);
  const s: Raw = {};
  for (const k of ['hosts', 'gateways', 'exportTo']) if (spec?.[k] !== undefined) s[k] = strings(spec[k]);
  obj['spec'] = s;
  return obj;
}

/** Services as Gateway selectors read them: `spec.selector`, `spec.externalIPs` and the load-balancer status. */
export function slimSelectedService(raw: Raw): KubeObject {
  const obj = base(raw, false);
  const spec = rec(raw['spec']);
  const s: Raw = {};
  const selector = stringMap(spec?.['selector']);
  if (selector !== undefined) s['selector'] = selector;
  const external = strings(spec?.['externalIPs']);
  if (external.length > 0) s['externalIPs'] = external;
  obj['spec'] = s;
  const status = loadBalancer(raw);
  if (status !== undefined) obj['status'] = status;
  return obj;
}

/** Ingresses named by a Gateway's `ingress` annotation: only their load-balancer status. */
export function slimIngressStatus(raw: Raw): KubeObject {
  const obj = base(raw, false);
  const status = loadBalancer(raw);
  if (status !== undefined) obj['status'] = status;
  return obj;
}
