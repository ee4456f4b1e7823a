/**
 * The google provider: records live in Cloud DNS managed zones of one project. Each sync sends,
 * per zone, changes of at most --google-batch-change-size record sets, additions and deletions
 * together (Cloud DNS applies a change all or nothing), pausing --google-batch-change-interval
 * between changes to stay under the project's write quota.
 */
import { sleep } from '../../backoff.ts';
import { DomainFilter } from '../../endpoint/domain-filter.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { describeEndpoint } from '../../endpoint/endpoint.ts';
import { ConfigError, ProviderError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { Provider } from '../provider.ts';
import type { Changes } from '../../plan/changes.ts';
import { PROVIDER_NAME, SdkGoogleDnsApi } from './client.ts';
import type { GoogleClientOptions, GoogleDnsApi, GoogleZone } from './client.ts';
import { planChanges, rrsetKey, rrsetToEndpoint, zoneMatchesDomains } from './convert.ts';
import type { GoogleRRSet } from './convert.ts';
import { partFailure, throwFailures } from '../failures.ts';
import { dropUnsupportedTypes } from '../record-types.ts';
import type { ProviderConfig, ProviderDeps } from '../provider.ts';
import { zoneIdMatches } from '../zone-filter.ts';

/** What external-dns uses when an endpoint sets no TTL. */
export const DEFAULT_TTL = 300;

export interface GoogleProviderOptions {
  api: GoogleDnsApi;
  logger: Logger;
  /** 'public', 'private' or '' for both. */
  zoneVisibility?: string;
  /** --domain-filter domains: zones unrelated to all of them are not read. */
  domains?: readonly string[];
  /** --zone-id-filter: only zones whose numeric id or resource name ends with one of these. */
  zoneIds?: readonly string[];
  batchChangeSize?: number;
  batchChangeIntervalMs?: number;
  defaultTTL?: number;
  sleep?: (ms: number) => Promise<void>;
}

export class GoogleProvider implements Provider {
  readonly name = PROVIDER_NAME;
  private readonly api: GoogleDnsApi;
  private readonly logger: Logger;
  private readonly visibility: string;
  private readonly domains: readonly string[];
  private readonly zoneIds: readonly string[];
  private readonly batchSize: number;
  private readonly intervalMs: number;
  private readonly defaultTTL: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private zones: GoogleZone[] = [];
  private filter: DomainFilter = filterOf([]);
  /** Record sets as last listed, so deletions can repeat them exactly. */
  private listed = new Map<string, GoogleRRSet>();

  constructor(opts: GoogleProviderOptions) {
    this.api = opts.api;
    this.logger = opts.logger;
    this.visibility = opts.zoneVisibility ?? '';
    this.domains = opts.domains ?? [];
    this.zoneIds = opts.zoneIds ?? [];
    this.batchSize = opts.batchChangeSize ?? 1000;
    this.intervalMs = opts.batchChangeIntervalMs ?? 1000;
    this.defaultTTL = opts.defaultTTL ?? DEFAULT_TTL;
    this.sleep = opts.sleep ?? ((ms: number) => sleep(ms));
  }

  static async fromConfig(cfg: ProviderConfig, deps: ProviderDeps & { authClient?: GoogleClientOptions['authClient'] }): Promise<GoogleProvider> {
    const flags = cfg.flags;
    const batchSize = flags.has('google-batch-change-size') ? flags.num('google-batch-change-size') : 1000;
    if (!Number.isInteger(batchSize) || batchSize < 1)
      throw new ConfigError('--google-batch-change-size must be a positive integer', '--google-batch-change-size');
    const interval = flags.has('google-batch-change-interval') ? flags.num('google-batch-change-interval') : 1000;
    if (interval < 0) throw new ConfigError('--google-batch-change-interval must not be negative', '--google-batch-change-interval');
    const visibility = flags.str('google-zone-visibility');
    if (!['', 'public', 'private'].includes(visibility))
      throw new ConfigError('--google-zone-visibility must be public, private or empty', '--google-zone-visibility');
    const endpoint = flags.str('google-api-endpoint');
    if (endpoint.includes('/')) throw new ConfigError('--google-api-endpoint is host[:port], without a scheme or path', '--google-api-endpoint');
    const api = new SdkGoogleDnsApi({
      project: flags.str('google-project'),
      keyFile: flags.str('google-key-file'),
      apiEndpoint: endpoint,
      ...(deps.authClient === undefined ? {} : { authClient: deps.authClient }),
    });
    const provider = new GoogleProvider({
      api,
      logger: deps.logger,
      zoneVisibility: visibility,
      batchChangeSize: batchSize,
      batchChangeIntervalMs: interval,
      domains: cfg.domainFilters,
      zoneIds: flags.list('zone-id-filter'),
    });
    // external-dns's google provider reads only the id filter; say so rather than silently ignore.
    if (flags.list('zone-name-filter').length > 0)
      deps.logger.warn('--zone-name-filter is not used by the google provider (as in external-dns); select zones with --zone-id-filter or --domain-filter');
    await provider.refreshZones();
    provider.logger.info({ zones: provider.zones.map((z) => z.dnsName) }, 'Cloud DNS zones');
    return provider;
  }

  async records(): Promise<Endpoint[]> {
    await this.refreshZones();
    const lists = await Promise.all(this.zones.map((zone) => this.api.listRRSets(zone.id)));
    const listed = new Map<string, GoogleRRSet>();
    const out: Endpoint[] = [];
    for (const set of lists.flat()) {
      const ep = rrsetToEndpoint(set);
      if (ep === undefined) continue;
      listed.set(rrsetKey(set.name, set.type), set);
      out.push(ep);
    }
    this.listed = listed;
    return out;
  }

  async applyChanges(changes: Changes): Promise<void> {
    if (this.zones.length === 0) await this.refreshZones();
    const byName = new Map(this.zones.map((z) => [z.dnsName, z]));
    const plan = planChanges(changes, [...byName.keys()], { defaultTTL: this.defaultTTL, batchSize: this.batchSize, listed: this.listed });
    const failures: ProviderError[] = [];
    if (plan.orphans.length > 0) {
      failures.push(
        new ProviderError(PROVIDER_NAME, `no managed zone contains ${plan.orphans.map(describeEndpoint).join(', ')}`, { code: 'PROVIDER_NO_ZONE' }),
      );
    }
    let first = true;
    for (const change of plan.changes) {
      if (!first && this.intervalMs > 0) await this.sleep(this.intervalMs);
      first = false;
      const zone = byName.get(change.zone) as GoogleZone;
      try {
        await this.api.createChange(zone.id, change.additions, change.deletions);
        this.logger.info({ zone: zone.dnsName, additions: change.additions.length, deletions: change.deletions.length }, 'Cloud DNS change applied');
      } catch (err) {
        // A rejected change is all or nothing; the other changes are independent and still go out.
        failures.push(partFailure(PROVIDER_NAME, zone.dnsName, `zone ${zone.dnsName} (${change.records.join(', ')})`, err));
      }
    }
    throwFailures(PROVIDER_NAME, failures, 'changes');
  }

  adjustEndpoints(endpoints: Endpoint[]): Promise<Endpoint[]> {
    // Cloud DNS has NAPTR but no DNAME record type.
    return Promise.resolve(dropUnsupportedTypes(endpoints, ['DNAME'], this.logger, 'Cloud DNS'));
  }

  domainFilter(): DomainFilter {
    return this.filter;
  }

  private async refreshZones(): Promise<void> {
    const zones = (await this.api.listZones()).filter(
      (z) =>
        (this.visibility === '' || z.visibility === this.visibility) &&
        zoneMatchesDomains(z.dnsName, this.domains) &&
        (zoneIdMatches(this.zoneIds, z.numericId ?? '') || zoneIdMatches(this.zoneIds, z.id)),
    );
    this.zones = zones;
    this.filter = filterOf(zones.map((z) => z.dnsName));
  }
}

function filterOf(zones: readonly string[]): DomainFilter {
  // No zone yet: match nothing rather than everything, so the planner touches no name.
  if (zones.length === 0) return new DomainFilter({ regexInclude: /^\b$/ });
  return new DomainFilter({ include: [...zones] });
}
