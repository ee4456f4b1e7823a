/**
 * The coredns flags. external-dns reads etcd settings only from ETCD_* environment variables;
 * Hostwarden accepts those (handed over by main) and the equivalent flags, a flag winning.
 */
import { readFileSync } from 'node:fs';
import type { FlagValues } from '../../config/config.ts';
import type { FlagSpec } from '../../config/flags.ts';
import { ConfigError, errorMessage } from '../../errors.ts';
import { redactUrl } from '../../redact.ts';
import type { EtcdClientOptions } from './etcd-client.ts';

export const COREDNS_FLAGS: readonly FlagSpec[] = [
  { name: 'coredns-prefix', kind: 'string', default: '/skydns/', help: 'coredns: etcd key prefix CoreDNS reads records from.' },
  {
    name: 'coredns-strictly-owned',
    kind: 'bool',
    default: false,
    help: 'coredns: write --txt-owner-id into each etcd value ("owner") and read and change only values carrying it.',
  },
  { name: 'etcd-urls', kind: 'list', default: [], help: 'coredns: etcd client URLs (env ETCD_URLS, comma-separated; default http://localhost:2379).' },
  { name: 'etcd-ca-file', kind: 'string', default: '', help: 'coredns: CA bundle for https etcd URLs (env ETCD_CA_FILE).' },
  { name: 'etcd-cert-file', kind: 'string', default: '', help: 'coredns: client certificate for etcd (env ETCD_CERT_FILE).' },
  { name: 'etcd-key-file', kind: 'string', default: '', help: 'coredns: client key for etcd (env ETCD_KEY_FILE).' },
  { name: 'etcd-tls-insecure', kind: 'bool', default: false, help: 'coredns: do not verify the etcd server certificate (env ETCD_TLS_INSECURE).' },
  { name: 'etcd-username', kind: 'string', default: '', help: 'coredns: etcd user (env ETCD_USERNAME).' },
  { name: 'etcd-password', kind: 'string', default: '', help: 'coredns: etcd password (env ETCD_PASSWORD).' },
  { name: 'etcd-timeout', kind: 'duration', default: '5s', help: 'coredns: time allowed for one etcd request.' },
];

export interface CorednsSettings {
  prefix: string;
  etcd: EtcdClientOptions;
}

type Env = Readonly<Record<string, string | undefined>>;

function readPem(path: string, flag: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new ConfigError(`${flag}: cannot read ${path}: ${errorMessage(err)}`, flag);
  }
}

export function corednsSettings(flags: FlagValues, env: Env): CorednsSettings {
  const str = (flag: string, envName: string): string => {
    const v = flags.str(flag).trim();
    return v !== '' ? v : (env[envName] ?? '').trim();
  };
  let urls = flags.list('etcd-urls');
  if (urls.length === 0)
    urls = (env['ETCD_URLS'] ?? '')
      .split(',')
      .map((u) => u.trim())
      .filter((u) => u !== '');
  if (urls.length === 0) urls = ['http://localhost:2379'];
  for (const u of urls) {
    if (!/^https?:\/\//i.test(u)) throw new ConfigError(`etcd URL ${JSON.stringify(redactUrl(u))} must start with http:// or https://`, '--etcd-urls');
    try {
      new URL(u);
    } catch {
      throw new ConfigError(`etcd URL ${JSON.stringify(redactUrl(u))} is not a URL`, '--etcd-urls');
    }
  }
  const prefix = flags.str('coredns-prefix') || '/skydns/';
  if (!prefix.startsWith('/')) throw new ConfigError('--coredns-prefix must start with "/"', '--coredns-prefix');
  const timeoutMs = flags.has('etcd-timeout') ? flags.num('etcd-timeout') : 5000;
  if (timeoutMs <= 0) throw new ConfigError('--etcd-timeout must be greater than 0', '--etcd-timeout');

  const etcd: EtcdClientOptions = { urls, timeoutMs };
  const username = str('etcd-username', 'ETCD_USERNAME');
  if (username !== '') {
    etcd.username = username;
    etcd.password = str('etcd-password', 'ETCD_PASSWORD');
  }
  const ca = str('etcd-ca-file', 'ETCD_CA_FILE');
  const cert = str('etcd-cert-file', 'ETCD_CERT_FILE');
  const key = str('etcd-key-file', 'ETCD_KEY_FILE');
  if ((cert === '') !== (key === ''))
    throw new ConfigError('--etcd-cert-file and --etcd-key-file go together', cert === '' ? '--etcd-cert-file' : '--etcd-key-file');
  const insecure = flags.bool('etcd-tls-insecure') || /^(1|true|yes)$/i.test(env['ETCD_TLS_INSECURE'] ?? '');
  if (urls.some((u) => u.toLowerCase().startsWith('https://'))) {
    etcd.tls = {
      rejectUnauthorized: !insecure,
      ...(ca === '' ? {} : { ca: readPem(ca, '--etcd-ca-file') }),
      ...(cert === '' ? {} : { cert: readPem(cert, '--etcd-cert-file'), key: readPem(key, '--etcd-key-file') }),
    };
  }
  return { prefix, etcd };
}
