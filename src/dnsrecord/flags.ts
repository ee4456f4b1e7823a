/**
 * Flags of `hostwarden dnsrecord-controller`. Listed once in EXTRA_FLAGS (src/cli/wiring.ts). It
 * also reads shared flags: --kubeconfig, --leader-elect and --leader-election-*, --metrics-address,
 * --embedded-data-dir, --embedded-zone and --dns-listen (embedded type), --aws-region,
 * --aws-endpoint-url, --aws-api-retries and --aws-requests-per-second (aws-route53 type), and
 * --listen with --tls-cert-file/--tls-private-key-file or --tls-self-signed (the validating webhook).
 */
import type { Config } from '../config/config.ts';
import type { FlagSpec } from '../config/flags.ts';
import { ConfigError } from '../errors.ts';

export const DNSRECORD_TYPES = ['aws-route53', 'google-clouddns', 'azure-dns', 'azure-private-dns', 'rfc2136', 'powerdns', 'embedded'] as const;

export const DNSRECORD_FLAGS: readonly FlagSpec[] = [
  {
    name: 'dnsrecord-types',
    kind: 'list',
    default: [...DNSRECORD_TYPES],
    help: `dnsrecord-controller: DNSRecord spec.type values this instance serves (repeatable; ${DNSRECORD_TYPES.join(', ')}; NAME=TYPE serves spec.type NAME with TYPE).`,
  },
  {
    name: 'extension-classes',
    kind: 'list',
    default: [],
    help: "dnsrecord-controller: DNSRecord spec.class values served, as Gardener's --extension-classes (repeatable or comma-separated; default shoot, which a record without a class has).",
  },
  {
    name: 'dnsrecord-class',
    kind: 'string',
    default: '',
    help: 'dnsrecord-controller: an alias adding one class to --extension-classes.',
  },
  {
    name: 'ignore-operation-annotation',
    kind: 'bool',
    default: false,
    help: "dnsrecord-controller: as Gardener's flag: act on every DNSRecord at start and on each spec (generation) change, not on the gardener.cloud/operation annotation.",
  },
  { name: 'dnsrecord-concurrency', kind: 'int', default: '5', help: 'dnsrecord-controller: DNSRecords reconciled at the same time.' },
  {
    name: 'dnsrecord-config-retry',
    kind: 'duration',
    default: '1m',
    help: 'dnsrecord-controller: retry delay after a configuration problem (missing Secret key, no zone).',
  },
  {
    name: 'dnsrecord-sync-period',
    kind: 'duration',
    default: '0s',
    help: 'dnsrecord-controller: re-apply each DNSRecord this long after its last success, repairing records changed at the provider by hand (default 0s: never, as Gardener).',
  },
  { name: 'dnsrecord-throttle-retry', kind: 'duration', default: '10s', help: 'dnsrecord-controller: retry delay after the DNS provider throttled requests.' },
  { name: 'dnsrecord-rfc2136-timeout', kind: 'duration', default: '10s', help: 'dnsrecord-controller: time allowed for one rfc2136 update.' },
];

/** One served DNSRecord spec.type and the Hostwarden type (backend) that serves it. */
export interface ServedType {
  served: string;
  backend: (typeof DNSRECORD_TYPES)[number];
}

// A DNSRecord type as Gardener's ControllerRegistrations name them: a DNS label.
const TYPE_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * --dnsrecord-types entries: `TYPE` serves spec.type TYPE, `NAME=TYPE` serves spec.type NAME with
 * TYPE's backend, so Hostwarden can be registered with Gardener under a type name of its own next
 * to a provider extension that is primary for TYPE (docs/dnsrecord.md, "Register with Gardener").
 */
export function servedTypes(entries: readonly string[]): ServedType[] {
  const out: ServedType[] = [];
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    const served = eq === -1 ? entry : entry.slice(0, eq);
    const backend = eq === -1 ? entry : entry.slice(eq + 1);
    if (!(DNSRECORD_TYPES as readonly string[]).includes(backend))
      throw new ConfigError(`--dnsrecord-types: unknown type ${JSON.stringify(backend)}; known: ${DNSRECORD_TYPES.join(', ')}`, '--dnsrecord-types');
    if (!TYPE_NAME.test(served))
      throw new ConfigError(`--dnsrecord-types: ${JSON.stringify(served)} is not a type name (lower-case letters, digits and '-')`, '--dnsrecord-types');
    if (out.some((t) => t.served === served)) throw new ConfigError(`--dnsrecord-types: ${JSON.stringify(served)} is named twice`, '--dnsrecord-types');
    out.push({ served, backend: backend as ServedType['backend'] });
  }
  return out;
}

/** --extension-classes plus the --dnsrecord-class alias; none means `shoot` (Gardener's HasClass). */
export function extensionClassesOf(f: Pick<Config['flags'], 'list' | 'str'>): string[] {
  const out = f.list('extension-classes');
  const alias = f.str('dnsrecord-class').trim();
  if (alias !== '' && !out.includes(alias)) out.push(alias);
  return out.length === 0 ? ['shoot'] : out;
}
