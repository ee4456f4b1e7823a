/**
 * The zone and query mix of `npm run bench:dns`, shared by the orchestrator (bench.ts) and the
 * Hostwarden server child (serve.ts). Zone: 10k A, 1k CNAME, 1k TXT records and a wildcard.
 * Queries: exactly 70 % A at existing hosts, 10 % CNAME, 10 % NXDOMAIN, 5 % TXT, 5 % wildcard (by
 * count, then shuffled), names drawn with a seeded xoshiro128** so every name of each category can
 * be drawn and runs are identical. The old generator (`seed % n` of an LCG, whose low bits repeat)
 * produced only 2,233 distinct names in 200k queries, a working set that flattered every cache.
 */
import type { RRSet, ZoneContent } from '../../src/dns/zone-content.ts';

export const ORIGIN = 'bench.test';
export const HOSTS = 10_000;
export const ALIASES = 1000;
export const TXTS = 1000;
/** Size of the name spaces NXDOMAIN and wildcard queries draw from. */
export const MISSING = 10_000;
export const WILD = 10_000;

export function benchZone(): ZoneContent {
  const rrsets: RRSet[] = [{ name: ORIGIN, type: 'NS', ttl: 3600, rdata: [`ns1.${ORIGIN}`] }];
  rrsets.push({ name: `ns1.${ORIGIN}`, type: 'A', ttl: 3600, rdata: ['192.0.2.53'] });
  for (let i = 0; i < HOSTS; i++) {
    rrsets.push({ name: `host-${i}.${ORIGIN}`, type: 'A', ttl: 300, rdata: [`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`] });
  }
  for (let i = 0; i < ALIASES; i++) rrsets.push({ name: `alias-${i}.${ORIGIN}`, type: 'CNAME', ttl: 300, rdata: [`host-${i * 7}.${ORIGIN}`] });
  for (let i = 0; i < TXTS; i++)
    rrsets.push({ name: `txt-${i}.${ORIGIN}`, type: 'TXT', ttl: 300, rdata: [`heritage=external-dns,external-dns/owner=bench,entry=${i}`] });
  rrsets.push({ name: `*.wild.${ORIGIN}`, type: 'A', ttl: 300, rdata: ['192.0.2.99'] });
  return {
    origin: ORIGIN,
    soa: { mname: `ns1.${ORIGIN}`, rname: `hostmaster.${ORIGIN}`, serial: 1, refresh: 3600, retry: 600, expire: 86400, minimum: 300, ttl: 3600 },
    rrsets,
  };
}

/** xoshiro128** seeded through splitmix32: a small PRNG whose low bits are as good as its high ones. */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  const splitmix = (): number => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  const st = [splitmix(), splitmix(), splitmix(), splitmix()] as [number, number, number, number];
  const rotl = (x: number, k: number): number => ((x << k) | (x >>> (32 - k))) >>> 0;
  /** A float in [0, 1). */
  return () => {
    const result = Math.imul(rotl(Math.imul(st[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (st[1] << 9) >>> 0;
    st[2] ^= st[0];
    st[3] ^= st[1];
    st[1] ^= st[2];
    st[0] ^= st[3];
    st[2] ^= t;
    st[3] = rotl(st[3], 11);
    return result / 4294967296;
  };
}

export type Category = 'A' | 'CNAME' | 'NXDOMAIN' | 'TXT' | 'wildcard';
export const MIX: readonly [Category, number][] = [
  ['A', 0.7],
  ['CNAME', 0.1],
  ['NXDOMAIN', 0.1],
  ['TXT', 0.05],
  ['wildcard', 0.05],
];

/** The query line (dnsperf format) for name `i` of a category. */
export function queryLine(category: Category, i: number): string {
  switch (category) {
    case 'A':
      return `host-${i}.${ORIGIN} A`;
    case 'CNAME':
      return `alias-${i}.${ORIGIN} A`;
    case 'NXDOMAIN':
      return `missing-${i}.${ORIGIN} A`;
    case 'TXT':
      return `txt-${i}.${ORIGIN} TXT`;
    case 'wildcard':
      return `w${i}.wild.${ORIGIN} A`;
  }
}

export const CATEGORY_SIZE: Record<Category, number> = { A: HOSTS, CNAME: ALIASES, NXDOMAIN: MISSING, TXT: TXTS, wildcard: WILD };

export type Popularity = { kind: 'uniform' } | { kind: 'zipf'; s: number };

/** Parses `uniform`, `zipf` (s = 1) or `zipf:<s>`; the error names the flag. */
export function parsePopularity(text: string): Popularity {
  if (text === 'uniform') return { kind: 'uniform' };
  const m = /^zipf(?::([\d.]+))?$/.exec(text);
  const s = Number(m?.[1] ?? 1);
  if (m === null || !Number.isFinite(s) || s <= 0) throw new Error(`--popularity: expected uniform, zipf or zipf:<s> (s > 0), got "${text}"`);
  return { kind: 'zipf', s };
}

/**
 * Draws an index in [0, n). Zipf: rank r (1-based) has weight 1/r^s; ranks are mapped to names by a
 * fixed shuffle, so the popular names are spread over the zone rather than being host-0, host-1, ….
 */
function sampler(n: number, popularity: Popularity, rand: () => number): () => number {
  if (popularity.kind === 'uniform') return () => Math.floor(rand() * n);
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let r = 0; r < n; r++) cdf[r] = sum += 1 / Math.pow(r + 1, popularity.s);
  const order = shuffle(
    Array.from({ length: n }, (_, i) => i),
    rand,
  );
  return () => {
    const x = rand() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cdf[mid] ?? 0) < x) lo = mid + 1;
      else hi = mid;
    }
    return order[lo] ?? 0;
  };
}

function shuffle<T>(items: T[], rand: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

export interface QuerySet {
  lines: string[];
  /** Queries per category (exact). */
  mix: Record<Category, number>;
  /** Distinct names (lines) generated, overall and per category. */
  distinct: number;
  distinctPerCategory: Record<Category, number>;
}

export function generateQueries(count: number, popularity: Popularity = { kind: 'uniform' }, seed = 24): QuerySet {
  const rand = prng(seed);
  const mix = {} as Record<Category, number>;
  const categories: Category[] = [];
  let assigned = 0;
  for (const [k, [category, share]] of MIX.entries()) {
    // The last category takes the remainder, so the counts always add up to `count`.
    const n = k === MIX.length - 1 ? count - assigned : Math.round(count * share);
    mix[category] = n;
    assigned += n;
    for (let i = 0; i < n; i++) categories.push(category);
  }
  shuffle(categories, rand);
  const draw = Object.fromEntries(MIX.map(([c]) => [c, sampler(CATEGORY_SIZE[c], popularity, rand)])) as Record<Category, () => number>;
  const seen = Object.fromEntries(MIX.map(([c]) => [c, new Set<number>()])) as Record<Category, Set<number>>;
  const lines = categories.map((c) => {
    const i = draw[c]();
    seen[c].add(i);
    return queryLine(c, i);
  });
  const distinctPerCategory = Object.fromEntries(MIX.map(([c]) => [c, seen[c].size])) as Record<Category, number>;
  return { lines, mix, distinct: Object.values(distinctPerCategory).reduce((a, b) => a + b, 0), distinctPerCategory };
}

/** One line describing a query set, for the benchmark's output. */
export function describeQueries(q: QuerySet, popularity: Popularity): string {
  const total = q.lines.length;
  const parts = MIX.map(([c]) => `${c} ${q.mix[c]} (${((100 * q.mix[c]) / total).toFixed(1)} %, ${q.distinctPerCategory[c]} of ${CATEGORY_SIZE[c]} names)`);
  const pop = popularity.kind === 'uniform' ? 'uniform' : `zipf s=${popularity.s}`;
  return `queries: ${total}, popularity ${pop}, ${q.distinct} distinct names; ${parts.join(', ')}`;
}

/** The query file for dnsperf. */
export function queryFile(count: number, popularity?: Popularity): string {
  return `${generateQueries(count, popularity).lines.join('\n')}\n`;
}
