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

/**
 * The load-balancer list of a RouteGroup's status. Skipper's CRD names it `routegroup`,
 * external-dns's Go type `routeGroup`; Go's JSON decoding matches keys case-insensitively (an exact
 * match first), so upstream reads either, and so does this.
 */
export function routeGroupStatusList(loadBalancer: unknown): unknown[] {
  const lb = rec(loadBalancer);
  if (lb === undefined) return [];
  if (lb['routeGroup'] !== undefined) return arr(lb['routeGroup']);
  const key = Object.keys(lb).find((k) => k.toLowerCase() === 'routegroup');
  return key === undefined ? [] : arr(lb[key]);
}

/**
 * Skipper RouteGroups: `spec.hosts` and the status load balancers; routes and backends are dropped.
 */
export function slimRouteGroup(raw: Raw): KubeObject {
  const obj = base(raw);
  const hosts = arr(rec(raw['spec'])?.['hosts']).filter((h) => typeof h === 'string');
  obj['spec'] = hosts.length > 0 ? { hosts } : {};
  const routeGroup = lbEntries(routeGroupStatusList(rec(raw['status'])?.['loadBalancer']));
  if (routeGroup.length > 0) obj['status'] = { loadBalancer: { routeGroup } };
  return obj;
}
