/**
 * `--resolve-service-load-balancer-hostname`: the addresses of Service load-balancer hostnames.
 *
 * Translation is synchronous and pure, so the service source never looks a name up while
 * translating: translation reads what this cache knows (`lookup`), and every `endpoints()` first
 * refreshes the names translation asked for (`refresh`) and translates again the Services whose
 * answer changed. A load balancer's addresses change without the Service changing, so answers are
 * only reused for their DNS TTL (at most `maxCacheMs`); external-dns looks them up on every sync.
 *
 * A failed look-up never fails a sync. As in external-dns, a name that does not exist (or has no
 * A/AAAA records) adds no targets and is reported; a look-up that did not get an answer (timeout,
 * SERVFAIL, refused) keeps the addresses last seen for that family for up to `keepOnFailureMs`, so
 * a resolver blip does not delete live records; after that it adds no targets either.
 */
import { Resolver } from 'node:dns/promises';
import { errorMessage } from '../../errors.ts';
import type { LookedUpAddresses, TranslateOptions } from '../translate/options.ts';

export type AddressFamily = 4 | 6;

export interface ResolvedAddress {
  address: string;
  /** Seconds. */
  ttl: number;
}

/**
 * The narrow port: the A (4) or AAAA (6) records of a name. Rejects with an error whose `code` is
 * one of node:dns's (`ENOTFOUND`, `ENODATA`, `ETIMEOUT`, `ESERVFAIL`, …).
 */
export interface HostnameResolver {
  resolve(hostname: string, family: AddressFamily): Promise<ResolvedAddress[]>;
  /** Abandons look-ups in flight (the source is closing). */
  close?(): void;
}

export interface DnsHostnameResolverOptions {
  /** Servers as `host` or `host:port`; default: the system's (/etc/resolv.conf). */
  servers?: readonly string[];
  /** Bound of one look-up, retries included. */
  timeoutMs?: number;
}

/** The real resolver: node:dns (c-ares) with a bounded time per look-up. */
export class DnsHostnameResolver implements HostnameResolver {
  private readonly resolver: Resolver;
  private readonly timeoutMs: number;

  constructor(options: DnsHostnameResolverOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 5000;
    // Two tries inside the bound: one lost UDP packet must not cost the Service its records.
    this.resolver = new Resolver({ timeout: Math.max(1, Math.floor(this.timeoutMs / 3)), tries: 2 });
    if (options.servers !== undefined && options.servers.length > 0) this.resolver.setServers([...options.servers]);
  }

  close(): void {
    this.resolver.cancel();
  }

  async resolve(hostname: string, family: AddressFamily): Promise<ResolvedAddress[]> {
    const query = family === 4 ? this.resolver.resolve4(hostname, { ttl: true }) : this.resolver.resolve6(hostname, { ttl: true });
    let timer: NodeJS.Timeout | undefined;
    // c-ares backs off between tries; the bound is ours.
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${this.timeoutMs} ms`), { code: 'ETIMEOUT' })), this.timeoutMs);
    });
    try {
      return await Promise.race([query, deadline]);
    } finally {
      clearTimeout(timer);
      query.catch(() => {});
    }
  }
}

/** Answers that say the name has no such addresses: external-dns drops the targets. */
const DEFINITIVE = new Set(['ENOTFOUND', 'ENODATA', 'EBADNAME', 'EBADQUERY', 'EBADFAMILY']);

interface FamilyState {
  addresses: string[];
  /** When this family last got an answer (ms), for keeping it through failures. */
  answeredAt: number | undefined;
}

interface Entry {
  families: Record<AddressFamily, FamilyState>;
  result: LookedUpAddresses;
  expiresAt: number;
}

export interface LoadBalancerAddressesOptions {
  /** Longest reuse of an answer, whatever its TTL (default 60 s, external-dns's sync interval). */
  maxCacheMs?: number;
  /** How long addresses survive look-ups that got no answer (default 5 min). */
  keepOnFailureMs?: number;
  /** Look-ups at once (default 8). */
  concurrency?: number;
  now?: () => number;
}

/** The cache of load-balancer hostname addresses (names in lower case without a trailing dot). */
export class LoadBalancerAddresses {
  private readonly resolver: HostnameResolver;
  private readonly maxCacheMs: number;
  private readonly keepOnFailureMs: number;
  private readonly concurrency: number;
  private readonly now: () => number;
  private readonly entries = new Map<string, Entry>();

  constructor(resolver: HostnameResolver, options: LoadBalancerAddressesOptions = {}) {
    this.resolver = resolver;
    this.maxCacheMs = options.maxCacheMs ?? 60_000;
    this.keepOnFailureMs = options.keepOnFailureMs ?? 300_000;
    this.concurrency = Math.max(1, options.concurrency ?? 8);
    this.now = options.now ?? Date.now;
  }

  /** What is known now; a name not looked up yet has no addresses (and no problem). */
  lookup(hostname: string): LookedUpAddresses {
    return this.entries.get(hostKey(hostname))?.result ?? { addresses: [] };
  }

  /**
   * Looks up the names whose answer is missing or expired, forgets names no longer asked for, and
   * returns the names whose addresses or problem changed. Never rejects.
   */
  async refresh(hostnames: Iterable<string>): Promise<Set<string>> {
    const wanted = new Set([...hostnames].map(hostKey));
    for (const name of this.entries.keys()) if (!wanted.has(name)) this.entries.delete(name);
    const now = this.now();
    const due = [...wanted].filter((name) => (this.entries.get(name)?.expiresAt ?? 0) <= now);
    const changed = new Set<string>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < due.length) {
        const name = due[next++] as string;
        const before = this.entries.get(name);
        const after = await this.resolveOne(name, before);
        this.entries.set(name, after);
        if (before === undefined || !sameResult(before.result, after.result)) changed.add(name);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, due.length) }, worker));
    return changed;
  }

  private async resolveOne(name: string, before: Entry | undefined): Promise<Entry> {
    // Through then(): a resolver that throws instead of rejecting still only fails this name.
    const outcomes = await Promise.allSettled(([4, 6] as const).map((family) => Promise.resolve().then(() => this.resolver.resolve(name, family))));
    const now = this.now();
    const families = {} as Record<AddressFamily, FamilyState>;
    const failures: string[] = [];
    const kept: string[] = [];
    let ttl = this.maxCacheMs / 1000;
    ([4, 6] as const).forEach((family, i) => {
      const outcome = outcomes[i] as PromiseSettledResult<ResolvedAddress[]>;
      const previous = before?.families[family];
      if (outcome.status === 'fulfilled') {
        families[family] = { addresses: outcome.value.map((a) => a.address).sort(), answeredAt: now };
        for (const a of outcome.value) ttl = Math.min(ttl, a.ttl);
        return;
      }
      const code = codeOf(outcome.reason);
      if (DEFINITIVE.has(code)) {
        families[family] = { addresses: [], answeredAt: now };
        return;
      }
      failures.push(`${family === 4 ? 'A' : 'AAAA'}: ${code === '' ? errorMessage(outcome.reason) : code}`);
      if (previous?.answeredAt !== undefined && now - previous.answeredAt <= this.keepOnFailureMs) {
        families[family] = previous;
        if (previous.addresses.length > 0) kept.push(family === 4 ? 'A' : 'AAAA');
      } else {
        families[family] = { addresses: [], answeredAt: previous?.answeredAt };
      }
    });
    const addresses = [...families[4].addresses, ...families[6].addresses];
    const result: LookedUpAddresses = { addresses };
    if (failures.length > 0) {
      const outcome =
        kept.length > 0
          ? `keeping the ${kept.join(' and ')} addresses last seen`
          : addresses.length > 0
            ? 'publishing only the addresses that were answered'
            : 'it adds no targets';
      result.problem = `load-balancer hostname ${name}: look-up failed (${failures.join(', ')}); ${outcome}`;
    } else if (addresses.length === 0) {
      result.problem = `load-balancer hostname ${name} has no A or AAAA records; it adds no targets`;
    }
    // Failures and empty answers are asked again on the next sync, as external-dns does.
    const expiresAt = result.problem === undefined ? now + Math.max(0, Math.min(ttl * 1000, this.maxCacheMs)) : now;
    return { families, result, expiresAt };
  }
}

/** The service source's side: which names each Service's translation read, so refresh looks up exactly those. */
export class LoadBalancerLookups {
  private readonly cache: LoadBalancerAddresses;
  /** Service key → the names its last translation read. */
  private readonly asked = new Map<string, Set<string>>();

  constructor(cache: LoadBalancerAddresses) {
    this.cache = cache;
  }

  /** Options for translating the Service `key`: they answer from the cache and note the names read. */
  optionsFor(key: string, options: TranslateOptions): TranslateOptions {
    const names = new Set<string>();
    this.asked.set(key, names);
    return {
      ...options,
      loadBalancerAddresses: (hostname) => {
        names.add(hostKey(hostname));
        return this.cache.lookup(hostname);
      },
    };
  }

  /** Refreshes the names of the Services that still exist; returns the keys of those whose answers changed. */
  async refresh(exists: (key: string) => boolean): Promise<string[]> {
    for (const [key, names] of this.asked) if (names.size === 0 || !exists(key)) this.asked.delete(key);
    const changed = await this.cache.refresh([...this.asked.values()].flatMap((names) => [...names]));
    if (changed.size === 0) return [];
    return [...this.asked].filter(([, names]) => [...names].some((n) => changed.has(n))).map(([key]) => key);
  }
}

export function hostKey(hostname: string): string {
  return hostname.toLowerCase().replace(/\.$/, '');
}

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

function sameResult(a: LookedUpAddresses, b: LookedUpAddresses): boolean {
  return a.problem === b.problem && a.addresses.length === b.addresses.length && a.addresses.every((x, i) => x === b.addresses[i]);
}
