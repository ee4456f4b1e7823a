/**
 * The coredns provider: records live in etcd in the SkyDNS format that CoreDNS's etcd plugin
 * serves (see skydns.ts and docs/providers/coredns.md). Each name's changes are one etcd
 * transaction guarded by the revisions read just before, so a concurrent writer makes that name
 * fail (and be retried) instead of being overwritten; other names still apply.
 */
import { randomBytes } from 'node:crypto';
import { domainFilterOf } from '../../config/config.ts';
import { DomainFilter } from '../../endpoint/domain-filter.ts';
import { LABEL_OWNER, canonicalTarget, describeEndpoint, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { isInZone, normalizeRecordName } from '../../endpoint/name.ts';
import { HostwardenError, ProviderError, errorMessage, isTransient } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { Provider } from '../provider.ts';
import { dropUnsupportedTypes } from '../record-types.ts';
import type { Changes } from '../../plan/changes.ts';
import { EtcdClient } from './etcd-client.ts';
import type { TxnGuard, TxnOp } from './etcd-client.ts';
import { corednsSettings } from './flags.ts';
import { canonicalHost, hostType, keyFor, normalizePrefix, parseService, serviceValue } from './skydns.ts';
import type { Service, SkyType } from './skydns.ts';
import { redactUrl } from '../../redact.ts';
import type { ProviderConfig, ProviderDeps } from '../provider.ts';

export const PROVIDER_NAME = 'coredns';
/** The providerSpecific property external-dns maps to the SkyDNS `group` field. */
export const GROUP_PROPERTY = 'coredns/group';
/** etcd's default --max-txn-ops is 128. */
const MAX_TXN_OPS = 120;

/** What the provider needs from etcd (a fake in unit tests). */
export interface KeyValueStore {
  range(prefix: string): Promise<{ key: string; value: string; modRevision: string }[]>;
  txn(guards: readonly TxnGuard[], ops: readonly TxnOp[]): Promise<boolean>;
}

export interface CoreDnsOptions {
  store: KeyValueStore;
  prefix?: string;
  domainFilter?: DomainFilter;
  logger: Logger;
  /** Random last labels of new keys (8 hex digits, as external-dns). */
  randomLabel?: () => string;
  /**
   * --coredns-strictly-owned: the --txt-owner-id stored in each value's `owner` field; values
   * of other owners (or none) are neither listed nor changed. Undefined: every value is ours.
   */
  strictOwner?: string;
}

interface NameChange {
  ep: Endpoint;
  /** Desired values; empty removes the record set. */
  values: string[];
}

export class CoreDnsProvider implements Provider {
  readonly name = PROVIDER_NAME;
  readonly prefix: string;
  private readonly store: KeyValueStore;
  private readonly filter: DomainFilter;
  private readonly logger: Logger;
  private readonly randomLabel: () => string;
  private readonly strictOwner: string | undefined;

  constructor(options: CoreDnsOptions) {
    this.store = options.store;
    this.prefix = normalizePrefix(options.prefix ?? '/skydns/');
    this.filter = options.domainFilter ?? new DomainFilter();
    this.logger = options.logger;
    this.randomLabel = options.randomLabel ?? (() => randomBytes(4).toString('hex'));
    this.strictOwner = options.strictOwner;
  }

  /** ETCD_* variables come from `env` (main's environment), as external-dns reads them. */
  static fromConfig(cfg: ProviderConfig, deps: ProviderDeps): CoreDnsProvider {
    const s = corednsSettings(cfg.flags, deps.env ?? {});
    const strict = cfg.flags.bool('coredns-strictly-owned');
    deps.logger.info(
      { etcd: s.etcd.urls.map((u) => redactUrl(u)), prefix: s.prefix, auth: s.etcd.username !== undefined, strictlyOwned: strict },
      'coredns provider configured',
    );
    return new CoreDnsProvider({
      store: new EtcdClient(s.etcd),
      prefix: s.prefix,
      domainFilter: domainFilterOf(cfg),
      logger: deps.logger,
      ...(strict ? { strictOwner: cfg.flags.str('txt-owner-id') } : {}),
    });
  }

  private async services(): Promise<Service[]> {
    let kvs;
    try {
      kvs = await this.store.range(this.prefix);
    } catch (err) {
      throw this.error(err, undefined, []);
    }
    const out: Service[] = [];
    for (const kv of kvs) {
      const s = parseService(this.prefix, kv.key, kv.value, kv.modRevision);
      // Strictly owned: another owner's values are invisible, so they are never changed or deleted.
      if (s !== undefined && (this.strictOwner === undefined || s.json['owner'] === this.strictOwner)) out.push(s);
    }
    return out;
  }

  async records(): Promise<Endpoint[]> {
    const sets = new Map<string, Endpoint>();
    const add = (s: Service, type: SkyType, value: string): void => {
      const id = `${s.name}\u0000${type}\u0000${s.setIdentifier}`;
      const ep = sets.get(id);
      if (ep !== undefined) {
        if (!ep.targets.includes(value)) ep.targets.push(value);
        return;
      }
      const providerSpecific = s.group === '' ? [] : [{ name: GROUP_PROPERTY, value: s.group }];
      const labels = this.strictOwner === undefined ? {} : { labels: { [LABEL_OWNER]: this.strictOwner } };
      sets.set(
        id,
        newEndpoint({ dnsName: s.name, recordType: type, targets: [value], recordTTL: s.ttl, setIdentifier: s.setIdentifier, providerSpecific, ...labels }),
      );
    };
    for (const s of await this.services()) {
      if (!this.filter.match(s.name)) continue;
      const type = hostType(s.host);
      if (type !== undefined) add(s, type, canonicalHost(s.host));
      // external-dns may keep a TXT value on a service that also has a host.
      if (s.text !== '') add(s, 'TXT', s.text);
    }
    return [...sets.values()];
  }

  adjustEndpoints(endpoints: Endpoint[]): Promise<Endpoint[]> {
    return Promise.resolve(dropUnsupportedTypes(endpoints, ['NAPTR', 'DNAME'], this.logger, "CoreDNS's etcd format"));
  }

  domainFilter(): DomainFilter {
    return this.filter;
  }

  async applyChanges(changes: Changes): Promise<void> {
    const failures: ProviderError[] = [];
    const byName = new Map<string, NameChange[]>();
    const queue = (ep: Endpoint, values: string[]): void => {
      if (!['A', 'AAAA', 'CNAME', 'TXT'].includes(ep.recordType)) {
        failures.push(
          new ProviderError(PROVIDER_NAME, `${describeEndpoint(ep)}: CoreDNS's etcd format holds only A, AAAA, CNAME and TXT records`, {
            transient: false,
            code: 'PROVIDER_UNSUPPORTED',
          }),
        );
        return;
      }
      const name = normalizeRecordName(ep.dnsName);
      const list = byName.get(name) ?? [];
      list.push({ ep, values });
      byName.set(name, list);
    };
    // Deletes first, so a name may change from A to CNAME in one sync.
    for (const ep of changes.delete) queue(ep, []);
    for (const ep of changes.updateNew) queue(ep, ep.targets);
    for (const ep of changes.create) queue(ep, ep.targets);
    if (byName.size > 0) {
      const current = new Map<string, Service[]>();
      for (const s of await this.services()) current.set(s.name, [...(current.get(s.name) ?? []), s]);
      for (const [name, list] of byName) {
        try {
          await this.applyName(name, current.get(name) ?? [], list);
        } catch (err) {
          failures.push(
            this.error(
              err,
              name,
              list.map((c) => describeEndpoint(c.ep)),
            ),
          );
        }
      }
    }
    if (failures.length === 0) return;
    const first = failures[0] as ProviderError;
    if (failures.length === 1) throw first;
    throw new ProviderError(PROVIDER_NAME, `${failures.length} names could not be changed; the others were applied. First: ${first.message}`, {
      transient: failures.every((f) => f.transient),
      code: first.code,
      cause: first,
      ...(first.zone === undefined ? {} : { zone: first.zone }),
    });
  }

  private async applyName(name: string, existing: readonly Service[], list: readonly NameChange[]): Promise<void> {
    const { guards, ops } = writesFor(this.servicesAfter(name, existing, list), existing);
    for (let i = 0; i < ops.length; i += MAX_TXN_OPS) {
      const ok = await this.store.txn(guards.slice(i, i + MAX_TXN_OPS), ops.slice(i, i + MAX_TXN_OPS));
      if (!ok) {
        const zone = this.zoneOf(name);
        throw new ProviderError(PROVIDER_NAME, `${name}: the records changed in etcd while being updated; will retry`, {
          transient: true,
          code: 'PROVIDER_CONFLICT',
          ...(zone === undefined ? {} : { zone }),
        });
      }
    }
    if (ops.length > 0) this.logger.info({ name, writes: ops.length }, 'coredns records written');
  }

  /**
   * The services at a name once the changes apply: existing keys keep their values where still
   * wanted (an emptied one is to be deleted), and new values get new random keys.
   */
  private servicesAfter(name: string, existing: readonly Service[], list: readonly NameChange[]): Service[] {
    const state = existing.map((s) => ({ ...s }));
    const added: Service[] = [];
    for (const { ep, values } of list) {
      const type = ep.recordType as SkyType;
      const wanted = new Set(values.map((v) => (type === 'TXT' ? canonicalTarget('TXT', v) : canonicalHost(v.trim()))));
      const group = ep.providerSpecific.find((p) => p.name === GROUP_PROPERTY)?.value ?? '';
      for (const s of [...state, ...added]) {
        if (s.setIdentifier !== ep.setIdentifier) continue;
        const value = type === 'TXT' ? s.text : hostType(s.host) === type ? canonicalHost(s.host) : undefined;
        if (value === undefined || value === '') continue;
        if (wanted.delete(value)) {
          s.ttl = ep.recordTTL;
          s.group = group;
        } else if (type === 'TXT') s.text = '';
        else s.host = '';
      }
      for (const value of wanted) {
        const key = keyFor(this.prefix, name, this.randomLabel());
        const record = { host: type === 'TXT' ? '' : value, text: type === 'TXT' ? value : '' };
        const json = this.strictOwner === undefined ? { targetstrip: 1 } : { targetstrip: 1, owner: this.strictOwner };
        added.push({ key, modRevision: '0', name, ...record, ttl: ep.recordTTL, group, setIdentifier: ep.setIdentifier, json });
      }
    }
    return [...state, ...added];
  }

  /** The domain filter entry a name falls in: the nearest thing to a zone this provider has. */
  private zoneOf(name: string): string | undefined {
    return this.filter.include
      .map((d) => d.replace(/^\./, ''))
      .filter((d) => isInZone(name, d))
      .sort((a, b) => b.length - a.length)[0];
  }

  private error(err: unknown, name: string | undefined, records: readonly string[]): ProviderError {
    if (err instanceof ProviderError) return err;
    const what = records.length === 0 ? '' : ` (${records.join(', ')})`;
    const zone = name === undefined ? undefined : this.zoneOf(name);
    return new ProviderError(PROVIDER_NAME, `${name === undefined ? 'etcd' : name}: ${errorMessage(err)}${what}`, {
      transient: isTransient(err),
      cause: err,
      code: err instanceof HostwardenError ? err.code : 'PROVIDER_FAILED',
      ...(zone === undefined ? {} : { zone }),
    });
  }
}

/** The etcd writes that turn `existing` into `after`, each guarded by the revision it was read at. */
function writesFor(after: readonly Service[], existing: readonly Service[]): { guards: TxnGuard[]; ops: TxnOp[] } {
  const guards: TxnGuard[] = [];
  const ops: TxnOp[] = [];
  const before = new Map(existing.map((s) => [s.key, s]));
  for (const s of after) {
    const old = before.get(s.key);
    if (s.host === '' && s.text === '') {
      if (old === undefined) continue;
      guards.push({ key: s.key, modRevision: s.modRevision });
      ops.push({ delete: s.key });
      continue;
    }
    const value = encodeService(s);
    if (old !== undefined && value === encodeService(old)) continue;
    guards.push({ key: s.key, modRevision: s.modRevision });
    ops.push({ put: { key: s.key, value } });
  }
  return { guards, ops };
}

function encodeService(s: Service): string {
  const targetstrip = typeof s.json['targetstrip'] === 'number' ? s.json['targetstrip'] : 0;
  return serviceValue({ host: s.host, text: s.text, ttl: s.ttl, targetstrip, group: s.group, setIdentifier: s.setIdentifier }, s.json);
}
