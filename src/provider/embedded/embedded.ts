/**
 * The embedded provider: records live in Hostwarden's own zone files (see ZoneStore) and are
 * served by the built-in DNS server. It validates batches the way external-dns's inmemory
 * provider does (create of an existing set, update or delete of a missing one reject the whole
 * batch) and acknowledges a batch only once every zone file it touched is durable.
 *
 * Choices:
 * - The apex NS set (and the SOA, which is never an RRSet) belong to the store: records() hides
 *   them, adjustEndpoints() drops desired endpoints for them and applyChanges() refuses them, so
 *   the planner can never delete the zone's delegation. NS sets below the apex are ordinary records.
 * - Plain DNS has no routing policies, so endpoints with a setIdentifier are dropped (with a
 *   warning) by adjustEndpoints() and refused by applyChanges(); provider-specific properties
 *   (`alias` from --prefer-alias, `aws/*`, …) are removed there, since zone files cannot hold them.
 */
import { DomainFilter } from '../../endpoint/domain-filter.ts';
import { describeEndpoint, endpointKey, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { normalizeRecordName, tryNormalizeDnsName } from '../../endpoint/name.ts';
import { validateEndpoint } from '../../endpoint/validate.ts';
import { ConfigError, ProviderError, errorMessage } from '../../errors.ts';
import type { ErrorCode } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { endpointToRRSet, rrsetToEndpoint } from '../../dns/rrset-endpoint.ts';
import type { RRSet } from '../../dns/zone-content.ts';
import type { Provider } from '../provider.ts';
import type { Changes } from '../../plan/changes.ts';
import { ZoneStore, rrsetKey } from './zone-store.ts';
import type { ZoneEdit, ZoneStoreOptions } from './zone-store.ts';
import { ownZonesOf } from '../provider.ts';
import type { ProviderConfig, ProviderDeps } from '../provider.ts';

const PROVIDER_NAME = 'embedded';
/** Problems listed in one rejection; the rest are counted. */
const MAX_LISTED_PROBLEMS = 10;

export interface EmbeddedProviderConfig {
  dataDir: string;
  zones: readonly string[];
  defaultTTL?: number | undefined;
  logger: Logger;
  nameservers?: readonly string[];
  nameserverAddresses?: readonly string[];
  hostmaster?: string;
  /** Read the zones without locking or writing the directory (`plan`, `explain`); applyChanges fails. */
  readOnly?: boolean;
  /** Each zone's serial kept in the cluster (see serial-keeper.ts). */
  serialFloors?: ReadonlyMap<string, number>;
  reserveSerial?: (zone: string, serial: number) => Promise<void>;
}

type SetKey = Pick<RRSet, 'name' | 'type'>;
type Op =
  { kind: 'delete'; old: SetKey; ep: Endpoint } | { kind: 'update'; old: SetKey; next: RRSet; ep: Endpoint } | { kind: 'create'; next: RRSet; ep: Endpoint };

/** The embedded provider's flags, as the resolved Config holds them. */
export interface EmbeddedFlagsConfig extends ProviderConfig {
  embeddedDataDir: string;
  embeddedDefaultTTL: number;
  embeddedNameservers: readonly string[];
  embeddedNameserverAddresses: readonly string[];
  embeddedHostmaster: string;
}

export class EmbeddedProvider implements Provider {
  readonly name = PROVIDER_NAME;
  readonly store: ZoneStore;
  private readonly logger: Logger;
  private readonly filter: DomainFilter;

  constructor(deps: { store: ZoneStore; logger: Logger }) {
    this.store = deps.store;
    this.logger = deps.logger;
    this.filter = new DomainFilter({ include: this.store.zones() });
  }

  /** Locks `dataDir`, opens (creating if needed) its zone files and returns a ready provider. */
  /** From the flags: --embedded-data-dir, --embedded-zone (else the domain filters), --embedded-default-ttl, the SOA/NS flags. */
  static async fromConfig(cfg: EmbeddedFlagsConfig, deps: ProviderDeps): Promise<EmbeddedProvider> {
    return EmbeddedProvider.open({
      dataDir: cfg.embeddedDataDir,
      zones: ownZonesOf(cfg),
      defaultTTL: cfg.embeddedDefaultTTL,
      logger: deps.logger,
      ...(cfg.embeddedNameservers.length > 0 ? { nameservers: [...cfg.embeddedNameservers] } : {}),
      ...(cfg.embeddedNameserverAddresses.length > 0 ? { nameserverAddresses: [...cfg.embeddedNameserverAddresses] } : {}),
      ...(cfg.embeddedHostmaster !== '' ? { hostmaster: cfg.embeddedHostmaster } : {}),
      ...(deps.readOnly === true ? { readOnly: true } : {}),
      ...(deps.serialFloors === undefined ? {} : { serialFloors: deps.serialFloors }),
      ...(deps.reserveSerial === undefined ? {} : { reserveSerial: deps.reserveSerial }),
    });
  }

  /** From explicit options (tests and tools that are not driven by flags). */
  static async open(config: EmbeddedProviderConfig): Promise<EmbeddedProvider> {
    const zones = config.zones.map((z) => z.trim()).filter((z) => z !== '');
    const badZone = zones.find((z) => tryNormalizeDnsName(z) === undefined || z.startsWith('*'));
    if (badZone !== undefined) throw new ConfigError(`invalid zone ${JSON.stringify(badZone)}: not a DNS name`, '--embedded-zone');
    if (zones.length === 0) throw new ConfigError('the embedded provider needs at least one zone: set --embedded-zone or --domain-filter', '--embedded-zone');
    if (config.defaultTTL !== undefined && (!Number.isInteger(config.defaultTTL) || config.defaultTTL < 1)) {
      throw new ConfigError(`default TTL ${config.defaultTTL} is not a positive whole number of seconds`);
    }
    const options: ZoneStoreOptions = { dataDir: config.dataDir, zones, logger: config.logger };
    if (config.defaultTTL !== undefined) options.defaultTTL = config.defaultTTL;
    if (config.nameservers !== undefined) options.nameservers = config.nameservers;
    if (config.nameserverAddresses !== undefined) options.nameserverAddresses = config.nameserverAddresses;
    if (config.hostmaster !== undefined) options.hostmaster = config.hostmaster;
    if (config.readOnly === true) options.readOnly = true;
    if (config.serialFloors !== undefined) options.serialFloors = config.serialFloors;
    if (config.reserveSerial !== undefined) options.reserveSerial = config.reserveSerial;
    const store = new ZoneStore(options);
    await store.open();
    return new EmbeddedProvider({ store, logger: config.logger });
  }

  records(): Promise<Endpoint[]> {
    const out: Endpoint[] = [];
    for (const zone of this.store.zones()) {
      for (const set of this.store.content(zone).rrsets) {
        if (set.type === 'NS' && set.name === zone) continue;
        // A name below a more specific managed zone belongs to that zone's file.
        if (this.store.zoneFor(set.name) !== zone) continue;
        out.push(rrsetToEndpoint(set));
      }
    }
    return Promise.resolve(out);
  }

  adjustEndpoints(endpoints: Endpoint[]): Promise<Endpoint[]> {
    return Promise.resolve(
      endpoints
        .filter((ep) => {
          const reason = this.unsupported(ep);
          if (reason !== undefined) this.logger.warn({ record: describeEndpoint(ep) }, `dropping endpoint: ${reason}`);
          return reason === undefined;
        })
        // Zone files hold no provider-specific properties (alias, aws/weight, …): records() never
        // returns any, so a desired one would look like a change on every sync.
        .map((ep) => (ep.providerSpecific.length === 0 ? ep : newEndpoint({ ...ep, providerSpecific: [] }))),
    );
  }

  domainFilter(): DomainFilter {
    return this.filter;
  }

  async applyChanges(changes: Changes): Promise<void> {
    const byZone = this.plan(changes);
    if (byZone.size === 0) return;
    const edits = new Map<string, ZoneEdit>();
    for (const [zone, ops] of byZone) edits.set(zone, (rrsets) => applyOps(zone, ops, rrsets));
    await this.store.commit(edits);
    this.logger.info(
      { zones: [...byZone.keys()], create: changes.create.length, update: changes.updateNew.length, delete: changes.delete.length },
      'changes committed to zone files',
    );
  }

  async close(): Promise<void> {
    await this.store.close();
  }

  /** Checks every endpoint of the batch and groups the operations by zone. */
  private plan(changes: Changes): Map<string, Op[]> {
    if (changes.updateOld.length !== changes.updateNew.length) {
      throw error(`update lists differ in length (${changes.updateOld.length} old, ${changes.updateNew.length} new)`, 'PROVIDER_INVALID_CHANGE');
    }
    const problems: string[] = [];
    const byZone = new Map<string, Op[]>();
    const seen = new Set<string>();
    // Records being removed are named only by their key: their targets may be anything an operator
    // once wrote into the file, and must not stop the planner from cleaning them up.
    const prepare = (raw: Endpoint, verb: string, removing = false): { set: RRSet; zone: string; ep: Endpoint } | undefined => {
      const what = `cannot ${verb} ${describeEndpoint(raw)}`;
      const reason = this.unsupported(raw);
      if (reason !== undefined) return void problems.push(`${what}: ${reason}`);
      let ep: Endpoint;
      try {
        ep = removing ? newEndpoint({ ...raw, dnsName: normalizeRecordName(raw.dnsName) }) : validateEndpoint(raw, 'record');
      } catch (err) {
        // Validation messages start with the record already; do not name it twice.
        return void problems.push(`${what}: ${errorMessage(err).replace(`${describeEndpoint(raw)}: `, '')}`);
      }
      const zone = this.store.zoneFor(ep.dnsName);
      if (zone === undefined) return void problems.push(`${what}: the name is not in any zone (${this.store.zones().join(', ')})`);
      const set = removing ? { name: ep.dnsName, type: ep.recordType, ttl: 0, rdata: [] } : endpointToRRSet(ep, this.store.defaultTTL);
      return { set, zone, ep };
    };
    const claim = (ep: Endpoint): boolean => {
      const key = endpointKey(ep);
      if (seen.has(key)) {
        problems.push(`record ${describeEndpoint(ep)} appears more than once in one batch`);
        return false;
      }
      seen.add(key);
      return true;
    };
    const push = (zone: string, op: Op): void => {
      const ops = byZone.get(zone);
      if (ops === undefined) byZone.set(zone, [op]);
      else ops.push(op);
    };
    for (const raw of changes.delete) {
      const p = prepare(raw, 'delete', true);
      if (p !== undefined && claim(p.ep)) push(p.zone, { kind: 'delete', old: p.set, ep: p.ep });
    }
    changes.updateNew.forEach((rawNew, i) => {
      const rawOld = changes.updateOld[i] as Endpoint;
      const o = prepare(rawOld, 'update', true);
      const n = prepare(rawNew, 'update');
      if (o === undefined || n === undefined) return;
      if (endpointKey(o.ep) !== endpointKey(n.ep)) {
        problems.push(`cannot update ${describeEndpoint(o.ep)} into a different record set ${describeEndpoint(n.ep)}`);
        return;
      }
      if (claim(n.ep)) push(n.zone, { kind: 'update', old: o.set, next: n.set, ep: n.ep });
    });
    for (const raw of changes.create) {
      const p = prepare(raw, 'create');
      if (p !== undefined && claim(p.ep)) push(p.zone, { kind: 'create', next: p.set, ep: p.ep });
    }
    if (problems.length > 0) throw rejection(problems, 'PROVIDER_INVALID_CHANGE');
    return byZone;
  }

  /** Why an endpoint cannot be stored by this provider, or undefined when it can. */
  private unsupported(ep: Endpoint): string | undefined {
    if (ep.setIdentifier !== '') return `set identifier "${ep.setIdentifier}" needs routing policies that plain DNS zones cannot express`;
    const name = ep.dnsName.toLowerCase().replace(/\.$/, '');
    if (ep.recordType === 'NS' && this.store.zones().includes(name)) return `the apex NS records of zone ${name} are managed by the embedded zone store`;
    return undefined;
  }
}

/** Runs inside the zone's lock against its latest content, so checks and writes cannot race. */
function applyOps(zone: string, ops: readonly Op[], rrsets: Map<string, RRSet>): void {
  const missing: string[] = [];
  const existing: string[] = [];
  // Deletes first, then updates, then creates: a batch may replace one type by another at a name.
  const order = { delete: 0, update: 1, create: 2 } as const;
  for (const op of [...ops].sort((a, b) => order[a.kind] - order[b.kind])) {
    if (op.kind === 'delete' || op.kind === 'update') {
      const key = rrsetKey(op.old.name, op.old.type);
      if (!rrsets.has(key)) {
        missing.push(`cannot ${op.kind} ${describeEndpoint(op.ep)}: record not found in zone ${zone}`);
        continue;
      }
      rrsets.delete(key);
    }
    if (op.kind === 'update' || op.kind === 'create') {
      const key = rrsetKey(op.next.name, op.next.type);
      if (op.kind === 'create' && rrsets.has(key)) {
        existing.push(`cannot create ${describeEndpoint(op.ep)}: record already exists in zone ${zone}`);
        continue;
      }
      rrsets.set(key, op.next);
    }
  }
  if (missing.length > 0) throw rejection([...missing, ...existing], 'PROVIDER_RECORD_NOT_FOUND', zone);
  if (existing.length > 0) throw rejection(existing, 'PROVIDER_RECORD_EXISTS', zone);
}

function rejection(problems: readonly string[], code: ErrorCode, zone?: string): ProviderError {
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS).join('; ');
  const more = problems.length > MAX_LISTED_PROBLEMS ? ` (and ${problems.length - MAX_LISTED_PROBLEMS} more)` : '';
  return error(`${listed}${more}`, code, zone);
}

function error(message: string, code: ErrorCode, zone?: string): ProviderError {
  return new ProviderError(PROVIDER_NAME, `embedded: ${message}`, zone === undefined ? { code } : { code, zone });
}
