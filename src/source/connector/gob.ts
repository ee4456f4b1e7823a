/**
 * A decoder for Go's encoding/gob streams, as far as external-dns's connector source needs it
 * (structs, slices, arrays, maps and the basic types; no interface values or GobEncoder types).
 * Restated from the package's published format (https://pkg.go.dev/encoding/gob):
 *
 * - unsigned integers: below 128 one byte; else the negated byte count, then the big-endian bytes;
 * - signed integers: an unsigned one whose low bit says the value was complemented
 *   (u&1 ? ^(u>>1) : u>>1); bool is 0 or 1; floats are the float64 bits byte-reversed, as a uint;
 *   strings and []byte are a length and the bytes;
 * - a stream is messages: a byte count, a signed type id, then either a type definition (a
 *   negative id: the wireType struct defining it) or a value of that (positive) type;
 * - a struct is (field-number delta, value) pairs ended by a 0 delta, fields starting at -1 and
 *   zero values left out; a slice or array a count then the elements; a map a count then key/value
 *   pairs; a top-level value that is not a struct is preceded by a 0 byte (a singleton field);
 * - predefined ids: bool 1, int 2, uint 3, float 4, []byte 5, string 6, complex 7, interface 8,
 *   wireType 16, arrayType 17, CommonType 18, sliceType 19, structType 20, fieldType 21,
 *   []*fieldType 22, mapType 23; user types from 65.
 *
 * Decoded values are plain JavaScript: structs as objects keyed by Go field name (fields absent
 * on the wire are absent), slices and arrays as arrays, maps as Maps, integers as numbers.
 */

/** A malformed or unsupported stream. */
export class GobError extends Error {}

type GobType =
  | { kind: 'basic'; id: number }
  | { kind: 'struct'; name: string; fields: { name: string; id: number }[] }
  | { kind: 'slice'; name: string; elem: number }
  | { kind: 'array'; name: string; elem: number; len: number }
  | { kind: 'map'; name: string; key: number; elem: number };

const BOOL = 1;
const INT = 2;
const UINT = 3;
const FLOAT = 4;
const BYTES = 5;
const STRING = 6;
const COMPLEX = 7;
const INTERFACE = 8;

const struct = (name: string, ...fields: [string, number][]): GobType => ({ kind: 'struct', name, fields: fields.map(([n, id]) => ({ name: n, id })) });

/** The definitions every stream assumes: the types that describe types. */
function predefined(): Map<number, GobType> {
  const types = new Map<number, GobType>();
  for (const id of [BOOL, INT, UINT, FLOAT, BYTES, STRING, COMPLEX, INTERFACE]) types.set(id, { kind: 'basic', id });
  types.set(
    16,
    struct('wireType', ['ArrayT', 17], ['SliceT', 19], ['StructT', 20], ['MapT', 23], ['GobEncoderT', 24], ['BinaryMarshalerT', 24], ['TextMarshalerT', 24]),
  );
  types.set(17, struct('arrayType', ['CommonType', 18], ['Elem', INT], ['Len', INT]));
  types.set(18, struct('CommonType', ['Name', STRING], ['Id', INT]));
  types.set(19, struct('sliceType', ['CommonType', 18], ['Elem', INT]));
  types.set(20, struct('structType', ['CommonType', 18], ['Field', 22]));
  types.set(21, struct('fieldType', ['Name', STRING], ['Id', INT]));
  types.set(22, { kind: 'slice', name: '[]*fieldType', elem: 21 });
  types.set(23, struct('mapType', ['CommonType', 18], ['Key', INT], ['Elem', INT]));
  types.set(24, struct('gobEncoderType', ['CommonType', 18]));
  return types;
}

/** Reads the primitives of the format from one message. */
class Reader {
  private pos = 0;
  constructor(private readonly buf: Uint8Array) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  private byte(): number {
    const b = this.buf[this.pos];
    if (b === undefined) throw new GobError('unexpected end of message');
    this.pos++;
    return b;
  }

  uintBig(): bigint {
    const first = this.byte();
    if (first < 0x80) return BigInt(first);
    const count = 256 - first;
    if (count > 8) throw new GobError(`an unsigned integer of ${count} bytes`);
    let v = 0n;
    for (let i = 0; i < count; i++) v = (v << 8n) | BigInt(this.byte());
    return v;
  }

  uint(): number {
    return Number(this.uintBig());
  }

  int(): number {
    const u = this.uintBig();
    return Number((u & 1n) === 1n ? ~(u >> 1n) : u >> 1n);
  }

  float(): number {
    let u = this.uintBig();
    const bytes = new Uint8Array(8);
    // The float64's bytes were reversed so that small exponents encode short.
    for (let i = 0; i < 8; i++) {
      bytes[i] = Number(u & 0xffn);
      u >>= 8n;
    }
    return new DataView(bytes.buffer).getFloat64(0, false);
  }

  bytes(): Uint8Array {
    const n = this.uint();
    if (n > this.buf.length - this.pos) throw new GobError(`a length of ${n} past the end of the message`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** One decoding session: the type definitions seen so far and the values decoded. */
export class GobDecoder {
  private readonly types = predefined();

  /**
   * Decodes the messages in `stream` up to and including the first value, and returns that value
   * with the number of bytes used; undefined when the stream holds no complete value yet.
   * `maxMessage` bounds a message's byte count (a corrupt length must not allocate gigabytes).
   */
  decodeFirst(stream: Uint8Array, maxMessage: number): { value: unknown; used: number } | undefined {
    let pos = 0;
    for (;;) {
      const head = messageHead(stream, pos);
      if (head === undefined) return undefined;
      if (head.length > maxMessage) throw new GobError(`a message of ${head.length} bytes (more than ${maxMessage})`);
      if (head.start + head.length > stream.length) return undefined;
      const r = new Reader(stream.subarray(head.start, head.start + head.length));
      pos = head.start + head.length;
      const id = r.int();
      if (id < 0) {
        this.define(-id, r);
        continue;
      }
      return { value: this.topLevel(id, r), used: pos };
    }
  }

  private define(id: number, r: Reader): void {
    const wire = this.value(16, r) as Record<string, Record<string, unknown> | undefined>;
    const common = (t: Record<string, unknown> | undefined): string => String((t?.['CommonType'] as Record<string, unknown> | undefined)?.['Name'] ?? '');
    if (wire['StructT'] !== undefined) {
      const fields = ((wire['StructT']['Field'] as Record<string, unknown>[] | undefined) ?? []).map((f) => ({
        name: String(f['Name'] ?? ''),
        id: Number(f['Id'] ?? 0),
      }));
      this.types.set(id, { kind: 'struct', name: common(wire['StructT']), fields });
    } else if (wire['SliceT'] !== undefined) {
      this.types.set(id, { kind: 'slice', name: common(wire['SliceT']), elem: Number(wire['SliceT']['Elem'] ?? 0) });
    } else if (wire['ArrayT'] !== undefined) {
      this.types.set(id, { kind: 'array', name: common(wire['ArrayT']), elem: Number(wire['ArrayT']['Elem'] ?? 0), len: Number(wire['ArrayT']['Len'] ?? 0) });
    } else if (wire['MapT'] !== undefined) {
      this.types.set(id, { kind: 'map', name: common(wire['MapT']), key: Number(wire['MapT']['Key'] ?? 0), elem: Number(wire['MapT']['Elem'] ?? 0) });
    } else {
      throw new GobError(`type ${id} is a GobEncoder or marshaler type, which this decoder does not read`);
    }
  }

  private topLevel(id: number, r: Reader): unknown {
    const t = this.typeOf(id);
    if (t.kind === 'struct') return this.value(id, r);
    // A non-struct value is sent as the single field of a struct: a 0 delta, then the value.
    if (r.uint() !== 0) throw new GobError('a top-level non-struct value without its singleton field');
    return this.value(id, r);
  }

  private typeOf(id: number): GobType {
    const t = this.types.get(id);
    if (t === undefined) throw new GobError(`type ${id} was never defined`);
    return t;
  }

  private value(id: number, r: Reader): unknown {
    const t = this.typeOf(id);
    switch (t.kind) {
      case 'basic':
        return basic(t.id, r);
      case 'struct': {
        const out: Record<string, unknown> = {};
        let field = -1;
        for (;;) {
          const delta = r.uint();
          if (delta === 0) return out;
          field += delta;
          const f = t.fields[field];
          if (f === undefined) throw new GobError(`field ${field} of ${t.name || `type ${id}`}, which has ${t.fields.length}`);
          out[f.name] = this.value(f.id, r);
        }
      }
      case 'slice':
      case 'array': {
        const n = r.uint();
        const out: unknown[] = [];
        for (let i = 0; i < n; i++) out.push(this.value(t.elem, r));
        return out;
      }
      case 'map': {
        const n = r.uint();
        const out = new Map<unknown, unknown>();
        for (let i = 0; i < n; i++) {
          const k = this.value(t.key, r);
          out.set(k, this.value(t.elem, r));
        }
        return out;
      }
    }
  }
}

function basic(id: number, r: Reader): unknown {
  switch (id) {
    case BOOL:
      return r.uint() !== 0;
    case INT:
      return r.int();
    case UINT:
      return r.uint();
    case FLOAT:
      return r.float();
    case BYTES:
      return r.bytes();
    case STRING:
      return utf8.decode(r.bytes());
    case COMPLEX:
      return [r.float(), r.float()];
    default:
      throw new GobError('an interface value, which this decoder does not read');
  }
}

/** A message's byte count and where its body starts; undefined when the count is not all there. */
function messageHead(stream: Uint8Array, pos: number): { length: number; start: number } | undefined {
  const first = stream[pos];
  if (first === undefined) return undefined;
  if (first < 0x80) return { length: first, start: pos + 1 };
  const count = 256 - first;
  if (count > 8) throw new GobError(`a message length of ${count} bytes`);
  if (pos + 1 + count > stream.length) return undefined;
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + (stream[pos + 1 + i] ?? 0);
  return { length, start: pos + 1 + count };
}
