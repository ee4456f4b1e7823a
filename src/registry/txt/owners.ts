/**
 * The owners a full read finds in ownership TXT records, by the name, type and set identifier of
 * the record each one owns (type '' for the old format, which names no type). It lives for one read
 * of every record: keyed by name, so that read builds no composite key string per record.
 */
import type { Endpoint, Labels } from '../../endpoint/endpoint.ts';

export interface Owner {
  recordType: string;
  setIdentifier: string;
  labels: Labels;
  /** The ownership TXT record these labels were read from. */
  txt: Endpoint;
}

export class OwnersByName {
  private readonly names = new Map<string, Owner | Owner[]>();

  /** Names are matched without regard to case (toLowerCase builds no string for a lower-case name). */
  set(dnsName: string, owner: Owner): void {
    const name = dnsName.toLowerCase();
    const at = this.names.get(name);
    if (at === undefined) {
      this.names.set(name, owner);
    } else if (!Array.isArray(at)) {
      this.names.set(name, same(at, owner.recordType, owner.setIdentifier) ? owner : [at, owner]);
    } else {
      const i = at.findIndex((o) => same(o, owner.recordType, owner.setIdentifier));
      if (i < 0) at.push(owner);
      else at[i] = owner;
    }
  }

  get(dnsName: string, recordType: string, setIdentifier: string): Owner | undefined {
    const at = this.names.get(dnsName.toLowerCase());
    if (at === undefined) return undefined;
    if (!Array.isArray(at)) return same(at, recordType, setIdentifier) ? at : undefined;
    return at.find((o) => same(o, recordType, setIdentifier));
  }
}

function same(owner: Owner, recordType: string, setIdentifier: string): boolean {
  return owner.recordType === recordType && owner.setIdentifier === setIdentifier;
}
