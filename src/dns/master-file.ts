/**
 * RFC 1035 master files for the record types in zone-content.ts. The parser accepts what people
 * and BIND write by hand ($ORIGIN, $TTL, `@`, relative names, inherited owners, comments,
 * parentheses, quoted strings with escapes); the serializer writes one fixed, sorted form with
 * absolute names so identical content always gives identical bytes and BIND9 loads it as is.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { HostwardenError } from '../errors.ts';
import { canonicalTarget } from '../endpoint/endpoint.ts';
import { isInZone, normalizeDnsName, normalizeRecordName } from '../endpoint/name.ts';
import { parseNaptr, formatNaptr, quoteBytes as quoteNaptrString } from '../endpoint/naptr.ts';
import { RR_TYPES } from './zone-content.ts';
import type { RRSet, RRType, SOA, ZoneContent } from './zone-content.ts';

/** A zone file that cannot be loaded; `file` and `line` say where (line 0 = the file as a whole). */
export class ZoneFileError extends HostwardenError {
  readonly file: string;
  readonly line: number;
  constructor(file: string, line: number, message: string) {
    super('ZONE_FILE_INVALID', `${line > 0 ? `${file}:${line}` : file}: ${message}`);
    this.file = file;
    this.line = line;
  }
}

export const MAX_TTL = 2147483647;
const MAX_CHARACTER_STRING = 255;

interface Pending {
  name: string;
  type: RRType;
  ttl: number;
  rdata: Set<string>;
  line: number;
}

/** Parses a master file for the zone `origin` (absolute, without trailing dot). */
/** The parser's running state: what a record line inherits from the lines before it. */
interface ParseState {
  zone: string;
  origin: string;
  defaultTtl: number | undefined;
  lastTtl: number | undefined;
  lastOwner: string | undefined;
  soa: SOA | undefined;
  sets: Map<string, Pending>;
}

export function parseZone(text: string, origin: string, fileName: string): ZoneContent {
  const zone = normalizeDnsName(origin);
  const fail: Fail = (line, message) => {
    throw new ZoneFileError(fileName, line, message);
  };
  const st: ParseState = { zone, origin: zone, defaultTtl: undefined, lastTtl: undefined, lastOwner: undefined, soa: undefined, sets: new Map() };
  for (const entry of tokenize(text, (line, message) => fail(line, message))) {
    const tokens = [...entry.tokens];
    const first = tokens[0];
    if (first === undefined) continue;
    if (!entry.blankOwner && !first.quoted && first.text.startsWith('$')) directive(st, tokens, entry.line, fail);
    else record(st, entry.blankOwner, tokens, entry.line, fail);
  }
  return finishZone(st, fail);
}

/** `$ORIGIN name` or `$TTL ttl`; anything else is refused. */
function directive(st: ParseState, tokens: Token[], at: number, fail: Fail): void {
  const [first, arg] = tokens;
  const name = first?.text.toUpperCase() ?? '';
  if (name === '$ORIGIN' && arg !== undefined && tokens.length === 2) st.origin = parseName(arg, st.origin, fail);
  else if (name === '$TTL' && arg !== undefined && tokens.length === 2) st.defaultTtl = parseTtl(arg, fail);
  else if (name === '$ORIGIN' || name === '$TTL') fail(at, `${name} takes exactly one argument`);
  else fail(at, `unsupported directive ${first?.text ?? ''}`);
}

/** The optional TTL and class, then the type, in either order as RFC 1035 allows. */
function ttlClassType(tokens: Token[], at: number, fail: Fail): { ttl: number | undefined; type: RRType } {
  let ttl: number | undefined;
  let typeToken: Token | undefined;
  let sawClass = false;
  while ((typeToken = tokens.shift()) !== undefined) {
    const word = typeToken.text.toUpperCase();
    if (typeToken.quoted) fail(at, `unexpected quoted string ${JSON.stringify(typeToken.text)}`);
    if (ttl === undefined && isTtlText(typeToken.text)) ttl = parseTtl(typeToken, fail);
    else if (!sawClass && word === 'IN') sawClass = true;
    else if (!sawClass && ['CH', 'HS', 'CS', 'ANY', 'NONE'].includes(word)) fail(at, `class ${word} is not supported, only IN`);
    else break;
  }
  if (typeToken === undefined) return fail(at, 'record without a type');
  const type = typeToken.text.toUpperCase();
  if (!(RR_TYPES as readonly string[]).includes(type)) fail(at, `unsupported record type ${typeToken.text}`);
  return { ttl, type: type as RRType };
}

function record(st: ParseState, blankOwner: boolean, tokens: Token[], at: number, fail: Fail): void {
  let owner: string;
  if (blankOwner) {
    if (st.lastOwner === undefined) return fail(at, 'record without an owner name and no previous owner to inherit');
    owner = st.lastOwner;
  } else {
    owner = parseName(tokens.shift() as Token, st.origin, fail);
  }
  if (!isInZone(owner, st.zone)) fail(at, `owner ${owner} is outside the zone ${st.zone}`);
  st.lastOwner = owner;
  const { ttl, type } = ttlClassType(tokens, at, fail);
  if (type === 'SOA') {
    if (owner !== st.zone) fail(at, `SOA record at ${owner}, expected at the zone apex ${st.zone}`);
    if (st.soa !== undefined) fail(at, 'second SOA record');
    st.soa = parseSoa(tokens, st.origin, ttl ?? st.defaultTtl ?? st.lastTtl, fail, at);
    if (ttl !== undefined) st.lastTtl = ttl;
    return;
  }
  const effectiveTtl = ttl ?? st.defaultTtl ?? st.lastTtl ?? st.soa?.minimum;
  if (effectiveTtl === undefined) return fail(at, 'no TTL given and no $TTL in effect');
  if (ttl !== undefined) st.lastTtl = ttl;
  const rdata = parseRdata(type, tokens, st.origin, (message) => fail(at, message));
  const key = `${owner}\u0000${type}`;
  const existing = st.sets.get(key);
  // Like BIND, the first TTL seen for a set wins when a file disagrees with itself.
  if (existing === undefined) st.sets.set(key, { name: owner, type, ttl: effectiveTtl, rdata: new Set([rdata]), line: at });
  else existing.rdata.add(rdata);
}

/** The zone's content once every line is read: an SOA is required and a CNAME must stand alone. */
function finishZone(st: ParseState, fail: Fail): ZoneContent {
  if (st.soa === undefined) return fail(0, `no SOA record for ${st.zone}`);
  const rrsets: RRSet[] = [];
  for (const set of st.sets.values()) {
    if (set.type === 'SOA') continue;
    rrsets.push({ name: set.name, type: set.type, ttl: set.ttl, rdata: [...set.rdata].sort() });
  }
  const content: ZoneContent = { origin: st.zone, soa: st.soa, rrsets: sortRRSets(rrsets) };
  const conflict = findCnameConflict(content);
  if (conflict !== undefined) {
    const line = st.sets.get(`${conflict.name}\u0000CNAME`)?.line ?? 0;
    fail(line, conflict.message);
  }
  return content;
}

/**
 * Writes a zone in the canonical form: SOA first, then sets in DNS name order, rdata sorted.
 * `cache` remembers the lines of each (unchanging) set object, so a caller that rewrites a large
 * zone after a small change only formats the sets that changed.
 */
export function serializeZone(zone: ZoneContent, cache?: WeakMap<RRSet, string>): string {
  const s = zone.soa;
  const lines = [
    `; zone ${zone.origin}, written by Hostwarden; edits are replaced on the next change`,
    `${absolute(zone.origin)} ${s.ttl} IN SOA ${absolute(s.mname)} ${absolute(s.rname)} ${s.serial} ${s.refresh} ${s.retry} ${s.expire} ${s.minimum}`,
  ];
  for (const set of sortRRSets(zone.rrsets)) {
    let text = cache?.get(set);
    if (text === undefined) {
      const owner = `${absolute(set.name)} ${set.ttl} IN ${set.type} `;
      text = [...new Set(set.rdata)]
        .sort()
        .map((rdata) => `${owner}${formatRdata(set.type, rdata)}`)
        .join('\n');
      cache?.set(set, text);
    }
    lines.push(text);
  }
  return `${lines.join('\n')}\n`;
}

/** Sorts sets by DNS name (labels compared right to left), then type, so output is stable. */
export function sortRRSets(rrsets: readonly RRSet[]): RRSet[] {
  const keyed = rrsets.map((set) => ({ set, key: nameSortKey(set.name), type: RR_TYPES.indexOf(set.type) }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.type - b.type));
  return keyed.map((k) => k.set);
}

/**
 * Labels right to left, joined by NUL: NUL sorts below every label character, so comparing the
 * keys as strings compares the names label by label with a parent before its children.
 */
function nameSortKey(name: string): string {
  return name.split('.').reverse().join('\u0000');
}

export function compareNames(a: string, b: string): number {
  const ka = nameSortKey(a);
  const kb = nameSortKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** A CNAME that shares its name with other data (or sits at the apex), as BIND rejects it. */
export function findCnameConflict(zone: ZoneContent): { name: string; message: string } | undefined {
  const typesByName = new Map<string, RRType[]>();
  for (const set of zone.rrsets) typesByName.set(set.name, [...(typesByName.get(set.name) ?? []), set.type]);
  for (const set of zone.rrsets) {
    if (set.type !== 'CNAME') continue;
    if (set.rdata.length > 1) return { name: set.name, message: `${set.name} has ${set.rdata.length} CNAME records; only one is allowed` };
    if (set.name === zone.origin) return { name: set.name, message: `CNAME at the zone apex ${set.name} conflicts with its SOA and NS records` };
    const others = (typesByName.get(set.name) ?? []).filter((t) => t !== 'CNAME');
    if (others.length > 0) return { name: set.name, message: `CNAME at ${set.name} conflicts with its ${others.join(', ')} records (CNAME and other data)` };
  }
  return undefined;
}

/**
 * Splits text into character-strings of at most 255 bytes (UTF-8) and quotes each with escapes,
 * so the output is plain ASCII whatever the text holds.
 */
export function quoteTxt(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === 0) return '""';
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += MAX_CHARACTER_STRING) parts.push(quoteBytes(bytes.subarray(i, i + MAX_CHARACTER_STRING)));
  return parts.join(' ');
}

function quoteBytes(bytes: Uint8Array): string {
  let out = '"';
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\${b.toString().padStart(3, '0')}`;
  }
  return `${out}"`;
}

function absolute(name: string): string {
  return name === '' || name === '.' ? '.' : `${name}.`;
}

function formatRdata(type: RRType, rdata: string): string {
  const f = rdata.split(' ');
  switch (type) {
    case 'NS':
    case 'CNAME':
    case 'DNAME':
    case 'PTR':
      return absolute(rdata);
    case 'MX':
      return `${f[0]} ${absolute(f.slice(1).join(' '))}`;
    case 'SRV':
      return `${f[0]} ${f[1]} ${f[2]} ${absolute(f.slice(3).join(' '))}`;
    case 'CAA':
      return `${f[0]} ${f[1]} ${quoteBytes(Buffer.from(f.slice(2).join(' '), 'utf8'))}`;
    case 'TXT':
      return quoteTxt(rdata);
    default:
      return rdata;
  }
}

type Fail = (line: number, message: string) => never;

function parseName(token: Token, origin: string, fail: Fail): string {
  if (token.quoted) return fail(token.line, `expected a name, got a quoted string`);
  const text = token.text;
  if (text === '@') return origin;
  if (text === '.') return '';
  if (text.includes('\\')) return fail(token.line, `escaped characters in names are not supported: ${text}`);
  const full = text.endsWith('.') ? text.slice(0, -1) : origin === '' ? text : `${text}.${origin}`;
  try {
    // `*` inside a label is data (the ownership TXT `a-*.apps` external-dns writes), as in BIND.
    return normalizeRecordName(full);
  } catch (err) {
    return fail(token.line, (err as Error).message);
  }
}

function isTtlText(text: string): boolean {
  return /^\d+$/.test(text) || /^(\d+[wdhms])+$/i.test(text);
}

const UNIT_SECONDS: Readonly<Record<string, number>> = { w: 604800, d: 86400, h: 3600, m: 60, s: 1 };

function parseTtl(token: Token, fail: Fail): number {
  if (token.quoted || !isTtlText(token.text)) return fail(token.line, `invalid time value ${JSON.stringify(token.text)}`);
  let total = 0;
  if (/^\d+$/.test(token.text)) total = Number(token.text);
  else for (const m of token.text.matchAll(/(\d+)([wdhms])/gi)) total += Number(m[1]) * (UNIT_SECONDS[(m[2] ?? 's').toLowerCase()] ?? 1);
  if (total > MAX_TTL) fail(token.line, `time value ${token.text} is larger than ${MAX_TTL}`);
  return total;
}

function parseSoa(tokens: Token[], origin: string, ttl: number | undefined, fail: Fail, line: number): SOA {
  if (tokens.length !== 7) return fail(line, `SOA needs 7 fields (mname rname serial refresh retry expire minimum), got ${tokens.length}`);
  const [mname, rname, serial, refresh, retry, expire, minimum] = tokens as [Token, Token, Token, Token, Token, Token, Token];
  if (serial.quoted || !/^\d+$/.test(serial.text) || Number(serial.text) > 0xffffffff) fail(line, `invalid SOA serial ${serial.text}`);
  const minimumSeconds = parseTtl(minimum, fail);
  return {
    mname: parseName(mname, origin, fail),
    rname: parseName(rname, origin, fail),
    serial: Number(serial.text),
    refresh: parseTtl(refresh, fail),
    retry: parseTtl(retry, fail),
    expire: parseTtl(expire, fail),
    minimum: minimumSeconds,
    ttl: ttl ?? minimumSeconds,
  };
}

function parseRdata(type: Exclude<RRType, 'SOA'>, tokens: Token[], origin: string, fail: (message: string) => never): string {
  const want = (n: number, shape: string): void => {
    if (tokens.length !== n || tokens.some((t) => t.quoted)) fail(`${type} needs ${shape}, got ${describe(tokens)}`);
  };
  const name = (t: Token, allowRoot: boolean): string => {
    const n = parseName(t, origin, (_line, message) => fail(message));
    if (n === '' && !allowRoot) fail(`${type} target cannot be the root name`);
    return n === '' ? '.' : n;
  };
  const uint = (t: Token, max: number, what: string): number => {
    if (!/^\d+$/.test(t.text) || Number(t.text) > max) fail(`invalid ${what} ${JSON.stringify(t.text)}`);
    return Number(t.text);
  };
  const [a, b, c, d] = tokens;
  switch (type) {
    case 'A':
      want(1, 'an IPv4 address');
      if (!isIPv4(a?.text ?? '')) fail(`invalid IPv4 address ${JSON.stringify(a?.text)}`);
      return a?.text ?? '';
    case 'AAAA':
      want(1, 'an IPv6 address');
      if (!isIPv6(a?.text ?? '')) fail(`invalid IPv6 address ${JSON.stringify(a?.text)}`);
      return canonicalTarget('AAAA', a?.text ?? '');
    case 'NS':
    case 'CNAME':
    case 'DNAME':
    case 'PTR':
      want(1, 'one host name');
      return name(a as Token, false);
    case 'NAPTR':
      return parseNaptrRdata(tokens, (t) => name(t, true), fail);
    case 'MX':
      want(2, '"<preference> <host>"');
      return `${uint(a as Token, 65535, 'MX preference')} ${name(b as Token, true)}`;
    case 'SRV':
      want(4, '"<priority> <weight> <port> <host>"');
      return `${uint(a as Token, 65535, 'SRV priority')} ${uint(b as Token, 65535, 'SRV weight')} ${uint(c as Token, 65535, 'SRV port')} ${name(d as Token, true)}`;
    case 'CAA': {
      if (tokens.length !== 3 || a?.quoted === true || b?.quoted === true) fail(`CAA needs "<flags> <tag> <value>", got ${describe(tokens)}`);
      if (!/^[A-Za-z0-9]+$/.test(b?.text ?? '')) fail(`invalid CAA tag ${JSON.stringify(b?.text)}`);
      return `${uint(a as Token, 255, 'CAA flags')} ${b?.text ?? ''} ${decodeText(c?.bytes ?? new Uint8Array())}`;
    }
    case 'TXT': {
      if (tokens.length === 0) fail('TXT needs at least one string');
      const tooLong = tokens.find((t) => t.bytes.length > MAX_CHARACTER_STRING);
      if (tooLong !== undefined) fail(`TXT string of ${tooLong.bytes.length} bytes is longer than ${MAX_CHARACTER_STRING}; split it into several strings`);
      // Several character-strings form one logical value, as external-dns and DKIM expect.
      return decodeText(Buffer.concat(tokens.map((t) => t.bytes)));
    }
  }
}

/** NAPTR `<order> <preference> <flags> <service> <regexp> <replacement>`; the strings may be bare words. */
function parseNaptrRdata(tokens: Token[], name: (t: Token) => string, fail: (message: string) => never): string {
  const [order, preference, flags, service, regexp, replacement] = tokens;
  if (tokens.length !== 6 || order?.quoted === true || preference?.quoted === true || replacement === undefined) {
    return fail(`NAPTR needs "<order> <preference> <flags> <service> <regexp> <replacement>", got ${describe(tokens)}`);
  }
  const host = name(replacement);
  const strings = [flags, service, regexp].map((t) => quoteNaptrString(t?.bytes ?? new Uint8Array()));
  const n = parseNaptr(`${order?.text ?? ''} ${preference?.text ?? ''} ${strings.join(' ')} ${absolute(host)}`);
  if (typeof n === 'string') return fail(`NAPTR ${n}`);
  return formatNaptr(n);
}

/** Text is kept as UTF-8; bytes that are not valid UTF-8 become U+FFFD. */
function decodeText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes);
}

function describe(tokens: readonly Token[]): string {
  return tokens.length === 0 ? 'nothing' : tokens.map((t) => (t.quoted ? JSON.stringify(t.text) : t.text)).join(' ');
}

// ---- lexer ----

/** One word of a record; `bytes` is the decoded value (escapes resolved, UTF-8 encoded). */
interface Token {
  text: string;
  quoted: boolean;
  bytes: Uint8Array;
  line: number;
}

/** One logical record: physical lines joined inside parentheses, comments dropped. */
interface Entry {
  line: number;
  blankOwner: boolean;
  tokens: Token[];
}

function* tokenize(text: string, fail: Fail): Generator<Entry> {
  let line = 1;
  let depth = 0;
  let entry: Entry | undefined;
  let i = 0;
  let lineStart = true;
  while (i < text.length) {
    const ch = text[i] ?? '';
    if (lineStart && depth === 0) {
      if (entry !== undefined && entry.tokens.length > 0) yield entry;
      entry = { line, blankOwner: ch === ' ' || ch === '\t', tokens: [] };
    }
    lineStart = false;
    if (ch === '\n') {
      line++;
      lineStart = true;
      i++;
    } else if (ch === ' ' || ch === '\t' || ch === '\r') {
      i++;
    } else if (ch === ';') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (ch === '(') {
      depth++;
      i++;
    } else if (ch === ')') {
      if (depth === 0) fail(line, 'unbalanced ")"');
      depth--;
      i++;
    } else {
      const quoted = ch === '"';
      const start = line;
      const read = readWord(
        text,
        quoted ? i + 1 : i,
        quoted,
        () => fail(start, 'unterminated quoted string'),
        (m) => fail(start, m),
      );
      entry?.tokens.push({ text: read.text, quoted, bytes: read.bytes, line: start });
      i = read.end;
    }
  }
  if (depth > 0) fail(entry?.line ?? line, 'unbalanced "(": missing ")" before the end of the file');
  if (entry !== undefined && entry.tokens.length > 0) yield entry;
}

/** Reads a quoted string (from after the opening quote) or a bare word, resolving escapes. */
function readWord(
  text: string,
  from: number,
  quoted: boolean,
  unterminated: () => never,
  fail: (m: string) => never,
): { text: string; bytes: Uint8Array; end: number } {
  const chunks: Buffer[] = [];
  let segmentStart = from;
  let i = from;
  let contentEnd: number;
  for (;;) {
    const ch = text[i];
    if (ch === undefined || ch === '\n') {
      if (quoted) unterminated();
      contentEnd = i;
      break;
    }
    if (quoted && ch === '"') {
      contentEnd = i;
      i++;
      break;
    }
    if (!quoted && (ch === ' ' || ch === '\t' || ch === '\r' || ch === ';' || ch === '(' || ch === ')' || ch === '"')) {
      contentEnd = i;
      break;
    }
    if (ch !== '\\') {
      i++;
      continue;
    }
    if (i > segmentStart) chunks.push(Buffer.from(text.slice(segmentStart, i), 'utf8'));
    const digits = /^\d{3}/.exec(text.slice(i + 1, i + 4));
    if (digits !== null) {
      const value = Number(digits[0]);
      if (value > 255) fail(`escape \\${digits[0]} is larger than 255`);
      chunks.push(Buffer.from([value]));
      i += 4;
      segmentStart = i;
      continue;
    }
    const next = text[i + 1];
    if (next === undefined || next === '\n') fail('backslash at the end of a line');
    // `\X` stands for X itself: it simply starts the next literal segment.
    segmentStart = i + 1;
    i += 2;
  }
  if (contentEnd > segmentStart) chunks.push(Buffer.from(text.slice(segmentStart, contentEnd), 'utf8'));
  const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  return { text: text.slice(from, contentEnd), bytes, end: i };
}
