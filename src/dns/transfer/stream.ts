/**
 * The shape of a transfer answer, record by record (RFC 5936 AXFR, RFC 1995 IXFR). An IXFR
 * answer is one of three forms: the server's SOA alone (the client is up to date); SOA(new), then
 * per change SOA(old), deletions, SOA(next), additions, and SOA(new) again; or an AXFR-style full
 * zone between two copies of the SOA. The reader is fed records as messages arrive and refuses a
 * stream that breaks its form: a broken serial chain, a serial going backwards, an end SOA unlike
 * the first, records after the end, records outside the zone.
 */
import { isInZone } from '../../endpoint/name.ts';
import type { SOA } from '../zone-content.ts';
import { T_SOA } from '../wire.ts';
import { TransferError } from './errors.ts';
import type { TransferRecord } from './records.ts';

export interface IxfrChange {
  from: SOA;
  to: SOA;
  deleted: TransferRecord[];
  added: TransferRecord[];
}

export type ParsedTransfer =
  { kind: 'current'; soa: SOA } | { kind: 'axfr'; soa: SOA; records: TransferRecord[] } | { kind: 'ixfr'; soa: SOA; changes: IxfrChange[] };

type State = 'start' | 'first' | 'axfr' | 'deleting' | 'adding' | 'done';

/** RFC 1982 serial arithmetic: true when `a` is before `b`. */
export function serialBefore(a: number, b: number): boolean {
  const d = ((b >>> 0) - (a >>> 0) + 0x100000000) % 0x100000000;
  return d !== 0 && d < 0x80000000;
}

export function sameSoa(a: SOA, b: SOA): boolean {
  return (
    a.serial === b.serial &&
    a.mname === b.mname &&
    a.rname === b.rname &&
    a.refresh === b.refresh &&
    a.retry === b.retry &&
    a.expire === b.expire &&
    a.minimum === b.minimum
  );
}

export class TransferReader {
  private state: State = 'start';
  private first: SOA | undefined;
  private readonly records: TransferRecord[] = [];
  private readonly changes: IxfrChange[] = [];
  private change: IxfrChange | undefined;
  private isCurrent = false;

  /** `fromSerial` set means an IXFR was asked for. */
  constructor(
    private readonly zone: string,
    private readonly fromSerial: number | undefined,
  ) {}

  get done(): boolean {
    return this.state === 'done';
  }

  push(rec: TransferRecord): void {
    if (this.state === 'done') throw this.fail('malformed', `a ${rec.name} record after the closing SOA`);
    if (!isInZone(rec.name, this.zone)) throw this.fail('malformed', `record ${rec.name} is outside the zone`);
    const soa = rec.type === T_SOA ? rec.soa : undefined;
    if (rec.type === T_SOA && (soa === undefined || rec.name !== this.zone)) throw this.fail('malformed', `SOA record at ${rec.name}, not at the apex`);
    if (this.state === 'start') return this.opening(soa);
    if (this.state === 'first') return this.second(rec, soa);
    if (this.state === 'axfr') return this.axfrRecord(rec, soa);
    return this.ixfrRecord(rec, soa);
  }

  /** Called after each whole message: an IXFR answer whose first message is the SOA alone is "up to date". */
  endOfMessage(): void {
    if (this.state !== 'first' || this.fromSerial === undefined || this.first === undefined) return;
    const serial = this.first.serial;
    if (serialBefore(serial, this.fromSerial))
      throw this.fail('serial', `the server's serial ${serial} is before ours (${this.fromSerial}); it went backwards`);
    if (serial !== this.fromSerial)
      throw this.fail('malformed', `the answer is the SOA alone with serial ${serial}, newer than ours (${this.fromSerial}), and no changes`);
    this.isCurrent = true;
    this.state = 'done';
  }

  result(): ParsedTransfer {
    const soa = this.first;
    if (this.state !== 'done' || soa === undefined) throw this.fail('malformed', 'the transfer ended before its closing SOA');
    if (this.isCurrent) return { kind: 'current', soa };
    return this.changes.length > 0 ? { kind: 'ixfr', soa, changes: this.changes } : { kind: 'axfr', soa, records: this.records };
  }

  private opening(soa: SOA | undefined): void {
    if (soa === undefined) throw this.fail('malformed', 'the transfer does not start with the SOA');
    if (this.fromSerial !== undefined && serialBefore(soa.serial, this.fromSerial)) {
      throw this.fail('serial', `the server's serial ${soa.serial} is before ours (${this.fromSerial}); it went backwards`);
    }
    this.first = soa;
    this.state = 'first';
  }

  /** The second record says which form the answer has. */
  private second(rec: TransferRecord, soa: SOA | undefined): void {
    const first = this.first as SOA;
    if (soa === undefined) {
      this.state = 'axfr';
      this.records.push(rec);
      return;
    }
    if (this.fromSerial === undefined || soa.serial === first.serial) {
      // An AXFR of a zone holding nothing but its SOA.
      this.closeWith(soa);
      return;
    }
    if (soa.serial !== this.fromSerial) throw this.fail('malformed', `the first change starts at serial ${soa.serial}, not at ours (${this.fromSerial})`);
    this.change = { from: soa, to: soa, deleted: [], added: [] };
    this.state = 'deleting';
  }

  private axfrRecord(rec: TransferRecord, soa: SOA | undefined): void {
    if (soa === undefined) this.records.push(rec);
    else this.closeWith(soa);
  }

  private ixfrRecord(rec: TransferRecord, soa: SOA | undefined): void {
    const change = this.change as IxfrChange;
    if (soa === undefined) {
      (this.state === 'deleting' ? change.deleted : change.added).push(rec);
      return;
    }
    if (this.state === 'deleting') {
      if (!serialBefore(change.from.serial, soa.serial))
        throw this.fail('serial', `a change goes from serial ${change.from.serial} to ${soa.serial}, backwards`);
      change.to = soa;
      this.state = 'adding';
      return;
    }
    this.changes.push(change);
    const final = (this.first as SOA).serial;
    if (change.to.serial === final && soa.serial === final) {
      this.closeWith(soa);
      return;
    }
    if (soa.serial !== change.to.serial)
      throw this.fail('malformed', `broken chain: a change starts at serial ${soa.serial}, the one before ended at ${change.to.serial}`);
    this.change = { from: soa, to: soa, deleted: [], added: [] };
    this.state = 'deleting';
  }

  private closeWith(soa: SOA): void {
    const first = this.first as SOA;
    if (!sameSoa(first, soa))
      throw this.fail('malformed', `the transfer starts with serial ${first.serial} and ends with a different SOA (serial ${soa.serial})`);
    this.state = 'done';
  }

  private fail(reason: 'malformed' | 'serial', message: string): TransferError {
    return new TransferError(this.zone, reason, message);
  }
}
