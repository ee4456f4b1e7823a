/**
 * DNS name normalisation shared by sources, filters and providers: lower case, no trailing dot,
 * internationalised labels as punycode (IDNA), and a leading `*` label kept for wildcards.
 */
import { domainToASCII } from 'node:url';
import { InvalidEndpointError } from '../errors.ts';

export const MAX_NAME_LENGTH = 253;
export const MAX_LABEL_LENGTH = 63;

/** Lower-cases, strips one trailing dot and converts to punycode; throws on invalid names. */
export function normalizeDnsName(input: string): string {
  const trimmed = input.trim();
  const noDot = trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed;
  if (noDot === '') throw new InvalidEndpointError(`invalid DNS name ${JSON.stringify(input)}: empty`);
  // domainToASCII returns '' for names it rejects (spaces, bad punycode, …).
  const ascii = /^[\x21-\x7e]*$/.test(noDot) ? noDot.toLowerCase() : domainToASCII(noDot);
  if (ascii === '') throw new InvalidEndpointError(`invalid DNS name ${JSON.stringify(input)}: not a valid internationalised name`);
  checkName(ascii, input);
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

function checkName(name: string, original: string): void {
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
    if (label === '*') {
      if (i !== 0) throw new InvalidEndpointError(`invalid DNS name ${quoted}: "*" is only allowed as the first label`);
      return;
    }
    // Letters, digits, hyphen and underscore (for _service._proto names); no hyphen at either end.
    if (!/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/.test(label)) {
      throw new InvalidEndpointError(`invalid DNS name ${quoted}: label "${label}" has characters outside [a-z0-9-_] or starts/ends with "-"`);
    }
  });
}

/** True when `name` equals `zone` or is below it (both normalised). */
export function isInZone(name: string, zone: string): boolean {
  // Called per record by providers, so no string is built: "below" means a dot right before the zone.
  return name === zone || (name.length > zone.length && name.endsWith(zone) && name.charCodeAt(name.length - zone.length - 1) === 0x2e);
}
