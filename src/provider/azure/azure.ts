/**
 * The azure and azure-private-dns providers: records live in Azure DNS zones (public or private)
 * of one subscription. Azure has no batch call: every record set is one PUT or DELETE, so a sync
 * deletes first (a CNAME may replace an A at the same name), then updates, then creates. Each
 * write is conditional — If-Match with the etag last listed, If-None-Match '*' for creates — so a
 * record set someone changed in between is refused (412) instead of overwritten. The azure-tags
 * annotation becomes record-set metadata on both kinds of zone (metadata.ts).
 */
import type { TokenCredential } from '@azure/identity';
import { DomainFilter } from '../../endpoint/domain-filter.ts';
import { describeEndpoint, endpointKey } from '../../endpoint/endpoint.ts';
import { hasStarAsData } from '../../endpoint/name.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { ConfigError, ProviderError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { zoneMatchesDomains } from '../google/convert.ts';
import { zoneOf } from '../presentation.ts';
import type { Provider } from '../provider.ts';
import type { Changes } from '../../plan/changes.ts';
import { SdkAzureDnsApi, providerName } from './client.ts';
import type { AzureCondition, AzureDnsApi, AzureHttpOptions, AzureZoneKind, AzureZoneRef } from './client.ts';
import { dropUnsupportedTypes } from '../record-types.ts';
import { AZURE_UNSUPPORTED_TYPES, PRIVATE_TYPES, PUBLIC_TYPES, endpointToRecordSet, recordSetToEndpoint, recordTypeOf, relativeName } from './convert.ts';
import { expandAzureTags } from './metadata.ts';
import { credentialOf, readAzureSettings } from './settings.ts';
import { partFailure, throwFailures } from '../failures.ts';
import type { ProviderConfig, ProviderDeps } from '../provider.ts';
import { zoneIdMatches } from '../zone-filter.ts';

/** What external-dns uses when an endpoint sets no TTL. */
export const DEFAULT_TTL = 300;
/** Writes in flight at once: enough for large change sets, few enough to stay under ARM's write quota. */
const WRITE_CONCURRENCY = 4;

export interface AzureProviderOptions {
  api: AzureDnsApi;
  logger: Logger;
  zonesCacheMs?: number;
  /** --domain-filter domains: zones unrelated to all of them are not read. */
  domains?: readonly string[];
  /** --zone-id-filter: zones related to the domains are kept only when their ARM id ends with one of these. */
  zoneIds?: readonly string[];
  /**
   * --zone-name-filter: zones under these domains are kept too, whatever the domain and id
   * filters say; their records are then limited to `recordFilter` (external-dns's rule).
   */
  zoneNames?: readonly string[];
  /** The full --domain-filter/--exclude-domains/--regex-* filter, applied to records with zoneNames. */
  recordFilter?: DomainFilter;
  defaultTTL?: number;
  now?: () => number;
}

interface Write {
  ep: Endpoint;
  zone: AzureZoneRef;
  op: 'delete' | 'update' | 'create';
}

export class AzureProvider implements Provider {
  readonly name: string;
  private readonly api: AzureDnsApi;
  private readonly logger: Logger;
  private readonly zonesCacheMs: number;
  private readonly domains: readonly string[];
  private readonly zoneIds: readonly string[];
  private readonly zoneNames: DomainFilter | undefined;
  private readonly recordFilter: DomainFilter;
  private readonly defaultTTL: number;
  private readonly now: () => number;
  private zones: AzureZoneRef[] | undefined;
  private zonesAt = 0;
  private filter: DomainFilter = filterOf([]);
  /** Etags of the record sets last listed, by endpoint key. */
  private etags = new Map<string, string>();

  constructor(opts: AzureProviderOptions) {
    this.api = opts.api;
    this.name = providerName(opts.api.kind);
    this.logger = opts.logger;
    this.zonesCacheMs = opts.zonesCacheMs ?? 0;
    this.domains = opts.domains ?? [];
    this.zoneIds = opts.zoneIds ?? [];
    const zoneNames = (opts.zoneNames ?? []).filter((n) => n !== '');
    this.zoneNames = zoneNames.length > 0 ? new DomainFilter({ include: zoneNames }) : undefined;
    this.recordFilter = opts.recordFilter ?? new DomainFilter({ include: this.domains });
    this.defaultTTL = opts.defaultTTL ?? DEFAULT_TTL;
    this.now = opts.now ?? Date.now;
  }

  /** Reads azure.json and the flags; `credential` and `http` replace the real login and transport in tests. */
  /** `deps.kind`: Azure DNS (`public`, the default) or Azure Private DNS (`private`), as the provider name chose. */
  static async fromConfig(
    cfg: ProviderConfig,
    deps: ProviderDeps & { kind?: AzureZoneKind; credential?: TokenCredential; http?: AzureHttpOptions },
  ): Promise<AzureProvider> {
    const flags = cfg.flags;
    const kind = deps.kind ?? 'public';
    const settings = await readAzureSettings(flags);
    const cacheMs = flags.num('azure-zones-cache-duration');
    if (cacheMs < 0) throw new ConfigError('--azure-zones-cache-duration must not be negative', '--azure-zones-cache-duration');
    const retries = flags.has('azure-maxretries-count') ? flags.num('azure-maxretries-count') : 3;
    if (!Number.isInteger(retries) || retries < 0) throw new ConfigError('--azure-maxretries-count must be a whole number ≥ 0', '--azure-maxretries-count');
    const http: AzureHttpOptions = { ...deps.http, retryOptions: { ...deps.http?.retryOptions, maxRetries: retries } };
    const api = new SdkAzureDnsApi({
      kind,
      credential: deps.credential ?? credentialOf(settings, http),
      subscriptionId: settings.subscriptionId,
      resourceGroup: settings.resourceGroup,
      endpoint: settings.endpoint,
      http,
    });
    const provider = new AzureProvider({
      api,
      logger: deps.logger,
      zonesCacheMs: cacheMs,
      domains: cfg.domainFilters,
      zoneIds: flags.list('zone-id-filter'),
      zoneNames: flags.list('zone-name-filter'),
      recordFilter: new DomainFilter({
        include: cfg.domainFilters,
        exclude: cfg.excludeDomains,
        regexInclude: cfg.regexDomainFilter,
        regexExclude: cfg.regexDomainExclusion,
      }),
    });
    const zones = await provider.currentZones(true);
    provider.logger.info({ zones: zones.map((z) => z.name), resourceGroup: settings.resourceGroup, auth: settings.auth.kind }, 'Azure DNS zones');
    return provider;
  }

  async records(): Promise<Endpoint[]> {
    const zones = await this.currentZones(false);
    const types = this.api.kind === 'public' ? PUBLIC_TYPES : PRIVATE_TYPES;
    const lists = await Promise.all(zones.map(async (zone) => ({ zone, sets: await this.api.listRecordSets(zone) })));
    const etags = new Map<string, string>();
    const out: Endpoint[] = [];
    for (const { zone, sets } of lists) {
      for (const set of sets) {
        const ep = recordSetToEndpoint(set, zone.name, types);
        if (ep === undefined) continue;
        // A zone chosen by --zone-name-filter may hold names --domain-filter leaves out.
        if (this.zoneNames !== undefined && !this.recordFilter.match(ep.dnsName)) continue;
        if (set.etag !== undefined) etags.set(endpointKey(ep), set.etag);
        out.push(ep);
      }
    }
    this.etags = etags;
    return out;
  }

  async applyChanges(changes: Changes): Promise<void> {
    const zones = this.zones ?? (await this.currentZones(true));
    const names = zones.map((z) => z.name);
    const byName = new Map(zones.map((z) => [z.name, z]));
    const failures: ProviderError[] = [];
    const orphans: Endpoint[] = [];
    const plan = (eps: readonly Endpoint[], op: Write['op']): Write[] =>
      eps.flatMap((ep) => {
        const zone = byName.get(zoneOf(ep.dnsName, names) ?? '');
        if (zone === undefined) {
          orphans.push(ep);
          return [];
        }
        return [{ ep, zone, op }];
      });
    // A record set deleted and written again in one sync is simply replaced by the PUT, which is
    // then an update of the existing set rather than a create.
    const written = new Set([...changes.create, ...changes.updateNew].map(endpointKey));
    const deleted = new Set(changes.delete.map(endpointKey));
    const phases = [
      plan(
        changes.delete.filter((ep) => !written.has(endpointKey(ep))),
        'delete',
      ),
      plan([...changes.updateNew, ...changes.create.filter((ep) => deleted.has(endpointKey(ep)))], 'update'),
      plan(
        changes.create.filter((ep) => !deleted.has(endpointKey(ep))),
        'create',
      ),
    ];
    if (orphans.length > 0)
      failures.push(new ProviderError(this.name, `no Azure DNS zone contains ${orphans.map(describeEndpoint).join(', ')}`, { code: 'PROVIDER_NO_ZONE' }));
    for (const writes of phases) {
      await runLimited(writes, WRITE_CONCURRENCY, async (w) => {
        try {
          await this.write(w);
        } catch (err) {
          failures.push(partFailure(this.name, w.zone.name, `${w.op} ${describeEndpoint(w.ep)}`, err));
        }
      });
    }
    const total = phases.reduce((n, p) => n + p.length, 0);
    if (total > 0) this.logger.info({ writes: total, failed: failures.length }, 'Azure DNS record sets written');
    throwFailures(this.name, failures, 'record sets');
  }

  /** Drops types Azure lacks and expands the azure-tags annotation into record-set metadata properties, as external-dns does. */
  adjustEndpoints(endpoints: Endpoint[]): Promise<Endpoint[]> {
    return Promise.resolve(dropUnsupportedTypes(endpoints, AZURE_UNSUPPORTED_TYPES, this.logger, 'Azure DNS').map(expandAzureTags));
  }

  domainFilter(): DomainFilter {
    return this.filter;
  }

  /**
   * Azure DNS takes `*` only as the whole name or the whole first label of a record set name
   * (400 "The provided record set relative name … is invalid" otherwise), so external-dns's
   * wildcard TXT `a-*.apps` cannot be written there.
   */
  refusedName(name: string): string | undefined {
    return hasStarAsData(name) ? 'Azure DNS accepts "*" only as the whole first label' : undefined;
  }

  private async write(w: Write): Promise<void> {
    const relative = relativeName(w.ep.dnsName, w.zone.name);
    const etag = this.etags.get(endpointKey(w.ep));
    const condition: AzureCondition = w.op === 'create' ? { ifNoneMatch: '*' } : etag === undefined ? {} : { ifMatch: etag };
    if (w.op === 'delete') {
      await this.api.deleteRecordSet(w.zone, relative, w.ep.recordType, condition);
      return;
    }
    const set = endpointToRecordSet(w.ep, this.defaultTTL);
    await this.api.putRecordSet(w.zone, relative, recordTypeOf({ type: w.ep.recordType }), set, condition);
  }

  /** The zone list, listed again unless `--azure-zones-cache-duration` says the last one is fresh. */
  private async currentZones(force: boolean): Promise<AzureZoneRef[]> {
    if (!force && this.zones !== undefined && this.zonesCacheMs > 0 && this.now() - this.zonesAt < this.zonesCacheMs) return this.zones;
    const zones = (await this.api.listZones()).filter(
      (z) =>
        (zoneMatchesDomains(z.name, this.domains) && zoneIdMatches(this.zoneIds, z.id ?? '')) || (this.zoneNames !== undefined && this.zoneNames.match(z.name)),
    );
    this.zones = zones;
    this.zonesAt = this.now();
    this.filter = filterOf(zones.map((z) => z.name));
    return zones;
  }
}

async function runLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function filterOf(zones: readonly string[]): DomainFilter {
  // No zone yet: match nothing rather than everything, so the planner touches no name.
  if (zones.length === 0) return new DomainFilter({ regexInclude: /^\b$/ });
  return new DomainFilter({ include: [...zones] });
}
