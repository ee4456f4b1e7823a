/**
 * `--target-net-filter` / `--exclude-target-net` as external-dns's TargetNetFilter: a target is
 * kept when it lies in one of the filter networks (or there are none) and in none of the excluded
 * ones. A target that is not an IP address (a hostname, TXT text) never lies in a network, so a
 * filter list drops it and an exclusion list keeps it, as in external-dns.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { ConfigError } from '../errors.ts';

export class TargetNetFilter {
  private readonly include: BlockList | undefined;
  private readonly exclude: BlockList | undefined;

  /** Throws ConfigError naming the flag for a network that is not CIDR notation. */
  constructor(include: readonly string[], exclude: readonly string[]) {
    this.include = blockList(include, '--target-net-filter');
    this.exclude = blockList(exclude, '--exclude-target-net');
  }

  get enabled(): boolean {
    return this.include !== undefined || this.exclude !== undefined;
  }

  matches(target: string): boolean {
    return (this.include === undefined || inList(this.include, target)) && (this.exclude === undefined || !inList(this.exclude, target));
  }
}

function inList(list: BlockList, target: string): boolean {
  if (isIPv4(target)) return list.check(target, 'ipv4');
  if (isIPv6(target)) return list.check(target, 'ipv6');
  return false;
}

function blockList(cidrs: readonly string[], flag: string): BlockList | undefined {
  const items = cidrs.map((c) => c.trim()).filter((c) => c !== '');
  if (items.length === 0) return undefined;
  const list = new BlockList();
  for (const cidr of items) {
    const m = /^([^/]+)\/(\d{1,3})$/.exec(cidr);
    const address = m?.[1] ?? '';
    const bits = Number(m?.[2]);
    const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
    // external-dns logs and skips a bad network; a typo that silently widens or empties the
    // filter is worse than refusing to start.
    if (m === null || family === undefined || bits > (family === 'ipv4' ? 32 : 128)) {
      throw new ConfigError(`${flag} ${JSON.stringify(cidr)} is not a network in CIDR notation (e.g. 10.0.0.0/8 or 2001:db8::/32)`, flag);
    }
    list.addSubnet(address, bits, family);
  }
  return list;
}
