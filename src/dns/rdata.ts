/**
 * Converts the store's canonical rdata text (see zone-content.ts) into wire parts once, at index
 * build time, so that answering only copies bytes. Names inside rdata stay separate parts because
 * their compression depends on what precedes them in a message.
 */
import type { RRSet, SOA } from './zone-content.ts';
import { T_A, T_AAAA, T_CAA, T_CNAME, T_DNAME, T_MX, T_NAPTR, T_NS, T_PTR, T_SOA, T_SRV, T_TXT, TYPE_CODES, parseIPv4, parseIPv6 } from './wire.ts';
import { parseNaptr } from '../endpoint/naptr.ts';
import type { Writer } from './wire.ts';

/** A piece of rdata: raw bytes, or a name that may be compressed. */
export type RdataPart = Buffer | { name: string; compress: boolean };

export interface WireRR {
  type: number;
  ttl: number;
  parts: RdataPart[];
  /** The name an additional-section lookup follows (NS, MX, SRV targets), if any. */
  target?: string;
}

export interface WireRRSet {
  type: number;
  ttl: number;
  rrs: WireRR[];
}

function cleanName(text: string): string | undefined {
  let n = text.trim().toLowerCase();
  if (n.endsWith('.')) n = n.slice(0, -1);
  if (n.length > 253) return undefined;
  if (n === '') return '';
  for (const label of n.split('.')) {
    if (label.length === 0 || label.length > 63) return undefined;
  }
  return n;
}

function u16(v: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(v);
  return b;
}

function intField(text: string | undefined, max: number): number | undefined {
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n <= max ? n : undefined;
}

/** Splits a TXT value into character-strings of at most 255 bytes. */
export function txtWire(value: string): Buffer {
  const raw = Buffer.from(value, 'utf8');
  const chunks: Buffer[] = [];
  if (raw.length === 0) chunks.push(Buffer.from([0]));
  for (let i = 0; i < raw.length; i += 255) {
    const piece = raw.subarray(i, Math.min(i + 255, raw.length));
    chunks.push(Buffer.from([piece.length]), piece);
  }
  return Buffer.concat(chunks);
}

/** Parses one rdata text; undefined when it is not valid for the type. */
export function parseRdata(type: number, text: string): { parts: RdataPart[]; target?: string } | undefined {
  switch (type) {
    case T_A: {
      const b = parseIPv4(text.trim());
      return b === undefined ? undefined : { parts: [b] };
    }
    case T_AAAA: {
      const b = parseIPv6(text.trim());
      return b === undefined ? undefined : { parts: [b] };
    }
    case T_CNAME:
    case T_NS:
    case T_PTR: {
      const n = cleanName(text);
      if (n === undefined) return undefined;
      return type === T_NS ? { parts: [{ name: n, compress: true }], target: n } : { parts: [{ name: n, compress: true }] };
    }
    case T_MX: {
      const [pref, host, ...rest] = text.trim().split(/\s+/);
      const p = intField(pref, 0xffff);
      const n = cleanName(host ?? '');
      if (p === undefined || n === undefined || rest.length > 0) return undefined;
      return { parts: [u16(p), { name: n, compress: true }], target: n };
    }
    case T_SRV: {
      const [prio, weight, port, host, ...rest] = text.trim().split(/\s+/);
      const a = intField(prio, 0xffff);
      const b = intField(weight, 0xffff);
      const c = intField(port, 0xffff);
      const n = cleanName(host ?? '');
      if (a === undefined || b === undefined || c === undefined || n === undefined || rest.length > 0) return undefined;
      // RFC 2782: the SRV target is never compressed.
      return { parts: [Buffer.concat([u16(a), u16(b), u16(c)]), { name: n, compress: false }], target: n };
    }
    case T_TXT:
      return { parts: [txtWire(text)] };
    case T_DNAME: {
      // RFC 6672 §2.5: the DNAME target is never compressed.
      const n = cleanName(text);
      return n === undefined || n === '' ? undefined : { parts: [{ name: n, compress: false }] };
    }
    case T_NAPTR:
      return naptrParts(text);
    case T_CAA: {
      const m = /^\s*(\d+)\s+([A-Za-z0-9]+)\s+(.*)$/s.exec(text);
      if (m === null) return undefined;
      const flags = intField(m[1], 255);
      const tag = m[2] ?? '';
      let value = m[3] ?? '';
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
      if (flags === undefined || tag.length > 255) return undefined;
      return { parts: [Buffer.concat([Buffer.from([flags, tag.length]), Buffer.from(tag, 'latin1'), Buffer.from(value, 'utf8')])] };
    }
    default:
      return undefined;
  }
}

/** RFC 3403 §4.1: order, preference, three character-strings, then the replacement (uncompressed). */
function naptrParts(text: string): { parts: RdataPart[] } | undefined {
  const n = parseNaptr(text);
  if (typeof n === 'string') return undefined;
  const strings = [n.flags, n.service, n.regexp].flatMap((b) => [Buffer.from([b.length]), Buffer.from(b)]);
  return { parts: [Buffer.concat([u16(n.order), u16(n.preference), ...strings]), { name: n.replacement, compress: false }] };
}

export function soaRR(soa: SOA): WireRR {
  const nums = Buffer.alloc(20);
  nums.writeUInt32BE(soa.serial >>> 0, 0);
  nums.writeUInt32BE(soa.refresh >>> 0, 4);
  nums.writeUInt32BE(soa.retry >>> 0, 8);
  nums.writeUInt32BE(soa.expire >>> 0, 12);
  nums.writeUInt32BE(soa.minimum >>> 0, 16);
  return {
    type: T_SOA,
    ttl: soa.ttl,
    parts: [{ name: cleanName(soa.mname) ?? '', compress: true }, { name: cleanName(soa.rname) ?? '', compress: true }, nums],
  };
}

/** Converts a store record set; invalid rdata entries are reported through `onInvalid` and skipped. */
export function wireRRSet(rrset: RRSet, onInvalid: (text: string) => void): WireRRSet | undefined {
  const type = TYPE_CODES.get(rrset.type);
  if (type === undefined) return undefined;
  const rrs: WireRR[] = [];
  // Most sets hold one record: no duplicate check (and none of its garbage) for them.
  const seen = rrset.rdata.length > 1 ? new Set<string>() : undefined;
  for (const text of rrset.rdata) {
    const parsed = parseRdata(type, text);
    if (parsed === undefined) {
      onInvalid(text);
      continue;
    }
    if (seen !== undefined) {
      const key = parsed.parts.map((p) => (Buffer.isBuffer(p) ? p.toString('hex') : `<${p.name}>`)).join('|');
      if (seen.has(key)) continue;
      seen.add(key);
    }
    const rr: WireRR = { type, ttl: rrset.ttl, parts: parsed.parts };
    if (parsed.target !== undefined) rr.target = parsed.target;
    rrs.push(rr);
  }
  // slice(): an array grown by push() keeps room for 17 entries, and the index keeps this one.
  return rrs.length === 0 ? undefined : { type, ttl: rrset.ttl, rrs: rrs.slice() };
}

/** Owner of a record being written: a name, or a pointer to the question name at offset 12. */
export type Owner = string | typeof QNAME;
export const QNAME = Symbol('qname');

/** Writes one resource record; returns false (and rolls back) when the writer passed `limit`. */
export function writeRR(w: Writer, owner: Owner, rr: WireRR, limit = Infinity): boolean {
  const start = w.len;
  if (owner === QNAME) w.absolutePointer(12);
  else w.name(owner);
  w.u16(rr.type);
  w.u16(1);
  w.u32(rr.ttl);
  const lenAt = w.len;
  w.u16(0);
  for (const p of rr.parts) {
    if (Buffer.isBuffer(p)) w.bytes(p);
    else w.name(p.name, p.compress);
  }
  w.buf.writeUInt16BE(w.len - lenAt - 2, lenAt);
  if (w.len > limit) {
    w.truncate(start);
    return false;
  }
  return true;
}
