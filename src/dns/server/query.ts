/**
 * Query parsing for the answer path. It fills a reusable object instead of allocating a decoded
 * message, validates everything a reply depends on, and tells malformed input (FORMERR) from input
 * that deserves no reply at all.
 */
import { T_OPT, T_TSIG, skipName } from '../wire.ts';

export const PARSE_OK = 0;
/** No reply possible or wanted: too short, or a response. */
export const PARSE_DROP = 1;
/** Reply FORMERR; `questionEnd` > 0 when the question itself was sound and may be echoed. */
export const PARSE_FORMERR = 2;

export class ParsedQuery {
  id = 0;
  flags = 0;
  opcode = 0;
  /** Lower-case query name without trailing dot ('' for the root). */
  qname = '';
  qtype = 0;
  qclass = 0;
  /** Offset just after the question's class (0 when the question is unusable). */
  questionEnd = 0;
  edns = false;
  ednsUdpSize = 0;
  ednsVersion = 0;
  ednsDo = false;
  /** The OPT record carries options (cookies, ECS, ...): its answer is never packet-cached. */
  ednsOptions = false;
  /** Offset of a TSIG record ending the message, or -1. */
  tsigOffset = -1;
  /** Scratch for the question name's text (at most 253 bytes), reused by every parse. */
  readonly nameBytes = Buffer.allocUnsafe(256);
}

/**
 * Reads the question name as a lookup key; returns its end offset or -1. The labels are gathered
 * into `out.nameBytes` and become one string at the end: a string per label, a regular expression
 * test per label and the concatenations were most of the answer path's garbage (young-generation
 * collections pause the DNS thread).
 */
function readQname(msg: Buffer, out: ParsedQuery): number {
  const name = out.nameBytes;
  let p = 12;
  let n = 0;
  for (let total = 0; ;) {
    if (p >= msg.length) return -1;
    const l = msg[p] ?? 0;
    if (l === 0) {
      out.qname = n === 0 ? '' : name.toString('latin1', 0, n);
      return p + 1;
    }
    // A compression pointer in the first name of a message can only point forward: malformed.
    if (l > 63) return -1;
    total += l + 1;
    if (total > 254 || p + 1 + l > msg.length) return -1;
    if (n > 0) name[n++] = 0x2e;
    const start = n;
    let fold = false;
    for (let i = p + 1; i <= p + l; i++) {
      const c = msg[i] ?? 0;
      if ((c >= 0x41 && c <= 0x5a) || c === 0x2e || c === 0x5c) fold = true;
      name[n++] = c;
    }
    if (fold) foldLabel(name, start, n);
    p += 1 + l;
  }
}

/**
 * A label holding A-Z, '.' or '\\' is lower-cased as String#toLowerCase lower-cases Latin-1 text
 * (A-Z and U+00C0-U+00DE but U+00D7), and its dots and backslashes become NUL: a dot inside a label
 * cannot match any zone name, and NUL keeps splitting the key on dots sound.
 */
function foldLabel(name: Buffer, start: number, end: number): void {
  for (let i = start; i < end; i++) {
    const c = name[i] ?? 0;
    if (c === 0x2e || c === 0x5c) name[i] = 0;
    else if ((c >= 0x41 && c <= 0x5a) || (c >= 0xc0 && c <= 0xde && c !== 0xd7)) name[i] = c + 0x20;
  }
}

export function parseQuery(msg: Buffer, out: ParsedQuery): number {
  out.questionEnd = 0;
  out.edns = false;
  out.ednsOptions = false;
  out.tsigOffset = -1;
  out.qname = '';
  out.qtype = 0;
  if (msg.length < 12) return PARSE_DROP;
  out.id = msg.readUInt16BE(0);
  out.flags = msg.readUInt16BE(2);
  if ((out.flags & 0x8000) !== 0) return PARSE_DROP;
  out.opcode = (out.flags >> 11) & 0xf;
  const qd = msg.readUInt16BE(4);
  const an = msg.readUInt16BE(6);
  const ns = msg.readUInt16BE(8);
  const ar = msg.readUInt16BE(10);
  if (qd !== 1) return PARSE_FORMERR;
  const qEnd = readQname(msg, out);
  if (qEnd < 0 || qEnd + 4 > msg.length) return PARSE_FORMERR;
  out.qtype = msg.readUInt16BE(qEnd);
  out.qclass = msg.readUInt16BE(qEnd + 2);
  out.questionEnd = qEnd + 4;
  let p = qEnd + 4;
  if (an === 0 && ns === 0 && ar === 0) return p === msg.length ? PARSE_OK : PARSE_FORMERR;
  const total = an + ns + ar;
  for (let i = 0; i < total; i++) {
    const start = p;
    p = skipName(msg, p);
    if (p < 0 || p + 10 > msg.length) return PARSE_FORMERR;
    const type = msg.readUInt16BE(p);
    const rdlen = msg.readUInt16BE(p + 8);
    const end = p + 10 + rdlen;
    if (end > msg.length) return PARSE_FORMERR;
    const inAdditional = i >= an + ns;
    if (type === T_OPT) {
      // One OPT, owned by the root, in the additional section (RFC 6891 6.1.1).
      if (!inAdditional || out.edns || msg[start] !== 0 || out.tsigOffset >= 0) return PARSE_FORMERR;
      out.edns = true;
      out.ednsUdpSize = msg.readUInt16BE(p + 2);
      out.ednsVersion = msg[p + 5] ?? 0;
      out.ednsDo = ((msg[p + 6] ?? 0) & 0x80) !== 0;
      out.ednsOptions = rdlen > 0;
    } else if (type === T_TSIG) {
      if (!inAdditional || i !== total - 1) return PARSE_FORMERR;
      out.tsigOffset = start;
    }
    p = end;
  }
  return p === msg.length ? PARSE_OK : PARSE_FORMERR;
}
