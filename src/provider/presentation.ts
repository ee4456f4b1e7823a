/**
 * Zone-file presentation format shared by providers whose APIs speak it (PowerDNS, Cloud DNS,
 * Route53 TXT values): absolute names with a trailing dot, TXT content as quoted 255-byte strings
 * with escapes. Endpoints carry neither, so both directions convert here.
 */
import { canonicalTarget } from '../endpoint/endpoint.ts';
import type { RecordType } from '../endpoint/endpoint.ts';
import { isInZone } from '../endpoint/name.ts';
import { canonicalNaptr } from '../endpoint/naptr.ts';
import { quoteTxt } from '../dns/master-file.ts';

export function absoluteName(name: string): string {
  return name.endsWith('.') ? name : `${name}.`;
}

/**
 * Parses TXT presentation content (`"a" "b"`, escapes `\"`, `\\` and `\DDD`) and joins the
 * character-strings, which is how external-dns reads a value split at 255 bytes.
 */
export function parseTxtContent(content: string): string {
  const bytes: number[] = [];
  let i = 0;
  const s = content;
  while (i < s.length) {
    const c = s[i];
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    const quoted = c === '"';
    if (quoted) i++;
    while (i < s.length) {
      const ch = s[i] as string;
      if (quoted ? ch === '"' : ch === ' ' || ch === '\t') break;
      if (ch === '\\' && i + 1 < s.length) {
        const digits = /^\d{3}/.exec(s.slice(i + 1, i + 4));
        if (digits !== null) {
          bytes.push(Number(digits[0]) & 0xff);
          i += 4;
        } else {
          bytes.push(...Buffer.from(s[i + 1] as string, 'utf8'));
          i += 2;
        }
        continue;
      }
      bytes.push(...Buffer.from(ch, 'utf8'));
      i++;
    }
    if (quoted) i++;
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Presentation content for one endpoint target. */
export function toPresentation(recordType: RecordType, target: string): string {
  switch (recordType) {
    case 'TXT':
      return quoteTxt(canonicalTarget('TXT', target));
    case 'CNAME':
    case 'DNAME':
    case 'NS':
    case 'PTR':
      return absoluteName(canonicalTarget(recordType, target.trim()));
    case 'NAPTR':
      // Already presentation text; the canonical spelling quotes every string and ends the replacement in a dot.
      return canonicalNaptr(target) ?? target.trim();
    case 'MX':
    case 'SRV': {
      const fields = target.trim().split(/\s+/);
      const host = fields.pop() ?? '';
      return [...fields, host === '.' ? '.' : absoluteName(canonicalTarget(recordType, host))].join(' ');
    }
    default:
      return target.trim();
  }
}

/** Endpoint target for presentation content: TXT unquoted, hostnames without the trailing dot. */
export function fromPresentation(recordType: RecordType, content: string): string {
  switch (recordType) {
    case 'TXT':
      return parseTxtContent(content);
    case 'CNAME':
    case 'DNAME':
    case 'NS':
    case 'PTR':
      return canonicalTarget(recordType, content);
    case 'NAPTR':
      return canonicalNaptr(content) ?? content;
    case 'MX':
    case 'SRV': {
      const fields = content.trim().split(/\s+/);
      const host = fields.pop() ?? '';
      return [...fields, host === '.' ? '.' : canonicalTarget(recordType, host)].join(' ');
    }
    default:
      return content;
  }
}

/** The zone holding `name`: the longest of `zones` (normalised, no trailing dot) that contains it. */
export function zoneOf(name: string, zones: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const zone of zones) if (isInZone(name, zone) && (best === undefined || zone.length > best.length)) best = zone;
  return best;
}
