/**
 * The cloudflare provider: records in Cloudflare zones, with external-dns's flags, annotations and
 * semantics. Cost per sync is the design goal: the zone list and each zone's records (listed with
 * --cloudflare-dns-records-per-page) are cached for --cloudflare-records-cache-duration and kept
 * current with our own writes, so a sync after our own change calls nothing; changes go through
 * the batch endpoint (batch.ts), every call paced under Cloudflare's limit (paced.ts).
 */
import { sleep } from '../../backoff.ts';
import { DomainFilter } from '../../endpoint/domain-filter.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { isInZone } from '../../endpoint/name.ts';
import { ProviderError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { Changes } from '../../plan/changes.ts';
import { throwFailures } from '../failures.ts';
import type { Provider, ProviderConfig, ProviderDeps } from '../provider.ts';
import { dropUnsupportedTypes } from '../record-types.ts';
import { zoneIdFilterConfigured, zoneIdMatches } from '../zone-filter.ts';
import { PROVIDER_NAME, sdkCloudflareApi } from './api.ts';
import type { CfCustomHostname, CfRecord, CfRegionalHostname, CfZone, CloudflareApi } from './api.ts';
import { REGIONAL_TYPES, adjustEndpoint } from './adjust.ts';
import { planBatchLimit, writeZone } from './batch.ts';
import { recordChanges } from './changes.ts';
import type { RecordChange } from './changes.ts';
import { UNSUPPORTED_TYPES, indexOfRecord, propertyNames, recordsToEndpoints } from './convert.ts';
import type { PropertyNames } from './convert.ts';
import { cloudflareCredentials, cloudflareSettingsFromFlags } from './flags.ts';
import { desiredRegionalHostnames, writeCustomHostnames, writeRegionalHostnames } from './hostnames.ts';
import type { CustomHostnameSettings } from './hostnames.ts';
import { pacedApi } from './paced.ts';

export const DEFAULT_RECORDS_CACHE_MS = 5 * 60_000;

export interface CloudflareProviderOptions {
  api: CloudflareApi;
  logger: Logger;
  /** --domain-filter / --exclude-domains: zones the filter does not match are left alone. */
  domains?: readonly string[];
  excludeDomains?: readonly string[];
  /** --zone-id-filter: only these zones (each read by id, as external-dns does). */
  zoneIds?: readonly string[];
  proxiedByDefault?: boolean;
  recordsPerPage?: number;
  regionKey?: string;
  regionalServices?: boolean;
  recordComment?: string;
  customHostnames?: CustomHostnameSettings;
  batchChangeSize?: number;
  batchChangeIntervalMs?: number;
  /** How long listed zones and records are reused (kept current with our own writes); 0 lists every sync. */
  recordsCacheMs?: number;
  /** --annotation-prefix: the provider-specific property names follow it. */
  annotationPrefix?: string;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

interface ZoneCache {
  fetchedAt: number;
  records: Map<string, CfRecord>;
  customHostnames?: CfCustomHostname[];
  regionalHostnames?: CfRegionalHostname[];
}

export class CloudflareProvider implements Provider {
  readonly name = PROVIDER_NAME;
  private readonly api: CloudflareApi;
  private readonly logger: Logger;
  private readonly o: Required<Omit<CloudflareProviderOptions, 'api' | 'logger' | 'annotationPrefix' | 'customHostnames'>>;
  private readonly custom: CustomHostnameSettings;
  private readonly names: PropertyNames;
  private readonly filter: DomainFilter;
  private zones: CfZone[] = [];
  private zonesFetchedAt: number | undefined;
  private readonly cache = new Map<string, ZoneCache>();
  private useBatch = true;

  constructor(opts: CloudflareProviderOptions) {
    this.api = opts.api;
    this.logger = opts.logger;
    this.o = {
      domains: opts.domains ?? [],
      excludeDomains: opts.excludeDomains ?? [],
      zoneIds: opts.zoneIds ?? [],
      proxiedByDefault: opts.proxiedByDefault ?? false,
      recordsPerPage: opts.recordsPerPage ?? 100,
      regionKey: opts.regionKey ?? '',
      regionalServices: (opts.regionalServices ?? false) || (opts.regionKey ?? '') !== '',
      recordComment: opts.recordComment ?? '',
      batchChangeSize: opts.batchChangeSize ?? 200,
      batchChangeIntervalMs: opts.batchChangeIntervalMs ?? 1000,
      recordsCacheMs: opts.recordsCacheMs ?? DEFAULT_RECORDS_CACHE_MS,
      sleep: opts.sleep ?? ((ms: number) => sleep(ms)),
      now: opts.now ?? Date.now,
    };
    this.custom = opts.customHostnames ?? { enabled: false, minTlsVersion: '1.0', certificateAuthority: 'none' };
    this.names = propertyNames(opts.annotationPrefix);
    this.filter = new DomainFilter({ include: this.o.domains, exclude: this.o.excludeDomains });
  }

  /** Reads flags and environment and lists the zones once, so bad credentials stop start-up with a clear message. */
  static async fromConfig(
    cfg: ProviderConfig,
    deps: ProviderDeps & { api?: CloudflareApi; sleep?: (ms: number) => Promise<void> },
  ): Promise<CloudflareProvider> {
    const s = cloudflareSettingsFromFlags(cfg.flags);
    const pause = deps.sleep ?? ((ms: number) => sleep(ms));
    const raw = deps.api ?? sdkCloudflareApi(cloudflareCredentials(deps.env ?? {}));
    const provider = new CloudflareProvider({
      api: pacedApi(raw, { logger: deps.logger, sleep: pause }),
      logger: deps.logger,
      domains: cfg.domainFilters,
      excludeDomains: cfg.excludeDomains,
      zoneIds: s.zoneIds,
      proxiedByDefault: s.proxiedByDefault,
      recordsPerPage: s.recordsPerPage,
      regionKey: s.regionKey,
      regionalServices: s.regionalServices,
      recordComment: s.recordComment,
      customHostnames: s.customHostnames,
      batchChangeSize: s.batchChangeSize,
      batchChangeIntervalMs: s.batchChangeIntervalMs,
      recordsCacheMs: cfg.flags.num('cloudflare-records-cache-duration'),
      annotationPrefix: cfg.flags.str('annotation-prefix'),
      sleep: pause,
    });
    await provider.refreshZones(true);
    return provider;
  }

  async records(): Promise<Endpoint[]> {
    await this.refreshZones(false);
    const out: Endpoint[] = [];
    for (const zone of this.zones) {
      const c = await this.zoneCache(zone);
      const origins = new Map<string, string[]>();
      for (const ch of c.customHostnames ?? []) {
        const k = ch.customOriginServer.toLowerCase();
        origins.set(k, [...(origins.get(k) ?? []), ch.hostname]);
      }
      const eps = recordsToEndpoints(c.records.values(), this.names, origins, (r) =>
        this.logger.error({ zone: zone.name, record: r.name, type: r.type }, 'Cloudflare record name is not a valid DNS name; skipped'),
      );
      if (c.regionalHostnames !== undefined) {
        const keys = new Map(c.regionalHostnames.map((r) => [r.hostname.toLowerCase(), r.regionKey]));
        for (const ep of eps)
          if (REGIONAL_TYPES.has(ep.recordType)) ep.providerSpecific.push({ name: this.names.regionKey, value: keys.get(ep.dnsName) ?? '' });
      }
      out.push(...eps);
    }
    return out;
  }

  async adjustEndpoints(endpoints: Endpoint[]): Promise<Endpoint[]> {
    const settings = { names: this.names, ...this.o, customHostnames: this.custom.enabled };
    const kept = dropUnsupportedTypes(endpoints, UNSUPPORTED_TYPES, this.logger, 'Cloudflare');
    if (kept.length > 0) await this.refreshZones(false);
    return kept.map((ep) => adjustEndpoint(ep, settings, this.zoneOf(ep.dnsName)?.paid ?? false, this.logger));
  }

  async applyChanges(changes: Changes): Promise<void> {
    await this.refreshZones(false);
    const built = recordChanges(changes, {
      names: this.names,
      proxiedByDefault: this.o.proxiedByDefault,
      recordComment: this.o.recordComment,
      customHostnames: this.custom.enabled,
      paid: (name) => this.zoneOf(name)?.paid ?? false,
      logger: this.logger,
    });
    const failures = built.rejected.map((r) => new ProviderError(PROVIDER_NAME, `${r.record}: ${r.reason}`, { code: 'PROVIDER_INVALID_CHANGE' }));
    const perZone = new Map<string, { zone: CfZone; changes: RecordChange[] }>();
    for (const c of built.changes) {
      const zone = this.zoneOf(c.ep.dnsName);
      if (zone === undefined) {
        this.logger.debug({ record: c.ep.dnsName }, 'no Cloudflare zone holds the record; skipped');
        continue;
      }
      const entry = perZone.get(zone.id) ?? { zone, changes: [] };
      entry.changes.push(c);
      perZone.set(zone.id, entry);
    }
    for (const { zone, changes: zc } of perZone.values()) failures.push(...(await this.applyZone(zone, zc)));
    throwFailures(PROVIDER_NAME, failures, 'Cloudflare changes');
  }

  domainFilter(): DomainFilter {
    if (this.zones.length === 0) return new DomainFilter({ regexInclude: /^\b$/ });
    return new DomainFilter({ include: this.zones.map((z) => z.name) });
  }

  /** Forgets cached zones and records, e.g. after a change made outside Hostwarden. */
  invalidate(zoneId?: string): void {
    if (zoneId === undefined) {
      this.cache.clear();
      this.zonesFetchedAt = undefined;
    } else this.cache.delete(zoneId);
  }

  private zoneOf(name: string): CfZone | undefined {
    let best: CfZone | undefined;
    for (const z of this.zones) if (isInZone(name, z.name) && (best === undefined || z.name.length > best.name.length)) best = z;
    return best;
  }

  private fresh(at: number | undefined): boolean {
    return at !== undefined && this.o.now() - at < this.o.recordsCacheMs;
  }

  /** As external-dns: with --zone-id-filter each zone is read by id, else all zones filtered by the domain filter. */
  private async refreshZones(force: boolean): Promise<void> {
    if (!force && this.fresh(this.zonesFetchedAt)) return;
    const at = this.o.now();
    let zones: CfZone[];
    if (zoneIdFilterConfigured(this.o.zoneIds)) {
      zones = [];
      for (const id of this.o.zoneIds.filter((i) => i !== '')) zones.push(await this.api.getZone(id));
    } else {
      zones = (await this.api.listZones()).filter((z) => zoneIdMatches(this.o.zoneIds, z.id) && (!this.filter.isConfigured() || this.filter.match(z.name)));
    }
    zones = zones.map((z) => ({ ...z, name: z.name.toLowerCase() }));
    const known = new Set(zones.map((z) => z.id));
    for (const id of this.cache.keys()) if (!known.has(id)) this.cache.delete(id);
    if (zones.length !== this.zones.length) this.logger.info({ zones: zones.map((z) => `${z.name} (${z.id})`) }, 'Cloudflare zones');
    this.zones = zones;
    this.zonesFetchedAt = at;
  }

  private async zoneCache(zone: CfZone): Promise<ZoneCache> {
    const cached = this.cache.get(zone.id);
    if (cached !== undefined && this.fresh(cached.fetchedAt)) {
      await this.fillHostnames(zone, cached);
      return cached;
    }
    const fetchedAt = this.o.now();
    const records = new Map<string, CfRecord>();
    for (let page = 1, pages = 1; page <= pages; page++) {
      const res = await this.api.listRecordsPage(zone.id, page, this.o.recordsPerPage);
      for (const r of res.records) records.set(r.id, r);
      pages = Math.min(res.totalPages, 100_000);
    }
    const c: ZoneCache = { fetchedAt, records };
    await this.fillHostnames(zone, c);
    this.cache.set(zone.id, c);
    this.logger.debug({ zone: zone.name, records: records.size }, 'Cloudflare records listed');
    return c;
  }

  /** Custom and regional hostnames, listed only when their feature is on (and then cached like the records). */
  private async fillHostnames(zone: CfZone, c: ZoneCache): Promise<void> {
    if (this.custom.enabled && c.customHostnames === undefined) c.customHostnames = await this.api.listCustomHostnames(zone.id);
    const regional = [...c.records.values()].some((r) => REGIONAL_TYPES.has(r.type));
    if (this.o.regionalServices && regional && c.regionalHostnames === undefined) c.regionalHostnames = await this.api.listRegionalHostnames(zone.id);
  }

  private async applyZone(zone: CfZone, changes: RecordChange[]): Promise<ProviderError[]> {
    const c = await this.zoneCache(zone);
    const byIndex = new Map([...c.records.values()].map((r) => [indexOfRecord(r), r]));
    const hw = { api: this.api, zoneId: zone.id, zoneName: zone.name, names: this.names, logger: this.logger };
    const failures: ProviderError[] = [];
    if (this.custom.enabled) {
      const state = { list: c.customHostnames ?? [] };
      failures.push(...(await writeCustomHostnames(hw, changes, state, this.custom)));
      c.customHostnames = state.list;
    }
    let stale = false;
    const recordFailures = await writeZone(
      {
        api: this.api,
        zoneId: zone.id,
        zoneName: zone.name,
        byIndex,
        batchSize: Math.min(this.o.batchChangeSize, planBatchLimit(zone)),
        intervalMs: this.o.batchChangeIntervalMs,
        useBatch: this.useBatch,
        sleep: this.o.sleep,
        logger: this.logger,
        onDeleted: (id) => c.records.delete(id),
        onWritten: (r) => c.records.set(r.id, r),
        onUnknown: () => {
          stale = true;
        },
        onBatchUnavailable: () => {
          this.useBatch = false;
        },
      },
      changes,
    );
    failures.push(...recordFailures);
    // A refused change may come from a stale list (a record changed outside Hostwarden): list again next sync.
    if (stale || recordFailures.some((f) => !f.transient)) this.cache.delete(zone.id);
    if (this.o.regionalServices) failures.push(...(await this.applyRegional(zone, c, changes, hw)));
    this.logger.info({ zone: zone.name, changes: changes.length, failed: failures.length }, 'Cloudflare zone changed');
    return failures;
  }

  private async applyRegional(zone: CfZone, c: ZoneCache, changes: RecordChange[], hw: Parameters<typeof writeRegionalHostnames>[0]): Promise<ProviderError[]> {
    let desired: Map<string, string>;
    try {
      desired = desiredRegionalHostnames(changes, this.names, this.o.regionKey);
    } catch (err) {
      return [new ProviderError(PROVIDER_NAME, (err as Error).message, { zone: zone.name, code: 'PROVIDER_INVALID_CHANGE' })];
    }
    if (desired.size === 0) return [];
    const state = { list: c.regionalHostnames ?? (await this.api.listRegionalHostnames(zone.id)) };
    const failures = await writeRegionalHostnames(hw, desired, state);
    c.regionalHostnames = state.list;
    return failures;
  }
}
