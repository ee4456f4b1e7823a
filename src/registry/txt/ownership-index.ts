/**
 * What the TXT registry learnt from the provider's records: every ownership TXT record exactly as
 * the provider holds it (so updates and deletes name the very record that exists, whatever its
 * encoding), and which records are owned only through an old-format TXT record.
 */
import { retainEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, Labels } from '../../endpoint/endpoint.ts';

export interface OwnershipTXT {
  /** The TXT record as read from the provider (the same object when it is read-only). */
  txt: Endpoint;
  /** Its decoded labels (owner, resource, …; txt-encryption-nonce when it was encrypted). */
  labels: Labels;
}

/** Reads the labels out of an ownership TXT value (the registry's decoder, with its AES key). */
export type LabelDecoder = (value: string) => Labels | undefined;

/** Key of a TXT record: name and set identifier (a name holds one TXT record set per identifier). */
export function txtKey(dnsName: string, setIdentifier: string): string {
  return `${dnsName.toLowerCase()}\u0000${setIdentifier}`;
}

/**
 * The name a TXT record is filed under: TXT names are matched without regard to case. V8's
 * toLowerCase returns the string itself when it is already lower case, as normalised names are, so
 * this builds no string for them.
 */
function nameKey(dnsName: string): string {
  return dnsName.toLowerCase();
}

interface OldFormatTXT {
  dnsName: string;
  setIdentifier: string;
  /** Keys of the records owned through this TXT record alone. */
  users: Set<string>;
}

export class OwnershipIndex {
  /**
   * By name, then set identifier: a lone entry as itself, an array only for a name's second set.
   * Keyed by the name the TXT record holds rather than a composite key string built per record
   * (about 0.6 MB of the index at 20k records).
   */
  private readonly txts = new Map<string, Endpoint | Endpoint[]>();
  /**
   * Labels are decoded again when a record is looked up (a few per sync) instead of being kept
   * beside each TXT record: at 20k records that was about 3 MB of label objects and strings.
   */
  private readonly decode: LabelDecoder;
  /** old-format TXT key → that TXT record's name and set, and the records owned through it alone. */
  private readonly oldFormatUsers = new Map<string, OldFormatTXT>();
  /** record key → old-format TXT key it depends on. */
  private readonly dependsOnOld = new Map<string, string>();

  constructor(decode: LabelDecoder) {
    this.decode = decode;
  }

  /** Files an ownership TXT record; the caller has checked that its value decodes. */
  addTXT(txt: Endpoint): void {
    const entry = retainEndpoint(txt);
    const name = nameKey(txt.dnsName);
    const at = this.txts.get(name);
    if (at === undefined) {
      this.txts.set(name, entry);
    } else if (!Array.isArray(at)) {
      this.txts.set(name, at.setIdentifier === txt.setIdentifier ? entry : [at, entry]);
    } else {
      const i = at.findIndex((e) => e.setIdentifier === txt.setIdentifier);
      if (i < 0) at.push(entry);
      else at[i] = entry;
    }
  }

  removeTXT(dnsName: string, setIdentifier: string): void {
    const name = nameKey(dnsName);
    const at = this.txts.get(name);
    if (at === undefined) return;
    if (!Array.isArray(at)) {
      if (at.setIdentifier === setIdentifier) this.txts.delete(name);
      return;
    }
    const i = at.findIndex((e) => e.setIdentifier === setIdentifier);
    if (i >= 0) at.splice(i, 1);
    if (at.length === 1) this.txts.set(name, at[0] as Endpoint);
  }

  getTXT(dnsName: string, setIdentifier: string): OwnershipTXT | undefined {
    const at = this.txts.get(nameKey(dnsName));
    if (at === undefined) return undefined;
    const txt = Array.isArray(at) ? at.find((e) => e.setIdentifier === setIdentifier) : at.setIdentifier === setIdentifier ? at : undefined;
    return txt === undefined ? undefined : { txt, labels: this.decode(txt.targets[0] ?? '') ?? {} };
  }

  /** The record of `recordKey` is owned through the old-format TXT record `txt` alone. */
  addOldFormatUser(txt: Endpoint, recordKey: string): void {
    const oldTxtKey = txtKey(txt.dnsName, txt.setIdentifier);
    let old = this.oldFormatUsers.get(oldTxtKey);
    if (old === undefined) {
      old = { dnsName: txt.dnsName, setIdentifier: txt.setIdentifier, users: new Set() };
      this.oldFormatUsers.set(oldTxtKey, old);
    }
    old.users.add(recordKey);
    this.dependsOnOld.set(recordKey, oldTxtKey);
  }

  /** The old-format TXT key a record is owned through, when it has no new-format TXT. */
  oldFormatTXTOf(recordKey: string): string | undefined {
    return this.dependsOnOld.get(recordKey);
  }

  oldFormatUsersOf(oldTxtKey: string): ReadonlySet<string> {
    return this.oldFormatUsers.get(oldTxtKey)?.users ?? new Set();
  }

  /** The old-format TXT record of that key, while a record depends on it. */
  getTXTByKey(key: string): OwnershipTXT | undefined {
    const old = this.oldFormatUsers.get(key);
    return old === undefined ? undefined : this.getTXT(old.dnsName, old.setIdentifier);
  }

  /** The record no longer needs its old-format TXT (it was upgraded or deleted). */
  releaseOldFormat(recordKey: string): void {
    const oldKey = this.dependsOnOld.get(recordKey);
    if (oldKey === undefined) return;
    this.dependsOnOld.delete(recordKey);
    const old = this.oldFormatUsers.get(oldKey);
    old?.users.delete(recordKey);
    if (old?.users.size === 0) this.oldFormatUsers.delete(oldKey);
  }

  get oldFormatRecordCount(): number {
    return this.dependsOnOld.size;
  }

  dependentRecordKeys(): string[] {
    return [...this.dependsOnOld.keys()];
  }
}
