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
