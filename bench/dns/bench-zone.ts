/**
 * The zone and query mix of `npm run bench:dns`, shared by the orchestrator (bench.ts) and the
 * Hostwarden server child (serve.ts). Zone: 10k A, 1k CNAME, 1k TXT records and a wildcard.
 * Queries: 70% A at existing names, 10% CNAME, 10% NXDOMAIN, 5% TXT, 5% wildcard.
 */
import type { RRSet, ZoneContent } from '../../src/dns/zone-content.ts';

export const ORIGIN = 'bench.test';

export function benchZone(): ZoneContent {
  const rrsets: RRSet[] = [{ name: ORIGIN, type: 'NS', ttl: 3600, rdata: [`ns1.${ORIGIN}`] }];
  rrsets.push({ name: `ns1.${ORIGIN}`, type: 'A', ttl: 3600, rdata: ['192.0.2.53'] });
  for (let i = 0; i < 10_000; i++) {
    rrsets.push({ name: `host-${i}.${ORIGIN}`, type: 'A', ttl: 300, rdata: [`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`] });
  }
  for (let i = 0; i < 1000; i++) rrsets.push({ name: `alias-${i}.${ORIGIN}`, type: 'CNAME', ttl: 300, rdata: [`host-${i * 7}.${ORIGIN}`] });
  for (let i = 0; i < 1000; i++)
    rrsets.push({ name: `txt-${i}.${ORIGIN}`, type: 'TXT', ttl: 300, rdata: [`heritage=external-dns,external-dns/owner=bench,entry=${i}`] });
  rrsets.push({ name: `*.wild.${ORIGIN}`, type: 'A', ttl: 300, rdata: ['192.0.2.99'] });
  return {
    origin: ORIGIN,
    soa: { mname: `ns1.${ORIGIN}`, rname: `hostmaster.${ORIGIN}`, serial: 1, refresh: 3600, retry: 600, expire: 86400, minimum: 300, ttl: 3600 },
    rrsets,
  };
}

/** Deterministic query mix (a simple LCG keeps runs comparable). */
export function queryFile(count: number): string {
  let seed = 12345;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const r = rand(100);
    if (r < 70) lines.push(`host-${rand(10_000)}.${ORIGIN} A`);
    else if (r < 80) lines.push(`alias-${rand(1000)}.${ORIGIN} A`);
    else if (r < 90) lines.push(`missing-${rand(100_000)}.${ORIGIN} A`);
    else if (r < 95) lines.push(`txt-${rand(1000)}.${ORIGIN} TXT`);
    else lines.push(`w${rand(100_000)}.wild.${ORIGIN} A`);
  }
  return `${lines.join('\n')}\n`;
}
