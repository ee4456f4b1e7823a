/**
 * Reads the answer section of a transfer or SOA response into records with the zone store's
 * canonical rdata text (zone-content.ts), so a transferred zone compares equal to one parsed from
 * a master file and can be written back with serializeZone. Types the store does not hold (DNSSEC
 * records, HINFO, …) are returned with `text: undefined` and left out by the callers.
 */
import { canonicalTarget } from '../../endpoint/endpoint.ts';
import { formatNaptr } from '../../endpoint/naptr.ts';
import type { RRType, SOA } from '../zone-content.ts';
import { RR_TYPES } from '../zone-content.ts';
import { T_A, T_AAAA, T_CAA, T_CNAME, T_DNAME, T_MX, T_NAPTR, T_NS, T_PTR, T_SOA, T_SRV, T_TXT, TYPE_NAMES, readName, skipName } from '../wire.ts';

export interface TransferRecord {
  name: string;
  type: number;
  ttl: number;
  /** Canonical rdata text; undefined for types the zone store does not hold. */
  text: string | undefined;
  /** Set for SOA records. */
  soa?: SOA;
}

export interface ResponseHeader {
  id: number;
  qr: boolean;
  tc: boolean;
  rcode: number;
  qdcount: number;
  ancount: number;
}

export function readHeader(msg: Buffer): ResponseHeader | undefined {
  if (msg.length < 12) return undefined;
  const flags = msg.readUInt16BE(2);
  return {
    id: msg.readUInt16BE(0),
    qr: (flags & 0x8000) !== 0,
    tc: (flags & 0x0200) !== 0,
    rcode: flags & 0x0f,
    qdcount: msg.readUInt16BE(4),
    ancount: msg.readUInt16BE(6),
  };
}

/** The store's type name for a wire type, or undefined when the store does not hold it. */
export function storeType(type: number): RRType | undefined {
  const name = TYPE_NAMES.get(type);
  return name !== undefined && (RR_TYPES as readonly string[]).includes(name) ? (name as RRType) : undefined;
}

/** The answer records of a response; undefined when the message is malformed. */
export function readAnswers(msg: Buffer): TransferRecord[] | undefined {
  const h = readHeader(msg);
  if (h === undefined) return undefined;
  let p = 12;
  for (let i = 0; i < h.qdcount; i++) {
    p = skipName(msg, p);
    if (p < 0 || p + 4 > msg.length) return undefined;
    p += 4;
  }
  const out: TransferRecord[] = [];
  for (let i = 0; i < h.ancount; i++) {
    const owner = readName(msg, p);
    if (owner === undefined || owner.end + 10 > msg.length) return undefined;
    const type = msg.readUInt16BE(owner.end);
    const ttl = msg.readUInt32BE(owner.end + 4);
    const start = owner.end + 10;
    const end = start + msg.readUInt16BE(owner.end + 8);
    if (end > msg.length) return undefined;
    const rec = decode(msg, type, start, end);
    if (rec === null) return undefined;
    if (rec.soa !== undefined) rec.soa.ttl = ttl;
    out.push({ name: owner.name, type, ttl, ...rec });
    p = end;
  }
  return out;
}

type Decoded = { text: string | undefined; soa?: SOA } | null;

/** Decodes one rdata; null when it is malformed for its type. */
function decode(msg: Buffer, type: number, start: number, end: number): Decoded {
  const len = end - start;
  switch (type) {
    case T_A:
      return len === 4 ? { text: [...msg.subarray(start, end)].join('.') } : null;
    case T_AAAA:
      return len === 16 ? { text: ipv6Text(msg.subarray(start, end)) } : null;
    case T_NS:
    case T_CNAME:
    case T_PTR:
    case T_DNAME:
      return nameOnly(msg, start, end);
    case T_MX:
      return prefixedName(msg, start, end, 2);
    case T_SRV:
      return prefixedName(msg, start, end, 6);
    case T_TXT:
      return textStrings(msg, start, end);
    case T_CAA:
      return caa(msg, start, end);
    case T_NAPTR:
      return naptr(msg, start, end);
    case T_SOA:
      return soa(msg, start, end);
    default:
      return { text: undefined };
  }
}

function ipv6Text(b: Buffer): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(b.readUInt16BE(i).toString(16));
  return canonicalTarget('AAAA', groups.join(':'));
}

function nameOnly(msg: Buffer, start: number, end: number): Decoded {
  const n = readName(msg, start);
  return n === undefined || n.end !== end ? null : { text: n.name };
}

/** MX (preference) and SRV (priority, weight, port): 16-bit numbers, then a name. */
function prefixedName(msg: Buffer, start: number, end: number, numbers: number): Decoded {
  if (end - start < numbers + 1) return null;
  const n = readName(msg, start + numbers);
  if (n === undefined || n.end !== end) return null;
  const nums: number[] = [];
  for (let i = 0; i < numbers; i += 2) nums.push(msg.readUInt16BE(start + i));
  return { text: `${nums.join(' ')} ${n.name}` };
}

/** Character-strings at `p` up to `end`, or null when one runs past it. */
function strings(msg: Buffer, p: number, end: number, max: number): { parts: Buffer[]; end: number } | null {
  const parts: Buffer[] = [];
  let q = p;
  while (q < end && parts.length < max) {
    const l = msg[q] ?? 0;
    if (q + 1 + l > end) return null;
    parts.push(msg.subarray(q + 1, q + 1 + l));
    q += 1 + l;
  }
  return { parts, end: q };
}

const utf8 = new TextDecoder('utf-8');

function textStrings(msg: Buffer, start: number, end: number): Decoded {
  const s = strings(msg, start, end, end - start);
  // Several character-strings form one logical value, as master-file.ts reads them.
  return s === null || s.end !== end || s.parts.length === 0 ? null : { text: utf8.decode(Buffer.concat(s.parts)) };
}

function caa(msg: Buffer, start: number, end: number): Decoded {
  if (end - start < 2) return null;
  const tagLen = msg[start + 1] ?? 0;
  if (start + 2 + tagLen > end) return null;
  const tag = msg.subarray(start + 2, start + 2 + tagLen).toString('latin1');
  return { text: `${msg[start] ?? 0} ${tag} ${utf8.decode(msg.subarray(start + 2 + tagLen, end))}` };
}

function naptr(msg: Buffer, start: number, end: number): Decoded {
  if (end - start < 8) return null;
  const s = strings(msg, start + 4, end, 3);
  if (s === null || s.parts.length !== 3) return null;
  const r = readName(msg, s.end);
  if (r === undefined || r.end !== end) return null;
  const [flags, service, regexp] = s.parts as [Buffer, Buffer, Buffer];
  return { text: formatNaptr({ order: msg.readUInt16BE(start), preference: msg.readUInt16BE(start + 2), flags, service, regexp, replacement: r.name }) };
}

function soa(msg: Buffer, start: number, end: number): Decoded {
  const m = readName(msg, start);
  const r = m === undefined ? undefined : readName(msg, m.end);
  if (m === undefined || r === undefined || r.end + 20 !== end) return null;
  const n = (i: number): number => msg.readUInt32BE(r.end + i * 4);
  const value: SOA = { mname: m.name, rname: r.name, serial: n(0), refresh: n(1), retry: n(2), expire: n(3), minimum: n(4), ttl: 0 };
  return { text: undefined, soa: value };
}
