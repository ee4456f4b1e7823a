/**
 * external-dns's NAT64 wrapper (`--nat64-networks`): an AAAA endpoint whose targets lie in a NAT64
 * /96 prefix also yields an A endpoint of the same name, TTL, set identifier, labels and
 * provider-specific properties, whose targets are the IPv4 addresses embedded in the last 32 bits.
 * AAAA targets outside every prefix contribute nothing; the A endpoints follow all the others.
 */
import { BlockList } from 'node:net';
import { parseIPv6 } from '../../dns/wire.ts';
import { cloneEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { ConfigError } from '../../errors.ts';

const FLAG = '--nat64-networks';

/** The prefixes as one list; throws ConfigError naming the flag for anything but an IPv6 /96. */
export function parseNat64Networks(networks: readonly string[]): BlockList | undefined {
  const items = networks.map((n) => n.trim()).filter((n) => n !== '');
  if (items.length === 0) return undefined;
  const list = new BlockList();
  for (const network of items) {
    const m = /^([^/]+)\/(\d{1,3})$/.exec(network);
    if (m === null || parseIPv6(m[1] ?? '') === undefined) {
      throw new ConfigError(`${FLAG} ${JSON.stringify(network)} is not an IPv6 network in CIDR notation (e.g. 64:ff9b::/96)`, FLAG);
    }
    if (m[2] !== '96') throw new ConfigError(`${FLAG} ${JSON.stringify(network)}: NAT64 prefixes need to be /96 prefixes`, FLAG);
    list.addSubnet(m[1] ?? '', 96, 'ipv6');
  }
  return list;
}

export function addNat64Endpoints(endpoints: readonly Endpoint[], prefixes: BlockList): Endpoint[] {
  const extra: Endpoint[] = [];
  for (const ep of endpoints) {
    if (ep.recordType !== 'AAAA') continue;
    const v4: string[] = [];
    for (const target of ep.targets) {
      const bytes = parseIPv6(target);
      if (bytes === undefined || !prefixes.check(target, 'ipv6')) continue;
      v4.push(`${bytes[12]}.${bytes[13]}.${bytes[14]}.${bytes[15]}`);
    }
    if (v4.length === 0) continue;
    const a = cloneEndpoint(ep);
    a.recordType = 'A';
    a.targets = v4;
    extra.push(a);
  }
  return extra.length === 0 ? [...endpoints] : [...endpoints, ...extra];
}
