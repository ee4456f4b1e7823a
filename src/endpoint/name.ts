/**
 * DNS name normalisation shared by sources, filters and providers: lower case, no trailing dot,
 * internationalised labels as punycode (IDNA), and a leading `*` label kept for wildcards.
 *
 * Two rule sets: hostnames (what sources publish) allow `*` only as the whole first label;
 * record names (what registries write and providers store) also carry `*` as ordinary data
 * inside or as any label, because external-dns names the ownership TXT of `*.apps.example.org`
 * `a-*.apps.example.org` (RFC 4592: only a leftmost label that is exactly `*` is a wildcard).
 */
import { domainToASCII } from 'node:url';
import { InvalidEndpointError } from '../errors.ts';

export const MAX_NAME_LENGTH = 253;
export const MAX_LABEL_LENGTH = 63;

/** Lower-cases, strips one trailing dot and converts to punycode; throws on invalid names. */
export function normalizeDnsName(input: string): string {
  return normalize(input, false);
}

/** Like normalizeDnsName, but `*` is ordinary data anywhere in a label (record names, see above). */
export function normalizeRecordName(input: string): string {
  return normalize(input, true);
}

/** Like normalizeRecordName but returns undefined instead of throwing. */
export function tryNormalizeRecordName(input: string): string | undefined {
  try {
    return normalizeRecordName(input);
  } catch {
    return undefined;
  }
}

/** True when a name is a wildcard (RFC 4592): its leftmost label is exactly `*`. */
export function isWildcardName(name: string): boolean {
  return name === '*' || name.startsWith('*.');
}

/**
 * True when `*` appears anywhere but as the whole leftmost label (`a-*.apps`, `txt.*.apps`):
 * fine in DNS, but refused by providers whose APIs allow `*` only for wildcards (PowerDNS, Azure).
 */
export function hasStarAsData(name: string): boolean {
  return (isWildcardName(name) ? name.slice(1) : name).includes('*');
}

function normalize(input: string, starIsData: boolean): string {
  const trimmed = input.trim();
  const noDot = trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed;
  if (noDot === '') throw new InvalidEndpointError(`invalid DNS name ${JSON.stringify(input)}: empty`);
  // domainToASCII returns '' for names it rejects (spaces, bad punycode, …).
  const ascii = /^[\x21-\x7e]*$/.test(noDot) ? noDot.toLowerCase() : domainToASCII(noDot);
  if (ascii === '') throw new InvalidEndpointError(`invalid DNS name ${JSON.stringify(input)}: not a valid internationalised name`);
  checkName(ascii, input, starIsData);
  return ascii;
}

/** Like normalizeDnsName but returns undefined instead of throwing. */
export function tryNormalizeDnsName(input: string): string | undefined {
  try {
    return normalizeDnsName(input);
  } catch {
    return undefined;
  }
}

const HOST_LABEL = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/;
const RECORD_LABEL = /^[a-z0-9_*]([a-z0-9_*-]*[a-z0-9_*])?$/;

function checkName(name: string, original: string, starIsData: boolean): void {
  const quoted = JSON.stringify(original);
  if (name.length > MAX_NAME_LENGTH) {
    throw new InvalidEndpointError(`invalid DNS name ${quoted}: longer than ${MAX_NAME_LENGTH} characters`);
  }
  const labels = name.split('.');
  labels.forEach((label, i) => {
    if (label === '') throw new InvalidEndpointError(`invalid DNS name ${quoted}: empty label`);
    if (label.length > MAX_LABEL_LENGTH) {
      throw new InvalidEndpointError(`invalid DNS name ${quoted}: label "${label}" is longer than ${MAX_LABEL_LENGTH} characters`);
    }
    if (label === '*' && !starIsData) {
      if (i !== 0) throw new InvalidEndpointError(`invalid DNS name ${quoted}: "*" is only allowed as the first label`);
      return;
    }
    // Letters, digits, hyphen and underscore (for _service._proto names); no hyphen at either end.
    if (!(starIsData ? RECORD_LABEL : HOST_LABEL).test(label)) {
      throw new InvalidEndpointError(`invalid DNS name ${quoted}: label "${label}" has characters outside [a-z0-9-_] or starts/ends with "-"`);
    }
  });
}

/** True when `name` equals `zone` or is below it (both normalised). */
export function isInZone(name: string, zone: string): boolean {
  // Called per record by providers, so no string is built: "below" means a dot right before the zone.
  return name === zone || (name.length > zone.length && name.endsWith(zone) && name.charCodeAt(name.length - zone.length - 1) === 0x2e);
}
