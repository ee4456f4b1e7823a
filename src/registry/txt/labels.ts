/**
 * The ownership TXT value format shared with external-dns:
 * `"heritage=external-dns,external-dns/owner=<id>,external-dns/resource=<kind/ns/name>"`
 * (keys sorted, optionally quoted, optionally encrypted). A value without
 * `heritage=external-dns` is an ordinary TXT record, not ownership metadata.
 */
import { LABEL_ENCRYPTION_NONCE } from '../../endpoint/endpoint.ts';
import type { Labels } from '../../endpoint/endpoint.ts';
import { RegistryError } from '../../errors.ts';
import { decodeNonce, decryptText, encryptText, generateNonce } from './encryption.ts';

export const HERITAGE = 'external-dns';
const HERITAGE_KEY = 'heritage';

/** Plain serialisation; the encryption nonce label is never written in clear text. */
export function serializeLabels(labels: Readonly<Labels>, withQuotes = true): string {
  const tokens = [`${HERITAGE_KEY}=${HERITAGE}`];
  for (const key of Object.keys(labels).sort(compareBytes)) {
    if (key === LABEL_ENCRYPTION_NONCE) continue;
    tokens.push(`${HERITAGE}/${key}=${labels[key] ?? ''}`);
  }
  const text = tokens.join(',');
  return withQuotes ? `"${text}"` : text;
}

/**
 * Parses a plain value (quoted or not). Returns undefined when there is no heritage or it is
 * not external-dns; unknown tokens and tokens without '=' are skipped as external-dns does.
 */
export function parseLabels(text: string): Labels | undefined {
  const labels: Labels = {};
  let heritageFound = false;
  for (const token of trimQuotes(text).split(',')) {
    const eq = token.indexOf('=');
    if (eq < 0) continue;
    const key = token.slice(0, eq);
    const value = token.slice(eq + 1);
    if (key === HERITAGE_KEY) {
      if (value !== HERITAGE) return undefined;
      heritageFound = true;
      continue;
    }
    if (key.startsWith(HERITAGE)) {
      labels[key.startsWith(`${HERITAGE}/`) ? key.slice(HERITAGE.length + 1) : key] = value;
    }
  }
  return heritageFound ? labels : undefined;
}

/** Like parseLabels but throws a RegistryError naming the value. */
export function parseLabelsOrThrow(text: string): Labels {
  const labels = parseLabels(text);
  if (labels === undefined) throw new RegistryError(`TXT value ${JSON.stringify(text)} is not heritage=${HERITAGE} ownership data`);
  return labels;
}

/**
 * Reads an ownership value written with or without encryption. With a key, decryption is tried
 * first and the nonce is returned in the txt-encryption-nonce label; a value that does not
 * decrypt is read as plain text, since registries switch encryption on while holding plain values.
 */
export function decodeOwnershipValue(text: string, aesKey: Buffer | undefined): Labels | undefined {
  if (aesKey !== undefined) {
    let decrypted: { text: string; nonce: string } | undefined;
    try {
      decrypted = decryptText(trimQuotes(text), aesKey);
    } catch {
      decrypted = undefined;
    }
    if (decrypted !== undefined) {
      const labels = parseLabels(decrypted.text);
      if (labels !== undefined) labels[LABEL_ENCRYPTION_NONCE] = decrypted.nonce;
      return labels;
    }
  }
  return parseLabels(text);
}

/**
 * Writes an ownership value, quoted. With `encryptKey` the value is encrypted, reusing the
 * nonce from the labels when it is usable so that the value stays stable between syncs.
 */
export function encodeOwnershipValue(labels: Readonly<Labels>, encryptKey: Buffer | undefined): string {
  if (encryptKey === undefined) return serializeLabels(labels, true);
  const kept = labels[LABEL_ENCRYPTION_NONCE];
  const nonce = kept !== undefined && decodeNonce(kept) !== undefined ? kept : generateNonce();
  return `"${encryptText(serializeLabels(labels, false), encryptKey, nonce)}"`;
}

/** True when the value is probably ciphertext (base64 of more than nonce plus tag). */
export function looksEncrypted(text: string): boolean {
  const bare = trimQuotes(text);
  return bare.length >= 40 && /^[A-Za-z0-9+/]+={0,2}$/.test(bare);
}

/** Go's strings.Trim(s, `"`): every leading and trailing double quote goes. */
function trimQuotes(text: string): string {
  return text.replace(/^"+|"+$/g, '');
}

/** Byte-wise order, as Go's sort.Strings, rather than locale order. */
function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
