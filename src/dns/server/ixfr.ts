/**
 * IXFR answers (RFC 1995): what to send for the client's serial, and the records of an
 * incremental answer. The messages are packed as AXFR's are (axfr.ts).
 */
import type { WireRR } from '../rdata.ts';
import { T_SOA, skipName } from '../wire.ts';
import { serialCompare } from './ixfr-journal.ts';
import type { IxfrJournal, JournalEntry } from './ixfr-journal.ts';
import type { ZoneIndex } from './zone-index.ts';

/** What an IXFR query is answered with. */
export type IxfrPlan =
  /** The client is up to date (or ahead): the current SOA alone. */
  | { kind: 'current' }
  /** The journal holds every change since the client's serial. */
  | { kind: 'incremental'; chain: JournalEntry[] }
  /** The whole zone, AXFR-style (RFC 1995 4). */
  | { kind: 'full' };

/**
 * The serial of the SOA the client put in the authority section (RFC 1995 3), or undefined
 * when there is none or it is malformed.
 */
export function clientSerial(msg: Buffer, questionEnd: number): number | undefined {
  if (msg.length < 12 || msg.readUInt16BE(6) !== 0 || msg.readUInt16BE(8) < 1) return undefined;
  let p = skipName(msg, questionEnd);
  if (p < 0 || p + 10 > msg.length || msg.readUInt16BE(p) !== T_SOA) return undefined;
  const rdEnd = p + 10 + msg.readUInt16BE(p + 8);
  p = skipName(msg, p + 10);
  if (p >= 0) p = skipName(msg, p);
  if (p < 0 || p + 4 > rdEnd || rdEnd > msg.length) return undefined;
  return msg.readUInt32BE(p);
}

export function planIxfr(journal: IxfrJournal, zone: ZoneIndex, serial: number | undefined): IxfrPlan {
  if (serial === undefined) return { kind: 'full' };
  const order = serialCompare(serial, zone.serial);
  if (order === 0 || order === 1) return { kind: 'current' };
  const chain = journal.chain(zone.origin, serial, zone.serial);
  return chain === undefined || chain.length === 0 ? { kind: 'full' } : { kind: 'incremental', chain };
}

/** The incremental answer's records: current SOA, per change old SOA, removed, new SOA, added; current SOA. */
export function* ixfrRecords(zone: ZoneIndex, chain: readonly JournalEntry[]): Generator<{ owner: string; rr: WireRR }> {
  const apex = zone.origin;
  yield { owner: apex, rr: zone.soa };
  for (const e of chain) {
    yield { owner: apex, rr: e.oldSoa };
    yield* e.removed;
    yield { owner: apex, rr: e.newSoa };
    yield* e.added;
  }
  yield { owner: apex, rr: zone.soa };
}
