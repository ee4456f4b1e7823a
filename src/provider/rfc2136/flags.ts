/**
 * The rfc2136 flags, with external-dns's names, and their validation into provider options.
 */
import { readFileSync } from 'node:fs';
import type { FlagValues } from '../../config/config.ts';
import type { FlagSpec } from '../../config/flags.ts';
import { tsigKey } from '../../dns/tsig.ts';
import type { TsigKey } from '../../dns/tsig.ts';
import { tryNormalizeDnsName } from '../../endpoint/name.ts';
import { ConfigError, errorMessage } from '../../errors.ts';
import type { TransportOptions } from './transport.ts';

export const RFC2136_FLAGS: readonly FlagSpec[] = [
  { name: 'rfc2136-host', kind: 'string', default: '', help: 'rfc2136: address or name of the DNS server that accepts updates.' },
  { name: 'rfc2136-port', kind: 'int', default: '53', help: 'rfc2136: port of the DNS server.' },
  { name: 'rfc2136-zone', kind: 'list', default: [], help: 'rfc2136: zone to manage (repeatable).' },
  { name: 'rfc2136-tsig-keyname', kind: 'string', default: '', help: 'rfc2136: TSIG key name (needed unless --rfc2136-insecure).' },
  { name: 'rfc2136-tsig-secret', kind: 'string', default: '', help: 'rfc2136: TSIG secret, base64.' },
  {
    name: 'rfc2136-tsig-secret-alg',
    kind: 'string',
    default: 'hmac-sha256',
    help: 'rfc2136: TSIG algorithm (hmac-md5, hmac-sha1, hmac-sha224, hmac-sha256, hmac-sha384, hmac-sha512).',
  },
  {
    name: 'rfc2136-tsig-axfr',
    kind: 'bool',
    default: false,
    help: 'rfc2136: accepted for external-dns compatibility; zone transfers are always made, signed whenever a key is set.',
  },
  { name: 'rfc2136-min-ttl', kind: 'duration', default: '0s', help: 'rfc2136: lowest TTL written; also the TTL of records that set none.' },
  { name: 'rfc2136-insecure', kind: 'bool', default: false, help: 'rfc2136: send updates and transfers without TSIG.' },
  { name: 'rfc2136-use-tls', kind: 'bool', default: false, help: 'rfc2136: talk to the server over DNS over TLS (RFC 7858; use port 853).' },
  { name: 'rfc2136-skip-tls-verify', kind: 'bool', default: false, help: 'rfc2136: do not verify the server certificate with --rfc2136-use-tls.' },
  { name: 'rfc2136-tls-ca', kind: 'string', default: '', help: 'rfc2136: PEM file of the CA that signed the server certificate (--rfc2136-use-tls).' },
  { name: 'rfc2136-batch-change-size', kind: 'int', default: '50', help: 'rfc2136: most record changes sent in one UPDATE message.' },
  { name: 'rfc2136-timeout', kind: 'duration', default: '10s', help: 'rfc2136: time allowed for one update or one zone transfer.' },
];

export interface Rfc2136Settings {
  zones: string[];
  transport: TransportOptions;
  key: TsigKey | undefined;
  minTTL: number;
  batchChangeSize: number;
}

/** Accepts the spellings external-dns users write ("hmac-sha256.", "hmac-md5.sig-alg.reg.int"). */
function algorithmName(raw: string): string {
  const a = raw.trim().toLowerCase().replace(/\.$/, '');
  return a === 'hmac-md5.sig-alg.reg.int' ? 'hmac-md5' : a;
}

export function rfc2136Settings(flags: FlagValues): Rfc2136Settings {
  const host = flags.str('rfc2136-host').trim();
  if (host === '') throw new ConfigError('--provider rfc2136 needs --rfc2136-host', '--rfc2136-host');
  const port = flags.num('rfc2136-port');
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ConfigError('--rfc2136-port must be between 1 and 65535', '--rfc2136-port');
  const zones = flags.list('rfc2136-zone');
  if (zones.length === 0) throw new ConfigError('--provider rfc2136 needs at least one --rfc2136-zone', '--rfc2136-zone');
  const bad = zones.find((z) => tryNormalizeDnsName(z) === undefined || z.startsWith('*'));
  if (bad !== undefined) throw new ConfigError(`--rfc2136-zone ${JSON.stringify(bad)} is not a DNS name`, '--rfc2136-zone');

  let key: TsigKey | undefined;
  if (!flags.bool('rfc2136-insecure')) {
    const name = flags.str('rfc2136-tsig-keyname').trim();
    const secret = flags.str('rfc2136-tsig-secret').trim();
    if (name === '') throw new ConfigError('--rfc2136-tsig-keyname is required unless --rfc2136-insecure is set', '--rfc2136-tsig-keyname');
    if (secret === '') throw new ConfigError('--rfc2136-tsig-secret is required unless --rfc2136-insecure is set', '--rfc2136-tsig-secret');
    const alg = algorithmName(flags.str('rfc2136-tsig-secret-alg') || 'hmac-sha256');
    if (name.includes(':')) throw new ConfigError('--rfc2136-tsig-keyname must not contain ":"', '--rfc2136-tsig-keyname');
    try {
      key = tsigKey(alg, name, secret);
    } catch (err) {
      const flag = /algorithm/.test(errorMessage(err)) ? '--rfc2136-tsig-secret-alg' : '--rfc2136-tsig-secret';
      throw new ConfigError(`${flag}: ${errorMessage(err)}`, flag);
    }
  }

  const minTTLms = flags.num('rfc2136-min-ttl');
  if (minTTLms < 0) throw new ConfigError('--rfc2136-min-ttl must not be negative', '--rfc2136-min-ttl');
  const batchChangeSize = flags.num('rfc2136-batch-change-size');
  if (!Number.isInteger(batchChangeSize) || batchChangeSize < 1)
    throw new ConfigError('--rfc2136-batch-change-size must be at least 1', '--rfc2136-batch-change-size');
  const timeoutMs = flags.has('rfc2136-timeout') ? flags.num('rfc2136-timeout') : 10_000;
  if (timeoutMs <= 0) throw new ConfigError('--rfc2136-timeout must be greater than 0', '--rfc2136-timeout');

  const transport: TransportOptions = { host, port, timeoutMs };
  if (flags.bool('rfc2136-use-tls')) {
    const caFile = flags.str('rfc2136-tls-ca');
    let ca: Buffer | undefined;
    if (caFile !== '') {
      try {
        ca = readFileSync(caFile);
      } catch (err) {
        throw new ConfigError(`--rfc2136-tls-ca: cannot read ${caFile}: ${errorMessage(err)}`, '--rfc2136-tls-ca');
      }
    }
    transport.tls = { rejectUnauthorized: !flags.bool('rfc2136-skip-tls-verify'), ...(ca === undefined ? {} : { ca }) };
  }
  return { zones, transport, key, minTTL: Math.ceil(minTTLms / 1000), batchChangeSize };
}
