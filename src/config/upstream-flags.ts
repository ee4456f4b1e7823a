/**
 * What Hostwarden knows of external-dns's flags and choices that it does not implement: the
 * providers, sources and registries it lacks, and their flags, grouped by owner. A Deployment made
 * for external-dns that names one of them stops at start-up with one line saying which provider,
 * source or registry it needs and how to keep it (external-dns beside Hostwarden, through the
 * webhook protocol) instead of "unknown flag". The full upstream inventory, with the flags
 * Hostwarden implements, is test/conformance/external-dns/flags.json; a test keeps both in step.
 */
export type OwnerKind = 'provider' | 'source' | 'registry';

export interface UnimplementedGroup {
  kind: OwnerKind;
  /** The --provider, --source or --registry value that reads these flags. */
  owner: string;
  flags: readonly string[];
}

/** Providers of external-dns (`--provider` values) Hostwarden does not implement. */
export const UNIMPLEMENTED_PROVIDERS: readonly string[] = [
  'alibabacloud',
  'aws-sd',
  'civo',
  'dnsimple',
  'exoscale',
  'godaddy',
  'linode',
  'ns1',
  'oci',
  'ovh',
  'pihole',
  'scaleway',
];

/** Sources of external-dns (`--source` values) Hostwarden does not implement. */
export const UNIMPLEMENTED_SOURCES: readonly string[] = [];

/** Registries of external-dns (`--registry` values) Hostwarden does not implement. */
export const UNIMPLEMENTED_REGISTRIES: readonly string[] = ['aws-sd', 'crd', 'dynamodb'];

/** external-dns flags read only by a provider, source or registry Hostwarden does not implement. */
export const UNIMPLEMENTED_FLAGS: readonly UnimplementedGroup[] = [
  { kind: 'provider', owner: 'alibabacloud', flags: ['alibaba-cloud-config-file', 'alibaba-cloud-zone-type'] },
  { kind: 'provider', owner: 'aws-sd', flags: ['aws-sd-service-cleanup', 'aws-sd-create-tag'] },
  {
    kind: 'provider',
    owner: 'exoscale',
    flags: ['exoscale-apienv', 'exoscale-apizone', 'exoscale-apikey', 'exoscale-apisecret', 'exoscale-zones-cache-duration'],
  },
  { kind: 'provider', owner: 'godaddy', flags: ['godaddy-api-key', 'godaddy-api-secret', 'godaddy-api-ttl', 'godaddy-api-ote'] },
  { kind: 'provider', owner: 'ns1', flags: ['ns1-endpoint', 'ns1-ignoressl', 'ns1-min-ttl'] },
  {
    kind: 'provider',
    owner: 'oci',
    flags: ['oci-config-file', 'oci-compartment-ocid', 'oci-zone-scope', 'oci-auth-instance-principal', 'oci-zones-cache-duration'],
  },
  { kind: 'provider', owner: 'ovh', flags: ['ovh-endpoint', 'ovh-api-rate-limit', 'ovh-enable-cname-relative'] },
  { kind: 'provider', owner: 'pihole', flags: ['pihole-server', 'pihole-password', 'pihole-tls-skip-verify'] },
  { kind: 'registry', owner: 'crd', flags: ['crd-registry-namespace'] },
  { kind: 'registry', owner: 'dynamodb', flags: ['dynamodb-region', 'dynamodb-table'] },
];

/** How to keep using what Hostwarden lacks: external-dns itself, with Hostwarden behind the webhook protocol or in front of it. */
function workaround(kind: OwnerKind, owner: string): string {
  if (kind === 'provider') return `run external-dns's ${owner} provider as a webhook and use --provider=webhook`;
  return `run external-dns with --${kind}=${owner} and --provider=webhook against "hostwarden webhook-server"`;
}

/** The group `flag` (without dashes; a `no-` form of a bool counts) belongs to, if Hostwarden lacks its owner. */
export function unimplementedGroupOf(flag: string): UnimplementedGroup | undefined {
  const bare = flag.startsWith('no-') ? flag.slice(3) : flag;
  return UNIMPLEMENTED_FLAGS.find((g) => g.flags.includes(flag) || g.flags.includes(bare));
}

/** The one-line error for an external-dns flag of an unimplemented owner; `where` is how the user wrote it (--flag or the variable). */
export function unimplementedFlagMessage(flag: string, where?: string): string | undefined {
  const group = unimplementedGroupOf(flag);
  if (group === undefined) return undefined;
  // Named as written: --no-cloudflare-proxied stays --no-cloudflare-proxied.
  const named = where ?? `--${flag}`;
  return `${named} belongs to ${group.kind} ${group.owner}, which Hostwarden does not implement; ${workaround(group.kind, group.owner)}`;
}

/** The one-line error for `--provider`, `--source` or `--registry` naming an external-dns choice Hostwarden lacks. */
export function unimplementedChoiceMessage(kind: OwnerKind, value: string): string | undefined {
  const list = kind === 'provider' ? UNIMPLEMENTED_PROVIDERS : kind === 'source' ? UNIMPLEMENTED_SOURCES : UNIMPLEMENTED_REGISTRIES;
  if (!list.includes(value)) return undefined;
  return `--${kind}=${value} is an external-dns ${kind} Hostwarden does not implement; ${workaround(kind, value)}`;
}

/**
 * external-dns flags Hostwarden accepts with another default, value set or effect, and why. The
 * compatibility page (docs/external-dns-compatibility.md, `npm run docs:compat`) shows them; a
 * test requires a reason here for every default or kind that differs from the inventory.
 */
export const FLAG_DIFFERENCES: Readonly<Record<string, string>> = {
  provider: 'Defaults to embedded (Hostwarden’s own authoritative DNS server); external-dns requires --provider.',
  source: 'Defaults to manifest (Kubernetes YAML files); external-dns requires --source.',
  policy: 'Defaults to sync; external-dns requires --policy (its chart always passes one), so a Deployment made for it behaves the same.',
  registry: 'txt and noop only; aws-sd, crd and dynamodb stop start-up with a line naming them.',
  'log-level': 'Also takes warn; panic logs at fatal level (pino has no panic level).',
  events: 'Always on: Hostwarden syncs on source changes (debounced by --min-event-sync-interval) with or without --events.',
  'listen-endpoint-events': 'Always on: the service source watches EndpointSlices and their changes trigger a sync.',
  'kube-api-qps':
    'One token bucket per Kubernetes client: each source has its own client, Events and the Lease have one each; external-dns shares one client between its sources.',
  'kube-api-burst': 'Per client, as --kube-api-qps.',
  'request-timeout': 'Not deprecated: it is the timeout flag of every Hostwarden command; --kube-api-request-timeout wins when given.',
  'annotation-prefix':
    'Same default and checks; with the default Hostwarden also reads the external-dns.alpha.kubernetes.io/ keys (the new prefix wins), which external-dns ≥ 0.22 no longer reads, so objects annotated for older external-dns keep their records. Give the prefix explicitly to read one prefix alone (split horizon).',
  version: 'Printed on stdout (kingpin prints it on stderr), so $(hostwarden --version) works; the version alone, exit code 0, as upstream.',
  'rfc2136-port': 'Same default, 0, read as the protocol’s port: 53, or 853 with --rfc2136-use-tls (external-dns would dial port 0).',
  'rfc2136-tsig-secret-alg': 'Defaults to hmac-sha256 (what tsig-keygen writes); external-dns has no algorithm for an empty value.',
  'rfc2136-axfr':
    'Defaults to true: zones are read by AXFR, so ownership TXT records are seen and records of other owners are never changed. Without a transfer external-dns sends plain adds, which join values to existing RRsets and replace a CNAME; --no-rfc2136-axfr (or --rfc2136-axfr=false) gives its blind mode, where Hostwarden only creates, with prerequisites that the RRsets do not exist, and skips a taken name with a warning.',
  'rfc2136-tsig-axfr':
    'Deprecated spelling of --rfc2136-axfr; as AXFR is on by default it changes nothing, and false does not turn AXFR off (--no-rfc2136-axfr does).',
};
