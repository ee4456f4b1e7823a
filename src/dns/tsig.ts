/**
 * TSIG (RFC 8945): signing and verifying whole DNS messages with a shared HMAC key. Used by the
 * authoritative server for transfers and by RFC 2136 clients for updates, so it works on plain
 * message buffers and knows nothing about either.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../errors.ts';
import { CLASS_ANY, T_TSIG, Writer, readName, skipName } from './wire.ts';

export const TSIG_ALGORITHMS = {
  'hmac-md5': { wire: 'hmac-md5.sig-alg.reg.int', hash: 'md5' },
  'hmac-sha1': { wire: 'hmac-sha1', hash: 'sha1' },
  'hmac-sha224': { wire: 'hmac-sha224', hash: 'sha224' },
  'hmac-sha256': { wire: 'hmac-sha256', hash: 'sha256' },
  'hmac-sha384': { wire: 'hmac-sha384', hash: 'sha384' },
  'hmac-sha512': { wire: 'hmac-sha512', hash: 'sha512' },
} as const;
export type TsigAlgorithm = keyof typeof TSIG_ALGORITHMS;

export interface TsigKey {
  /** Key name, lower case without trailing dot. */
  name: string;
  algorithm: TsigAlgorithm;
  secret: Buffer;
}

/** TSIG error codes (RFC 8945 section 3). */
export const TSIG_BADSIG = 16;
export const TSIG_BADKEY = 17;
export const TSIG_BADTIME = 18;
export const TSIG_BADTRUNC = 22;

export const DEFAULT_FUDGE = 300;

export function isTsigAlgorithm(s: string): s is TsigAlgorithm {
  return Object.hasOwn(TSIG_ALGORITHMS, s);
}

function algorithmFromWire(name: string): TsigAlgorithm | undefined {
  for (const [k, v] of Object.entries(TSIG_ALGORITHMS)) if (v.wire === name) return k as TsigAlgorithm;
  return undefined;
}

/** The form of a TSIG key on the command line: `dig -y`'s, and BIND's order (algorithm, name, secret). */
export const TSIG_KEY_FORM = '[algorithm:]name:base64secret';

/**
 * Parses `[algorithm:]name:base64secret`, the form `dig -y` takes; the algorithm defaults to
 * hmac-sha256. Errors name `flag` and the expected form, and never contain the secret.
 */
export function parseTsigKey(spec: string, flag = '--dns-tsig-key'): TsigKey {
  const parts = spec.split(':');
  const expected = `expected ${TSIG_KEY_FORM}, e.g. hmac-sha256:xfr-key:c2VjcmV0`;
  if (parts.length !== 2 && parts.length !== 3)
    throw new ConfigError(`${flag}: ${expected}; got ${parts.length} ":"-separated field${parts.length === 1 ? '' : 's'}`, flag);
  const [first = '', second = '', secret = ''] = parts.length === 3 ? parts : ['hmac-sha256', ...parts];
  if (parts.length === 3 && !isTsigAlgorithm(first.toLowerCase()) && isTsigAlgorithm(second.toLowerCase())) {
    throw new ConfigError(
      `${flag}: the algorithm comes first, as for dig -y: write ${second}:${first}:<secret>, not name:algorithm:secret (${expected})`,
      flag,
    );
  }
  try {
    return tsigKey(first, second, secret);
  } catch (err) {
    throw new ConfigError(`${flag}: ${(err as Error).message}; ${expected}`, flag);
  }
}

/** A checked key from its parts; messages say which part is wrong and never contain the secret. */
export function tsigKey(algorithm: string, name: string, secret: string): TsigKey {
  const alg = algorithm.toLowerCase();
  if (!isTsigAlgorithm(alg)) throw new ConfigError(`unknown TSIG algorithm ${JSON.stringify(algorithm)} (one of ${Object.keys(TSIG_ALGORITHMS).join(', ')})`);
  let n = name.toLowerCase();
  if (n.endsWith('.')) n = n.slice(0, -1);
  if (n === '') throw new ConfigError('TSIG key name is empty');
  const raw = Buffer.from(secret, 'base64');
  if (raw.length === 0 || !/^[A-Za-z0-9+/]+=*$/.test(secret)) throw new ConfigError(`TSIG secret of key ${JSON.stringify(n)} is not base64`);
  return { name: n, algorithm: alg, secret: raw };
}

export interface SignOptions {
  fudge?: number;
  /** MAC of the request (when signing a response) or of the previous message (later messages). */
  requestMac?: Buffer;
  /** TSIG error to report; with BADKEY/BADSIG the message is sent unsigned (empty MAC). */
  error?: number;
  otherData?: Buffer;
  /** Later messages of a multi-message response digest only the timers (RFC 8945 5.3.1). */
  timersOnly?: boolean;
}

function u48(w: Writer, v: number): void {
  w.u16(Math.floor(v / 0x100000000));
  w.u32(v % 0x100000000);
}

function digest(key: TsigKey, message: Uint8Array, time: number, fudge: number, opts: SignOptions, originalId: number): Buffer {
  const h = createHmac(TSIG_ALGORITHMS[key.algorithm].hash, key.secret);
  if (opts.requestMac !== undefined) {
    const len = Buffer.alloc(2);
    len.writeUInt16BE(opts.requestMac.length);
    h.update(len);
    h.update(opts.requestMac);
  }
  const head = Buffer.from(message.subarray(0, 2));
  head.writeUInt16BE(originalId, 0);
  h.update(head);
  h.update(message.subarray(2));
  const v = new Writer({ initialSize: 128 });
  if (opts.timersOnly === true) {
    u48(v, time);
    v.u16(fudge);
  } else {
    v.name(key.name, false);
    v.u16(CLASS_ANY);
    v.u32(0);
    v.name(TSIG_ALGORITHMS[key.algorithm].wire, false);
    u48(v, time);
    v.u16(fudge);
    v.u16(opts.error ?? 0);
    v.u16(opts.otherData?.length ?? 0);
    if (opts.otherData !== undefined) v.bytes(opts.otherData);
  }
  h.update(v.buf.subarray(0, v.len));
  return h.digest();
}

/**
 * Appends a TSIG record to `message` (whose ID is the original ID) and returns the signed message
 * and its MAC. `time` is in seconds since the epoch.
 */
export function sign(message: Buffer, key: TsigKey, time: number, requestMac?: Buffer, options: SignOptions = {}): { message: Buffer; mac: Buffer } {
  const opts: SignOptions = { ...options, ...(requestMac === undefined ? {} : { requestMac }) };
  const fudge = opts.fudge ?? DEFAULT_FUDGE;
  const t = Math.floor(time);
  const unsigned = opts.error === TSIG_BADKEY || opts.error === TSIG_BADSIG;
  const originalId = message.readUInt16BE(0);
  const mac = unsigned ? Buffer.alloc(0) : digest(key, message, t, fudge, opts, originalId);
  const w = new Writer({ initialSize: message.length + 128 });
  w.bytes(message);
  w.name(key.name, false);
  w.u16(T_TSIG);
  w.u16(CLASS_ANY);
  w.u32(0);
  const lenAt = w.len;
  w.u16(0);
  w.name(TSIG_ALGORITHMS[key.algorithm].wire, false);
  u48(w, t);
  w.u16(fudge);
  w.u16(mac.length);
  w.bytes(mac);
  w.u16(originalId);
  w.u16(opts.error ?? 0);
  w.u16(opts.otherData?.length ?? 0);
  if (opts.otherData !== undefined) w.bytes(opts.otherData);
  w.buf.writeUInt16BE(w.len - lenAt - 2, lenAt);
  const out = w.finish();
  out.writeUInt16BE(message.readUInt16BE(10) + 1, 10);
  return { message: out, mac };
}

export interface TsigRecord {
  /** Offset of the TSIG RR: the message without it is `message.subarray(0, offset)`. */
  offset: number;
  keyName: string;
  algorithmName: string;
  time: number;
  fudge: number;
  mac: Buffer;
  originalId: number;
  error: number;
  otherData: Buffer;
}

/** Finds and decodes the TSIG record (the last record of the message); undefined when absent or malformed. */
export function findTsig(message: Buffer): TsigRecord | undefined {
  if (message.length < 12) return undefined;
  const counts = [message.readUInt16BE(4), message.readUInt16BE(6), message.readUInt16BE(8), message.readUInt16BE(10)];
  const total = counts.reduce((a, b) => a + b, 0);
  if ((counts[3] ?? 0) === 0) return undefined;
  let p = 12;
  for (let i = 0; i < (counts[0] ?? 0); i++) {
    p = skipName(message, p);
    if (p < 0 || p + 4 > message.length) return undefined;
    p += 4;
  }
  let last = -1;
  for (let i = counts[0] ?? 0; i < total; i++) {
    last = p;
    p = skipName(message, p);
    if (p < 0 || p + 10 > message.length) return undefined;
    p += 10 + message.readUInt16BE(p + 8);
    if (p > message.length) return undefined;
  }
  if (last < 0 || p !== message.length) return undefined;
  const owner = readName(message, last);
  if (owner === undefined) return undefined;
  let q = owner.end;
  if (message.readUInt16BE(q) !== T_TSIG) return undefined;
  q += 10;
  const alg = readName(message, q);
  if (alg === undefined) return undefined;
  q = alg.end;
  if (q + 10 > message.length) return undefined;
  const time = message.readUInt16BE(q) * 0x100000000 + message.readUInt32BE(q + 2);
  const fudge = message.readUInt16BE(q + 6);
  const macLen = message.readUInt16BE(q + 8);
  q += 10;
  if (q + macLen + 6 > message.length) return undefined;
  const mac = Buffer.from(message.subarray(q, q + macLen));
  q += macLen;
  const originalId = message.readUInt16BE(q);
  const error = message.readUInt16BE(q + 2);
  const otherLen = message.readUInt16BE(q + 4);
  q += 6;
  if (q + otherLen !== message.length) return undefined;
  return {
    offset: last,
    keyName: owner.name,
    algorithmName: alg.name,
    time,
    fudge,
    mac,
    originalId,
    error,
    otherData: Buffer.from(message.subarray(q, q + otherLen)),
  };
}

export type VerifyResult =
  | { status: 'unsigned' }
  | { status: 'ok'; key: TsigKey; record: TsigRecord }
  | { status: 'error'; error: number; key: TsigKey | undefined; record: TsigRecord };

export interface VerifyOptions {
  /** Current time in seconds. */
  now: number;
  requestMac?: Buffer;
  timersOnly?: boolean;
}

/**
 * Verifies a signed message. `keys` resolves a key name; the algorithm must match too. A response
 * to an `error` result is built with `sign(..., { error })` (BADKEY/BADSIG go unsigned).
 */
export function verify(message: Buffer, keys: (name: string) => TsigKey | undefined, options: VerifyOptions): VerifyResult {
  const rec = findTsig(message);
  if (rec === undefined) return { status: 'unsigned' };
  const key = keys(rec.keyName);
  if (key === undefined || TSIG_ALGORITHMS[key.algorithm].wire !== rec.algorithmName || algorithmFromWire(rec.algorithmName) === undefined) {
    return { status: 'error', error: TSIG_BADKEY, key: undefined, record: rec };
  }
  const body = Buffer.from(message.subarray(0, rec.offset));
  body.writeUInt16BE(body.readUInt16BE(10) - 1, 10);
  const opts: SignOptions = {
    fudge: rec.fudge,
    error: rec.error,
    otherData: rec.otherData,
    ...(options.requestMac === undefined ? {} : { requestMac: options.requestMac }),
    ...(options.timersOnly === true ? { timersOnly: true } : {}),
  };
  const expected = digest(key, body, rec.time, rec.fudge, opts, rec.originalId);
  const minLen = Math.max(10, expected.length / 2);
  if (rec.mac.length > expected.length || rec.mac.length < minLen) {
    return { status: 'error', error: rec.mac.length < minLen && rec.mac.length > 0 ? TSIG_BADTRUNC : TSIG_BADSIG, key, record: rec };
  }
  if (!timingSafeEqual(rec.mac, expected.subarray(0, rec.mac.length))) return { status: 'error', error: TSIG_BADSIG, key, record: rec };
  if (Math.abs(options.now - rec.time) > rec.fudge) return { status: 'error', error: TSIG_BADTIME, key, record: rec };
  return { status: 'ok', key, record: rec };
}
