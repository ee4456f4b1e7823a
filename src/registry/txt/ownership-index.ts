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

/** Key of a TXT record: name and set identifier (a name holds one TXT record set per identifier). */
export function txtKey(dnsName: string, setIdentifier: string): string {
  return `${dnsName.toLowerCase()}\u0000${setIdentifier}`;
}

export class OwnershipIndex {
  private readonly txts = new Map<string, OwnershipTXT>();
  /** old-format TXT key → keys of the records that are owned through it alone. */
  private readonly oldFormatUsers = new Map<string, Set<string>>();
  /** record key → old-format TXT key it depends on. */
  private readonly dependsOnOld = new Map<string, string>();

  /** Keeps `labels` itself, frozen: callers pass the labels they just decoded. */
  addTXT(txt: Endpoint, labels: Labels): void {
    this.txts.set(txtKey(txt.dnsName, txt.setIdentifier), { txt: retainEndpoint(txt), labels: Object.freeze(labels) });
  }

  removeTXT(dnsName: string, setIdentifier: string): void {
    this.txts.delete(txtKey(dnsName, setIdentifier));
  }

  getTXT(dnsName: string, setIdentifier: string): OwnershipTXT | undefined {
    return this.txts.get(txtKey(dnsName, setIdentifier));
  }

  addOldFormatUser(oldTxtKey: string, recordKey: string): void {
    let users = this.oldFormatUsers.get(oldTxtKey);
    if (users === undefined) {
      users = new Set();
      this.oldFormatUsers.set(oldTxtKey, users);
    }
    users.add(recordKey);
    this.dependsOnOld.set(recordKey, oldTxtKey);
  }

  /** The old-format TXT key a record is owned through, when it has no new-format TXT. */
  oldFormatTXTOf(recordKey: string): string | undefined {
    return this.dependsOnOld.get(recordKey);
  }

  oldFormatUsersOf(oldTxtKey: string): ReadonlySet<string> {
    return this.oldFormatUsers.get(oldTxtKey) ?? new Set();
  }

  getTXTByKey(key: string): OwnershipTXT | undefined {
    return this.txts.get(key);
  }

  /** The record no longer needs its old-format TXT (it was upgraded or deleted). */
  releaseOldFormat(recordKey: string): void {
    const oldKey = this.dependsOnOld.get(recordKey);
    if (oldKey === undefined) return;
    this.dependsOnOld.delete(recordKey);
    const users = this.oldFormatUsers.get(oldKey);
    users?.delete(recordKey);
    if (users?.size === 0) this.oldFormatUsers.delete(oldKey);
  }

  get oldFormatRecordCount(): number {
    return this.dependsOnOld.size;
  }

  dependentRecordKeys(): string[] {
    return [...this.dependsOnOld.keys()];
  }
}
