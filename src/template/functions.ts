/**
 * Functions a template can call: Go's predefined ones (and, or, not, len, index, slice, print,
 * printf, println, html, js, urlquery, call, eq, ne, lt, le, gt, ge) and external-dns's helpers
 * (source/template/functions.go: contains, trimPrefix, trimSuffix, trim, toLower, replace,
 * isIPv4, isIPv6, isSource, hasKey, fromJson). Parameters carry Go's types so a call with the
 * wrong kind of argument fails the way Go's does.
 */
import { isIPv4 as netIsIPv4, isIPv6 as netIsIPv6 } from 'node:net';
import { sprint, sprintf, sprintln } from './format.ts';
import { MAX_OUTPUT } from './limits.ts';
import { ComparisonError, equal, formatValue, GoMap, goTypeOf, isStruct, isTrue, isZero, less, mapEntries } from './values.ts';

/** A parameter's Go type: how an argument is checked and converted. */
export type ParamType = 'any' | 'string' | 'int' | 'map';

export interface FuncSpec {
  params: readonly ParamType[];
  variadic?: ParamType;
  /** Returns the result; throws FuncError for Go's `error calling NAME: …`. */
  call: (args: unknown[]) => unknown;
}

export type FuncMap = Readonly<Record<string, FuncSpec>>;

/** An error a function returns (the executor prefixes `error calling NAME:`). */
export class FuncError extends Error {}

const fn = (params: readonly ParamType[], call: FuncSpec['call'], variadic?: ParamType): FuncSpec =>
  variadic === undefined ? { params, call } : { params, call, variadic };
const str = (v: unknown): string => v as string;

function compare(f: (a: unknown, b: unknown) => boolean): FuncSpec['call'] {
  return ([a, b]) => {
    try {
      return f(a, b);
    } catch (err) {
      if (err instanceof ComparisonError) throw new FuncError(err.message);
      throw err;
    }
  };
}

function eqMany([first, ...rest]: unknown[]): boolean {
  if (rest.length === 0) throw new FuncError('missing argument for comparison');
  return rest.some((other) => compare(equal)([first, other]) === true);
}

function indexOne(item: unknown, key: unknown): unknown {
  if (item === undefined || item === null) throw new FuncError('index of untyped nil');
  if (Array.isArray(item) || typeof item === 'string') {
    if (typeof key !== 'number' || !Number.isInteger(key)) throw new FuncError(`cannot index slice/array with type ${goTypeOf(key)}`);
    if (key < 0 || key >= (typeof item === 'string' ? Buffer.byteLength(item) : item.length)) throw new FuncError(`index out of range: ${key}`);
    return typeof item === 'string' ? Buffer.from(item)[key] : item[key];
  }
  const entries = mapEntries(item);
  if (entries !== undefined) {
    if (typeof key !== 'string') throw new FuncError(`value has type ${goTypeOf(key)}; should be string`);
    if (Object.hasOwn(entries, key)) return entries[key];
    return item instanceof GoMap ? item.zero : null;
  }
  if (isZero(item)) return item;
  throw new FuncError(`can't index item of type ${goTypeOf(item)}`);
}

function sliceOf([item, ...idx]: unknown[]): unknown {
  if (item === undefined || item === null) throw new FuncError('slice of untyped nil');
  if (idx.length > 3) throw new FuncError(`too many slice indexes: ${idx.length}`);
  if (!Array.isArray(item) && typeof item !== 'string') throw new FuncError(`can't slice item of type ${goTypeOf(item)}`);
  if (typeof item === 'string' && idx.length === 3) throw new FuncError('cannot 3-index slice a string');
  const len = item.length;
  const [lo = 0, hi = len] = idx.map((i) => {
    if (typeof i !== 'number' || !Number.isInteger(i)) throw new FuncError(`cannot index slice/array with type ${goTypeOf(i)}`);
    if (i < 0 || i > len) throw new FuncError(`index out of range: ${i}`);
    return i;
  });
  if (lo > hi) throw new FuncError(`invalid slice index: ${lo} > ${hi}`);
  return item.slice(lo, hi);
}

function lengthOf([v]: unknown[]): number {
  if (typeof v === 'string') return Buffer.byteLength(v);
  if (Array.isArray(v)) return v.length;
  const entries = mapEntries(v);
  if (entries !== undefined) return Object.keys(entries).length;
  if (isZero(v)) return 0;
  throw new FuncError(`len of ${v === undefined || v === null ? 'nil pointer' : `type ${goTypeOf(v)}`}`);
}

function htmlEscape(s: string): string {
  return s.replace(/[<>&'"\0]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&#39;', '"': '&#34;', '\0': '\uFFFD' })[c] ?? c);
}

function jsEscape(s: string): string {
  return [...s]
    .map((c) => {
      const special: Record<string, string> = {
        '\\': '\\\\',
        "'": "\\'",
        '"': '\\"',
        '<': '\\u003C',
        '>': '\\u003E',
        '&': '\\u0026',
        '=': '\\u003D',
        '\n': '\\n',
        '\r': '\\r',
        '\t': '\\t',
      };
      const mapped = special[c];
      if (mapped !== undefined) return mapped;
      const cp = c.codePointAt(0) ?? 0;
      return cp < 0x20 ? `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}` : c;
    })
    .join('');
}

/** Go's url.QueryEscape. */
function queryEscape(s: string): string {
  return [...Buffer.from(s)]
    .map((b) => {
      const c = String.fromCharCode(b);
      if (/[A-Za-z0-9\-_.~]/.test(c)) return c;
      if (c === ' ') return '+';
      return `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

/** Go's predefined functions. `and` and `or` are evaluated lazily by the executor. */
export const BUILTINS: FuncMap = {
  and: fn(['any'], (args) => args.find((a) => !isTrue(a)) ?? args[args.length - 1], 'any'),
  or: fn(['any'], (args) => args.find((a) => isTrue(a)) ?? args[args.length - 1], 'any'),
  not: fn(['any'], ([v]) => !isTrue(v)),
  len: fn(['any'], lengthOf),
  index: fn(['any'], ([item, ...keys]) => keys.reduce(indexOne, item), 'any'),
  slice: fn(['any'], sliceOf, 'any'),
  print: fn([], sprint, 'any'),
  println: fn([], sprintln, 'any'),
  printf: fn(['string'], ([format, ...rest]) => sprintf(str(format), rest), 'any'),
  html: fn([], (args) => htmlEscape(sprint(args)), 'any'),
  js: fn([], (args) => jsEscape(sprint(args)), 'any'),
  urlquery: fn([], (args) => queryEscape(sprint(args)), 'any'),
  call: fn(
    ['any'],
    ([f, ...rest]) => {
      if (typeof f !== 'function') throw new FuncError(`non-function ${formatValue(f)} of type ${goTypeOf(f)}`);
      return (f as (...a: unknown[]) => unknown)(...rest);
    },
    'any',
  ),
  eq: fn(['any'], eqMany, 'any'),
  ne: fn(['any', 'any'], ([a, b]) => !compare(equal)([a, b])),
  lt: fn(['any', 'any'], compare(less)),
  le: fn(
    ['any', 'any'],
    compare((a, b) => less(a, b) || equal(a, b)),
  ),
  gt: fn(
    ['any', 'any'],
    compare((a, b) => !less(a, b) && !equal(a, b)),
  ),
  ge: fn(
    ['any', 'any'],
    compare((a, b) => !less(a, b)),
  ),
};

/** external-dns's source names (source/types), which `isSource` accepts. */
export const EXTERNAL_DNS_SOURCES: readonly string[] = [
  'node',
  'service',
  'ingress',
  'pod',
  'gateway-httproute',
  'gateway-grpcroute',
  'gateway-tlsroute',
  'gateway-tcproute',
  'gateway-udproute',
  'istio-gateway',
  'istio-virtualservice',
  'ambassador-host',
  'contour-httpproxy',
  'gloo-proxy',
  'traefik-proxy',
  'openshift-route',
  'fake',
  'empty',
  'connector',
  'crd',
  'skipper-routegroup',
  'kong-tcpingress',
  'f5-virtualserver',
  'f5-transportserver',
  'unstructured',
];

function isSource(active: string, want: string): boolean {
  if (!EXTERNAL_DNS_SOURCES.includes(want.toLowerCase()) && !EXTERNAL_DNS_SOURCES.includes(want))
    throw new FuncError(`isSource: unknown source ${JSON.stringify(want)} (valid: ${EXTERNAL_DNS_SOURCES.join(', ')})`);
  return active.toLowerCase() === want.toLowerCase();
}

/**
 * strings.ReplaceAll, refusing before it builds a result longer than MAX_OUTPUT: replacing each
 * of a long string's characters with a long text would otherwise build hundreds of megabytes.
 */
function replaceAll(s: string, from: string, to: string): string {
  if (to.length > from.length) {
    let count = 0;
    if (from === '')
      count = s.length + 1; // an upper bound: Go inserts per rune, not per UTF-16 unit
    else for (let at = s.indexOf(from); at !== -1; at = s.indexOf(from, at + from.length)) count++;
    const length = s.length + count * (to.length - from.length);
    if (length > MAX_OUTPUT) throw new FuncError(`result would be ${length} characters, more than ${MAX_OUTPUT}`);
  }
  return s.replaceAll(from, to);
}

function fromJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** external-dns's helpers; `source` is the name `isSource` compares with ("" before a source binds it). */
export function externalDnsFunctions(source: string): FuncMap {
  return {
    contains: fn(['string', 'string'], ([s, sub]) => str(s).includes(str(sub))),
    trimPrefix: fn(['string', 'string'], ([s, p]) => (str(s).startsWith(str(p)) ? str(s).slice(str(p).length) : str(s))),
    trimSuffix: fn(['string', 'string'], ([s, x]) => (str(x) !== '' && str(s).endsWith(str(x)) ? str(s).slice(0, -str(x).length) : str(s))),
    trim: fn(['string'], ([s]) => str(s).trim()),
    toLower: fn(['string'], ([s]) => str(s).toLowerCase()),
    replace: fn(['string', 'string', 'string'], ([from, to, s]) => replaceAll(str(s), str(from), str(to))),
    isIPv4: fn(['string'], ([s]) => netIsIPv4(str(s))),
    isIPv6: fn(['string'], ([s]) => netIsIPv6(str(s))),
    isSource: fn(['string'], ([want]) => isSource(source, str(want))),
    hasKey: fn(['map', 'string'], ([m, key]) => {
      const entries = mapEntries(m);
      return entries !== undefined && Object.hasOwn(entries, str(key));
    }),
    fromJson: fn(['string'], ([s]) => fromJson(str(s))),
  };
}

/** Converts an argument to a parameter's type as Go's reflection would, or says why it cannot. */
export function convertArg(v: unknown, type: ParamType): { ok: true; value: unknown } | { ok: false; message: string } {
  if (type === 'any') return { ok: true, value: v === undefined ? null : v };
  if (isZero(v)) return { ok: true, value: type === 'string' ? '' : type === 'int' ? 0 : null };
  if (v === undefined) return { ok: false, message: `invalid value; expected ${goParam(type)}` };
  if (type === 'string' && typeof v === 'string') return { ok: true, value: v };
  if (type === 'int' && typeof v === 'number' && Number.isInteger(v)) return { ok: true, value: v };
  if (type === 'map' && (v === null || mapEntries(v) !== undefined)) return { ok: true, value: v };
  if (type === 'map' && isStruct(v)) return { ok: false, message: `wrong type for value; expected map[string]string; got ${v.goType}` };
  return { ok: false, message: `wrong type for value; expected ${goParam(type)}; got ${goTypeOf(v)}` };
}

function goParam(type: ParamType): string {
  return type === 'map' ? 'map[string]string' : type;
}
