/**
 * Checks that an endpoint can become a DNS record and returns it normalised (name in canonical
 * form, hostname targets lower-cased without trailing dot). Errors say which endpoint and target.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { InvalidEndpointError } from '../errors.ts';
import { describeEndpoint, newEndpoint } from './endpoint.ts';
import type { Endpoint } from './endpoint.ts';
import { isInZone, normalizeDnsName, normalizeRecordName, tryNormalizeDnsName } from './name.ts';
import { NAPTR_SYNTAX, formatNaptr, parseNaptr } from './naptr.ts';

/**
 * `names: 'record'` checks the name with the record-name rules (a `*` inside a label is data, as
 * in external-dns's ownership TXT names); sources keep the hostname rules.
 */
export function validateEndpoint(input: Endpoint, names: 'hostname' | 'record' = 'hostname'): Endpoint {
  let dnsName: string;
  try {
    dnsName = names === 'record' ? normalizeRecordName(input.dnsName) : normalizeDnsName(input.dnsName);
  } catch (err) {
    throw new InvalidEndpointError(`${describeEndpoint(input)}: ${(err as Error).message}`);
  }
  const ep = newEndpoint({ ...input, dnsName });
  const what = describeEndpoint(ep);
  if (ep.targets.length === 0) throw new InvalidEndpointError(`${what}: no targets`);
  if (!Number.isInteger(ep.recordTTL) || ep.recordTTL < 0 || ep.recordTTL > 2147483647) {
    throw new InvalidEndpointError(`${what}: TTL ${ep.recordTTL} is not a whole number of seconds between 0 and 2147483647`);
  }
  if ((ep.recordType === 'CNAME' || ep.recordType === 'DNAME') && ep.targets.length !== 1) {
    throw new InvalidEndpointError(`${what}: a ${ep.recordType} must have exactly one target, got ${ep.targets.length}`);
  }
  ep.targets = ep.targets.map((t) => checkTarget(ep, t, what));
  ep.targets = [...new Set(ep.targets)];
  // A name that is an alias of itself can never be answered (resolvers get SERVFAIL), so it is
  // refused here, where the problem can still name the object it came from.
  if (ep.recordType === 'CNAME' && ep.targets[0] === ep.dnsName) throw new InvalidEndpointError(`${what}: a CNAME cannot point at its own name`);
  // RFC 6672: a DNAME pointing into its own subtree rewrites names forever.
  if (ep.recordType === 'DNAME' && isInZone(ep.targets[0] ?? '', ep.dnsName)) {
    throw new InvalidEndpointError(`${what}: a DNAME cannot point at its own name or a name below it`);
  }
  return ep;
}

function hostTarget(target: string, what: string): string {
  const host = tryNormalizeDnsName(target);
  if (host === undefined || host.startsWith('*')) throw new InvalidEndpointError(`${what}: target ${JSON.stringify(target)} is not a valid hostname`);
  return host;
}

function checkTarget(ep: Endpoint, target: string, what: string): string {
  switch (ep.recordType) {
    case 'A':
      if (!isIPv4(target)) throw new InvalidEndpointError(`${what}: target ${JSON.stringify(target)} is not an IPv4 address`);
      return target;
    case 'AAAA':
      if (!isIPv6(target)) throw new InvalidEndpointError(`${what}: target ${JSON.stringify(target)} is not an IPv6 address`);
      return target.toLowerCase();
    case 'CNAME':
    case 'DNAME':
    case 'NS':
    case 'PTR':
      return hostTarget(target, what);
    case 'NAPTR': {
      const n = parseNaptr(target.trim());
      if (typeof n === 'string')
        throw new InvalidEndpointError(`${what}: target ${JSON.stringify(target)} is not a NAPTR record: ${n}; the syntax is ${NAPTR_SYNTAX}`);
      return formatNaptr(n);
    }
    case 'TXT':
      return target;
    case 'MX': {
      const m = /^(\d{1,5})\s+(\S+)$/.exec(target.trim());
      if (m === null || Number(m[1]) > 65535) throw new InvalidEndpointError(`${what}: target ${JSON.stringify(target)} is not "<preference> <host>"`);
      return `${Number(m[1])} ${hostTarget(m[2] ?? '', what)}`;
    }
    case 'SRV': {
      const m = /^(\d{1,5})\s+(\d{1,5})\s+(\d{1,5})\s+(\S+)$/.exec(target.trim());
      if (m === null || [m[1], m[2], m[3]].some((n) => Number(n) > 65535)) {
        throw new InvalidEndpointError(`${what}: target ${JSON.stringify(target)} is not "<priority> <weight> <port> <host>"`);
      }
      const host = m[4] === '.' ? '.' : hostTarget(m[4] ?? '', what);
      return `${Number(m[1])} ${Number(m[2])} ${Number(m[3])} ${host}`;
    }
    case 'CAA': {
      const m = /^(\d{1,3})\s+([A-Za-z0-9]+)\s+(.+)$/.exec(target.trim());
      if (m === null || Number(m[1]) > 255) throw new InvalidEndpointError(`${what}: target ${JSON.stringify(target)} is not "<flags> <tag> <value>"`);
      return target.trim();
    }
  }
}
