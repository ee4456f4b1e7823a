/**
 * The pdns provider: records live in a PowerDNS Authoritative server and are changed through its
 * HTTP API. Each sync sends one PATCH per zone; a zone that fails does not hold back the others,
 * and the error thrown afterwards names every zone and record that was not applied.
 */
import { backoffCeiling, sleep as realSleep } from '../../backoff.ts';
import { readFile } from 'node:fs/promises';
import type { FlagValues } from '../../config/config.ts';
import { DomainFilter } from '../../endpoint/domain-filter.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { describeEndpoint } from '../../endpoint/endpoint.ts';
import { normalizeDnsName } from '../../endpoint/name.ts';
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
    const tls = await tlsOf(flags, url);
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

async function tlsOf(flags: FlagValues, url: URL): Promise<PdnsTLS | undefined> {
  const enabled = flags.bool('pdns-tls-enabled');
  const caFile = flags.str('pdns-tls-ca-cert');
  const certFile = flags.str('pdns-tls-client-cert');
  const keyFile = flags.str('pdns-tls-client-cert-key');
  const skipVerify = flags.bool('pdns-skip-tls-verify');
  if (!enabled) {
    if (caFile !== '' || certFile !== '' || keyFile !== '') throw new ConfigError('--pdns-tls-* files need --pdns-tls-enabled', '--pdns-tls-enabled');
    return url.protocol === 'https:' ? { rejectUnauthorized: !skipVerify } : undefined;
  }
  if (url.protocol !== 'https:') throw new ConfigError('--pdns-tls-enabled needs an https:// --pdns-server', '--pdns-server');
  if ((certFile === '') !== (keyFile === '')) {
    throw new ConfigError(
      '--pdns-tls-client-cert and --pdns-tls-client-cert-key go together',
      certFile === '' ? '--pdns-tls-client-cert' : '--pdns-tls-client-cert-key',
    );
  }
  const read = async (file: string, flag: string): Promise<Buffer | undefined> => {
    if (file === '') return undefined;
    try {
      return await readFile(file);
    } catch (err) {
      throw new ConfigError(`${flag}: cannot read ${file}: ${errorMessage(err)}`, flag);
    }
  };
  const tls: PdnsTLS = { rejectUnauthorized: !skipVerify };
  const ca = await read(caFile, '--pdns-tls-ca-cert');
  const cert = await read(certFile, '--pdns-tls-client-cert');
  const key = await read(keyFile, '--pdns-tls-client-cert-key');
  if (ca !== undefined) tls.ca = ca;
  if (cert !== undefined) tls.cert = cert;
  if (key !== undefined) tls.key = key;
  return tls;
}
