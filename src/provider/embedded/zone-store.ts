/**
 * The embedded provider's durable zone store: one RFC 1035 master file per zone under a data
 * directory, the in-memory content that the DNS server answers from, and the rules that keep the
 * two in step. Every change is written atomically and fsynced before it is acknowledged, the SOA
 * serial grows by one per change (and is read back from the file on start, never below a floor kept in the cluster), and writes to a zone
 * are serialised so a file never has two writers in this process. The directory is locked (see
 * DataDirLock) from open() to close(), so it never has two writing processes either.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { isIPv4, isIPv6 } from 'node:net';
import { dirname, join } from 'node:path';
import { ConfigError, ProviderError, errorMessage } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { canonicalTarget } from '../../endpoint/endpoint.ts';
import { isInZone, normalizeDnsName } from '../../endpoint/name.ts';
import { findCnameConflict, parseZone, serializeZone, sortRRSets } from '../../dns/master-file.ts';
import { DEFAULT_TTL } from '../../dns/rrset-endpoint.ts';
import type { RRSet, RRType, SOA, ZoneContent, ZoneListener } from '../../dns/zone-content.ts';
import { AtomicWriteError, removeStaleTempFiles, syncDirectory, writeFileAtomic } from './atomic-file.ts';
import { DataDirLock } from './data-dir-lock.ts';
import type { DataDirLockOptions } from './data-dir-lock.ts';
import { KeyedMutex } from './keyed-mutex.ts';

const PROVIDER = 'embedded';
/**
 * First line of a zone file the store made up at start and has not changed since: read back after
 * a restart, the zone is still provisional (ZoneContent.provisional), never the base of an IXFR.
 */
const PROVISIONAL_MARK = '; hostwarden: provisional (made at start; no change committed yet)\n';

/** SOA timers for zones the store creates; existing files keep theirs. */
export interface SoaTimers {
  refresh: number;
  retry: number;
  expire: number;
  /** Negative-caching TTL (RFC 2308). */
  minimum: number;
}

export const DEFAULT_SOA_TIMERS: Readonly<SoaTimers> = Object.freeze({ refresh: 3600, retry: 600, expire: 1209600, minimum: 300 });

export interface ZoneStoreOptions {
  dataDir: string;
  zones: readonly string[];
  logger: Logger;
  /** TTL for records without one and for the SOA/NS of new zones (default 300). */
  defaultTTL?: number;
  /** Apex NS hosts for new zones; default `ns1.<zone>`. The first is the SOA mname. */
  nameservers?: readonly string[];
  /** A/AAAA addresses for in-zone nameservers of new zones (BIND refuses in-zone NS without them). */
  nameserverAddresses?: readonly string[];
  /** SOA rname (mailbox as a name) for new zones; default `hostmaster.<zone>`. */
  hostmaster?: string;
  soaTimers?: Partial<SoaTimers>;
  /** Wall clock in milliseconds; the serial of a new zone is the Unix time. */
  now?: () => number;
  /**
   * Only read the zone files (`plan`, `explain`): no lock, nothing created, cleaned or written, so
   * a running instance's directory can be read; a missing zone reads as the one open() would create.
   */
  readOnly?: boolean;
  /** How the data directory is locked (tests choose the mode). */
  lock?: DataDirLockOptions;
  /**
   * The latest serial of each zone as kept outside the data directory (the cluster, see
   * serial-keeper.ts): a zone created fresh starts above it, and a file below it moves above it on
   * its next change, so an emptied directory never serves a serial lower than one served before.
   */
  serialFloors?: ReadonlyMap<string, number>;
  /**
   * Called with each zone's next serial before that serial is written or served (the leader of a
   * replica set keeps it in the cluster first, so no replica ever holds a serial the cluster does
   * not know). It must not throw for long: a failure is the caller's to log, the commit goes on.
   */
  reserveSerial?: (zone: string, serial: number) => Promise<void>;
}

/**
 * An edit of one zone: it adds, replaces or deletes entries of the map (keys from rrsetKey()). The
 * sets already in the map are frozen, so an edit replaces a set rather than changing it in place.
 */
export type ZoneEdit = (rrsets: Map<string, RRSet>, current: ZoneContent) => void;

export function rrsetKey(name: string, type: RRType): string {
  return `${name}\u0000${type}`;
}

export class ZoneStore {
  readonly dataDir: string;
  readonly defaultTTL: number;
  private readonly zoneNames: string[];
  private readonly logger: Logger;
  private readonly options: ZoneStoreOptions;
  private readonly now: () => number;
  private readonly mutex = new KeyedMutex();
  private readonly listeners = new Set<ZoneListener>();
  private readonly zonesByName = new Map<string, ZoneContent>();
  private state: 'new' | 'open' | 'closed' = 'new';
  private lock: DataDirLock | undefined;
  /** Zone-file lines of each frozen set, reused while the set is unchanged. */
  private readonly lineCache = new WeakMap<RRSet, string>();
  /** Each zone's serial kept outside the data directory; raised on a change of leader. */
  private readonly floors: Map<string, number>;

  constructor(options: ZoneStoreOptions) {
    this.options = options;
    this.dataDir = options.dataDir;
    this.defaultTTL = options.defaultTTL ?? DEFAULT_TTL;
    this.zoneNames = [...new Set(options.zones.map((z) => normalizeDnsName(z)))].sort();
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    this.floors = new Map(options.serialFloors ?? []);
    const bad = (options.nameserverAddresses ?? []).find((a) => !isIPv4(a) && !isIPv6(a));
    if (bad !== undefined) throw new ConfigError(`nameserver address ${JSON.stringify(bad)} is not an IP address`);
  }

  /** The managed zones, normalised and sorted. */
  zones(): string[] {
    return [...this.zoneNames];
  }

  /** The most specific managed zone containing `name`, or undefined. */
  zoneFor(name: string): string | undefined {
    let best: string | undefined;
    for (const zone of this.zoneNames) if (isInZone(name, zone) && (best === undefined || zone.length > best.length)) best = zone;
    return best;
  }

  filePath(zone: string): string {
    return join(this.dataDir, `${zone}.zone`);
  }

  /**
   * Creates the data directory, locks it, removes temporary files a crash left, loads every zone
   * file and creates the missing ones. A file that does not parse stops start-up with its name and
   * line: starting empty instead would overwrite the operator's data on the first change. The lock
   * comes before any cleaning: the temporary files of a live instance are not stale.
   */
  async open(): Promise<void> {
    if (this.state !== 'new') throw new ProviderError(PROVIDER, 'zone store opened twice', { code: 'STORE_STATE' });
    const readOnly = this.options.readOnly === true;
    if (!readOnly) {
      await this.createDataDir();
      this.lock = await DataDirLock.acquire(this.dataDir, this.options.lock);
    }
    try {
      if (!readOnly) {
        const stale = await removeStaleTempFiles(this.dataDir);
        if (stale.length > 0) this.logger.warn({ dataDir: this.dataDir, files: stale }, 'removed temporary zone files left by an interrupted write');
      }
      for (const zone of this.zoneNames) await this.load(zone, readOnly);
    } catch (err) {
      await this.lock?.release();
      this.lock = undefined;
      throw err;
    }
    this.state = 'open';
    for (const zone of this.zoneNames) await this.notify(this.content(zone));
  }

  private async createDataDir(): Promise<void> {
    try {
      const created = await mkdir(this.dataDir, { recursive: true });
      // A new directory's own entry must be durable too, or a crash could lose every zone in it.
      if (created !== undefined) await syncDirectory(dirname(created));
    } catch (err) {
      throw new ProviderError(PROVIDER, `cannot create the data directory ${this.dataDir}: ${errorMessage(err)}`, { code: 'ZONE_READ_FAILED', cause: err });
    }
  }

  private async load(zone: string, readOnly: boolean): Promise<void> {
    const path = this.filePath(zone);
    const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw new ProviderError(PROVIDER, `cannot read zone file ${path}: ${err.message}`, { zone, code: 'ZONE_READ_FAILED', cause: err });
    });
    if (text === undefined) {
      const content = this.initialContent(zone);
      if (!readOnly) await writeFileAtomic(path, PROVISIONAL_MARK + serializeZone(content));
      this.zonesByName.set(zone, deepFreeze(content));
      if (!readOnly) this.logger.info({ zone, file: path, serial: content.soa.serial }, 'created zone file');
    } else {
      const parsed = parseZone(text, zone, path);
      const content = text.startsWith(PROVISIONAL_MARK) ? { ...parsed, provisional: true } : parsed;
      if (!content.rrsets.some((s) => s.type === 'NS' && s.name === zone)) this.logger.warn({ zone, file: path }, 'zone has no NS records at its apex');
      this.zonesByName.set(zone, deepFreeze(content));
      this.logger.info({ zone, file: path, serial: content.soa.serial, rrsets: content.rrsets.length }, 'loaded zone file');
    }
  }

  /** The committed content of a zone; the object is frozen and replaced (never changed) by commits. */
  content(zone: string): ZoneContent {
    const content = this.zonesByName.get(zone);
    if (content === undefined) throw new ProviderError(PROVIDER, `zone ${zone} is not managed by this store`, { zone, code: 'ZONE_NOT_MANAGED' });
    return content;
  }

  /** Registers a listener; when the store is already open it hears about every zone at once. */
  addListener(listener: ZoneListener): void {
    this.listeners.add(listener);
    if (this.state === 'open') for (const zone of this.zoneNames) void this.notifyOne(listener, this.content(zone));
  }

  removeListener(listener: ZoneListener): void {
    this.listeners.delete(listener);
  }

  /**
   * Applies one edit per zone. All edits are computed and checked before anything is written, so a
   * rejected edit leaves every zone unchanged; each changed zone then gets one atomic write and
   * one serial increment. Resolves after every write is durable.
   */
  async commit(edits: ReadonlyMap<string, ZoneEdit>): Promise<void> {
    this.assertWritable();
    for (const zone of edits.keys()) this.content(zone);
    // Accepted before close(), so close() waits for it rather than failing it.
    await this.mutex.run(edits.keys(), async () => {
      const next: { zone: string; content: ZoneContent }[] = [];
      for (const [zone, edit] of edits) {
        const content = this.applyEdit(zone, edit);
        if (content !== undefined) next.push({ zone, content });
      }
      for (const { zone, content } of next) await this.reserve(zone, content.soa.serial);
      for (const { zone, content } of next) await this.write(zone, content);
    });
  }

  /**
   * Raises the kept serials (a replica taking over as leader reads them again): each is kept only
   * when newer than the one known. Returns the zones whose content is now below its floor.
   */
  raiseFloors(floors: ReadonlyMap<string, number>): string[] {
    for (const [zone, serial] of floors) {
      const known = this.floors.get(zone);
      if (known === undefined || serialGreater(serial, known)) this.floors.set(zone, serial);
    }
    return this.zoneNames.filter((zone) => {
      const floor = this.floors.get(zone);
      return floor !== undefined && serialGreater(floor, this.content(zone).soa.serial);
    });
  }

  /** Moves a zone's serial past its floor without changing its records (a new leader behind the kept serial). */
  async bump(zone: string): Promise<number> {
    this.assertWritable();
    this.content(zone);
    return this.mutex.run([zone], async () => {
      const current = this.content(zone);
      const soa = { ...current.soa, serial: serialAfter(current.soa.serial, this.floors.get(zone)) };
      // Past the floor, the serial is this leader's alone: a base for differences from now on.
      const content: ZoneContent = { origin: current.origin, soa, rrsets: current.rrsets };
      await this.reserve(zone, content.soa.serial);
      await this.write(zone, content);
      return content.soa.serial;
    });
  }

  /**
   * Replaces a zone with a copy transferred from the leader (a follower replica): written and
   * served as received, serial included, since the leader's serial is the set's.
   */
  async replace(content: ZoneContent): Promise<void> {
    this.assertWritable();
    const zone = content.origin;
    this.content(zone);
    await this.mutex.run([zone], async () => {
      await this.write(zone, { origin: zone, soa: { ...content.soa }, rrsets: sortRRSets(content.rrsets.map((s) => ({ ...s, rdata: [...s.rdata] }))) });
    });
  }

  private async reserve(zone: string, serial: number): Promise<void> {
    try {
      await this.options.reserveSerial?.(zone, serial);
    } catch (err) {
      this.logger.warn({ zone, serial, err: errorMessage(err) }, 'cannot keep the new serial in the cluster before serving it; serving it anyway');
    }
  }

  private assertWritable(): void {
    this.assertOpen();
    if (this.options.readOnly === true) throw new ProviderError(PROVIDER, 'zone store is read-only', { code: 'STORE_STATE' });
  }

  /** Waits for the commits already accepted (later ones are refused), then frees the directory. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    await this.mutex.idle();
    await this.lock?.release();
    this.lock = undefined;
  }

  private applyEdit(zone: string, edit: ZoneEdit): ZoneContent | undefined {
    const current = this.content(zone);
    const before = new Map(current.rrsets.map((set) => [rrsetKey(set.name, set.type), set]));
    const draft = new Map(before);
    edit(draft, current);
    const changed: RRSet[] = [];
    for (const [key, set] of draft) {
      const old = before.get(key);
      if (old === set) continue;
      if (key !== rrsetKey(set.name, set.type)) throw conflict(zone, `${set.name} ${set.type} was stored under the wrong key`);
      if (!isInZone(set.name, zone)) throw conflict(zone, `${set.name} ${set.type} is outside zone ${zone}`);
      if (set.rdata.length === 0) throw conflict(zone, `${set.name} ${set.type} has no records`);
      const normal: RRSet = { name: set.name, type: set.type, ttl: set.ttl, rdata: [...new Set(set.rdata)].sort() };
      if (old !== undefined && old.ttl === normal.ttl && old.rdata.join('\u0000') === normal.rdata.join('\u0000')) draft.set(key, old);
      else {
        draft.set(key, normal);
        changed.push(normal);
      }
    }
    const removed = [...before.keys()].filter((key) => !draft.has(key));
    if (changed.length === 0 && removed.length === 0) return undefined;
    if (removed.includes(rrsetKey(zone, 'NS'))) throw conflict(zone, `the apex NS records of zone ${zone} cannot be removed`);
    const candidate: ZoneContent = { origin: zone, soa: current.soa, rrsets: sortRRSets([...draft.values()]) };
    const cname = findCnameConflict(candidate);
    if (cname !== undefined) throw conflict(zone, cname.message);
    // Never write a file the next start could not load: read the changed sets back first. The
    // unchanged ones were checked when they were loaded or written.
    const probe: ZoneContent = { origin: zone, soa: current.soa, rrsets: changed };
    try {
      parseZone(serializeZone(probe), zone, this.filePath(zone));
    } catch (err) {
      throw conflict(zone, `the change would make zone ${zone} unreadable: ${errorMessage(err).replace(/^.*?: /, '')}`);
    }
    return { ...candidate, soa: { ...current.soa, serial: serialAfter(current.soa.serial, this.floors.get(zone)) } };
  }

  private async write(zone: string, content: ZoneContent): Promise<void> {
    const path = this.filePath(zone);
    const text = serializeZone(content, this.lineCache);
    try {
      await writeFileAtomic(path, text);
    } catch (err) {
      // Once renamed, the file already holds the new content: memory must follow it even though
      // the change is not acknowledged as durable.
      if (err instanceof AtomicWriteError && err.renamed) await this.adopt(zone, content);
      throw new ProviderError(PROVIDER, `cannot write zone ${zone}: ${errorMessage(err)}`, { transient: true, zone, code: 'ZONE_WRITE_FAILED', cause: err });
    }
    await this.adopt(zone, content);
    this.logger.debug({ zone, serial: content.soa.serial, rrsets: content.rrsets.length }, 'zone committed');
  }

  /** Memory follows the file at once; the commit then waits for the listeners (the DNS server serving it). */
  private async adopt(zone: string, content: ZoneContent): Promise<void> {
    const frozen = deepFreeze(content);
    this.zonesByName.set(zone, frozen);
    await this.notify(frozen);
  }

  private async notify(content: ZoneContent): Promise<void> {
    await Promise.all([...this.listeners].map((listener) => this.notifyOne(listener, content)));
  }

  private async notifyOne(listener: ZoneListener, content: ZoneContent): Promise<void> {
    try {
      await listener.zoneChanged(content);
    } catch (err) {
      this.logger.error({ zone: content.origin, err: errorMessage(err) }, 'zone listener failed');
    }
  }

  private assertOpen(): void {
    if (this.state !== 'open') throw new ProviderError(PROVIDER, `zone store is ${this.state === 'new' ? 'not open yet' : 'closed'}`, { code: 'STORE_STATE' });
  }

  private initialContent(zone: string): ZoneContent {
    const ttl = this.defaultTTL;
    const nameservers = (this.options.nameservers ?? [`ns1.${zone}`]).map((n) => normalizeDnsName(n));
    const timers = { ...DEFAULT_SOA_TIMERS, ...this.options.soaTimers };
    const soa: SOA = {
      mname: nameservers[0] ?? `ns1.${zone}`,
      rname: normalizeDnsName(this.options.hostmaster ?? `hostmaster.${zone}`),
      serial: freshSerial(this.now(), this.floors.get(zone)),
      ...timers,
      ttl,
    };
    const rrsets: RRSet[] = [{ name: zone, type: 'NS', ttl, rdata: [...new Set(nameservers)].sort() }];
    const addresses = this.options.nameserverAddresses ?? [];
    const v4 = addresses.filter((a) => isIPv4(a));
    const v6 = addresses.filter((a) => isIPv6(a)).map((a) => canonicalTarget('AAAA', a));
    for (const ns of new Set(nameservers)) {
      if (!isInZone(ns, zone)) continue;
      if (v4.length > 0) rrsets.push({ name: ns, type: 'A', ttl, rdata: [...v4].sort() });
      if (v6.length > 0) rrsets.push({ name: ns, type: 'AAAA', ttl, rdata: [...v6].sort() });
    }
    // Made up here: in a replica set another replica may hold this serial with other content.
    return { origin: zone, soa, rrsets: sortRRSets(rrsets), provisional: true };
  }
}

/** RFC 1982 serial increment; wrapping past 2^32-1 still counts as "newer" for secondaries. */
export function nextSerial(serial: number): number {
  return (serial + 1) % 2 ** 32;
}

/** RFC 1982 `a > b` in 32-bit serial arithmetic; a pair exactly 2^31 apart is undefined and reads as false. */
export function serialGreater(a: number, b: number): boolean {
  const d = (a - b + 2 ** 32) % 2 ** 32;
  return d !== 0 && d < 2 ** 31;
}

/** The serial after a change: one past the current one, or past the kept floor when the floor is newer. */
export function serialAfter(current: number, floor: number | undefined): number {
  return nextSerial(floor !== undefined && serialGreater(floor, current) ? floor : current);
}

/** A new zone's serial: the Unix time, unless the kept floor is not older; then one past the floor. */
export function freshSerial(nowMs: number, floor: number | undefined): number {
  const time = Math.floor(nowMs / 1000) % 2 ** 32;
  return floor === undefined || serialGreater(time, floor) ? time : nextSerial(floor);
}

function conflict(zone: string, message: string): ProviderError {
  return new ProviderError(PROVIDER, `${PROVIDER}: ${message}`, { zone, code: 'PROVIDER_RECORD_CONFLICT' });
}

function deepFreeze(content: ZoneContent): ZoneContent {
  for (const set of content.rrsets) {
    Object.freeze(set.rdata);
    Object.freeze(set);
  }
  Object.freeze(content.rrsets);
  Object.freeze(content.soa);
  return Object.freeze(content);
}
