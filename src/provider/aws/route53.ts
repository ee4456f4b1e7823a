/**
 * The aws provider: records in Route53 hosted zones. Cost per sync is the design goal: zone
 * record lists are cached between syncs and kept current with our own writes, so a steady-state
 * sync reads nothing but the zone list; writes are packed into as few requests as Route53's
 * limits allow, one request in flight per zone; a refused batch is bisected so that every valid
 * change still lands and the bad one is reported with Route53's reason.
 */
import { sleep } from '../../backoff.ts';
import type { Change, ResourceRecordSet } from '@aws-sdk/client-route-53';
import type { DomainFilter } from '../../endpoint/domain-filter.ts';
import { cloneEndpoint, endpointKey } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { ProviderError, errorMessage } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { Provider } from '../provider.ts';
import type { Changes } from '../../plan/changes.ts';
import { credentialsFor } from '../../aws/credentials.ts';
import { RateLimiter } from '../../rate-limiter.ts';
import { PROVIDER_NAME, Route53Api, newRoute53Client } from './api.ts';
import type { Route53Port } from './api.ts';
import { ProfiledRoute53 } from './profiles.ts';
import { orderChanges, packBatches } from './batch.ts';
import type { ChangeGroup } from './batch.ts';
import { canonicalHostedZone } from './canonical-zones.ts';
import { buildChanges, rsKey } from './changes.ts';
import type { ZoneChanges } from './changes.ts';
import { adjustEndpoint } from './adjust.ts';
import { ROUTE53_UNSUPPORTED_TYPES, recordSetToEndpoint } from './convert.ts';
import { dropUnsupportedTypes } from '../record-types.ts';
import { awsSettingsFromFlags } from './settings.ts';
import type { Route53Settings } from './settings.ts';
import { ZoneIndex, tagsMatch, toZone, zoneMatches } from './zones.ts';
import type { Zone } from './zones.ts';
import type { ProviderConfig, ProviderDeps } from '../provider.ts';

export const DEFAULT_TTL = 300;

export interface Route53ProviderOptions {
  api: Route53Port;
  logger: Logger;
  settings: Route53Settings;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

interface RecordCache {
  fetchedAt: number;
  sets: Map<string, ResourceRecordSet>;
}

interface Failure {
  zone: string;
  message: string;
  transient: boolean;
}

export class Route53Provider implements Provider {
  readonly name = PROVIDER_NAME;
  private readonly api: Route53Port;
  private readonly logger: Logger;
  private readonly s: Route53Settings;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private zones: ZoneIndex = new ZoneIndex([]);
  private zonesFetchedAt: number | undefined;
  private readonly cache = new Map<string, RecordCache>();
  // Conversion of unchanged record sets is done once; records() hands out clones.
  private readonly converted = new WeakMap<ResourceRecordSet, Endpoint | null>();

  constructor(opts: Route53ProviderOptions) {
    this.api = opts.api;
    this.logger = opts.logger;
    this.s = opts.settings;
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? ((ms: number) => sleep(ms));
  }

  /** Reads the flags and lists the zones once, so bad credentials stop start-up with a clear message. */
  static async fromConfig(
    cfg: ProviderConfig,
    deps: ProviderDeps & { sleep?: (ms: number) => Promise<void>; random?: () => number },
  ): Promise<Route53Provider> {
    const settings = awsSettingsFromFlags(cfg.flags, { include: cfg.domainFilters, exclude: cfg.excludeDomains });
    const pause = deps.sleep ?? ((ms: number) => sleep(ms));
    // One client per --aws-profile (each profile is usually another account, with its own rate limit).
    const apiFor = (profile: string | undefined): Route53Api => {
      const c = profile === undefined ? settings.credentials : { ...settings.credentials, profile };
      const client = newRoute53Client({
        region: c.region,
        credentials: credentialsFor(c),
        ...(c.endpointUrl === undefined ? {} : { endpointUrl: c.endpointUrl }),
      });
      return new Route53Api({
        client,
        limiter: new RateLimiter({ ratePerSecond: settings.requestsPerSecond, sleep: pause }),
        retry: { retries: settings.retries, baseDelayMs: 500, maxDelayMs: 20_000, sleep: pause, random: deps.random ?? Math.random },
        logger: profile === undefined ? deps.logger : deps.logger.child({ profile }),
        role: c.assumeRole,
      });
    };
    const api: Route53Port = settings.profiles.length <= 1 ? apiFor(undefined) : new ProfiledRoute53(new Map(settings.profiles.map((p) => [p, apiFor(p)])));
    const provider = new Route53Provider({ api, logger: deps.logger, settings: settings.route53, sleep: pause });
    await provider.refreshZones(true);
    return provider;
  }

  async records(): Promise<Endpoint[]> {
    await this.refreshZones(false);
    const lists = await Promise.all(this.zones.zones.map((z) => this.zoneRecords(z)));
    const seen = new Set<string>();
    const out: Endpoint[] = [];
    for (const sets of lists) {
      for (const rs of sets.values()) {
        let ep = this.converted.get(rs);
        if (ep === undefined) {
          ep = recordSetToEndpoint(rs) ?? null;
          this.converted.set(rs, ep);
        }
        if (ep === null) continue;
        // A public and a private zone of the same name hold the same records: list them once.
        if (seen.has(endpointKey(ep))) continue;
        seen.add(endpointKey(ep));
        out.push(cloneEndpoint(ep));
      }
    }
    return out;
  }

  async applyChanges(changes: Changes): Promise<void> {
    if (this.zonesFetchedAt === undefined) await this.refreshZones(true);
    const planned = buildChanges(changes, {
      zones: this.zones,
      defaultTTL: this.s.defaultTTL ?? DEFAULT_TTL,
      aliasZoneOf: (target) => canonicalHostedZone(target) ?? this.zones.zonesFor(target.replace(/\.$/, '').toLowerCase())[0]?.id,
      evaluateTargetHealth: this.s.evaluateTargetHealth,
      existing: (zoneId, key) => this.cache.get(zoneId)?.sets.get(key),
    });
    const failures: Failure[] = planned.rejected.map((r) => ({ zone: '', message: `${r.record}: ${r.reason}`, transient: false }));
    const results = await Promise.all(planned.zones.map((zc) => this.applyZone(zc)));
    failures.push(...results.flat());
    if (failures.length === 0) return;
    const transient = failures.some((f) => f.transient);
    const zone = failures.length === 1 && failures[0]?.zone !== '' ? { zone: failures[0]?.zone as string } : {};
    throw new ProviderError(PROVIDER_NAME, `${failures.length} change(s) not applied: ${failures.map((f) => f.message).join('; ')}`, {
      code: transient ? 'PROVIDER_FAILED' : 'PROVIDER_INVALID_CHANGE',
      transient,
      ...zone,
    });
  }

  /**
   * As external-dns: alias CNAMEs become A/AAAA alias endpoints, the AAAA companions of
   * `alias=true` appended after the others (the planner sees both record sets of the name).
   */
  adjustEndpoints(endpoints: Endpoint[]): Promise<Endpoint[]> {
    const settings = { evaluateTargetHealth: this.s.evaluateTargetHealth, preferCNAME: this.s.preferCNAME };
    const out: Endpoint[] = [];
    const companions: Endpoint[] = [];
    for (const ep of dropUnsupportedTypes(endpoints, ROUTE53_UNSUPPORTED_TYPES, this.logger, 'Route53')) {
      const [first, aaaa] = adjustEndpoint(ep, settings);
      if (first !== undefined) out.push(first);
      if (aaaa !== undefined) companions.push(aaaa);
    }
    return Promise.resolve([...out, ...companions]);
  }

  domainFilter(): DomainFilter {
    return this.zones.domainFilter();
  }

  close(): Promise<void> {
    this.api.close?.();
    return Promise.resolve();
  }

  /** Forgets cached records, e.g. after a change made outside Hostwarden. */
  invalidate(zoneId?: string): void {
    if (zoneId === undefined) this.cache.clear();
    else this.cache.delete(zoneId);
  }

  private async refreshZones(force: boolean): Promise<void> {
    const fresh = this.zonesFetchedAt !== undefined && this.now() - this.zonesFetchedAt < this.s.zonesCacheMs;
    if (fresh && !force) return;
    const all = (await this.api.listHostedZones()).map(toZone).filter((z): z is Zone => z !== undefined);
    let zones = all.filter((z) => zoneMatches(z, this.s.filters));
    if (this.s.filters.tags.length > 0) {
      const tagged = await Promise.all(zones.map(async (z) => ({ z, ok: tagsMatch(await this.api.zoneTags(z.id), this.s.filters.tags) })));
      zones = tagged.filter((t) => t.ok).map((t) => t.z);
    }
    const known = new Set(zones.map((z) => z.id));
    for (const id of this.cache.keys()) if (!known.has(id)) this.cache.delete(id);
    if (zones.length !== this.zones.zones.length)
      this.logger.info({ zones: zones.map((z) => `${z.name} (${z.id}${z.private ? ', private' : ''})`) }, 'Route53 hosted zones');
    this.zones = new ZoneIndex(zones);
    this.zonesFetchedAt = this.now();
  }

  private async zoneRecords(zone: Zone): Promise<Map<string, ResourceRecordSet>> {
    const cached = this.cache.get(zone.id);
    if (cached !== undefined && this.now() - cached.fetchedAt < this.s.recordsCacheMs) return cached.sets;
    const fetchedAt = this.now();
    const sets = new Map<string, ResourceRecordSet>();
    for (const rs of await this.api.listRecordSets(zone.id)) sets.set(rsKey(rs), rs);
    this.cache.set(zone.id, { fetchedAt, sets });
    this.logger.debug({ zone: zone.name, recordSets: sets.size }, 'Route53 records listed');
    return sets;
  }

  /** Batches for one zone, strictly one after another: Route53 serialises changes per zone anyway. */
  private async applyZone(zc: ZoneChanges): Promise<Failure[]> {
    const batches = packBatches(zc.groups, this.s.limits);
    const failures: Failure[] = [];
    for (let i = 0; i < batches.length; i++) {
      if (i > 0 && this.s.batchIntervalMs > 0) await this.sleep(this.s.batchIntervalMs);
      try {
        failures.push(...(await this.applyBatch(zc.zone, batches[i] as ChangeGroup[])));
      } catch (err) {
        // Outcome unknown: the cache may be wrong now, and later batches wait for the next sync.
        this.invalidate(zc.zone.id);
        const left = batches.slice(i).reduce((n, b) => n + b.reduce((m, g) => m + g.records.length, 0), 0);
        failures.push({
          zone: zc.zone.name,
          message: `zone ${zc.zone.name}: ${left} change(s) not sent: ${errorMessage(err)}`,
          transient: err instanceof ProviderError ? err.transient : true,
        });
        break;
      }
    }
    if (failures.some((f) => !f.transient)) this.invalidate(zc.zone.id);
    const sent = zc.groups.reduce((n, g) => n + g.changes.length, 0);
    this.logger.info({ zone: zc.zone.name, changes: sent, requests: batches.length, failed: failures.length }, 'Route53 zone changed');
    return failures;
  }

  /** Sends one batch; on InvalidChangeBatch splits it in halves until the refused groups are found. */
  private async applyBatch(zone: Zone, groups: ChangeGroup[]): Promise<Failure[]> {
    const changes = orderChanges(groups.flatMap((g) => g.changes));
    try {
      await this.api.changeRecordSets(zone.id, changes);
    } catch (err) {
      if (!(err instanceof ProviderError) || err.code !== 'PROVIDER_INVALID_CHANGE') throw err;
      if (groups.length === 1) {
        const reason = errorMessage(err).replace(/^.*?InvalidChangeBatch: /, '');
        return [{ zone: zone.name, message: `${groups[0]?.records.join(', ')} in zone ${zone.name}: ${reason}`, transient: false }];
      }
      const mid = Math.ceil(groups.length / 2);
      const first = await this.applyBatch(zone, groups.slice(0, mid));
      return [...first, ...(await this.applyBatch(zone, groups.slice(mid)))];
    }
    this.remember(zone.id, changes);
    return [];
  }

  private remember(zoneId: string, changes: Change[]): void {
    const cache = this.cache.get(zoneId);
    if (cache === undefined) return;
    for (const c of changes) {
      const rs = c.ResourceRecordSet;
      if (rs === undefined) continue;
      if (c.Action === 'DELETE') cache.sets.delete(rsKey(rs));
      else cache.sets.set(rsKey(rs), rs);
    }
  }
}
