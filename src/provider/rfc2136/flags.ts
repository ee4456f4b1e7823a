/**
 * The rfc2136 flags, with external-dns's names, and their validation into provider options.
 */
import type { FlagValues } from '../../config/config.ts';
import type { FlagSpec } from '../../config/flags.ts';
import { tsigKey } from '../../dns/tsig.ts';
import type { TsigKey } from '../../dns/tsig.ts';
import { tryNormalizeDnsName } from '../../endpoint/name.ts';
import { ConfigError, errorMessage } from '../../errors.ts';
import { readClientTls } from '../tls-client.ts';
import { LOAD_BALANCING_STRATEGIES } from './nameservers.ts';
import type { LoadBalancingStrategy } from './nameservers.ts';
import type { TransportOptions } from './transport.ts';

export const RFC2136_FLAGS: readonly FlagSpec[] = [
  {
    name: 'rfc2136-host',
    kind: 'list',
    default: [],
    help: 'rfc2136: address or name of the DNS server that accepts updates (repeatable: servers of one zone, see --rfc2136-load-balancing-strategy).',
  },
  { name: 'rfc2136-port', kind: 'int', default: '0', help: 'rfc2136: port of the DNS servers (0: 53, or 853 with --rfc2136-use-tls).' },
  {
    name: 'rfc2136-load-balancing-strategy',
    kind: 'string',
    default: 'disabled',
    choices: LOAD_BALANCING_STRATEGIES,
    help: 'rfc2136: how several --rfc2136-host share the work: disabled (one until it fails), round-robin, random; a failed operation moves on to the next.',
  },
  { name: 'rfc2136-zone', kind: 'list', default: [], help: 'rfc2136: zone to manage (repeatable).' },
  { name: 'rfc2136-tsig-keyname', kind: 'string', default: '', help: 'rfc2136: TSIG key name (needed unless --rfc2136-insecure).' },
  { name: 'rfc2136-tsig-secret', kind: 'string', default: '', help: 'rfc2136: TSIG secret, base64.' },
  {
    name: 'rfc2136-tsig-secret-alg',
    kind: 'string',
    default: '',
    help: 'rfc2136: TSIG algorithm (hmac-md5, hmac-sha1, hmac-sha224, hmac-sha256, hmac-sha384, hmac-sha512; empty: hmac-sha256).',
  },
  {
    name: 'rfc2136-axfr',
    kind: 'bool',
    // external-dns defaults to false; without a transfer no ownership record is read (see FLAG_DIFFERENCES).
    default: true,
    help: 'rfc2136: read the zones by zone transfer (AXFR, signed when a key is set); on by default, unlike external-dns, so ownership is known. --no-rfc2136-axfr: no record is read, records are only created (never over an existing one), never updated or deleted.',
  },
  {
    name: 'rfc2136-tsig-axfr',
    kind: 'bool',
    default: false,
    help: 'rfc2136: deprecated spelling of --rfc2136-axfr (as in external-dns); it can only turn AXFR on, which is the default: use --no-rfc2136-axfr to turn it off.',
  },
  {
    name: 'rfc2136-gss-tsig',
    kind: 'bool',
    default: false,
    help: 'rfc2136: GSS-TSIG (Kerberos) updates; not implemented by Hostwarden: start-up fails naming the alternatives.',
  },
  { name: 'rfc2136-kerberos-username', kind: 'string', default: '', help: 'rfc2136: Kerberos user for --rfc2136-gss-tsig.' },
  { name: 'rfc2136-kerberos-password', kind: 'string', default: '', help: 'rfc2136: Kerberos password for --rfc2136-gss-tsig.' },
  { name: 'rfc2136-kerberos-realm', kind: 'string', default: '', help: 'rfc2136: Kerberos realm for --rfc2136-gss-tsig.' },
  { name: 'rfc2136-min-ttl', kind: 'duration', default: '0s', help: 'rfc2136: lowest TTL written; also the TTL of records that set none.' },
  { name: 'rfc2136-insecure', kind: 'bool', default: false, help: 'rfc2136: send updates and transfers without TSIG.' },
  { name: 'rfc2136-use-tls', kind: 'bool', default: false, help: 'rfc2136: talk to the server over DNS over TLS (RFC 7858; use port 853).' },
  { name: 'rfc2136-skip-tls-verify', kind: 'bool', default: false, help: 'rfc2136: do not verify the server certificate with --rfc2136-use-tls.' },
  { name: 'rfc2136-tls-ca', kind: 'string', default: '', help: 'rfc2136: Hostwarden spelling of --tls-ca for DNS over TLS (wins over it).' },
  { name: 'rfc2136-batch-change-size', kind: 'int', default: '50', help: 'rfc2136: most record changes sent in one UPDATE message.' },
  { name: 'rfc2136-timeout', kind: 'duration', default: '10s', help: 'rfc2136: time allowed for one update or one zone transfer.' },
];

export interface Rfc2136Settings {
  zones: string[];
  /** One per --rfc2136-host, in the order given. */
  transports: TransportOptions[];
  loadBalancing: LoadBalancingStrategy;
  /** --rfc2136-axfr (default on; its deprecated --rfc2136-tsig-axfr): whether records are read at all. */
  axfr: boolean;
  key: TsigKey | undefined;
  minTTL: number;
  batchChangeSize: number;
}

/** Accepts the spellings external-dns users write ("hmac-sha256.", "hmac-md5.sig-alg.reg.int"). */
function algorithmName(raw: string): string {
  const a = raw.trim().toLowerCase().replace(/\.$/, '');
  return a === 'hmac-md5.sig-alg.reg.int' ? 'hmac-md5' : a;
}

/** The TSIG key of --rfc2136-tsig-keyname/-secret/-secret-alg (required unless --rfc2136-insecure). */
function keyOf(flags: FlagValues): TsigKey {
  const name = flags.str('rfc2136-tsig-keyname').trim();
  const secret = flags.str('rfc2136-tsig-secret').trim();
  if (name === '') throw new ConfigError('--rfc2136-tsig-keyname is required unless --rfc2136-insecure is set', '--rfc2136-tsig-keyname');
  if (secret === '') throw new ConfigError('--rfc2136-tsig-secret is required unless --rfc2136-insecure is set', '--rfc2136-tsig-secret');
  const alg = algorithmName(flags.str('rfc2136-tsig-secret-alg') || 'hmac-sha256');
  if (name.includes(':')) throw new ConfigError('--rfc2136-tsig-keyname must not contain ":"', '--rfc2136-tsig-keyname');
  try {
    return tsigKey(alg, name, secret);
  } catch (err) {
    const flag = /algorithm/.test(errorMessage(err)) ? '--rfc2136-tsig-secret-alg' : '--rfc2136-tsig-secret';
    throw new ConfigError(`${flag}: ${errorMessage(err)}`, flag);
  }
}

export function rfc2136Settings(flags: FlagValues): Rfc2136Settings {
  const hosts = flags.list('rfc2136-host');
  if (hosts.length === 0) throw new ConfigError('--provider rfc2136 needs --rfc2136-host', '--rfc2136-host');
  if (flags.bool('rfc2136-gss-tsig'))
    throw new ConfigError(
      '--rfc2136-gss-tsig: GSS-TSIG (Kerberos) updates are not implemented by Hostwarden; sign updates with a TSIG key (--rfc2136-tsig-keyname, --rfc2136-tsig-secret), or run external-dns --webhook-server --provider rfc2136 with GSS-TSIG and point --provider webhook at it',
      '--rfc2136-gss-tsig',
    );
  const useTLS = flags.bool('rfc2136-use-tls');
  // external-dns's default port is 0, which it would dial as is; 0 here means the protocol's port.
  const port = flags.num('rfc2136-port') || (useTLS ? 853 : 53);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ConfigError('--rfc2136-port must be between 1 and 65535', '--rfc2136-port');
  const loadBalancing = flags.str('rfc2136-load-balancing-strategy') || 'disabled';
  if (!(LOAD_BALANCING_STRATEGIES as readonly string[]).includes(loadBalancing))
    throw new ConfigError(`--rfc2136-load-balancing-strategy must be one of ${LOAD_BALANCING_STRATEGIES.join(', ')}`, '--rfc2136-load-balancing-strategy');
  const zones = flags.list('rfc2136-zone');
  if (zones.length === 0) throw new ConfigError('--provider rfc2136 needs at least one --rfc2136-zone', '--rfc2136-zone');
  const bad = zones.find((z) => tryNormalizeDnsName(z) === undefined || z.startsWith('*'));
  if (bad !== undefined) throw new ConfigError(`--rfc2136-zone ${JSON.stringify(bad)} is not a DNS name`, '--rfc2136-zone');

  const key = flags.bool('rfc2136-insecure') ? undefined : keyOf(flags);

  const minTTLms = flags.num('rfc2136-min-ttl');
  if (minTTLms < 0) throw new ConfigError('--rfc2136-min-ttl must not be negative', '--rfc2136-min-ttl');
  const batchChangeSize = flags.num('rfc2136-batch-change-size');
  if (!Number.isInteger(batchChangeSize) || batchChangeSize < 1)
    throw new ConfigError('--rfc2136-batch-change-size must be at least 1', '--rfc2136-batch-change-size');
  const timeoutMs = flags.has('rfc2136-timeout') ? flags.num('rfc2136-timeout') : 10_000;
  if (timeoutMs <= 0) throw new ConfigError('--rfc2136-timeout must be greater than 0', '--rfc2136-timeout');

  const tls = useTLS ? { rejectUnauthorized: !flags.bool('rfc2136-skip-tls-verify'), ...readClientTls(flags, { ca: 'rfc2136-tls-ca' }) } : undefined;
  const transports = hosts.map((host): TransportOptions => ({ host, port, timeoutMs, ...(tls === undefined ? {} : { tls }) }));
  // The deprecated spelling defaults to false as upstream's, so only --rfc2136-axfr=false turns AXFR off.
  const axfr = flags.bool('rfc2136-axfr') || flags.bool('rfc2136-tsig-axfr');
  return {
    zones,
    transports,
    loadBalancing: loadBalancing as LoadBalancingStrategy,
    axfr,
    key,
    minTTL: Math.ceil(minTTLms / 1000),
    batchChangeSize,
  };
}
