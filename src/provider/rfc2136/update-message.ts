/**
 * RFC 2136 UPDATE messages. dns-packet cannot express the update and prerequisite sections' class NONE / class ANY
 * records with empty rdata, so the messages are built here on the project's wire writer; the
 * rdata of additions comes from the same canonical text form the zone store uses (rdata.ts).
 */
import { InvalidEndpointError } from '../../errors.ts';
import { parseRdata } from '../../dns/rdata.ts';
import { CLASS_ANY, CLASS_IN, T_ANY, T_SOA, TYPE_CODES, Writer, readName, skipName } from '../../dns/wire.ts';

export const OPCODE_UPDATE = 5;
export const CLASS_NONE = 254;

/** One record of the update section (RFC 2136 section 2.5). */
export type UpdateRR =
  /** 2.5.1: add `rdata` (canonical text) to the RRset. */
  | { op: 'add'; name: string; type: string; ttl: number; rdata: string }
  /** 2.5.2: delete the whole RRset of this type. */
  | { op: 'deleteRRset'; name: string; type: string }
  /** 2.5.4: delete one RR from an RRset. */
  | { op: 'deleteRR'; name: string; type: string; rdata: string };

/** One record of the prerequisite section (RFC 2136 section 2.4). */
export type Prerequisite =
  /** 2.4.2: the RRset exists and holds exactly these values (canonical text); TTLs are not compared. */
  | { op: 'rrsetEquals'; name: string; type: string; rdata: readonly string[] }
  /** 2.4.3: no RRset of this type exists at the name (the answer is YXRRSET otherwise). */
  | { op: 'rrsetAbsent'; name: string; type: string }
  /** 2.4.5: the name holds no record of any type (the answer is YXDOMAIN otherwise). */
  | { op: 'nameUnused'; name: string };

export type AddRR = Extract<UpdateRR, { op: 'add' }>;

export interface UpdateMessage {
  id: number;
  zone: string;
  prerequisites?: readonly Prerequisite[];
  updates: readonly UpdateRR[];
}

/** The rcodes a server answers when a prerequisite does not hold (RFC 2136 section 3.2). */
export const PREREQUISITE_RCODES: ReadonlySet<number> = new Set([6, 7, 8]); // YXDOMAIN, YXRRSET, NXRRSET

function typeCode(type: string): number {
  const code = TYPE_CODES.get(type);
  if (code === undefined) throw new InvalidEndpointError(`record type ${type} is not supported by the rfc2136 provider`);
  return code;
}

function rdataParts(w: Writer, name: string, type: string, rdata: string): void {
  const parsed = parseRdata(typeCode(type), rdata);
  if (parsed === undefined) throw new InvalidEndpointError(`${name} ${type}: invalid value ${JSON.stringify(rdata)}`);
  for (const p of parsed.parts) {
    if (Buffer.isBuffer(p)) w.bytes(p);
    // Names inside rdata are written uncompressed: RFC 3597 servers may not expect pointers there.
    else w.name(p.name, false);
  }
}

function writeUpdateRR(w: Writer, rr: UpdateRR): void {
  w.name(rr.name);
  w.u16(typeCode(rr.type));
  switch (rr.op) {
    case 'add':
      w.u16(CLASS_IN);
      w.u32(rr.ttl);
      break;
    case 'deleteRRset':
      w.u16(CLASS_ANY);
      w.u32(0);
      w.u16(0);
      return;
    case 'deleteRR':
      w.u16(CLASS_NONE);
      w.u32(0);
      break;
  }
  const lenAt = w.len;
  w.u16(0);
  rdataParts(w, rr.name, rr.type, rr.rdata);
  w.buf.writeUInt16BE(w.len - lenAt - 2, lenAt);
}

function writePrerequisite(w: Writer, p: Prerequisite): void {
  switch (p.op) {
    case 'rrsetEquals':
      for (const rdata of p.rdata) {
        w.name(p.name);
        w.u16(typeCode(p.type));
        w.u16(CLASS_IN);
        w.u32(0);
        const lenAt = w.len;
        w.u16(0);
        rdataParts(w, p.name, p.type, rdata);
        w.buf.writeUInt16BE(w.len - lenAt - 2, lenAt);
      }
      return;
    case 'rrsetAbsent':
    case 'nameUnused':
      w.name(p.name);
      w.u16(p.op === 'nameUnused' ? T_ANY : typeCode(p.type));
      w.u16(CLASS_NONE);
      w.u32(0);
      w.u16(0);
  }
}

/** Records a prerequisite puts on the wire (rrsetEquals: one per value). */
function prerequisiteCount(p: Prerequisite): number {
  return p.op === 'rrsetEquals' ? p.rdata.length : 1;
}

/** Encodes an UPDATE request (unsigned; TSIG is appended by the caller). Names are lower case, no trailing dot. */
export function encodeUpdate(msg: UpdateMessage): Buffer {
  const w = new Writer({ initialSize: 512 });
  w.u16(msg.id);
  w.u16(OPCODE_UPDATE << 11);
  w.u16(1); // ZOCOUNT
  const prerequisites = msg.prerequisites ?? [];
  w.u16(prerequisites.reduce((n, p) => n + prerequisiteCount(p), 0)); // PRCOUNT
  w.u16(msg.updates.length); // UPCOUNT
  w.u16(0); // ADCOUNT
  w.name(msg.zone);
  w.u16(T_SOA);
  w.u16(CLASS_IN);
  for (const p of prerequisites) writePrerequisite(w, p);
  for (const rr of msg.updates) writeUpdateRR(w, rr);
  return w.finish();
}

/** Wire size of the update records alone, uncompressed: an upper bound used to split batches. */
export function updateRRSize(rr: UpdateRR): number {
  // A fresh writer has nothing to point at, so this is the uncompressed worst case.
  const w = new Writer({ initialSize: 256 });
  writeUpdateRR(w, rr);
  return w.len;
}

/** Wire size of a prerequisite alone, uncompressed (see updateRRSize). */
export function prerequisiteSize(p: Prerequisite): number {
  const w = new Writer({ initialSize: 256 });
  writePrerequisite(w, p);
  return w.len;
}

/** Encodes a plain query (AXFR, SOA) with one question. */
export function encodeQuery(id: number, name: string, type: number): Buffer {
  const w = new Writer({ initialSize: 64 });
  w.u16(id);
  w.u16(0);
  w.u16(1);
  w.u16(0);
  w.u16(0);
  w.u16(0);
  w.name(name);
  w.u16(type);
  w.u16(CLASS_IN);
  return w.finish();
}

export interface ResponseHeader {
  id: number;
  qr: boolean;
  opcode: number;
  truncated: boolean;
  rcode: number;
  qdcount: number;
  ancount: number;
  nscount: number;
  arcount: number;
  /** Name in the first question / zone section, when present. */
  question?: string;
}

/** Reads the fixed header (and the first question name); undefined when the message is too short. */
export function readHeader(message: Uint8Array): ResponseHeader | undefined {
  if (message.length < 12) return undefined;
  const b = Buffer.from(message.buffer, message.byteOffset, message.length);
  const flags = b.readUInt16BE(2);
  const header: ResponseHeader = {
    id: b.readUInt16BE(0),
    qr: (flags & 0x8000) !== 0,
    opcode: (flags >> 11) & 0xf,
    truncated: (flags & 0x0200) !== 0,
    rcode: flags & 0xf,
    qdcount: b.readUInt16BE(4),
    ancount: b.readUInt16BE(6),
    nscount: b.readUInt16BE(8),
    arcount: b.readUInt16BE(10),
  };
  if (header.qdcount > 0 && skipName(b, 12) > 0) {
    const q = readName(b, 12);
    if (q !== undefined) header.question = q.name;
  }
  return header;
}
