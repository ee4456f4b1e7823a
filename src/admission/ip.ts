/**
 * IP addresses and CIDR ranges as the admission decision needs them: strict parsing (what Go's
 * net.ParseIP/ParseCIDR accept, so a config valid for OpenShift is valid here), IPv4-mapped IPv6
 * folded into IPv4 so `::ffff:10.1.2.3` cannot slip past a rule written for 10.0.0.0/8, and
 * matching on integers so the answer never depends on how an address was spelled.
 */
import { isIPv6 } from 'node:net';

export interface IpAddress {
  family: 4 | 6;
  value: bigint;
}

export interface CidrRange {
  family: 4 | 6;
  /** The network address (host bits cleared). */
  network: bigint;
  prefix: number;
  /** As written in the configuration, for messages. */
  text: string;
}

const IPV4_OCTET = /^(0|[1-9][0-9]{0,2})$/;
const MAPPED_PREFIX = 0xffffn;

function parseIPv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!IPV4_OCTET.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

function parseIPv6(text: string): bigint | undefined {
  // Zones (fe80::1%eth0) name an interface of this host: meaningless in a Service spec.
  if (text.includes('%') || !isIPv6(text)) return undefined;
  let body = text;
  const lastColon = body.lastIndexOf(':');
  const dotted = body.slice(lastColon + 1);
  if (dotted.includes('.')) {
    // An embedded IPv4 tail is the last two groups; rewrite it as hex so one parser follows.
    const v4 = parseIPv4(dotted);
    if (v4 === undefined) return undefined;
    body = `${body.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const groupsOf = (s: string): bigint[] => (s === '' ? [] : s.split(':').map((g) => BigInt(`0x${g}`)));
  let groups: bigint[];
  const dbl = body.indexOf('::');
  if (dbl >= 0) {
    const head = groupsOf(body.slice(0, dbl));
    const back = groupsOf(body.slice(dbl + 2));
    const missing = 8 - head.length - back.length;
    if (missing < 1) return undefined;
    groups = [...head, ...new Array<bigint>(missing).fill(0n), ...back];
  } else {
    groups = groupsOf(body);
  }
  if (groups.length !== 8) return undefined;
  return groups.reduce((acc, g) => (acc << 16n) | g, 0n);
}

/** The address, with IPv4-mapped IPv6 (::ffff:a.b.c.d) folded into IPv4; undefined if invalid. */
export function parseIp(text: string): IpAddress | undefined {
  const v4 = parseIPv4(text);
  if (v4 !== undefined) return { family: 4, value: v4 };
  const v6 = parseIPv6(text);
  if (v6 === undefined) return undefined;
  if (v6 >> 32n === MAPPED_PREFIX) return { family: 4, value: v6 & 0xffffffffn };
  return { family: 6, value: v6 };
}

function bits(family: 4 | 6): number {
  return family === 4 ? 32 : 128;
}

/** `addr/prefix`; host bits may be set (as Go allows) and are cleared. Undefined if invalid. */
export function parseCidr(text: string): CidrRange | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const addrText = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  if (!/^(0|[1-9][0-9]{0,2})$/.test(prefixText)) return undefined;
  let prefix = Number(prefixText);
  const v4 = parseIPv4(addrText);
  let family: 4 | 6;
  let value: bigint;
  if (v4 !== undefined) {
    if (prefix > 32) return undefined;
    family = 4;
    value = v4;
  } else {
    const v6 = parseIPv6(addrText);
    if (v6 === undefined || prefix > 128) return undefined;
    family = 6;
    value = v6;
    // ::ffff:10.0.0.0/104 is 10.0.0.0/8: fold it so it matches the folded addresses.
    if (v6 >> 32n === MAPPED_PREFIX && prefix >= 96) {
      family = 4;
      value = v6 & 0xffffffffn;
      prefix -= 96;
    }
  }
  return { family, network: value & maskOf(family, prefix), prefix, text };
}

function maskOf(family: 4 | 6, prefix: number): bigint {
  const width = BigInt(bits(family));
  const all = (1n << width) - 1n;
  return (all >> BigInt(prefix)) ^ all;
}

export function cidrContains(range: CidrRange, ip: IpAddress): boolean {
  return range.family === ip.family && (ip.value & maskOf(range.family, range.prefix)) === range.network;
}

export function sameIp(a: IpAddress, b: IpAddress): boolean {
  return a.family === b.family && a.value === b.value;
}
