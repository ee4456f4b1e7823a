/**
 * The SkyDNS record format CoreDNS's etcd plugin serves and external-dns's coredns provider
 * writes: one JSON "service" per key, the key being the DNS name's labels reversed under a prefix
 * (`www.example.org` → `/skydns/org/example/www/<random>`). The random last label lets one name
 * hold several values; `targetstrip` says how many leading labels are not part of the name.
 */
import { isIP } from 'node:net';
import { canonicalTarget } from '../../endpoint/endpoint.ts';

/** The record types a SkyDNS service can express as an external-dns endpoint. */
export type SkyType = 'A' | 'AAAA' | 'CNAME' | 'TXT';

export interface Service {
  key: string;
  modRevision: string;
  /** The DNS name (lower case, no trailing dot) after `targetstrip`. */
  name: string;
  host: string;
  text: string;
  ttl: number;
  group: string;
  setIdentifier: string;
  /** The whole stored object, so fields we do not interpret (port, priority, …) survive a rewrite. */
  json: Record<string, unknown>;
}

/** `/skydns` and `/skydns/` are the same prefix; keys always continue after one slash. */
export function normalizePrefix(prefix: string): string {
  const p = prefix.trim() === '' ? '/skydns/' : prefix.trim();
  return p.endsWith('/') ? p : `${p}/`;
}

/** The etcd key of `label` (usually random) placed below `name`. */
export function keyFor(prefix: string, name: string, label?: string): string {
  const labels = name.split('.').reverse();
  if (label !== undefined) labels.push(label);
  return prefix + labels.join('/');
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0;
}

/** Parses one stored value; undefined when it is not a JSON object (other tools share the prefix). */
export function parseService(prefix: string, key: string, value: string, modRevision: string): Service | undefined {
  if (!key.startsWith(prefix)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return undefined;
  const obj = json as Record<string, unknown>;
  const labels = key
    .slice(prefix.length)
    .split('/')
    .filter((l) => l !== '')
    .reverse();
  const strip = Math.min(num(obj['targetstrip']), labels.length);
  const name = labels.slice(strip).join('.').toLowerCase();
  if (name === '') return undefined;
  return {
    key,
    modRevision,
    name,
    host: str(obj['host']).trim(),
    text: str(obj['text']),
    ttl: num(obj['ttl']),
    group: str(obj['group']),
    setIdentifier: str(obj['setIdentifier']),
    json: obj,
  };
}

/** The record type a service's host makes it: an IP address is A/AAAA, anything else a CNAME. */
export function hostType(host: string): SkyType | undefined {
  if (host === '') return undefined;
  const v = isIP(host);
  return v === 4 ? 'A' : v === 6 ? 'AAAA' : 'CNAME';
}

/** The host value as the planner compares it (IPv6 in RFC 5952 form, hostnames lower case). */
export function canonicalHost(host: string): string {
  const t = hostType(host);
  return t === undefined ? host : canonicalTarget(t, host);
}

/** Serialises a service in the field order external-dns writes, keeping unknown fields. */
export function serviceValue(
  fields: { host?: string; text?: string; ttl?: number; targetstrip?: number; group?: string; setIdentifier?: string },
  base: Record<string, unknown> = {},
): string {
  const out: Record<string, unknown> = {};
  const ordered: [string, unknown][] = [
    ['host', fields.host],
    ['text', fields.text],
    ['ttl', fields.ttl],
    ['targetstrip', fields.targetstrip],
    ['group', fields.group],
    ['setIdentifier', fields.setIdentifier],
  ];
  for (const [k, v] of ordered) {
    // external-dns marshals with omitempty: zero values are left out, and so are they here.
    if (v !== undefined && v !== '' && v !== 0) out[k] = v;
  }
  for (const [k, v] of Object.entries(base)) if (!(k in out) && !['host', 'text', 'ttl', 'targetstrip', 'group', 'setIdentifier'].includes(k)) out[k] = v;
  return JSON.stringify(out);
}
