/**
 * Encryption of ownership TXT values, compatible with external-dns's --txt-encrypt-enabled:
 * the label text is gzip-compressed, sealed with AES-256-GCM under a 12-byte nonce and written
 * as base64(nonce || ciphertext || tag). The nonce is handed back on decryption so that
 * re-encrypting unchanged labels yields the same value and providers see no change.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { constants as zlibConstants, crc32, deflateRawSync, gunzipSync } from 'node:zlib';
import { ConfigError, RegistryError, errorMessage } from '../../errors.ts';

export const AES_KEY_BYTES = 32;
export const GCM_NONCE_BYTES = 12;
const GCM_TAG_BYTES = 16;
const AES_KEY_FLAG = '--txt-encrypt-aes-key';

/**
 * Accepts what external-dns accepts for --txt-encrypt-aes-key: exactly 32 characters used as
 * raw bytes, or the base64 (standard or URL alphabet) encoding of 32 bytes.
 */
export function parseAesKey(value: string): Buffer {
  const raw = Buffer.from(value, 'utf8');
  if (raw.length === AES_KEY_BYTES) return raw;
  const text = value.trim();
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) {
    const decoded = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (decoded.length === AES_KEY_BYTES) return decoded;
  }
  throw new ConfigError(`${AES_KEY_FLAG} must be ${AES_KEY_BYTES} bytes long, as plain text or base64-encoded (got ${raw.length} characters)`, AES_KEY_FLAG);
}

/** A fresh random nonce, base64-encoded as it is kept in the txt-encryption-nonce label. */
export function generateNonce(): string {
  return randomBytes(GCM_NONCE_BYTES).toString('base64');
}

/** The nonce bytes of a label value, or undefined when it is not base64 of 12 bytes. */
export function decodeNonce(nonce: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(nonce)) return undefined;
  const bytes = Buffer.from(nonce, 'base64');
  return bytes.length === GCM_NONCE_BYTES ? bytes : undefined;
}

/** Encrypts `text`; with `nonce` (base64) the result is deterministic. */
export function encryptText(text: string, key: Buffer, nonce?: string): string {
  checkKey(key);
  const nonceBytes = nonce === undefined ? randomBytes(GCM_NONCE_BYTES) : decodeNonce(nonce);
  if (nonceBytes === undefined) throw new RegistryError(`encryption nonce ${JSON.stringify(nonce)} is not base64 of ${GCM_NONCE_BYTES} bytes`);
  const cipher = createCipheriv('aes-256-gcm', key, nonceBytes);
  const sealed = Buffer.concat([cipher.update(goGzip(Buffer.from(text, 'utf8'))), cipher.final(), cipher.getAuthTag()]);
  return Buffer.concat([nonceBytes, sealed]).toString('base64');
}

/** Decrypts a value written by encryptText or external-dns; throws RegistryError on any failure. */
export function decryptText(text: string, key: Buffer): { text: string; nonce: string } {
  checkKey(key);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new RegistryError('encrypted TXT value is not base64');
  const data = Buffer.from(text, 'base64');
  if (data.length <= GCM_NONCE_BYTES + GCM_TAG_BYTES) throw new RegistryError('encrypted TXT value is too short');
  const nonce = data.subarray(0, GCM_NONCE_BYTES);
  const tag = data.subarray(data.length - GCM_TAG_BYTES);
  let plain: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce);
    decipher.setAuthTag(tag);
    plain = Buffer.concat([decipher.update(data.subarray(GCM_NONCE_BYTES, data.length - GCM_TAG_BYTES)), decipher.final()]);
  } catch (err) {
    throw new RegistryError(`TXT value could not be decrypted (wrong --txt-encrypt-aes-key?): ${errorMessage(err)}`, { cause: err });
  }
  try {
    return { text: gunzipSync(plain).toString('utf8'), nonce: nonce.toString('base64') };
  } catch (err) {
    throw new RegistryError(`decrypted TXT value is not gzip data: ${errorMessage(err)}`, { cause: err });
  }
}

function checkKey(key: Buffer): void {
  if (key.length !== AES_KEY_BYTES) throw new RegistryError(`AES key must be ${AES_KEY_BYTES} bytes, got ${key.length}`);
}

/**
 * Gzip framed the way Go's gzip.Writer at BestCompression frames it after Flush and Close
 * (XFL 2, OS "unknown", a sync-flush marker, then an empty final block). zlib and Go produce
 * the same deflate stream for short label texts, so values come out byte-identical to
 * external-dns's and re-encrypting one it wrote does not change it.
 */
function goGzip(data: Buffer): Buffer {
  const header = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff]);
  const body = deflateRawSync(data, { level: 9, finishFlush: zlibConstants.Z_SYNC_FLUSH });
  const finalBlock = Buffer.from([0x03, 0x00]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(data) >>> 0, 0);
  trailer.writeUInt32LE(data.length >>> 0, 4);
  return Buffer.concat([header, body, finalBlock, trailer]);
}
