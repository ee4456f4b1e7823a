/**
 * Go's values as the evaluator sees them, over plain JSON data:
 * - `undefined` is Go's invalid value (a missing map key): prints `<no value>`, is false;
 * - `null` is nil; strings, numbers, booleans and arrays (slices) are themselves;
 * - a plain object is a `map[string]interface {}`; a `GoMap` is a map with another element type
 *   (labels are `map[string]string`, whose `index` of a missing key is "");
 * - a `GoStruct` is a struct: only its (capitalised) field names resolve, others are an error;
 * - `ZERO` is the zero value of a struct field the data leaves unset (an absent `spec.clusterIP`).
 */

/** A struct: its Go type name (for errors) and field lookup by Go name. */
export interface GoStruct {
  readonly goType: string;
  /** The field's value, or `NO_FIELD` when the struct has no such field. */
  field(name: string): unknown;
  /** Field values in declaration order, for printing (`{a b}`). */
  fields(): unknown[];
}

export const NO_FIELD: unique symbol = Symbol('no field');

export function isStruct(v: unknown): v is GoStruct {
  return typeof v === 'object' && v !== null && typeof (v as Partial<GoStruct>).field === 'function' && typeof (v as Partial<GoStruct>).goType === 'string';
}

/** A map whose element type is not `interface {}`. */
export class GoMap {
  constructor(
    readonly entries: Readonly<Record<string, unknown>>,
    readonly goType: string,
    /** What `index` returns for a missing key. */
    readonly zero: unknown,
  ) {}
}

/** The zero value of an unset struct field whose Go type the data does not say. */
class Zero {
  toString(): string {
    return '';
  }
}
export const ZERO: unknown = Object.freeze(new Zero());
export const isZero = (v: unknown): boolean => v instanceof Zero;

export type Entries = Readonly<Record<string, unknown>>;

export function isPlainMap(v: unknown): v is Entries {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

/** The entries of a map value (plain object or GoMap), else undefined. */
export function mapEntries(v: unknown): Entries | undefined {
  if (v instanceof GoMap) return v.entries;
  return isPlainMap(v) ? v : undefined;
}

/** Go's type name of a value, for error messages. */
export function goTypeOf(v: unknown): string {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  if (v instanceof GoMap) return v.goType;
  if (isStruct(v)) return v.goType;
  if (isZero(v)) return 'interface {}';
  if (typeof v === 'function') return 'func';
  return 'map[string]interface {}';
}

/** Go's notion of truth (`if`, `with`, `and`, `or`, `not`). */
export function isTrue(v: unknown): boolean {
  if (v === undefined || v === null || isZero(v)) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') return v !== '';
  if (Array.isArray(v)) return v.length > 0;
  const entries = mapEntries(v);
  if (entries !== undefined) return Object.keys(entries).length > 0;
  return true;
}

/** Go's `%v` of a number: integers plainly, floats in the shortest form (`1e+06` from 6 digits of exponent). */
export function formatNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf';
  const exp = Math.floor(Math.log10(Math.abs(n)));
  if (exp < -4 || exp >= 21) {
    const [mantissa = '', e = '0'] = n.toExponential().split('e');
    const ev = Number(e);
    return `${mantissa}e${ev < 0 ? '-' : '+'}${String(Math.abs(ev)).padStart(2, '0')}`;
  }
  return String(n);
}

/** Go's `fmt.Sprint` of one value (`%v`). */
export function formatValue(v: unknown): string {
  if (v === undefined) return '<no value>';
  if (v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return formatNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (isZero(v)) return '';
  if (Array.isArray(v)) return `[${v.map(formatNested).join(' ')}]`;
  const entries = mapEntries(v);
  if (entries !== undefined) {
    return `map[${Object.keys(entries)
      .sort()
      .map((k) => `${k}:${formatNested(entries[k])}`)
      .join(' ')}]`;
  }
  if (isStruct(v)) return `{${v.fields().map(formatNested).join(' ')}}`;
  return String(v);
}

/** Inside a slice or map an absent value is nil, not `<no value>`. */
function formatNested(v: unknown): string {
  return v === undefined ? '<nil>' : formatValue(v);
}

type BasicKind = 'bool' | 'number' | 'string' | 'invalid' | 'other';

function basicKind(v: unknown): BasicKind {
  if (v === undefined || v === null) return 'invalid';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'string') return 'string';
  return 'other';
}

/** A comparison Go refuses (`incompatible types for comparison` …). */
export class ComparisonError extends Error {}

/** The unset zero value compares as the zero of whatever it meets. */
function zeroLike(other: unknown): unknown {
  if (typeof other === 'number') return 0;
  if (typeof other === 'boolean') return false;
  if (typeof other === 'string') return '';
  return null;
}

/** `eq a b`: Go's rules (basic kinds compare by value; nil only equals nil; others cannot be compared). */
export function equal(a0: unknown, b0: unknown): boolean {
  const a = isZero(a0) ? zeroLike(b0) : a0;
  const b = isZero(b0) ? zeroLike(a) : b0;
  const ka = basicKind(a);
  const kb = basicKind(b);
  if (ka !== kb) {
    if (ka !== 'invalid' && kb !== 'invalid') throw new ComparisonError('incompatible types for comparison');
    return false;
  }
  if (ka === 'invalid') return true;
  if (ka !== 'other') return a === b;
  throw new ComparisonError(`non-comparable type ${formatValue(a)}: ${goTypeOf(a)}`);
}

/** `lt a b`: numbers and strings only. */
export function less(a0: unknown, b0: unknown): boolean {
  const a = isZero(a0) ? zeroLike(b0) : a0;
  const b = isZero(b0) ? zeroLike(a) : b0;
  const ka = basicKind(a);
  const kb = basicKind(b);
  if (ka === 'invalid' || ka === 'other' || ka === 'bool' || kb === 'invalid' || kb === 'other' || kb === 'bool')
    throw new ComparisonError('invalid type for comparison');
  if (ka !== kb) throw new ComparisonError('incompatible types for comparison');
  return (a as number | string) < (b as number | string);
}
