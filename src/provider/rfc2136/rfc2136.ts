/**
 * The rfc2136 provider: records are read by zone transfer and changed by signed dynamic updates,
 * so any RFC 2136 server (BIND, Knot, PowerDNS, Windows DNS) can hold them. Changes are sent in
 * batches; each batch is one atomic UPDATE, and a failed batch does not stop the others. Without
 * a zone transfer (--no-rfc2136-axfr) creates are guarded by prerequisites (guarded-creates.ts).
 */
import { randomInt } from 'node:crypto';
import { DomainFilter } from '../../endpoint/domain-filter.ts';
import { describeEndpoint, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { isInZone, normalizeDnsName, normalizeRecordName } from '../../endpoint/name.ts';
import { endpointToRRSet } from '../../dns/rrset-endpoint.ts';
import { findTsig, sign, verify } from '../../dns/tsig.ts';
import type { TsigKey } from '../../dns/tsig.ts';
import { RCODE_NAMES } from '../../dns/wire.ts';
import { HostwardenError, ProviderError, errorMessage, isTransient } from '../../errors.ts';
import type { ErrorCode } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { Provider } from '../provider.ts';
import type { Changes } from '../../plan/changes.ts';
import { rfc2136Settings } from './flags.ts';
import { NameserverPool } from './nameservers.ts';
import type { LoadBalancingStrategy } from './nameservers.ts';
import { NetworkTransport } from './transport.ts';
import type { DnsTransport } from './transport.ts';
import { PREREQUISITE_RCODES, encodeUpdate, readHeader, updateRRSize } from './update-message.ts';
import type { AddRR, Prerequisite, UpdateRR } from './update-message.ts';
import { describeGroup, groupCreates, guardedGroup, settleGuarded } from './guarded-creates.ts';
import type { CreateGroup, GuardedGroup, GuardedOutcome } from './guarded-creates.ts';
import { rcodeErrorCode, transferZone, tsigErrorName } from './zone-transfer.ts';
import type { ProviderConfig, ProviderDeps } from '../provider.ts';

export const PROVIDER_NAME = 'rfc2136';

/** Leaves room for the header, zone section and TSIG record under the 64 KiB TCP limit. */
const MESSAGE_BUDGET = 60_000;

/** One DNS server: how to reach it, and how errors name it ("host:port"). */
export interface Rfc2136Server {
  transport: DnsTransport;
  name: string;
}

export interface Rfc2136Options {
  zones: readonly string[];
  /** The one server (`server` names it), unless `servers` lists several. */
  transport?: DnsTransport;
  /** Several --rfc2136-host servers, shared by `loadBalancing`. */
  servers?: readonly Rfc2136Server[];
  loadBalancing?: LoadBalancingStrategy;
  /**
   * Read the zones by AXFR (default true, as --rfc2136-axfr). false is external-dns's blind mode:
   * records() is empty, nothing is updated or deleted, and creates are guarded by prerequisites.
   */
  axfr?: boolean;
  /** Signs updates and transfers; undefined sends them unsigned (--rfc2136-insecure). */
  key?: TsigKey;
  /** Seconds; raises lower TTLs, and is the TTL of endpoints that set none. */
  minTTL?: number;
  /** Most record changes per UPDATE message. */
  batchChangeSize?: number;
  logger: Logger;
  /** Milliseconds since the epoch (TSIG time). */
  clock?: () => number;
  /** How errors name the server ("host:port"). */
  server?: string;
}

/** A provider error that also names the records it concerns. */
export class Rfc2136Error extends ProviderError {
  readonly records: readonly string[];
  constructor(message: string, options: { zone?: string; transient: boolean; code: ErrorCode; records: readonly string[]; cause?: unknown }) {
    super(PROVIDER_NAME, message, options);
    this.records = options.records;
  }
}

/** One planned change: the update records that must travel together in one message. */
interface Operation {
  zone: string;
  record: string;
  updates: UpdateRR[];
  size: number;
}

export class Rfc2136Provider implements Provider {
  readonly name = PROVIDER_NAME;
  readonly zones: readonly string[];
  private readonly pool: NameserverPool<Rfc2136Server>;
  private readonly axfr: boolean;
  private readonly key: TsigKey | undefined;
  private readonly minTTL: number;
  private readonly batchChangeSize: number;
  private readonly logger: Logger;
  private readonly clock: () => number;
  private readonly filter: DomainFilter;

  constructor(options: Rfc2136Options) {
    // Longest zone first so a name lands in its most specific zone.
    this.zones = [...new Set(options.zones.map((z) => normalizeDnsName(z)))].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    const servers = options.servers ?? (options.transport === undefined ? [] : [{ transport: options.transport, name: options.server ?? 'the server' }]);
    this.pool = new NameserverPool(servers, options.loadBalancing ?? 'disabled');
    this.axfr = options.axfr ?? true;
    this.key = options.key;
    this.minTTL = options.minTTL ?? 0;
    this.batchChangeSize = Math.max(1, options.batchChangeSize ?? 50);
    this.logger = options.logger;
    this.clock = options.clock ?? Date.now;
    this.filter = new DomainFilter({ include: this.zones });
  }

  static fromConfig(cfg: ProviderConfig, deps: ProviderDeps): Rfc2136Provider {
    const s = rfc2136Settings(cfg.flags);
    const servers = s.transports.map((t) => ({ transport: new NetworkTransport(t), name: `${t.host}:${t.port}` }));
    deps.logger.info(
      {
        servers: servers.map((x) => x.name),
        loadBalancing: s.loadBalancing,
        axfr: s.axfr,
        zones: s.zones,
        tsig: s.key?.name ?? 'none',
        tls: s.transports[0]?.tls !== undefined,
      },
      'rfc2136 provider configured',
    );
    if (!s.axfr)
      deps.logger.warn(
        `--rfc2136-axfr is off: no record is read, so records are only created, never updated or deleted (whatever --policy=${cfg.flags.str('policy')} says, as in external-dns); a create whose name already holds its record type, a CNAME or its ownership TXT is skipped with a warning`,
      );
    return new Rfc2136Provider({
      zones: s.zones,
      servers,
      loadBalancing: s.loadBalancing,
      axfr: s.axfr,
      minTTL: s.minTTL,
      batchChangeSize: s.batchChangeSize,
      logger: deps.logger,
      ...(s.key === undefined ? {} : { key: s.key }),
    });
  }

  zoneFor(name: string): string | undefined {
    return this.zones.find((z) => isInZone(name, z));
  }

  async records(): Promise<Endpoint[]> {
    const out: Endpoint[] = [];
    if (!this.axfr) return out;
    for (const zone of this.zones) {
      const transfer = (server: Rfc2136Server): ReturnType<typeof transferZone> =>
        transferZone(zone, {
          transport: server.transport,
          key: this.key,
          now: () => Math.floor(this.clock() / 1000),
          id: () => randomInt(0, 0x10000),
          provider: PROVIDER_NAME,
        });
      const sets = await this.pool
        .run('list', transfer, (server, err) => this.failover('zone transfer', zone, server, err))
        .catch((err: unknown) => {
          throw this.wrap(err, zone, []);
        });
      for (const set of sets) {
        // A name below a more specific configured zone is listed by that zone's transfer.
        if (this.zoneFor(set.name) !== zone) continue;
        out.push(newEndpoint({ dnsName: set.name, targets: set.rdata, recordType: set.type, recordTTL: set.ttl }));
      }
    }
    return out;
  }

  adjustEndpoints(endpoints: Endpoint[]): Promise<Endpoint[]> {
    // Without this, a TTL below the minimum would be planned as an update on every sync.
    if (this.minTTL <= 0) return Promise.resolve(endpoints);
    return Promise.resolve(endpoints.map((ep) => (ep.recordTTL > 0 && ep.recordTTL < this.minTTL ? { ...ep, recordTTL: this.minTTL } : ep)));
  }

  domainFilter(): DomainFilter {
    return this.filter;
  }

  async applyChanges(changes: Changes): Promise<void> {
    const ops: Operation[] = [];
    const failures: Rfc2136Error[] = [];
    const plan = (ep: Endpoint, build: (name: string) => UpdateRR[]): void => {
      try {
        this.plan(ops, ep, build);
      } catch (err) {
        // A record that cannot be encoded fails on its own; it must not hold back the others.
        const name = normalizeRecordName(ep.dnsName);
        failures.push(this.wrap(err, this.zoneFor(name) ?? name, [describeEndpoint(ep)]));
      }
    };
    const guarded: GuardedGroup[] = [];
    if (this.axfr) {
      // Deletes first, so a batch may replace a record set of one type by another at a name (A by CNAME).
      for (const ep of changes.delete) plan(ep, (name) => this.removals(name, ep));
      changes.updateNew.forEach((ep, i) => {
        const old = changes.updateOld[i] ?? ep;
        plan(ep, (name) => [...this.removals(name, old), ...this.additions(name, ep)]);
      });
      for (const ep of changes.create) plan(ep, (name) => this.additions(name, ep));
    } else {
      this.refuseBlindChanges(changes);
      // Blind mode: the planner saw no record, so every create may meet one of unknown owner.
      for (const group of groupCreates(changes.create)) this.guard(guarded, group, failures);
    }

    for (const zone of this.zones) {
      for (const batch of this.batches(ops.filter((o) => o.zone === zone))) {
        try {
          await this.send(
            zone,
            batch.flatMap((o) => o.updates),
          );
          this.logger.info({ zone, changes: batch.length }, 'rfc2136 update applied');
        } catch (err) {
          const records = batch.map((o) => o.record);
          const wrapped = this.wrap(err, zone, records);
          this.logger.warn({ zone, records: records.slice(0, 10), err: wrapped.message }, 'rfc2136 update failed; continuing with the other batches');
          failures.push(wrapped);
        }
      }
      await this.sendGuarded(
        zone,
        guarded.filter((g) => g.zone === zone),
        failures,
      );
    }
    if (failures.length === 0) return;
    const first = failures[0] as Rfc2136Error;
    if (failures.length === 1) throw first;
    const records = failures.flatMap((f) => f.records);
    const zones = [...new Set(failures.map((f) => f.zone))].join(', ');
    throw new Rfc2136Error(
      `${failures.length} of the update batches failed (${records.length} records in ${zones}); the other changes were applied. First: ${first.message}`,
      { zone: first.zone, transient: failures.every((f) => f.transient), code: first.code, records, cause: first },
    );
  }

  private plan(ops: Operation[], ep: Endpoint, build: (name: string) => UpdateRR[]): void {
    const name = normalizeRecordName(ep.dnsName);
    const zone = this.zoneFor(name);
    if (zone === undefined) {
      this.logger.warn({ record: describeEndpoint(ep) }, 'skipping a record outside the rfc2136 zones');
      return;
    }
    const updates = build(name);
    ops.push({ zone, record: describeEndpoint(ep), updates, size: updates.reduce((n, u) => n + updateRRSize(u), 0) });
  }

  /**
   * Without a zone transfer the planner sees no record, so it plans no update or delete; one can
   * only come from a cached view of our own earlier changes (--txt-cache-interval), which may
   * include creates skipped as taken. The owner cannot be checked, so none is sent.
   */
  private refuseBlindChanges(changes: Changes): void {
    for (const [what, list] of [
      ['updating', changes.updateNew],
      ['deleting', changes.delete],
    ] as const) {
      for (const ep of list) {
        const record = describeEndpoint(ep);
        this.logger.warn({ record }, `rfc2136: not ${what} ${record}: --rfc2136-axfr is off, so the zone was not read and the record's owner cannot be known`);
      }
    }
  }

  /** A create group with its prerequisites; one that spans zones cannot be atomic and is skipped. */
  private guard(out: GuardedGroup[], group: CreateGroup, failures: Rfc2136Error[]): void {
    const records = describeGroup(group);
    const zone = this.zoneFor(group.name);
    if (zone === undefined) {
      this.logger.warn({ records }, 'skipping a record outside the rfc2136 zones');
      return;
    }
    if (group.endpoints.some((ep) => this.zoneFor(normalizeRecordName(ep.dnsName)) !== zone)) {
      this.logger.warn(
        { zone, records },
        `rfc2136: not creating ${records.join(', ')}: the record and its ownership TXT lie in different zones, so they cannot be guarded in one update without a zone transfer (set --rfc2136-axfr)`,
      );
      return;
    }
    try {
      out.push(guardedGroup(zone, group, (name, ep) => this.additions(name, ep)));
    } catch (err) {
      // A record that cannot be encoded fails on its own; it must not hold back the others.
      failures.push(this.wrap(err, zone, records));
    }
  }

  /** Sends the guarded creates of one zone: created, already in place, or taken (left alone, one warning each). */
  private async sendGuarded(zone: string, groups: readonly GuardedGroup[], failures: Rfc2136Error[]): Promise<void> {
    for (const batch of this.batches(groups)) {
      const out: GuardedOutcome = { created: [], inPlace: [], taken: [] };
      try {
        await settleGuarded(zone, batch, (z, prerequisites, updates) => this.send(z, updates, prerequisites), out);
      } catch (err) {
        const settled = new Set([...out.created, ...out.inPlace, ...out.taken]);
        const records = batch.filter((g) => !settled.has(g)).flatMap((g) => g.records);
        const wrapped = this.wrap(err, zone, records);
        this.logger.warn({ zone, records: records.slice(0, 10), err: wrapped.message }, 'rfc2136 update failed; continuing with the other batches');
        failures.push(wrapped);
      }
      for (const g of out.taken) {
        this.logger.warn(
          { zone, records: g.records },
          `rfc2136: not creating ${g.records.join(', ')}: the name already holds this record type, a CNAME or the ownership TXT, whose owner cannot be known without a zone transfer (--rfc2136-axfr is off); nothing was changed there`,
        );
      }
      if (out.created.length > 0) this.logger.info({ zone, changes: out.created.length }, 'rfc2136 update applied');
      if (out.inPlace.length > 0) this.logger.debug({ zone, changes: out.inPlace.length }, 'rfc2136 records already in place');
    }
  }

  private ttlOf(ep: Endpoint): number {
    return Math.max(ep.recordTTL, this.minTTL);
  }

  private additions(name: string, ep: Endpoint): AddRR[] {
    const ttl = this.ttlOf(ep);
    return endpointToRRSet(ep, ttl).rdata.map((rdata) => ({ op: 'add', name, type: ep.recordType, ttl, rdata }));
  }

  /** Removes exactly the values we listed: a record someone added meanwhile survives. */
  private removals(name: string, ep: Endpoint): UpdateRR[] {
    if (ep.targets.length === 0) return [{ op: 'deleteRRset', name, type: ep.recordType }];
    return endpointToRRSet(ep, 1).rdata.map((rdata) => ({ op: 'deleteRR', name, type: ep.recordType, rdata }));
  }

  private *batches<T extends { size: number }>(ops: readonly T[]): Generator<T[]> {
    let batch: T[] = [];
    let size = 0;
    for (const op of ops) {
      if (batch.length > 0 && (batch.length >= this.batchChangeSize || size + op.size > MESSAGE_BUDGET)) {
        yield batch;
        batch = [];
        size = 0;
      }
      batch.push(op);
      size += op.size;
    }
    if (batch.length > 0) yield batch;
  }

  /** Resolves false only when `prerequisites` were sent and one did not hold. */
  private send(zone: string, updates: UpdateRR[], prerequisites: Prerequisite[] = []): Promise<boolean> {
    return this.pool.run(
      'send',
      (server) => this.sendTo(server, zone, updates, prerequisites),
      (server, err) => this.failover('update', zone, server, err),
    );
  }

  private failover(what: string, zone: string, server: Rfc2136Server, err: unknown): void {
    this.logger.warn({ zone, server: server.name, err: errorMessage(err) }, `rfc2136 ${what} failed; trying the next --rfc2136-host`);
  }

  private async sendTo(server: Rfc2136Server, zone: string, updates: UpdateRR[], prerequisites: Prerequisite[]): Promise<boolean> {
    let request = encodeUpdate({ id: randomInt(0, 0x10000), zone, prerequisites, updates });
    let mac: Buffer | undefined;
    const now = (): number => Math.floor(this.clock() / 1000);
    if (this.key !== undefined) ({ message: request, mac } = sign(request, this.key, now()));
    const reply = await server.transport.exchange(request);
    const header = readHeader(reply);
    if (header === undefined || !header.qr || header.id !== request.readUInt16BE(0)) {
      throw new ProviderError(PROVIDER_NAME, `malformed answer from ${server.name}`, { zone, transient: true });
    }
    const rcode = RCODE_NAMES[header.rcode] ?? `RCODE ${header.rcode}`;
    const tsig = findTsig(reply);
    if (this.key !== undefined && tsig !== undefined && tsig.error !== 0) {
      throw new ProviderError(
        PROVIDER_NAME,
        `${server.name} rejected the TSIG key "${this.key.name}" for zone ${zone}: ${rcode}/${tsigErrorName(tsig.error)} (check --rfc2136-tsig-secret, --rfc2136-tsig-secret-alg and the clock)`,
        {
          zone,
          transient: false,
          code: 'PROVIDER_TSIG',
        },
      );
    }
    // Not verified: a forged "prerequisite failed" can only make us leave a record alone.
    if (prerequisites.length > 0 && PREREQUISITE_RCODES.has(header.rcode)) return false;
    if (header.rcode !== 0) throw rcodeError(header.rcode, rcode, zone, server.name);
    if (this.key !== undefined && mac !== undefined) {
      const key = this.key;
      const result = verify(reply, (n) => (n === key.name ? key : undefined), { now: now(), requestMac: mac });
      if (result.status !== 'ok') {
        // The update was applied, but an unverifiable answer may come from anyone: say so loudly.
        const why = result.status === 'unsigned' ? 'is not signed' : `fails TSIG verification (${tsigErrorName(result.error)})`;
        throw new ProviderError(PROVIDER_NAME, `the answer of ${server.name} for zone ${zone} ${why}`, { zone, transient: false, code: 'PROVIDER_TSIG' });
      }
    }
    return true;
  }

  private wrap(err: unknown, zone: string, records: readonly string[]): Rfc2136Error {
    if (err instanceof Rfc2136Error) return err;
    const code = err instanceof HostwardenError ? err.code : 'PROVIDER_FAILED';
    const transient = isTransient(err);
    const what = records.length === 0 ? '' : ` (${records.slice(0, 5).join(', ')}${records.length > 5 ? `, and ${records.length - 5} more` : ''})`;
    const message = err instanceof ProviderError ? errorMessage(err) : `zone ${zone}: ${errorMessage(err)}`;
    return new Rfc2136Error(`${message}${what}`, {
      zone,
      transient,
      code: code === 'DNS_TRANSPORT_FAILED' ? 'PROVIDER_UNREACHABLE' : code,
      records,
      cause: err,
    });
  }
}

function rcodeError(code: number, name: string, zone: string, server: string): ProviderError {
  const hint: Readonly<Record<string, string>> = {
    REFUSED: 'the server does not allow this key (or an unsigned request) to update the zone',
    NOTAUTH: 'the server is not authoritative for the zone, or did not accept the key',
    NOTZONE: 'a record is outside the zone',
    SERVFAIL: 'the server failed to apply the update',
  };
  const detail = hint[name] === undefined ? '' : `: ${hint[name]}`;
  return new ProviderError(PROVIDER_NAME, `${server} answered ${name} to an update of zone ${zone}${detail}`, {
    zone,
    transient: code === 2,
    code: rcodeErrorCode(name),
  });
}
