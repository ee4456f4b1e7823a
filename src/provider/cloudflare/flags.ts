/**
 * Flags of the cloudflare provider, with external-dns's names, defaults and meaning, and the
 * credentials from the environment as external-dns reads them (CF_API_TOKEN, with a `file:`
 * prefix naming a file; CF_API_KEY + CF_API_EMAIL), plus CF_API_TOKEN_FILE and CLOUDFLARE_BASE_URL.
 */
import { readFileSync } from 'node:fs';
import type { FlagSpec } from '../../config/flags.ts';
import type { FlagValues } from '../../config/config.ts';
import { ConfigError } from '../../errors.ts';

export const MAX_RECORDS_PER_PAGE = 5000;

export const CLOUDFLARE_FLAGS: readonly FlagSpec[] = [
  {
    name: 'cloudflare-proxied',
    kind: 'bool',
    default: false,
    help: 'cloudflare: proxy records through Cloudflare by default (the cloudflare-proxied annotation overrides it).',
  },
  {
    name: 'cloudflare-custom-hostnames',
    kind: 'bool',
    default: false,
    help: 'cloudflare: manage the custom hostnames of the cloudflare-custom-hostname annotation (needs "Cloudflare for SaaS").',
  },
  {
    name: 'cloudflare-custom-hostnames-min-tls-version',
    kind: 'string',
    default: '1.0',
    choices: ['1.0', '1.1', '1.2', '1.3'],
    help: 'cloudflare: minimum TLS version of new custom hostnames.',
  },
  {
    name: 'cloudflare-custom-hostnames-certificate-authority',
    kind: 'string',
    default: 'none',
    choices: ['google', 'ssl_com', 'lets_encrypt', 'none'],
    help: 'cloudflare: certificate authority of new custom hostnames (none: let Cloudflare choose).',
  },
  {
    name: 'cloudflare-dns-records-per-page',
    kind: 'int',
    default: '100',
    help: 'cloudflare: records per page when listing a zone (at most 5000; a higher value means fewer calls).',
  },
  { name: 'cloudflare-regional-services', kind: 'bool', default: false, help: 'cloudflare: manage regional hostnames (Data Localization Suite).' },
  {
    name: 'cloudflare-region-key',
    kind: 'string',
    default: '',
    help: 'cloudflare: default region of regional hostnames; any value turns --cloudflare-regional-services on.',
  },
  {
    name: 'cloudflare-records-cache-duration',
    kind: 'duration',
    default: '5m',
    help: "cloudflare (Hostwarden's own): reuse the zone list and each zone's records for this long, kept current with our own writes (0 lists every sync).",
  },
  {
    name: 'cloudflare-record-comment',
    kind: 'string',
    default: '',
    help: 'cloudflare: comment of the records written (the cloudflare-record-comment annotation overrides it).',
  },
];

export interface CloudflareSettings {
  proxiedByDefault: boolean;
  customHostnames: { enabled: boolean; minTlsVersion: string; certificateAuthority: string };
  recordsPerPage: number;
  regionalServices: boolean;
  regionKey: string;
  recordComment: string;
  batchChangeSize: number;
  batchChangeIntervalMs: number;
  zoneIds: string[];
}

export function cloudflareSettingsFromFlags(flags: FlagValues): CloudflareSettings {
  const perPage = flags.num('cloudflare-dns-records-per-page');
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > MAX_RECORDS_PER_PAGE)
    throw new ConfigError(
      `--cloudflare-dns-records-per-page must be a whole number from 1 to ${MAX_RECORDS_PER_PAGE}, got ${perPage}`,
      '--cloudflare-dns-records-per-page',
    );
  const size = flags.num('batch-change-size');
  if (!Number.isInteger(size) || size < 1) throw new ConfigError(`--batch-change-size must be a whole number of 1 or more, got ${size}`, '--batch-change-size');
  const regionKey = flags.str('cloudflare-region-key');
  return {
    proxiedByDefault: flags.bool('cloudflare-proxied'),
    customHostnames: {
      enabled: flags.bool('cloudflare-custom-hostnames'),
      minTlsVersion: flags.str('cloudflare-custom-hostnames-min-tls-version'),
      certificateAuthority: flags.str('cloudflare-custom-hostnames-certificate-authority'),
    },
    recordsPerPage: perPage,
    regionalServices: flags.bool('cloudflare-regional-services') || regionKey !== '',
    regionKey,
    recordComment: flags.str('cloudflare-record-comment'),
    batchChangeSize: size,
    batchChangeIntervalMs: flags.num('batch-change-interval'),
    zoneIds: flags.list('zone-id-filter'),
  };
}

export interface CloudflareCredentials {
  apiToken?: string;
  apiKey?: string;
  apiEmail?: string;
  baseURL?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Credentials from the environment. CF_API_TOKEN wins over CF_API_TOKEN_FILE (external-dns knows
 * only the first); both win over CF_API_KEY + CF_API_EMAIL. Errors name the variable and file,
 * never a secret.
 */
export function cloudflareCredentials(env: Env, readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): CloudflareCredentials {
  const base = env['CLOUDFLARE_BASE_URL'];
  const out: CloudflareCredentials = base === undefined || base === '' ? {} : { baseURL: base };
  const token = env['CF_API_TOKEN'];
  const tokenFile = env['CF_API_TOKEN_FILE'];
  if (token !== undefined && token !== '') {
    if (!token.startsWith('file:')) return { ...out, apiToken: token.trim() };
    return { ...out, apiToken: readToken(token.slice('file:'.length), 'CF_API_TOKEN', readFile) };
  }
  if (tokenFile !== undefined && tokenFile !== '') return { ...out, apiToken: readToken(tokenFile, 'CF_API_TOKEN_FILE', readFile) };
  const apiKey = env['CF_API_KEY'];
  const apiEmail = env['CF_API_EMAIL'];
  if (apiKey === undefined || apiKey === '' || apiEmail === undefined || apiEmail === '')
    throw new ConfigError(
      'cloudflare credentials are not configured: set either CF_API_TOKEN or both CF_API_KEY and CF_API_EMAIL environment variables',
      '--provider',
    );
  return { ...out, apiKey, apiEmail };
}

function readToken(path: string, variable: string, readFile: (path: string) => string): string {
  let text: string;
  try {
    text = readFile(path);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`failed to read ${variable} from file ${path}: ${reason}`, '--provider');
  }
  const token = text.trim();
  if (token === '') throw new ConfigError(`${variable}: file ${path} is empty`, '--provider');
  return token;
}
