/**
 * DNS wire-format primitives owned by the project: constants, a growable writer with name
 * compression, and name reading. Responses are encoded here rather than with dns-packet because
 * dns-packet does not compress names and allocates heavily per message.
 */

export const T_A = 1;
export const T_NS = 2;
export const T_CNAME = 5;
export const T_SOA = 6;
export const T_PTR = 12;
export const T_MX = 15;
export const T_TXT = 16;
export const T_AAAA = 28;
export const T_SRV = 33;
export const T_NAPTR = 35;
export const T_DNAME = 39;
export const T_DS = 43;
export const T_OPT = 41;
export const T_TSIG = 250;
export const T_IXFR = 251;
export const T_AXFR = 252;
export const T_ANY = 255;
export const T_CAA = 257;

export const CLASS_IN = 1;
export const CLASS_ANY = 255;

export const OPCODE_QUERY = 0;
export const OPCODE_NOTIFY = 4;

export const RCODE_NOERROR = 0;
export const RCODE_FORMERR = 1;
export const RCODE_SERVFAIL = 2;
export const RCODE_NXDOMAIN = 3;
export const RCODE_NOTIMP = 4;
export const RCODE_REFUSED = 5;
export const RCODE_NOTAUTH = 9;
/** Extended rcode carried partly in the OPT record (RFC 6891). */
export const RCODE_BADVERS = 16;

export const TYPE_NAMES: ReadonlyMap<number, string> = new Map([
  [T_A, 'A'],
  [T_NS, 'NS'],
  [T_CNAME, 'CNAME'],
  [T_SOA, 'SOA'],
  [T_PTR, 'PTR'],
  [T_MX, 'MX'],
  [T_TXT, 'TXT'],
  [T_AAAA, 'AAAA'],
  [T_SRV, 'SRV'],
  [T_NAPTR, 'NAPTR'],
  [T_DNAME, 'DNAME'],
  [T_OPT, 'OPT'],
  [T_TSIG, 'TSIG'],
  [T_IXFR, 'IXFR'],
  [T_AXFR, 'AXFR'],
  [T_ANY, 'ANY'],
  [T_CAA, 'CAA'],
]);

export const TYPE_CODES: ReadonlyMap<string, number> = new Map([...TYPE_NAMES].map(([k, v]) => [v, k]));

export const RCODE_NAMES: readonly string[] = [
  'NOERROR',
  'FORMERR',
  'SERVFAIL',
  'NXDOMAIN',
  'NOTIMP',
  'REFUSED',
  'YXDOMAIN',
  'YXRRSET',
  'NXRRSET',
  'NOTAUTH',
  'NOTZONE',
  'RCODE11',
  'RCODE12',
  'RCODE13',
  'RCODE14',
  'RCODE15',
  'BADVERS',
];

/** Pointers may only reach the first 16 KiB of a message. */
const MAX_POINTER = 0x3fff;

/**
 * A growable byte writer with RFC 1035 name compression. In `relative` mode the writer builds a
 * fragment that will later be copied behind a question of unknown length: compression pointers
 * hold fragment-relative offsets and their positions are listed in `fixups`, so the copy only has
 * to add the base offset. Offsets below `reserve` are kept free for that base.
 */
export class Writer {
  buf: Buffer;
  len = 0;
  readonly fixups: number[] = [];
  private readonly names = new Map<string, number>();
  private readonly relative: boolean;
  private readonly reserve: number;

  constructor(options: { relative?: boolean; initialSize?: number; reserve?: number } = {}) {
    this.buf = Buffer.alloc(options.initialSize ?? 512);
    this.relative = options.relative ?? false;
    this.reserve = this.relative ? (options.reserve ?? 300) : 0;
  }

  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = Buffer.alloc(size);
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.len++] = v & 0xff;
  }

  u16(v: number): void {
    this.ensure(2);
    this.buf.writeUInt16BE(v & 0xffff, this.len);
    this.len += 2;
  }

  u32(v: number): void {
    this.ensure(4);
    this.buf.writeUInt32BE(v >>> 0, this.len);
    this.len += 4;
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  /** Writes a pointer to an absolute message offset (the question name sits at 12). */
  absolutePointer(offset: number): void {
    this.u16(0xc000 | offset);
  }

  /**
   * Writes `name` (absolute, no trailing dot, '' for the root). Lower-case names are the keys of
   * the compression table, so only names written in the same spelling share suffixes.
   */
  name(name: string, compress = true): void {
    let rest = name;
    while (rest !== '') {
      if (compress) {
        const at = this.names.get(rest);
        if (at !== undefined) {
          if (this.relative) this.fixups.push(this.len);
          this.u16(0xc000 | at);
          return;
        }
        const here = this.len;
        if (here + this.reserve <= MAX_POINTER) this.names.set(rest, here);
      }
      const dot = rest.indexOf('.');
      const label = dot === -1 ? rest : rest.slice(0, dot);
      const n = Buffer.byteLength(label, 'latin1');
      this.ensure(n + 1);
      this.buf[this.len++] = n;
      this.buf.write(label, this.len, 'latin1');
      this.len += n;
      rest = dot === -1 ? '' : rest.slice(dot + 1);
    }
    this.u8(0);
  }

  /** Forgets compression targets at or beyond `offset` (after rolling back a partial record). */
  truncate(offset: number): void {
    this.len = offset;
    for (const [k, v] of this.names) if (v >= offset) this.names.delete(k);
    while (this.fixups.length > 0 && (this.fixups[this.fixups.length - 1] ?? 0) >= offset) this.fixups.pop();
  }

  finish(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.len));
  }
}

/** Wire length of an uncompressed name. */
export function nameWireLength(name: string): number {
  return name === '' ? 1 : Buffer.byteLength(name, 'latin1') + 2;
}

/**
 * Skips a possibly compressed name at `offset`; returns the offset after it, or -1 when the name
 * is malformed (runs past the end, bad label type, over 255 bytes).
 */
export function skipName(msg: Uint8Array, offset: number): number {
  let p = offset;
  let total = 0;
  for (;;) {
    if (p >= msg.length) return -1;
    const l = msg[p] ?? 0;
    if (l === 0) return p + 1;
    if ((l & 0xc0) === 0xc0) return p + 2 <= msg.length ? p + 2 : -1;
    if ((l & 0xc0) !== 0) return -1;
    total += l + 1;
    if (total > 255) return -1;
    p += l + 1;
  }
}

/**
 * Reads a name (following pointers, loop-safe) as lower-case text without trailing dot; returns
 * undefined when malformed.
 */
export function readName(msg: Uint8Array, offset: number): { name: string; end: number } | undefined {
  const labels: string[] = [];
  let p = offset;
  let end = -1;
  let total = 0;
  for (let hops = 0; hops < 128; hops++) {
    if (p >= msg.length) return undefined;
    const l = msg[p] ?? 0;
    if (l === 0) {
      if (end === -1) end = p + 1;
      return { name: labels.join('.'), end };
    }
    if ((l & 0xc0) === 0xc0) {
      if (p + 1 >= msg.length) return undefined;
      if (end === -1) end = p + 2;
      const target = ((l & 0x3f) << 8) | (msg[p + 1] ?? 0);
      if (target >= p) return undefined;
      p = target;
      continue;
    }
    if ((l & 0xc0) !== 0 || p + 1 + l > msg.length) return undefined;
    total += l + 1;
    if (total > 255) return undefined;
    labels.push(
      Buffer.from(msg.buffer, msg.byteOffset + p + 1, l)
        .toString('latin1')
        .toLowerCase(),
    );
    p += l + 1;
  }
  return undefined;
}

/** Parses dotted-quad IPv4; undefined when invalid. */
export function parseIPv4(text: string): Buffer | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  // From Node's shared pool (every byte is written below): Buffer.alloc would give each address an
  // ArrayBuffer of its own, and a zone index holds one per A record.
  const out = Buffer.allocUnsafe(4);
  for (let i = 0; i < 4; i++) {
    const s = parts[i] ?? '';
    if (!/^\d{1,3}$/.test(s)) return undefined;
    const n = Number(s);
    if (n > 255) return undefined;
    out[i] = n;
  }
  return out;
}

/** Parses IPv6 text (with `::` and an optional trailing dotted quad); undefined when invalid. */
export function parseIPv6(text: string): Buffer | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string): number[] | undefined => {
    if (s === '') return [];
    const out: number[] = [];
    const parts = s.split(':');
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i] ?? '';
      if (i === parts.length - 1 && p.includes('.')) {
        const v4 = parseIPv4(p);
        if (v4 === undefined) return undefined;
        out.push(v4.readUInt16BE(0), v4.readUInt16BE(2));
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(p)) return undefined;
        out.push(parseInt(p, 16));
      }
    }
    return out;
  };
  const head = groups(halves[0] ?? '');
  const tail = halves.length === 2 ? groups(halves[1] ?? '') : [];
  if (head === undefined || tail === undefined) return undefined;
  const fill = 8 - head.length - tail.length;
  if (halves.length === 2 ? fill < 1 : fill !== 0) return undefined;
  const all = [...head, ...new Array<number>(fill).fill(0), ...tail];
  const out = Buffer.alloc(16);
  all.forEach((g, i) => out.writeUInt16BE(g, i * 2));
  return out;
}
