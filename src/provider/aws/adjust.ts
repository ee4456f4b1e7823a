/**
 * adjustEndpoints of the aws provider: desired endpoints in the shape records() returns them, as
 * external-dns's AdjustEndpoints makes them. A CNAME that is an alias becomes the alias record
 * sets Route53 holds: `alias=true` an A and an AAAA alias (both `alias=true`), `alias=A` the A
 * one, `alias=AAAA` the AAAA one. So the planner compares like with like, and the ownership TXT
 * records are `a-<name>` and `aaaa-<name>`, the names external-dns writes and reads.
 */
import { cloneEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, ProviderSpecificProperty } from '../../endpoint/endpoint.ts';
import { canonicalHostedZone } from './canonical-zones.ts';
import { ALIAS_TTL, PS_ALIAS, PS_EVALUATE_TARGET_HEALTH, PS_FAILOVER, PS_GEOPROX_BIAS, PS_MULTI_VALUE, PS_WEIGHT, aliasProperty } from './convert.ts';

export interface AdjustSettings {
  /** --aws-evaluate-target-health: the alias records' default. */
  evaluateTargetHealth: boolean;
  /** --aws-prefer-cname: a CNAME to an AWS load balancer without an alias property stays a CNAME. */
  preferCNAME: boolean;
}

/**
 * external-dns's useAlias: a CNAME without an alias property is an alias when its first target is
 * in a canonical AWS hosted zone (load balancers, CloudFront, …), unless --aws-prefer-cname.
 */
export function useAlias(ep: Endpoint, preferCNAME: boolean): boolean {
  if (preferCNAME || ep.recordType !== 'CNAME') return false;
  const target = ep.targets[0];
  return target !== undefined && canonicalHostedZone(target) !== undefined;
}

/** One desired endpoint as Route53 would hold it: one endpoint, or two for a CNAME with `alias=true`. */
export function adjustEndpoint(input: Endpoint, s: AdjustSettings): Endpoint[] {
  const ep = cloneEndpoint(input);
  ep.providerSpecific = normaliseRouting(ep.providerSpecific);
  const alias = aliasProperty(ep);
  if (ep.recordType === 'CNAME') {
    const wanted = alias ?? String(useAlias(ep, s.preferCNAME));
    if (wanted === 'false') {
      setProperty(ep, PS_ALIAS, 'false');
      removeProperty(ep, PS_EVALUATE_TARGET_HEALTH);
      return [ep];
    }
    ep.recordType = wanted === 'AAAA' ? 'AAAA' : 'A';
    asAlias(ep, s);
    if (wanted !== 'true') return [ep];
    const aaaa = cloneEndpoint(ep);
    aaaa.recordType = 'AAAA';
    return [ep, aaaa];
  }
  if ((ep.recordType === 'A' || ep.recordType === 'AAAA') && (alias === 'true' || alias === ep.recordType)) {
    asAlias(ep, s);
    return [ep];
  }
  // Other records have no alias: properties records() would never return are dropped.
  removeProperty(ep, PS_ALIAS);
  removeProperty(ep, PS_EVALUATE_TARGET_HEALTH);
  return [ep];
}

/**
 * An alias record as records() reads it back: `alias=true` (also for `alias=A`/`AAAA`, which
 * external-dns keeps as written and then reads back as `true`, a change on every sync), the
 * target-health flag normalised or defaulted, and a configured TTL replaced by the one Route53's
 * TTL-less alias records are reported with.
 */
function asAlias(ep: Endpoint, s: AdjustSettings): void {
  setProperty(ep, PS_ALIAS, 'true');
  if (ep.recordTTL > 0) ep.recordTTL = ALIAS_TTL;
  const health = ep.providerSpecific.find((p) => p.name === PS_EVALUATE_TARGET_HEALTH)?.value;
  setProperty(ep, PS_EVALUATE_TARGET_HEALTH, health === undefined ? String(s.evaluateTargetHealth) : String(health.trim().toLowerCase() === 'true'));
}

const NUMERIC = new Set([PS_WEIGHT, PS_GEOPROX_BIAS]);

/** Routing properties in records()'s form: numbers canonical, failover upper case, multi-value only when true. */
function normaliseRouting(props: readonly ProviderSpecificProperty[]): ProviderSpecificProperty[] {
  const out: ProviderSpecificProperty[] = [];
  for (const p of props) {
    let value = p.value.trim();
    if (NUMERIC.has(p.name) && value !== '' && Number.isFinite(Number(value))) value = String(Number(value));
    if (p.name === PS_FAILOVER) value = value.toUpperCase();
    if (p.name === PS_MULTI_VALUE) {
      if (value.toLowerCase() !== 'true') continue;
      value = 'true';
    }
    out.push({ name: p.name, value });
  }
  return out;
}

function setProperty(ep: Endpoint, name: string, value: string): void {
  ep.providerSpecific = [...ep.providerSpecific.filter((p) => p.name !== name), { name, value }];
}

function removeProperty(ep: Endpoint, name: string): void {
  ep.providerSpecific = ep.providerSpecific.filter((p) => p.name !== name);
}
