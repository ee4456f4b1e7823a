/**
 * Cache transforms of the ingress controllers' custom resources external-dns reads (Ambassador
 * Hosts, Kong TCPIngresses, Skipper RouteGroups): metadata and the few fields their sources
 * translate. Backends, TLS settings and routes, most of each object, are dropped.
 */
import type { KubeObject } from './resource.ts';
import { slimMeta } from './slim.ts';

type Raw = Record<string, unknown>;

function rec(v: unknown): Raw | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Raw) : undefined;
}

function base(raw: Raw): KubeObject {
  return { apiVersion: String(raw['apiVersion'] ?? ''), kind: String(raw['kind'] ?? ''), metadata: slimMeta(raw) };
}

/** Ambassador Hosts: `spec.hostname` only (targets come from the annotated Service). */
export function slimAmbassadorHost(raw: Raw): KubeObject {
  const obj = base(raw);
  const spec = rec(raw['spec']);
  if (spec !== undefined) obj['spec'] = typeof spec['hostname'] === 'string' ? { hostname: spec['hostname'] } : {};
  return obj;
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** `{ip, hostname}` entries of a load-balancer status list, strings only. */
function lbEntries(v: unknown): Raw[] {
  return arr(v).map((e) => {
    const out: Raw = {};
    const r = rec(e);
    if (typeof r?.['ip'] === 'string') out['ip'] = r['ip'];
    if (typeof r?.['hostname'] === 'string') out['hostname'] = r['hostname'];
    return out;
  });
}

/** Kong TCPIngresses: each rule's `host` and the load-balancer status; backends, ports and TLS are dropped. */
export function slimTcpIngress(raw: Raw): KubeObject {
  const obj = base(raw);
  const rules = arr(rec(raw['spec'])?.['rules']).map((r) => {
    const host = rec(r)?.['host'];
    return typeof host === 'string' ? { host } : {};
  });
  obj['spec'] = rules.length > 0 ? { rules } : {};
  const ingress = lbEntries(rec(rec(raw['status'])?.['loadBalancer'])?.['ingress']);
  if (ingress.length > 0) obj['status'] = { loadBalancer: { ingress } };
  return obj;
}
