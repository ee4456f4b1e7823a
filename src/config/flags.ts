/**
 * The flag table. Names and meanings follow external-dns so an existing Deployment's args work
 * unchanged; every flag can also come from `EXTERNAL_DNS_<NAME>` (upper case, dashes as
 * underscores), as external-dns reads them. Hostwarden-only flags live in the same table.
 */
/** --policy's values; the planner's Policy (src/plan/policy.ts) is the same list, checked by its tests. */
export const POLICY_CHOICES = ['sync', 'upsert-only', 'create-only'] as const;
export type PolicyChoice = (typeof POLICY_CHOICES)[number];

export type FlagKind = 'string' | 'bool' | 'int' | 'duration' | 'list';

export interface FlagSpec {
  name: string;
  kind: FlagKind;
  help: string;
  default?: string | boolean | readonly string[];
  choices?: readonly string[];
  /** Other names of the same flag (and their EXTERNAL_DNS_* variables), e.g. an older Hostwarden name. */
  aliases?: readonly string[];
}

export const FLAGS: readonly FlagSpec[] = [
  // What to read and where to write.
  { name: 'source', kind: 'list', default: ['manifest'], help: 'Where desired records come from (repeatable).' },
  { name: 'provider', kind: 'string', default: 'embedded', help: 'The DNS provider that holds the records.' },
  { name: 'registry', kind: 'string', default: 'txt', choices: ['txt', 'noop'], help: 'How ownership is recorded.' },
  { name: 'manifests-dir', kind: 'string', default: './examples', help: 'Directory of Kubernetes YAML read by the manifest source.' },
  // Ownership.
  { name: 'txt-owner-id', kind: 'string', default: 'default', help: 'Owner id written into and required from TXT ownership records.' },
  { name: 'txt-prefix', kind: 'string', default: '', help: 'Prefix of TXT ownership record names; may contain %{record_type}.' },
  { name: 'txt-suffix', kind: 'string', default: '', help: 'Suffix of the first label of TXT ownership record names; may contain %{record_type}.' },
  { name: 'txt-wildcard-replacement', kind: 'string', default: '', help: 'Replaces a leading "*" in TXT ownership record names.' },
  { name: 'txt-encrypt-enabled', kind: 'bool', default: false, help: 'Encrypt TXT ownership values with AES-256-GCM.' },
  { name: 'txt-encrypt-aes-key', kind: 'string', default: '', help: 'The 32-byte AES key (raw or base64) for --txt-encrypt-enabled.' },
  { name: 'txt-cache-interval', kind: 'duration', default: '0s', help: 'Cache the registry records for this long between syncs (0 disables).' },
  { name: 'migrate-from-txt-owner', kind: 'string', default: '', help: 'Take over records owned by this old owner id.' },
  // Planning.
  { name: 'policy', kind: 'string', default: 'sync', choices: POLICY_CHOICES, help: 'What changes are allowed.' },
  { name: 'domain-filter', kind: 'list', default: [], help: 'Limit to names in these domains (repeatable).' },
  { name: 'exclude-domains', kind: 'list', default: [], help: 'Exclude names in these domains (repeatable).' },
  { name: 'regex-domain-filter', kind: 'string', default: '', help: 'Limit to names matching this regular expression (overrides --domain-filter).' },
  { name: 'regex-domain-exclusion', kind: 'string', default: '', help: 'Exclude names matching this regular expression.' },
  { name: 'managed-record-types', kind: 'list', default: ['A', 'AAAA', 'CNAME'], help: 'Record types Hostwarden manages (repeatable).' },
  { name: 'exclude-record-types', kind: 'list', default: [], help: 'Record types never managed (repeatable).' },
  // Source behaviour.
  { name: 'annotation-filter', kind: 'string', default: '', help: 'Only objects whose annotations match this label selector.' },
  { name: 'label-filter', kind: 'string', default: '', help: 'Only objects whose labels match this label selector.' },
  {
    name: 'fqdn-template',
    kind: 'list',
    default: [],
    help: 'Go template for hostnames of objects without a hostname annotation (repeatable; several templates per value separated by commas).',
  },
  { name: 'target-template', kind: 'list', default: [], help: 'Go template for DNS targets, for sources that take targets from it (repeatable).' },
  { name: 'fqdn-target-template', kind: 'list', default: [], help: 'Go template returning host:target pairs, e.g. for Services (repeatable).' },
  { name: 'combine-fqdn-annotation', kind: 'bool', default: false, help: 'Use --fqdn-template names in addition to annotations.' },
  { name: 'ignore-hostname-annotation', kind: 'bool', default: false, help: 'Ignore hostname annotations (use --fqdn-template).' },
  { name: 'ignore-ingress-tls-spec', kind: 'bool', default: false, help: 'Ignore Ingress spec.tls hosts.' },
  { name: 'ignore-ingress-rules-spec', kind: 'bool', default: false, help: 'Ignore Ingress spec.rules hosts.' },
  { name: 'publish-internal-services', kind: 'bool', default: false, help: 'Publish ClusterIP Services under their cluster IP.' },
  { name: 'service-type-filter', kind: 'list', default: [], help: 'Only Services of these types (repeatable).' },
  {
    name: 'compatibility',
    kind: 'string',
    default: '',
    choices: ['', 'mate', 'molecule', 'kops-dns-controller'],
    help: 'Also read the annotations of older tools on Services without names of their own: mate (zalando.org/dnsname), molecule (domainName, label dns=route53), kops-dns-controller (dns.alpha.kubernetes.io/external, /internal).',
  },
  { name: 'force-default-targets', kind: 'bool', default: false, help: 'Use --default-targets even for endpoints that have targets.' },
  { name: 'default-targets', kind: 'list', default: [], help: 'Targets used for every endpoint instead of the ones the source found (repeatable).' },
  // The loop.
  { name: 'interval', kind: 'duration', default: '1m', help: 'Time between full synchronisations.' },
  { name: 'min-event-sync-interval', kind: 'duration', default: '5s', help: 'Minimum time between event-triggered synchronisations.' },
  { name: 'once', kind: 'bool', default: false, help: 'Synchronise once and exit.' },
  {
    name: 'events',
    kind: 'bool',
    default: false,
    help: 'Accepted for external-dns: Hostwarden is always event-driven (a source change syncs, debounced by --min-event-sync-interval, besides every --interval).',
  },
  {
    name: 'provider-cache-time',
    kind: 'duration',
    default: '0s',
    help: "Reuse the provider's record list for this long between syncs; a sync that applies changes drops it (0s: read every sync).",
  },
  {
    name: 'batch-change-size',
    kind: 'int',
    default: '200',
    help: 'cloudflare: most record operations in one batch request (at least 200, as external-dns); the other providers batch by their own flags (--aws-batch-change-size ...).',
  },
  {
    name: 'batch-change-interval',
    kind: 'duration',
    default: '1s',
    help: 'cloudflare: pause between two batch requests to one zone (the other providers have their own flags).',
  },
  { name: 'dry-run', kind: 'bool', default: false, help: 'Log the planned changes and apply nothing.' },
  // Observability.
  {
    name: 'log-level',
    kind: 'string',
    default: 'info',
    choices: ['trace', 'debug', 'info', 'warning', 'warn', 'error', 'fatal', 'panic'],
    help: "Log level (external-dns's logrus levels; warn is warning, panic logs as fatal).",
  },
  { name: 'version', kind: 'bool', default: false, help: 'Print the version and exit (as external-dns: the version alone, exit code 0).' },
  { name: 'log-format', kind: 'string', default: 'text', choices: ['text', 'json'], help: 'Log format.' },
  { name: 'metrics-address', kind: 'string', default: ':7979', help: 'Address of the /metrics, /healthz and /readyz server ("" disables it).' },
  {
    name: 'healthz-max-consecutive-failures',
    kind: 'int',
    default: '10',
    help: 'run: /healthz answers 503 once this many syncs in a row have failed (hostwarden_sync_consecutive_failures; 0: never).',
  },
  {
    name: 'shutdown-drain',
    kind: 'duration',
    default: '0s',
    help: 'run: after SIGTERM /readyz fails at once and the embedded DNS server keeps answering this long (endpoint removal reaching kube-proxy; the manifests and chart set 5s), then stops.',
  },
  {
    name: 'ui',
    kind: 'bool',
    default: true,
    help: 'run: serve the read-only web console under /ui/ (on --metrics-address, or --ui-address); --ui=false turns it off.',
  },
  {
    name: 'ui-address',
    kind: 'string',
    default: '',
    help: 'run: host:port of a listener of its own for the web console ("" = the --metrics-address listener).',
  },
  // Embedded provider and DNS server.
  { name: 'embedded-data-dir', kind: 'string', default: './data', help: 'Directory of the embedded provider zone files.' },
  { name: 'embedded-zone', kind: 'list', default: [], help: 'Zone served by the embedded provider (repeatable; defaults to --domain-filter).' },
  { name: 'embedded-nameserver', kind: 'list', default: [], help: 'NS of zones the embedded provider creates (repeatable; default ns1.<zone>).' },
  {
    name: 'embedded-nameserver-address',
    kind: 'list',
    default: [],
    help: 'A/AAAA glue for in-zone nameservers of new zones (repeatable; BIND secondaries need it).',
  },
  { name: 'embedded-hostmaster', kind: 'string', default: '', help: 'SOA mailbox of new zones (default hostmaster.<zone>).' },
  {
    name: 'embedded-serial-configmap',
    kind: 'string',
    default: 'hostwarden-embedded-serials',
    help: 'ConfigMap (beside the leader Lease) keeping the embedded zones\' SOA serials when run reads Kubernetes ("" disables).',
  },
  {
    name: 'embedded-peer-address',
    kind: 'string',
    default: '',
    help: 'run with leader election: host:port the other replicas transfer the zones from while this one leads (default $POD_IP with the --dns-listen port).',
  },
  {
    name: 'embedded-peer-secret',
    kind: 'string',
    default: 'hostwarden-embedded-peer',
    help: 'Secret (beside the Lease) with the TSIG key replicas sign zone transfers among themselves with; created when missing ("" transfers unsigned).',
  },
  { name: 'embedded-peer-refresh', kind: 'duration', default: '250ms', help: "How often a follower replica asks the leader for each zone's SOA serial." },
  { name: 'embedded-default-ttl', kind: 'int', default: '300', help: 'TTL of embedded records whose endpoint sets none.' },
  { name: 'dns-listen', kind: 'list', default: ['127.0.0.1:5353'], help: 'UDP+TCP address the embedded DNS server listens on (repeatable; "" disables it).' },
  { name: 'dns-allow-transfer', kind: 'list', default: [], help: 'CIDR allowed to transfer the zones, AXFR and IXFR (repeatable).' },
  {
    name: 'dns-tsig-key',
    kind: 'list',
    default: [],
    help: 'TSIG key [algorithm:]name:base64secret accepted for zone transfers (AXFR, IXFR), as dig -y takes it (algorithm default hmac-sha256; repeatable).',
  },
  { name: 'dns-notify', kind: 'list', default: [], help: 'host:port sent a NOTIFY after each zone change (repeatable).' },
  {
    name: 'dns-workers',
    kind: 'int',
    default: '0',
    help: 'Worker processes that answer DNS queries (0: a DNS thread of the main process answers, off the sync loop).',
  },
  { name: 'dns-udp-size', kind: 'int', default: '1232', help: 'Largest UDP response the DNS server sends to EDNS clients.' },
  {
    name: 'dns-ixfr-journal-size',
    kind: 'int',
    default: '100',
    help: 'Zone changes kept per zone to answer IXFR incrementally (0: IXFR is always answered with the whole zone).',
  },
  {
    name: 'dns-ixfr-journal-bytes',
    kind: 'int',
    default: '8388608',
    help: 'Bytes of changes (as on the wire) kept per zone for IXFR; older changes are dropped first.',
  },
  {
    name: 'dns-udp-engine',
    kind: 'string',
    default: 'auto',
    choices: ['auto', 'native', 'dgram'],
    help: 'UDP path of the DNS server: native (batched recvmmsg/sendmmsg addon, `npm run build:native`), dgram (node:dgram), auto (native when built).',
  },
  {
    name: 'dns-packet-cache-size',
    kind: 'int',
    default: '65536',
    help: 'Replies the native UDP engine keeps and answers again without JS until the next zone change (per socket; 0 turns the packet cache off).',
  },
  {
    name: 'dns-tcp-max-connections',
    kind: 'int',
    default: '256',
    help: 'DNS TCP connections held at once; at the cap a new connection closes the one idle longest.',
  },
  {
    name: 'dns-tcp-idle-timeout',
    kind: 'duration',
    default: '10s',
    help: 'Close a DNS TCP connection that completes no message for this long (bytes of a message do not count, RFC 7766).',
  },
  // plan / explain inputs.
  { name: 'records', kind: 'string', default: '', help: 'plan/explain: JSON file of current records (as the registry returns them).' },
  { name: 'desired', kind: 'string', default: '', help: 'plan/explain: JSON file of desired endpoints.' },
  { name: 'output', kind: 'string', default: 'text', choices: ['text', 'json'], help: 'plan: output format.' },
  { name: 'color', kind: 'string', default: 'auto', choices: ['auto', 'always', 'never'], help: 'plan: colour the diff.' },
];

export function envName(flag: string): string {
  return `EXTERNAL_DNS_${flag.toUpperCase().replace(/-/g, '_')}`;
}
