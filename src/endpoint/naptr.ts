/**
 * NAPTR targets (RFC 3403): `<order> <preference> "<flags>" "<service>" "<regexp>" <replacement>`,
 * the record's presentation form, which is what external-dns endpoints carry and what Route53,
 * Cloud DNS, PowerDNS and BIND accept and return. The canonical form quotes the three
 * character-strings and writes the replacement lower case and absolute (trailing dot; `.` for
 * none), as external-dns requires of DNSEndpoint targets, so a value read back from any provider
 * compares equal to the one written.
 */

export interface Naptr {
  order: number;
  preference: number;
  /** The character-strings as raw bytes (escapes decoded). */
  flags: Uint8Array;
  service: Uint8Array;
  regexp: Uint8Array;
  /** Lower case, without the trailing dot; '' is the root (no replacement). */
  replacement: string;
}

export const NAPTR_SYNTAX = '<order> <preference> "<flags>" "<service>" "<regexp>" <replacement>.';

/** Parses a NAPTR target; the error says what is wrong, for the caller to prefix with the endpoint. */
export function parseNaptr(target: string): Naptr | string {
  const words = splitWords(target);
  if (typeof words === 'string') return words;
  if (words.length !== 6) return `has ${words.length} fields, expected 6`;
  const [order, preference, flags, service, regexp, replacement] = words as [Word, Word, Word, Word, Word, Word];
  const o = uint16(order);
  const p = uint16(preference);
  if (o === undefined) return `order ${JSON.stringify(order.text)} is not a number from 0 to 65535`;
  if (p === undefined) return `preference ${JSON.stringify(preference.text)} is not a number from 0 to 65535`;
  for (const [what, w] of [
    ['flags', flags],
    ['service', service],
    ['regexp', regexp],
  ] as const) {
    if (w.bytes.length > 255) return `${what} is longer than 255 bytes`;
  }
  if (!flags.bytes.every((b) => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a))) {
    return `flags ${JSON.stringify(flags.text)} may hold only letters and digits (RFC 3403)`;
  }
  if (replacement.quoted) return `replacement ${JSON.stringify(replacement.text)} must be a domain name, not a quoted string`;
  const rep = replacement.text.toLowerCase();
  if (!rep.endsWith('.')) return `replacement ${JSON.stringify(replacement.text)} must be an absolute name ending in "." (use "." for none)`;
  const name = rep.slice(0, -1);
  if (name !== '' && !validName(name)) return `replacement ${JSON.stringify(replacement.text)} is not a valid domain name`;
  // RFC 3403 makes regexp and replacement mutually exclusive, but external-dns, BIND and PowerDNS
  // accept both; Route53 refuses such a record itself, naming it.
  return { order: o, preference: p, flags: flags.bytes, service: service.bytes, regexp: regexp.bytes, replacement: name };
}

export function formatNaptr(n: Naptr): string {
  return `${n.order} ${n.preference} ${quoteBytes(n.flags)} ${quoteBytes(n.service)} ${quoteBytes(n.regexp)} ${n.replacement}.`;
}

/** The canonical spelling of a NAPTR target, or undefined when it is not one. */
export function canonicalNaptr(target: string): string | undefined {
  const n = parseNaptr(target);
  return typeof n === 'string' ? undefined : formatNaptr(n);
}

/** A character-string in presentation quotes: `"` and `\` escaped, bytes outside printable ASCII as \DDD. */
export function quoteBytes(bytes: Uint8Array): string {
  let out = '"';
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\${String(b).padStart(3, '0')}`;
  }
  return `${out}"`;
}

interface Word {
  text: string;
  bytes: Uint8Array;
  quoted: boolean;
}

/** Splits presentation text into words: quoted strings or runs without blanks, escapes decoded. */
function splitWords(s: string): Word[] | string {
  const out: Word[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i] as string;
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    const quoted = c === '"';
    const start = i;
    if (quoted) i++;
    const bytes: number[] = [];
    let closed = !quoted;
    while (i < s.length) {
      const ch = s[i] as string;
      if (quoted && ch === '"') {
        closed = true;
        i++;
        break;
      }
      if (!quoted && (ch === ' ' || ch === '\t' || ch === '"')) break;
      if (ch === '\\') {
        const digits = /^\d{3}/.exec(s.slice(i + 1, i + 4));
        if (digits !== null) {
          const v = Number(digits[0]);
          if (v > 255) return `escape \\${digits[0]} is not a byte`;
          bytes.push(v);
          i += 4;
          continue;
        }
        if (i + 1 >= s.length) return 'ends in a lone backslash';
        bytes.push(...Buffer.from(s[i + 1] as string, 'utf8'));
        i += 2;
        continue;
      }
      bytes.push(...Buffer.from(ch, 'utf8'));
      i++;
    }
    if (!closed) return 'has an unterminated quoted string';
    out.push({ text: s.slice(start, i), bytes: Uint8Array.from(bytes), quoted });
  }
  return out;
}

function uint16(w: Word): number | undefined {
  if (w.quoted || !/^\d{1,5}$/.test(w.text)) return undefined;
  const n = Number(w.text);
  return n <= 65535 ? n : undefined;
}

function validName(name: string): boolean {
  if (name.length > 253) return false;
  return name.split('.').every((l) => l.length > 0 && l.length <= 63 && /^[a-z0-9_*-]+$/.test(l));
}
