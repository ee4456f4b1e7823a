/**
 * Turns a parsed transfer into ZoneContent: a full zone from AXFR records, or the local copy with
 * each IXFR change applied in order (its deletions, then its additions). A deletion of a record
 * the local copy does not hold means the copies diverged; that is refused ('diverged') so the
 * caller asks for a full transfer instead of serving a guess.
 */
import { sortRRSets } from '../master-file.ts';
import type { RRSet, SOA, ZoneContent } from '../zone-content.ts';
import { TransferError } from './errors.ts';
import { storeType } from './records.ts';
import type { TransferRecord } from './records.ts';
import type { IxfrChange } from './stream.ts';

interface Building {
  name: string;
  type: RRSet['type'];
  ttl: number;
  rdata: Set<string>;
}

type Sets = Map<string, Building>;

function keyOf(name: string, type: string): string {
  return `${name}\u0000${type}`;
}

/** The store's view of a record: its set key and type, or undefined for types it does not hold. */
function storeRecord(rec: TransferRecord): { key: string; type: RRSet['type']; text: string } | undefined {
  const type = storeType(rec.type);
  if (type === undefined || type === 'SOA' || rec.text === undefined) return undefined;
  return { key: keyOf(rec.name, type), type, text: rec.text };
}

function add(sets: Sets, rec: TransferRecord, ttlFromLatest: boolean): void {
  const r = storeRecord(rec);
  if (r === undefined) return;
  const set = sets.get(r.key);
  if (set === undefined) sets.set(r.key, { name: rec.name, type: r.type, ttl: rec.ttl, rdata: new Set([r.text]) });
  else {
    set.rdata.add(r.text);
    // An added record's TTL becomes its set's, as BIND applies an IXFR; in AXFR the first wins.
    if (ttlFromLatest) set.ttl = rec.ttl;
  }
}

function content(origin: string, soa: SOA, sets: Sets): ZoneContent {
  const rrsets: RRSet[] = [];
  for (const s of sets.values()) if (s.rdata.size > 0) rrsets.push({ name: s.name, type: s.type, ttl: s.ttl, rdata: [...s.rdata].sort() });
  return { origin, soa: { ...soa }, rrsets: sortRRSets(rrsets) };
}

export function zoneFromRecords(origin: string, soa: SOA, records: readonly TransferRecord[]): ZoneContent {
  const sets: Sets = new Map();
  for (const rec of records) add(sets, rec, false);
  return content(origin, soa, sets);
}

export function applyChanges(current: ZoneContent, changes: readonly IxfrChange[], soa: SOA): ZoneContent {
  const sets: Sets = new Map();
  for (const s of current.rrsets) sets.set(keyOf(s.name, s.type), { name: s.name, type: s.type, ttl: s.ttl, rdata: new Set(s.rdata) });
  let serial = current.soa.serial;
  for (const change of changes) {
    if (change.from.serial !== serial) {
      throw new TransferError(current.origin, 'diverged', `a change starts at serial ${change.from.serial}, the local copy is at ${serial}`);
    }
    for (const rec of change.deleted) remove(current.origin, sets, rec, change);
    for (const rec of change.added) add(sets, rec, true);
    serial = change.to.serial;
  }
  return content(current.origin, soa, sets);
}

function remove(origin: string, sets: Sets, rec: TransferRecord, change: IxfrChange): void {
  const r = storeRecord(rec);
  if (r === undefined) return;
  const set = sets.get(r.key);
  if (set === undefined || !set.rdata.delete(r.text)) {
    throw new TransferError(
      origin,
      'diverged',
      `the change from serial ${change.from.serial} to ${change.to.serial} deletes ${rec.name} ${r.type} ${JSON.stringify(r.text)}, which the local copy does not hold`,
    );
  }
  if (set.rdata.size === 0) sets.delete(r.key);
}
