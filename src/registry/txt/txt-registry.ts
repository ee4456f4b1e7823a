/**
 * The TXT registry: ownership of each record is kept in a TXT record beside it, in the format
 * external-dns (>= 0.18) reads and writes, so Hostwarden can take over a zone that external-dns
 * manages (and hand it back) without either tool losing track of what it owns.
 */
import { EndpointsByName } from '../../endpoint/by-name.ts';
import {
  LABEL_ENCRYPTION_NONCE,
  LABEL_OWNED_RECORD,
  LABEL_OWNER,
  cloneEndpoint,
  describeEndpoint,
  endpointKey,
  freezeEndpoint,
  getProviderSpecific,
  newEndpoint,
  sameProviderSpecific,
} from '../../endpoint/endpoint.ts';
import type { Endpoint, Labels, RecordType } from '../../endpoint/endpoint.ts';
import type { DomainFilter } from '../../endpoint/domain-filter.ts';
import { isWildcardName } from '../../endpoint/name.ts';
import type { Logger } from '../../log.ts';
import { emptyChanges } from '../../plan/changes.ts';
import type { Provider } from '../../provider/provider.ts';
import type { Changes } from '../../plan/changes.ts';
import type { Registry } from '../registry.ts';
import { parseAesKey } from './encryption.ts';
import { decodeOwnershipValue, encodeOwnershipValue, looksEncrypted, serializeLabels } from './labels.ts';
import { TXTNameMapper } from './name-mapper.ts';
import { OwnersByName } from './owners.ts';
import { OwnershipIndex, txtKey } from './ownership-index.ts';
import { validateOptions } from './options.ts';
import { OwnershipWriteGate } from './write-gate.ts';
import type { TXTChanges } from './write-gate.ts';
import type { TXTRegistryConfig, TXTRegistryOptions } from './options.ts';

export type { TXTRegistryConfig, TXTRegistryOptions };

interface RecordsCache {
  /**
   * By record set, so applying a few changes costs a few map operations, not a pass over every
   * record; keyed by the names the records hold, since a key string per record weighed more.
   */
  records: EndpointsByName;
  readAt: number;
}

const MAX_WARNED_NAMES = 10_000;
/** external-dns's marker on a record whose ownership TXT record must be rewritten now (the planner sees a change). */
const PS_FORCE_UPDATE = 'txt/force-update';

export class TXTRegistry implements Registry {
  readonly ownerId: string;
  readonly mapper: TXTNameMapper;
  private readonly provider: Provider;
  private readonly oldOwnerId: string;
  private readonly aesKey: Buffer | undefined;
  private readonly encryptKey: Buffer | undefined;
  private readonly managedRecordTypes: readonly RecordType[];
  private readonly excludeRecordTypes: readonly RecordType[];
  private readonly cacheIntervalMs: number;
  private readonly logger: Logger;
  private readonly now: () => number;
  private index: OwnershipIndex | undefined;
  private cache: RecordsCache | undefined;
  private readonly warnedTXTNames = new Set<string>();
  private readonly warnedLegacyAlias = new Set<string>();
  private readonly gate: OwnershipWriteGate;

  constructor(provider: Provider, options: TXTRegistryOptions) {
    validateOptions(options);
    this.provider = provider;
    this.ownerId = options.ownerId;
    this.oldOwnerId = options.oldOwnerId ?? '';
    this.mapper = new TXTNameMapper({
      prefix: options.prefix,
      suffix: options.suffix,
      wildcardReplacement: options.wildcardReplacement,
      zones: options.zones,
    });
    this.aesKey = options.aesKey;
    this.encryptKey = options.encrypt === false ? undefined : options.aesKey;
    this.managedRecordTypes = [...options.managedRecordTypes];
    this.excludeRecordTypes = [...options.excludeRecordTypes];
    this.cacheIntervalMs = options.cacheIntervalMs ?? 0;
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    this.gate = new OwnershipWriteGate(this.mapper, provider, this.logger);
  }

  static fromConfig(cfg: TXTRegistryConfig, deps: { logger: Logger; provider: Provider }): TXTRegistry {
    return new TXTRegistry(deps.provider, TXTRegistry.optionsFromConfig(cfg, deps.logger));
  }

  /** The registry's options from the flags, checked (validateOptions) before any provider exists. */
  static optionsFromConfig(cfg: TXTRegistryConfig, logger: Logger): TXTRegistryOptions {
    const options: TXTRegistryOptions = {
      ownerId: cfg.txtOwnerId,
      prefix: cfg.txtPrefix,
      suffix: cfg.txtSuffix,
      wildcardReplacement: cfg.txtWildcardReplacement,
      managedRecordTypes: cfg.managedRecordTypes,
      excludeRecordTypes: cfg.excludeRecordTypes,
      ...(cfg.txtEncryptAesKey === '' ? {} : { aesKey: parseAesKey(cfg.txtEncryptAesKey) }),
      encrypt: cfg.txtEncryptEnabled,
      oldOwnerId: cfg.migrateFromTxtOwner,
      cacheIntervalMs: cfg.txtCacheIntervalMs,
      logger,
    };
    validateOptions(options);
    return options;
  }

  domainFilter(): DomainFilter {
    return this.provider.domainFilter();
  }

  adjustEndpoints(endpoints: Endpoint[]): Promise<Endpoint[]> {
    return this.provider.adjustEndpoints(endpoints);
  }

  async records(): Promise<Endpoint[]> {
    if (this.cache !== undefined && this.now() - this.cache.readAt < this.cacheIntervalMs) {
      // The cached records are frozen and shared, not copied: the planner and the Events reporter
      // only read them, and at 20k records a copy per sync was most of a sync's garbage.
      return this.cache.records.values();
    }
    const all = await this.provider.records();
    const index = this.newIndex();
    const owners = new OwnersByName();
    const records = this.splitOwnership(all, index, owners);
    for (let i = 0; i < records.length; i++) records[i] = this.labelOwner(records[i] as Endpoint, owners, index);
    this.logOldFormat(records, index);

    this.index = index;
    for (const r of records) freezeEndpoint(r);
    this.cache = this.cacheIntervalMs > 0 ? { records: byKey(records), readAt: this.now() } : undefined;
    return records;
  }

  /** The provider's records without the ownership TXT records, which go into `index` and `owners`. */
  private splitOwnership(all: readonly Endpoint[], index: OwnershipIndex, owners: OwnersByName): Endpoint[] {
    const records: Endpoint[] = [];
    for (const record of all) {
      if (record.recordType !== 'TXT') {
        records.push(record);
        continue;
      }
      const value = record.targets[0];
      if (value === undefined) {
        this.logger.warn({ record: record.dnsName }, 'TXT record without a value, ignored');
        continue;
      }
      const labels = decodeOwnershipValue(value, this.aesKey);
      const mapped = this.mapper.toEndpointName(record.dnsName);
      if (labels === undefined) {
        this.warnUnreadable(record, value, mapped?.recordType !== undefined);
        records.push(record);
        continue;
      }
      const txt = freezeEndpoint(record);
      index.addTXT(txt);
      if (mapped === undefined) continue;
      owners.set(mapped.dnsName, { recordType: mapped.recordType ?? '', setIdentifier: record.setIdentifier, labels, txt });
    }
    return records;
  }

  /** The record with its owner's labels (a copy when the provider's record is frozen), or as it is. */
  private labelOwner(record: Endpoint, owners: OwnersByName, index: OwnershipIndex): Endpoint {
    let ep = record;
    const name = this.ownerLookupName(ep.dnsName);
    let owner = owners.get(name, ep.recordType, ep.setIdentifier);
    // external-dns kept the ownership of an A ALIAS record under the "cname-" name before it
    // moved to "a-" (its issue #2903), and still reads it there: so does Hostwarden, for AAAA
    // aliases too, which earlier Hostwarden versions also owned through "cname-".
    let legacyAlias = false;
    if (owner === undefined && isAliasRecord(ep)) {
      owner = owners.get(name, 'CNAME', ep.setIdentifier);
      legacyAlias = owner !== undefined;
    }
    // external-dns never wrote old-format TXT records for AAAA, so those cannot own one.
    if (owner === undefined && ep.recordType !== 'AAAA') {
      owner = owners.get(name, '', ep.setIdentifier);
      if (owner !== undefined) index.addOldFormatUser(owner.txt, endpointKey(ep));
    }
    if (owner === undefined) return ep;
    // Provider records are read-only (the port's contract): label a copy when it is frozen.
    if (Object.isFrozen(ep)) ep = cloneEndpoint(ep);
    Object.assign(ep.labels, owner.labels);
    if (legacyAlias) this.migrateLegacyAlias(ep, name);
    return ep;
  }

  async applyChanges(changes: Changes): Promise<void> {
    const index = this.index;
    const recordChanges = emptyChanges();
    const txtChanges: TXTChanges = emptyChanges();
    const released: string[] = [];

    for (const created of changes.create) {
      const record = this.withOwner(created, {});
      if (!this.gate.canWrite(record, index)) continue;
      recordChanges.create.push(record);
      this.ownershipForCreate(record, index, txtChanges);
    }

    for (const { old, next } of this.pairUpdates(changes.updateOld, changes.updateNew)) {
      if (!this.owns(old)) {
        this.logger.debug({ record: describeEndpoint(old) }, 'skipping update of a record owned by someone else');
        continue;
      }
      const record = this.withOwner(next, old.labels);
      if (!this.gate.canWrite(record, index)) continue;
      recordChanges.updateOld.push(old);
      recordChanges.updateNew.push(record);
      if (this.ownershipForUpdate(old, record, index, txtChanges)) released.push(endpointKey(old));
    }

    for (const deleted of changes.delete) {
      if (!this.owns(deleted)) {
        this.logger.debug({ record: describeEndpoint(deleted) }, 'skipping delete of a record owned by someone else');
        continue;
      }
      recordChanges.delete.push(deleted);
      this.ownershipForDelete(deleted, index, txtChanges);
      released.push(endpointKey(deleted));
    }

    if (index !== undefined) this.dropUnusedOldFormat(index, released, txtChanges);
    this.gate.dropRefused(txtChanges);

    const combined: Changes = {
      create: [...recordChanges.create, ...txtChanges.create],
      updateOld: [...recordChanges.updateOld, ...txtChanges.updateOld],
      updateNew: [...recordChanges.updateNew, ...txtChanges.updateNew],
      delete: [...recordChanges.delete, ...txtChanges.delete],
    };
    // Frozen before the provider sees them: the cache keeps these very objects afterwards.
    for (const list of [combined.create, combined.updateNew]) for (const r of list) freezeEndpoint(r);
    try {
      await this.provider.applyChanges(combined);
    } catch (err) {
      // What the provider now holds is unknown: read everything again next time.
      this.index = undefined;
      this.cache = undefined;
      throw err;
    }
    this.remember(recordChanges, txtChanges, released);
  }

  private newIndex(): OwnershipIndex {
    return new OwnershipIndex((value) => decodeOwnershipValue(value, this.aesKey));
  }

  /** The new-format ownership TXT record for `record`. */
  ownershipTXT(record: Endpoint, nonce?: string): Endpoint {
    const labels: Labels = { ...record.labels };
    if (nonce !== undefined && labels[LABEL_ENCRYPTION_NONCE] === undefined) labels[LABEL_ENCRYPTION_NONCE] = nonce;
    return newEndpoint({
      dnsName: this.mapper.toTXTName(record.dnsName, record.recordType),
      targets: [encodeOwnershipValue(labels, this.encryptKey)],
      recordType: 'TXT',
      setIdentifier: record.setIdentifier,
      recordTTL: record.recordTTL,
      labels: { [LABEL_OWNED_RECORD]: record.dnsName },
      providerSpecific: record.providerSpecific,
    });
  }

  private ownershipForCreate(record: Endpoint, index: OwnershipIndex | undefined, out: TXTChanges): void {
    const txt = this.ownershipTXT(record);
    const existing = index?.getTXT(txt.dnsName, txt.setIdentifier);
    if (existing === undefined) {
      out.create.push(txt);
      return;
    }
    // A TXT left behind by an earlier owner of this name: adopt ours, never touch someone else's.
    this.replaceExistingTXT(record, existing.txt, existing.labels, out);
  }

  /** Returns true when the record no longer needs an old-format TXT afterwards. */
  private ownershipForUpdate(old: Endpoint, record: Endpoint, index: OwnershipIndex | undefined, out: TXTChanges): boolean {
    const oldTXTName = this.mapper.toTXTName(old.dnsName, old.recordType);
    const oldTXT = index?.getTXT(oldTXTName, old.setIdentifier);
    const nonce = record.labels[LABEL_ENCRYPTION_NONCE] ?? oldTXT?.labels[LABEL_ENCRYPTION_NONCE];
    const txt = this.ownershipTXT(record, nonce);
    if (index === undefined) {
      // Nothing read yet, so nothing known about existing TXT records: do as external-dns does.
      out.updateOld.push(this.ownershipTXT(old, nonce));
      out.updateNew.push(txt);
      return true;
    }
    if (oldTXT !== undefined && txtKey(oldTXT.txt.dnsName, oldTXT.txt.setIdentifier) !== txtKey(txt.dnsName, txt.setIdentifier)) {
      if (this.ownsLabels(oldTXT.labels)) out.delete.push(withOwnedRecord(oldTXT.txt, old.dnsName));
    }
    const atNewName = index.getTXT(txt.dnsName, txt.setIdentifier);
    if (atNewName === undefined) {
      out.create.push(txt);
      return true;
    }
    return this.replaceExistingTXT(record, atNewName.txt, atNewName.labels, out);
  }

  private ownershipForDelete(record: Endpoint, index: OwnershipIndex | undefined, out: TXTChanges): void {
    if (index === undefined) {
      out.delete.push(this.ownershipTXT(record));
      return;
    }
    const existing = index.getTXT(this.mapper.toTXTName(record.dnsName, record.recordType), record.setIdentifier);
    if (existing !== undefined && this.ownsLabels(existing.labels)) out.delete.push(withOwnedRecord(existing.txt, record.dnsName));
  }

  /**
   * Rewrites an existing TXT of ours when its labels, TTL or provider properties differ, keeping
   * its nonce so an encrypted value only changes when its content does. Returns false (and
   * writes nothing) when the TXT belongs to another owner.
   */
  private replaceExistingTXT(record: Endpoint, existing: Endpoint, existingLabels: Labels, out: TXTChanges): boolean {
    if (!this.ownsLabels(existingLabels)) {
      this.logger.warn(
        { record: describeEndpoint(record), txt: existing.dnsName, owner: existingLabels[LABEL_OWNER] ?? '' },
        'ownership TXT record belongs to another owner; leaving it alone',
      );
      return false;
    }
    const txt = this.ownershipTXT(record, record.labels[LABEL_ENCRYPTION_NONCE] ?? existingLabels[LABEL_ENCRYPTION_NONCE]);
    // TTL 0 means "provider default", which providers report back as a concrete number.
    const unchanged =
      serializeLabels(existingLabels, false) === serializeLabels({ ...record.labels }, false) &&
      (txt.recordTTL === 0 || existing.recordTTL === txt.recordTTL) &&
      sameProviderSpecific(existing.providerSpecific, txt.providerSpecific);
    if (!unchanged) {
      out.updateOld.push(withOwnedRecord(existing, record.dnsName));
      out.updateNew.push(txt);
    }
    return true;
  }

  /** Deletes old-format TXT records of ours that no remaining record depends on any more. */
  private dropUnusedOldFormat(index: OwnershipIndex, released: readonly string[], out: TXTChanges): void {
    const releasedSet = new Set(released);
    const candidates = new Set(released.map((key) => index.oldFormatTXTOf(key)).filter((k): k is string => k !== undefined));
    for (const oldKey of candidates) {
      const stillUsed = [...index.oldFormatUsersOf(oldKey)].some((user) => !releasedSet.has(user));
      const old = index.getTXTByKey(oldKey);
      if (stillUsed || old === undefined || !this.ownsLabels(old.labels)) continue;
      if (out.delete.some((t) => txtKey(t.dnsName, t.setIdentifier) === oldKey)) continue;
      if (out.updateOld.some((t) => txtKey(t.dnsName, t.setIdentifier) === oldKey)) continue;
      if (out.create.some((t) => txtKey(t.dnsName, t.setIdentifier) === oldKey)) continue;
      out.delete.push(old.txt);
    }
  }

  /** Brings the index and the records cache in line with changes the provider accepted. */
  private remember(records: Changes, txts: TXTChanges, released: readonly string[]): void {
    const index = this.index;
    if (index !== undefined) {
      for (const t of [...txts.delete, ...txts.updateOld]) index.removeTXT(t.dnsName, t.setIdentifier);
      for (const t of [...txts.create, ...txts.updateNew]) {
        if (decodeOwnershipValue(t.targets[0] ?? '', this.aesKey) !== undefined) index.addTXT(t);
      }
      for (const key of released) index.releaseOldFormat(key);
    }
    if (this.cache === undefined) return;
    const cached = this.cache.records;
    for (const list of [records.delete, records.updateOld]) for (const r of list) cached.delete(r.dnsName, r.recordType, r.setIdentifier);
    for (const list of [records.create, records.updateNew]) for (const r of list) cached.add(r);
  }

  /** Pairs updateOld with updateNew: by position when the lists line up, else by record key. */
  private pairUpdates(olds: readonly Endpoint[], news: readonly Endpoint[]): { old: Endpoint; next: Endpoint }[] {
    if (olds.length === news.length) {
      return news.map((next, i) => ({ old: olds[i] as Endpoint, next }));
    }
    const unused = [...olds];
    const pairs: { old: Endpoint; next: Endpoint }[] = [];
    for (const next of news) {
      const at = unused.findIndex((o) => endpointKey(o) === endpointKey(next));
      const old = at < 0 ? undefined : unused.splice(at, 1)[0];
      if (old === undefined) {
        this.logger.warn({ record: describeEndpoint(next) }, 'update without a matching current record, skipped');
        continue;
      }
      pairs.push({ old, next });
    }
    for (const old of unused) this.logger.warn({ record: describeEndpoint(old) }, 'update without a matching desired record, skipped');
    return pairs;
  }

  private owns(record: Endpoint): boolean {
    return this.ownsLabels(record.labels);
  }

  private ownsLabels(labels: Labels): boolean {
    const owner = labels[LABEL_OWNER];
    return owner === this.ownerId || (this.oldOwnerId !== '' && owner === this.oldOwnerId);
  }

  private withOwner(record: Endpoint, base: Labels): Endpoint {
    const copy = cloneEndpoint(record);
    copy.labels = { ...base, ...record.labels, [LABEL_OWNER]: this.ownerId };
    return copy;
  }

  /** TXT records for wildcards are written with the replacement, so look owners up that way. */
  private ownerLookupName(dnsName: string): string {
    const name = dnsName.toLowerCase();
    if (this.mapper.wildcardReplacement !== '' && isWildcardName(name)) {
      return this.mapper.wildcardReplacement + name.slice(1);
    }
    return name;
  }

  /**
   * An alias of ours owned only through its legacy "cname-" TXT record gets txt/force-update, as in
   * external-dns: the planner then rewrites it (the same record set) and the registry writes its
   * "a-"/"aaaa-" TXT, the name every external-dns version reads. The "cname-" record stays, as
   * external-dns leaves it (a later CNAME at the name would use it); that is logged once per name.
   */
  private migrateLegacyAlias(ep: Endpoint, name: string): void {
    if (!this.owns(ep) || !this.managedRecordTypes.includes(ep.recordType) || this.excludeRecordTypes.includes(ep.recordType)) return;
    ep.providerSpecific = [...ep.providerSpecific.filter((p) => p.name !== PS_FORCE_UPDATE), { name: PS_FORCE_UPDATE, value: 'true' }];
    const legacy = this.mapper.toTXTName(name, 'CNAME');
    if (this.warnedLegacyAlias.has(legacy)) return;
    if (this.warnedLegacyAlias.size >= MAX_WARNED_NAMES) this.warnedLegacyAlias.clear();
    this.warnedLegacyAlias.add(legacy);
    this.logger.warn(
      { record: describeEndpoint(ep), txt: legacy, now: this.mapper.toTXTName(name, ep.recordType) },
      'alias record owned through its legacy cname- TXT record: its own ownership TXT record is written now; the legacy one can be removed',
    );
  }

  private warnUnreadable(record: Endpoint, value: string, atOwnershipName: boolean): void {
    if (!atOwnershipName || !looksEncrypted(value) || this.warnedTXTNames.has(record.dnsName)) return;
    if (this.warnedTXTNames.size >= MAX_WARNED_NAMES) this.warnedTXTNames.clear();
    this.warnedTXTNames.add(record.dnsName);
    const hint = this.aesKey === undefined ? 'it looks encrypted and no --txt-encrypt-aes-key is set' : 'it does not decrypt with --txt-encrypt-aes-key';
    this.logger.warn({ txt: record.dnsName }, `ownership TXT record cannot be read (${hint}); the records it owns are treated as unowned`);
  }

  private logOldFormat(records: readonly Endpoint[], index: OwnershipIndex): void {
    if (index.oldFormatRecordCount === 0) return;
    const dependent = new Set(index.dependentRecordKeys());
    const upgradable = records.filter(
      (r) => dependent.has(endpointKey(r)) && this.owns(r) && this.managedRecordTypes.includes(r.recordType) && !this.excludeRecordTypes.includes(r.recordType),
    ).length;
    if (upgradable > 0) {
      this.logger.info({ records: upgradable }, 'records owned through old-format TXT records; they move to the new format on their next update');
    }
  }
}

/**
 * The TXT record as the provider holds it, labelled with the record it owns, as external-dns labels
 * the ownership records of every change it sends (webhook providers may read the label).
 */
function withOwnedRecord(txt: Endpoint, dnsName: string): Endpoint {
  if (txt.labels[LABEL_OWNED_RECORD] === dnsName) return txt;
  const copy = cloneEndpoint(txt);
  copy.labels = { ...copy.labels, [LABEL_OWNED_RECORD]: dnsName };
  return copy;
}

/**
 * An A or AAAA record marked as an alias (Route53 ALIAS): the alias property is "true" or its own
 * type. external-dns checks A records only; AAAA aliases were never owned through "cname-" there.
 */
function isAliasRecord(ep: Endpoint): boolean {
  if (ep.recordType !== 'A' && ep.recordType !== 'AAAA') return false;
  const alias = getProviderSpecific(ep, 'alias');
  return alias === 'true' || alias === ep.recordType;
}

/** A provider may list a record set twice: both are kept, as the provider holds both. */
function byKey(records: readonly Endpoint[]): EndpointsByName {
  const out = new EndpointsByName();
  for (const r of records) out.add(r);
  return out;
}
