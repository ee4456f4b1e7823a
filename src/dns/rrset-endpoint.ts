/**
 * Conversion between the planner's Endpoint and the zone store's RRSet. Endpoints may carry
 * targets in presentation form (quoted TXT, hostnames with a trailing dot or upper case); RRSets
 * always hold the canonical form described in zone-content.ts, so a value written and read back
 * compares equal under sameTargets().
 */
import { InvalidEndpointError } from '../errors.ts';
import { canonicalTarget, describeEndpoint, newEndpoint } from '../endpoint/endpoint.ts';
import type { Endpoint } from '../endpoint/endpoint.ts';
import { normalizeRecordName } from '../endpoint/name.ts';
import { canonicalNaptr } from '../endpoint/naptr.ts';
import type { RRSet } from './zone-content.ts';

export const DEFAULT_TTL = 300;

/** The RRSet an endpoint describes; recordTTL 0 takes `defaultTTL`. */
export function endpointToRRSet(ep: Endpoint, defaultTTL: number = DEFAULT_TTL): RRSet {
  if (ep.targets.length === 0) throw new InvalidEndpointError(`${describeEndpoint(ep)}: no targets`);
  const rdata = [...new Set(ep.targets.map((t) => canonicalRdata(ep, t)))].sort();
  return {
    name: normalizeRecordName(ep.dnsName),
    type: ep.recordType,
    ttl: ep.recordTTL > 0 ? ep.recordTTL : defaultTTL,
    rdata,
  };
}

/** The endpoint for an RRSet: TXT values bare (no quotes), hostnames as stored, TTL as stored. */
export function rrsetToEndpoint(set: RRSet): Endpoint {
  return newEndpoint({ dnsName: set.name, targets: [...set.rdata], recordType: set.type, recordTTL: set.ttl });
}

function canonicalRdata(ep: Endpoint, target: string): string {
  switch (ep.recordType) {
    case 'TXT':
      // One surrounding pair only: a value that itself starts and ends with a quote keeps the rest.
      return canonicalTarget('TXT', target);
    case 'CAA': {
      const m = /^\s*(\d{1,3})\s+([A-Za-z0-9]+)\s+(.*?)\s*$/.exec(target);
      if (m === null) throw new InvalidEndpointError(`${describeEndpoint(ep)}: target ${JSON.stringify(target)} is not "<flags> <tag> <value>"`);
      const value = m[3] ?? '';
      const bare = value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
      return `${Number(m[1])} ${m[2] ?? ''} ${bare}`;
    }
    case 'NAPTR': {
      const n = canonicalNaptr(target.trim());
      if (n === undefined) throw new InvalidEndpointError(`${describeEndpoint(ep)}: target ${JSON.stringify(target)} is not a NAPTR record`);
      return n;
    }
    case 'MX':
    case 'SRV': {
      const fields = target.trim().split(/\s+/);
      const host = fields.pop() ?? '';
      return [...fields.map((f) => String(Number(f))), host === '.' ? '.' : canonicalTarget(ep.recordType, host)].join(' ');
    }
    default:
      return canonicalTarget(ep.recordType, target.trim());
  }
}
