/**
 * The pdns provider: records live in a PowerDNS Authoritative server and are changed through its
 * HTTP API. Each sync sends one PATCH per zone; a zone that fails does not hold back the others,
 * and the error thrown afterwards names every zone and record that was not applied.
 */
import { backoffCeiling, sleep as realSleep } from '../../backoff.ts';
import type { FlagValues } from '../../config/config.ts';
import { DomainFilter } from '../../endpoint/domain-filter.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { describeEndpoint } from '../../endpoint/endpoint.ts';
import { hasStarAsData, normalizeDnsName } from '../../endpoint/name.ts';
import { ConfigError, ProviderError, errorMessage, isTransient } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { Provider } from '../provider.ts';
import type { Changes } from '../../plan/changes.ts';
import { PROVIDER_NAME, PdnsClient } from './client.ts';
import type { PdnsTLS, PdnsZoneInfo } from './client.ts';
import { adjustForPdns, planPatches, rrsetsToEndpoints } from './convert.ts';
import { partFailure, throwFailures } from '../failures.ts';
import { redactUrl } from '../../redact.ts';
import type { ProviderConfig, ProviderDeps } from '../provider.ts';
import { readClientTls } from '../tls-client.ts';

/** What external-dns uses when an endpoint sets no TTL. */
export const DEFAULT_TTL = 300;

/** The calls the provider makes; PdnsClient in production, a fake in unit tests. */
export type PdnsApi = Pick<PdnsClient, 'listZones' | 'zoneRRSets' | 'patchZone'>;

export interface PdnsProviderOptions {
  api: PdnsApi;
  logger: Logger;
  defaultTTL?: number;
  /** Zones known at start (from a first listing); refreshed on every records() and applyChanges(). */
  zones?: readonly PdnsZoneInfo[];
}

export class PdnsProvider implements Provider {
  readonly name = PROVIDER_NAME;
  private readonly api: PdnsApi;
  private readonly logger: Logger;
  private readonly defaultTTL: number;
  private zones: PdnsZoneInfo[];
  private filter: DomainFilter;

  constructor(opts: PdnsProviderOptions) {
    this.api = opts.api;
    this.logger = opts.logger;
    this.defaultTTL = opts.defaultTTL ?? DEFAULT_TTL;
    this.zones = [...(opts.zones ?? [])];
    this.filter = filterOf(this.zones);
  }

  /** Reads the flags, then lists the zones (retrying a few times while PowerDNS starts). */
  static async fromConfig(cfg: ProviderConfig, deps: ProviderDeps & { sleep?: (ms: number) => Promise<void> }): Promise<PdnsProvider> {
    const flags = cfg.flags;
    const server = flags.str('pdns-server');
    let url: URL;
    try {
      url = new URL(server);
    } catch {
      throw new ConfigError(`--pdns-server ${JSON.stringify(redactUrl(server))} is not a URL`, '--pdns-server');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('--pdns-server must be an http:// or https:// URL', '--pdns-server');
    const apiKey = flags.str('pdns-api-key');
    if (apiKey === '') throw new ConfigError('--pdns-api-key is required with --provider pdns', '--pdns-api-key');
    const serverId = flags.str('pdns-server-id') || 'localhost';
    const tls = tlsOf(flags, url);
    const client = new PdnsClient({ server, apiKey, serverId, timeoutMs: 30_000, ...(tls === undefined ? {} : { tls }) });
    const provider = new PdnsProvider({ api: client, logger: deps.logger });
    await provider.start(deps.sleep ?? ((ms) => realSleep(ms)));
    return provider;
  }

  /** First zone listing: up to five attempts for transient failures, none for a rejected key; `sleep` is injected so tests need not wait. */
  async start(sleep: (ms: number) => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.refreshZones();
        this.logger.info({ zones: this.zones.map((z) => z.name) }, 'PowerDNS zones');
        return;
      } catch (err) {
        if (!isTransient(err) || attempt >= 5) throw err;
        this.logger.warn({ err: errorMessage(err), attempt }, 'PowerDNS not reachable yet; retrying');
        await sleep(backoffCeiling({ initialMs: 500, maxMs: 4000 }, attempt));
      }
    }
  }

  async records(): Promise<Endpoint[]> {
    await this.refreshZones();
    const skipped: string[] = [];
    const lists = await Promise.all(this.zones.map(async (zone) => rrsetsToEndpoints(await this.api.zoneRRSets(zone), skipped)));
    if (skipped.length > 0)
      this.logger.debug({ skipped: skipped.slice(0, 20), count: skipped.length }, 'PowerDNS records with names Hostwarden does not manage ignored');
    return lists.flat();
  }

  async applyChanges(changes: Changes): Promise<void> {
    await this.refreshZones();
    const byName = new Map(this.zones.map((z) => [normalizeDnsName(z.name), z]));
    const plan = planPatches(changes, [...byName.keys()], this.defaultTTL);
    const failures: ProviderError[] = [];
    if (plan.orphans.length > 0) {
      failures.push(
        new ProviderError(PROVIDER_NAME, `no PowerDNS zone contains ${plan.orphans.map(describeEndpoint).join(', ')}`, { code: 'PROVIDER_NO_ZONE' }),
      );
    }
    // One zone at a time: PowerDNS's SQLite backend answers concurrent writes with HTTP 500.
    for (const patch of plan.patches) {
      const zone = byName.get(patch.zone) as PdnsZoneInfo;
      try {
        await this.api.patchZone(zone, patch.rrsets);
        this.logger.info({ zone: zone.name, rrsets: patch.rrsets.length }, 'PowerDNS zone patched');
      } catch (err) {
        failures.push(partFailure(PROVIDER_NAME, patch.zone, `zone ${patch.zone} (${patch.records.join(', ')})`, err));
      }
    }
    throwFailures(PROVIDER_NAME, failures, 'zones');
  }

  adjustEndpoints(endpoints: Endpoint[]): Promise<Endpoint[]> {
    const zones = this.zones.map((z) => normalizeDnsName(z.name));
    return Promise.resolve(endpoints.map((ep) => adjustForPdns(ep, zones)));
  }

  domainFilter(): DomainFilter {
    return this.filter;
  }

  /**
   * PowerDNS's HTTP API accepts `*` only as the whole first label (422 "contains unsupported
   * characters" otherwise, escaped or not), so external-dns's wildcard TXT `a-*.apps` cannot be
   * written here; names written by other means are still read.
   */
  refusedName(name: string): string | undefined {
    return hasStarAsData(name) ? 'the PowerDNS API accepts "*" only as the whole first label' : undefined;
  }

  private async refreshZones(): Promise<void> {
    const zones = await this.api.listZones();
    this.zones = zones;
    this.filter = filterOf(zones);
  }
}

function filterOf(zones: readonly PdnsZoneInfo[]): DomainFilter {
  // No zone yet: match nothing rather than everything, so the planner touches no name.
  if (zones.length === 0) return new DomainFilter({ regexInclude: /^\b$/ });
  return new DomainFilter({ include: zones.map((z) => z.name) });
}

function tlsOf(flags: FlagValues, url: URL): PdnsTLS | undefined {
  // external-dns talks TLS whenever --pdns-server is https, with --tls-ca/--tls-client-cert(-key);
  // --pdns-tls-enabled and --pdns-tls-* are Hostwarden's older spellings and still work.
  const own = { ca: 'pdns-tls-ca-cert', cert: 'pdns-tls-client-cert', key: 'pdns-tls-client-cert-key' };
  if (url.protocol !== 'https:') {
    if (flags.bool('pdns-tls-enabled')) throw new ConfigError('--pdns-tls-enabled needs an https:// --pdns-server', '--pdns-server');
    const set = Object.values(own).find((f) => flags.str(f) !== '');
    if (set !== undefined) throw new ConfigError(`--${set} needs an https:// --pdns-server`, '--pdns-server');
    return undefined;
  }
  return { rejectUnauthorized: !flags.bool('pdns-skip-tls-verify'), ...readClientTls(flags, own) };
}
