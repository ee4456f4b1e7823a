/**
 * The IXFR journal (RFC 1995): for each zone, the differences between the contents the responder
 * swapped in, newest last, bounded by a count and an estimate of their bytes. A client whose
 * serial starts a contiguous chain ending at the served serial gets those differences; any other
 * client gets a full transfer. The journal lives in memory, per responder: a restarted process or
 * worker starts with an empty one and answers IXFR with full transfers until new changes come.
 */
import type { WireRR } from '../rdata.ts';
import type { ZoneIndex, ZoneNode } from './zone-index.ts';
import { rrsetOf } from './zone-index.ts';
import { T_SOA } from '../wire.ts';

/** Changes kept per zone by default (`--dns-ixfr-journal-size`); BIND keeps journals of this order. */
export const DEFAULT_JOURNAL_CHANGES = 100;
/** Bytes (estimated as on the wire, uncompressed) kept per zone by default (`--dns-ixfr-journal-bytes`). */
export const DEFAULT_JOURNAL_BYTES = 8 * 1024 * 1024;

/** Nodes compared between two yields of a diff: well under a millisecond. */
const STEP = 256;

export interface JournalRR {
  owner: string;
  rr: WireRR;
}

/** One swap of a zone: the SOA before and after, and the records it removed and added. */
export interface JournalEntry {
  oldSerial: number;
  newSerial: number;
  oldSoa: WireRR;
  newSoa: WireRR;
  removed: JournalRR[];
  added: JournalRR[];
  bytes: number;
}

export interface JournalLimits {
  /** Changes kept per zone; 0 keeps none (IXFR is always answered with a full transfer). */
  changes: number;
  /** Estimated bytes kept per zone; a change larger than this alone is not kept. */
  bytes: number;
}

/**
 * RFC 1982 serial comparison: -1 when `a` precedes `b`, 1 when it follows, 0 when equal, and
 * undefined when they are exactly 2^31 apart (the order is undefined).
 */
export function serialCompare(a: number, b: number): -1 | 0 | 1 | undefined {
  const x = a >>> 0;
  const y = b >>> 0;
  if (x === y) return 0;
  const d = (y - x + 0x100000000) % 0x100000000;
  if (d === 0x80000000) return undefined;
  return d < 0x80000000 ? -1 : 1;
}

export class IxfrJournal {
  private readonly limits: JournalLimits;
  private readonly zones = new Map<string, { entries: JournalEntry[]; bytes: number }>();

  constructor(limits: JournalLimits) {
    this.limits = limits;
  }

  get enabled(): boolean {
    return this.limits.changes > 0 && this.limits.bytes > 0;
  }

  /** Appends a change, dropping the oldest ones beyond the bounds. */
  record(origin: string, entry: JournalEntry): void {
    if (!this.enabled) return;
    const last = this.zones.get(origin)?.entries.at(-1);
    // A change that does not continue the chain (a serial reset, a skipped swap) starts it anew.
    const z = last !== undefined && last.newSerial === entry.oldSerial ? this.zones.get(origin) : undefined;
    const zone = z ?? { entries: [], bytes: 0 };
    this.zones.set(origin, zone);
    if (entry.bytes > this.limits.bytes) {
      zone.entries = [];
      zone.bytes = 0;
      return;
    }
    zone.entries.push(entry);
    zone.bytes += entry.bytes;
    while (zone.entries.length > this.limits.changes || zone.bytes > this.limits.bytes) {
      const dropped = zone.entries.shift();
      zone.bytes -= dropped?.bytes ?? 0;
    }
  }

  /** Forgets a zone (removed, or swapped to content that no chain leads to). */
  drop(origin: string): void {
    this.zones.delete(origin);
  }

  /** The changes leading from serial `from` to `to`, oldest first, or undefined when not all are kept. */
  chain(origin: string, from: number, to: number): JournalEntry[] | undefined {
    const entries = this.zones.get(origin)?.entries;
    if (entries === undefined) return undefined;
    const start = entries.findIndex((e) => e.oldSerial === from >>> 0);
    if (start < 0) return undefined;
    const out = entries.slice(start);
    for (let i = 1; i < out.length; i++) if (out[i]?.oldSerial !== out[i - 1]?.newSerial) return undefined;
    return out.at(-1)?.newSerial === to >>> 0 ? out : undefined;
  }

  /** Changes and estimated bytes kept for a zone (metrics, tests). */
  size(origin: string): { changes: number; bytes: number } {
    const z = this.zones.get(origin);
    return { changes: z?.entries.length ?? 0, bytes: z?.bytes ?? 0 };
  }
}

/**
 * The difference between two indexes of one zone, a few hundred nodes per step (a generator, so
 * a zone load stays sliced). Record sets are compared record by record in order first: unchanged
 * sets, nearly all of them, cost no allocation.
 */
export function* diffZones(old: ZoneIndex, next: ZoneIndex): Generator<void, JournalEntry> {
  const removed: JournalRR[] = [];
  const added: JournalRR[] = [];
  let n = 0;
  for (const node of next.nodes.values()) {
    if (++n % STEP === 0) yield;
    diffNode(old.nodes.get(node.name), node, removed, added);
  }
  for (const node of old.nodes.values()) {
    if (++n % STEP === 0) yield;
    if (!next.nodes.has(node.name)) diffNode(node, undefined, removed, added);
  }
  let bytes = rrBytes(old.origin, old.soa) + rrBytes(next.origin, next.soa);
  for (const r of removed) bytes += rrBytes(r.owner, r.rr);
  for (const r of added) bytes += rrBytes(r.owner, r.rr);
  return { oldSerial: old.serial >>> 0, newSerial: next.serial >>> 0, oldSoa: old.soa, newSoa: next.soa, removed, added, bytes };
}

function diffNode(old: ZoneNode | undefined, next: ZoneNode | undefined, removed: JournalRR[], added: JournalRR[]): void {
  const name = (next ?? old)?.name ?? '';
  for (const set of next?.rrsets ?? []) {
    if (set.type === T_SOA) continue;
    diffSet(name, old === undefined ? [] : (rrsetOf(old, set.type)?.rrs ?? []), set.rrs, removed, added);
  }
  for (const set of old?.rrsets ?? []) {
    if (set.type === T_SOA || (next !== undefined && rrsetOf(next, set.type) !== undefined)) continue;
    for (const rr of set.rrs) removed.push({ owner: name, rr });
  }
}

function diffSet(owner: string, before: readonly WireRR[], after: readonly WireRR[], removed: JournalRR[], added: JournalRR[]): void {
  if (before.length === after.length && before.every((rr, i) => rrEqual(rr, after[i]))) return;
  const keep = new Map<string, number>();
  for (const rr of after) keep.set(rrKey(rr), (keep.get(rrKey(rr)) ?? 0) + 1);
  const had = new Set<string>();
  for (const rr of before) {
    const k = rrKey(rr);
    had.add(k);
    if (!keep.has(k)) removed.push({ owner, rr });
  }
  for (const rr of after) if (!had.has(rrKey(rr))) added.push({ owner, rr });
}

function rrEqual(a: WireRR, b: WireRR | undefined): boolean {
  if (b === undefined || a.type !== b.type || a.ttl !== b.ttl || a.parts.length !== b.parts.length) return false;
  for (let i = 0; i < a.parts.length; i++) {
    const x = a.parts[i];
    const y = b.parts[i];
    if (Buffer.isBuffer(x)) {
      if (!Buffer.isBuffer(y) || !x.equals(y)) return false;
    } else if (Buffer.isBuffer(y) || x?.name !== y?.name) return false;
  }
  return true;
}

/** A record's identity for IXFR: type, TTL (a TTL change is a removal and an addition) and rdata. */
function rrKey(rr: WireRR): string {
  let k = `${rr.type}/${rr.ttl}`;
  for (const p of rr.parts) k += Buffer.isBuffer(p) ? `/b${p.toString('hex')}` : `/n${p.name}`;
  return k;
}

/** About the record's uncompressed wire size. */
export function rrBytes(owner: string, rr: WireRR): number {
  let n = owner.length + 2 + 10;
  for (const p of rr.parts) n += Buffer.isBuffer(p) ? p.length : p.name.length + 2;
  return n;
}
