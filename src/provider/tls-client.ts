/**
 * external-dns's TLS client flags (--tls-ca, --tls-client-cert, --tls-client-cert-key): core
 * flags upstream, read by the providers that talk TLS to their server — pdns (https API) and
 * rfc2136 (DNS over TLS) among the providers Hostwarden implements.
 */
import { readFileSync } from 'node:fs';
import type { FlagValues } from '../config/config.ts';
import type { FlagSpec } from '../config/flags.ts';
import { ConfigError, errorMessage } from '../errors.ts';

export const TLS_CLIENT_FLAGS: readonly FlagSpec[] = [
  {
    name: 'tls-ca',
    kind: 'string',
    default: '',
    help: 'pdns (https API), rfc2136 (--rfc2136-use-tls): PEM file of the CA that signs the server certificate.',
  },
  { name: 'tls-client-cert', kind: 'string', default: '', help: 'pdns, rfc2136: PEM client certificate presented to the server (mutual TLS).' },
  { name: 'tls-client-cert-key', kind: 'string', default: '', help: 'pdns, rfc2136: PEM key of --tls-client-cert.' },
];

export interface ClientTlsFiles {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

/** A provider's own spelling of the three flags, tried before the shared ones (Hostwarden's older names). */
export interface OwnTlsFlags {
  ca?: string;
  cert?: string;
  key?: string;
}

/**
 * Reads the CA and client certificate files; a provider's own flag wins over the shared one.
 * Errors name the flag that was used.
 */
export function readClientTls(flags: FlagValues, own: OwnTlsFlags = {}): ClientTlsFiles {
  const pick = (ownName: string | undefined, shared: string): { flag: string; file: string } => {
    const file = ownName === undefined ? '' : flags.str(ownName).trim();
    return file !== '' ? { flag: `--${ownName ?? ''}`, file } : { flag: `--${shared}`, file: flags.str(shared).trim() };
  };
  const ca = pick(own.ca, 'tls-ca');
  const cert = pick(own.cert, 'tls-client-cert');
  const key = pick(own.key, 'tls-client-cert-key');
  if ((cert.file === '') !== (key.file === '')) {
    // Name the pair in the spelling the user chose for the half that is there.
    const ownPair = own.cert !== undefined && own.key !== undefined && (cert.flag === `--${own.cert}` || key.flag === `--${own.key}`);
    const [certFlag, keyFlag] = ownPair ? [`--${own.cert ?? ''}`, `--${own.key ?? ''}`] : ['--tls-client-cert', '--tls-client-cert-key'];
    throw new ConfigError(`${certFlag} and ${keyFlag} go together`, cert.file === '' ? certFlag : keyFlag);
  }
  const read = (f: { flag: string; file: string }): Buffer | undefined => {
    if (f.file === '') return undefined;
    try {
      return readFileSync(f.file);
    } catch (err) {
      throw new ConfigError(`${f.flag}: cannot read ${f.file}: ${errorMessage(err)}`, f.flag);
    }
  };
  const out: ClientTlsFiles = {};
  const caPem = read(ca);
  const certPem = read(cert);
  const keyPem = read(key);
  if (caPem !== undefined) out.ca = caPem;
  if (certPem !== undefined) out.cert = certPem;
  if (keyPem !== undefined) out.key = keyPem;
  return out;
}
