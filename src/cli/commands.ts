/**
 * One flag table per command: the groups of flags each command reads, in the order `--help`
 * lists them. main.ts parses a command's arguments and EXTERNAL_DNS_* variables against its table
 * only, so a flag of another command is an error naming its command instead of being ignored.
 * The flags themselves stay defined where they belong (config/flags.ts for external-dns's own,
 * one table per provider, source, controller and toolkit folder); this file only groups them.
 */
import { ADMISSION_FLAGS } from '../admission/flags.ts';
import { FLAGS } from '../config/flags.ts';
import type { FlagSpec } from '../config/flags.ts';
import { parseArgs } from '../config/parse.ts';
import type { ParsedArgs } from '../config/parse.ts';
import { DNSRECORD_FLAGS } from '../dnsrecord/flags.ts';
import { ConfigError } from '../errors.ts';
import { HTTP_FLAGS } from '../http/flags.ts';
import { KUBE_FLAGS } from '../kube/flags.ts';
import { OPERATOR_FLAGS } from '../operator/flags.ts';
import { PRIVATELINK_FLAGS } from '../privatelink/flags.ts';
import { AWS_FLAGS } from '../provider/aws/flags.ts';
import { CLOUDFLARE_FLAGS } from '../provider/cloudflare/flags.ts';
import { AZURE_FLAGS } from '../provider/azure/flags.ts';
import { COREDNS_FLAGS } from '../provider/coredns/flags.ts';
import { GOOGLE_FLAGS } from '../provider/google/flags.ts';
import { INMEMORY_FLAGS } from '../provider/inmemory/flags.ts';
import { PDNS_FLAGS } from '../provider/pdns/flags.ts';
import { RFC2136_FLAGS } from '../provider/rfc2136/flags.ts';
import { WEBHOOK_FLAGS } from '../provider/webhook/flags.ts';
import { TLS_CLIENT_FLAGS } from '../provider/tls-client.ts';
import { ZONE_FILTER_FLAGS } from '../provider/zone-filter.ts';
import { KUBE_SOURCE_FLAGS } from '../source/kube/flags.ts';
import { MANIFEST_FLAGS } from '../source/manifest/flags.ts';
import { CONNECTOR_FLAGS } from '../source/connector/flags.ts';
import { TRANSLATE_FLAGS } from '../source/translate/flags.ts';
import { WRAPPER_FLAGS } from '../source/wrappers/flags.ts';
import { HEAP_FLAGS } from './heap.ts';
import { EXTRA_FLAGS } from './wiring.ts';

export const COMMANDS = [
  'run',
  'plan',
  'explain',
  'webhook-server',
  'admission-webhook',
  'dnsrecord-controller',
  'operator',
  'privatelink-controller',
] as const;
export type Command = (typeof COMMANDS)[number];

export interface FlagGroup {
  title: string;
  flags: readonly FlagSpec[];
}

const ALL: readonly FlagSpec[] = [...FLAGS, ...EXTRA_FLAGS];

/** Every flag of every command, once (for tests, the docs and the defaults of flags a command does not take). */
export const ALL_FLAGS: readonly FlagSpec[] = ALL;

function pick(...names: string[]): FlagSpec[] {
  return names.map((n) => {
    const spec = ALL.find((f) => f.name === n);
    if (spec === undefined) throw new Error(`commands.ts names --${n}, which no flag table defines`);
    return spec;
  });
}

const named = (prefix: string): FlagSpec[] => FLAGS.filter((f) => f.name.startsWith(prefix));
const except = (table: readonly FlagSpec[], ...names: string[]): FlagSpec[] => table.filter((f) => !names.includes(f.name));

const LOGGING: FlagGroup = { title: 'Logging', flags: pick('log-level', 'log-format', 'version') };
const METRICS: FlagGroup = { title: 'Metrics, health and HTTP listeners', flags: [...pick('metrics-address'), ...HTTP_FLAGS] };
const RUN_METRICS: FlagGroup = {
  title: METRICS.title,
  flags: [...pick('metrics-address', 'healthz-max-consecutive-failures', 'shutdown-drain', 'ui', 'ui-address'), ...HTTP_FLAGS],
};
const SYNC: FlagGroup = {
  title: 'Sync',
  flags: pick(
    'source',
    'provider',
    'registry',
    'policy',
    'interval',
    'min-event-sync-interval',
    'events',
    'once',
    'dry-run',
    'provider-cache-time',
    'batch-change-size',
    'batch-change-interval',
  ),
};
const DOMAINS: FlagGroup = {
  title: 'Domains and record types',
  flags: pick('domain-filter', 'exclude-domains', 'regex-domain-filter', 'regex-domain-exclusion', 'managed-record-types', 'exclude-record-types'),
};
const SOURCES: FlagGroup = {
  title: 'Sources',
  flags: [
    ...pick(
      'manifests-dir',
      'annotation-filter',
      'label-filter',
      'fqdn-template',
      'target-template',
      'fqdn-target-template',
      'combine-fqdn-annotation',
      'ignore-hostname-annotation',
      'ignore-ingress-tls-spec',
      'ignore-ingress-rules-spec',
      'publish-internal-services',
      'service-type-filter',
      'compatibility',
      'force-default-targets',
      'default-targets',
    ),
    ...MANIFEST_FLAGS,
    ...KUBE_SOURCE_FLAGS,
    ...CONNECTOR_FLAGS,
    ...TRANSLATE_FLAGS,
    ...WRAPPER_FLAGS,
  ],
};
const REGISTRY: FlagGroup = { title: 'Registry (TXT ownership)', flags: named('txt-').concat(pick('migrate-from-txt-owner')) };
const EMBEDDED: FlagGroup = { title: 'Provider embedded (the default)', flags: named('embedded-') };
const DNS_SERVER: FlagGroup = { title: 'Embedded DNS server', flags: named('dns-') };
const PLAN: FlagGroup = { title: 'Plan input and output', flags: pick('records', 'desired', 'output', 'color') };
const KUBE: FlagGroup = {
  title: 'Kubernetes client',
  flags: pick(
    'kubeconfig',
    'kube-context',
    'server',
    'request-timeout',
    'kube-api-request-timeout',
    'kube-api-qps',
    'kube-api-burst',
    'kube-watch-inactivity-timeout',
  ),
};
/** The controllers' client: their reflectors keep their own watchdog, so no --kube-watch-inactivity-timeout. */
const CONTROLLER_KUBE: FlagGroup = { title: KUBE.title, flags: pick('kubeconfig', 'kube-context', 'request-timeout') };
/** The admission webhook's SubjectAccessReviews have their own timeout (--subject-access-review-timeout). */
const ADMISSION_KUBE: FlagGroup = { title: KUBE.title, flags: pick('kubeconfig', 'kube-context') };
const EVENTS: FlagGroup = { title: 'Kubernetes Events', flags: pick('events-emit') };
const LEADER: FlagGroup = { title: 'Leader election', flags: KUBE_FLAGS.filter((f) => f.name.startsWith('leader-')) };
const TLS: FlagGroup = { title: 'Serving certificate', flags: pick('tls-cert-file', 'tls-private-key-file', 'tls-self-signed') };
/** main applies it to every command: it sizes V8's heap steps for the whole process. */
const HEAP: FlagGroup = { title: 'Memory', flags: HEAP_FLAGS };
const PROVIDERS: FlagGroup[] = [
  { title: 'Provider zones (aws, google, azure, cloudflare)', flags: ZONE_FILTER_FLAGS },
  { title: 'Provider TLS client (pdns, rfc2136)', flags: TLS_CLIENT_FLAGS },
  { title: 'Provider aws', flags: AWS_FLAGS },
  { title: 'Provider google', flags: GOOGLE_FLAGS },
  { title: 'Provider cloudflare', flags: CLOUDFLARE_FLAGS },
  { title: 'Provider azure, azure-private-dns', flags: AZURE_FLAGS },
  { title: 'Provider rfc2136', flags: RFC2136_FLAGS },
  { title: 'Provider pdns', flags: PDNS_FLAGS },
  { title: 'Provider coredns', flags: COREDNS_FLAGS },
  { title: 'Provider webhook', flags: except(WEBHOOK_FLAGS, 'listen') },
  { title: 'Provider inmemory', flags: INMEMORY_FLAGS },
];
/** What the DNSRecord backends read of the provider tables (the rest comes from each DNSRecord's Secret). */
const DNSRECORD_PROVIDERS: FlagGroup = {
  title: 'Provider defaults for DNSRecord backends',
  flags: pick('aws-api-retries', 'aws-endpoint-url', 'aws-region', 'aws-requests-per-second', 'google-api-endpoint', 'azure-endpoint'),
};
/** The embedded DNSRecord type's zone store: its zones (else the domain filters), directory and TTL. */
const DNSRECORD_EMBEDDED: FlagGroup = {
  title: 'Embedded DNSRecords',
  flags: pick('embedded-zone', 'domain-filter', 'embedded-data-dir', 'embedded-default-ttl'),
};
const PLAN_TABLE: FlagGroup[] = [LOGGING, SYNC, DOMAINS, SOURCES, REGISTRY, EMBEDDED, KUBE, ...PROVIDERS, PLAN, HEAP];

export const COMMAND_FLAGS: Readonly<Record<Command, readonly FlagGroup[]>> = {
  run: [
    LOGGING,
    RUN_METRICS,
    SYNC,
    DOMAINS,
    SOURCES,
    REGISTRY,
    EMBEDDED,
    DNS_SERVER,
    KUBE,
    EVENTS,
    LEADER,
    ...PROVIDERS,
    { title: 'Webhook server (with --webhook-server)', flags: pick('listen') },
    { title: 'Operator integration', flags: pick('status-externaldns') },
    HEAP,
  ],
  plan: PLAN_TABLE,
  explain: PLAN_TABLE,
  'webhook-server': [
    LOGGING,
    {
      title: 'Serving',
      flags: [
        ...pick(
          'listen',
          'provider',
          'webhook-provider-read-timeout',
          'webhook-provider-write-timeout',
          'webhook-provider-read-header-timeout',
          'webhook-provider-idle-timeout',
          'webhook-provider-max-body-size',
        ),
        ...HTTP_FLAGS,
      ],
    },
    { title: 'Domains of the provider', flags: pick('domain-filter', 'exclude-domains', 'regex-domain-filter', 'regex-domain-exclusion') },
    EMBEDDED,
    DNS_SERVER,
    ...PROVIDERS.filter((g) => g.title !== 'Provider webhook'),
    HEAP,
  ],
  'admission-webhook': [
    LOGGING,
    { title: 'External-IP policy', flags: except(ADMISSION_FLAGS, 'tls-cert-file', 'tls-private-key-file', 'tls-self-signed') },
    { title: 'Serving', flags: [...pick('listen'), ...HTTP_FLAGS] },
    TLS,
    ADMISSION_KUBE,
    HEAP,
  ],
  'dnsrecord-controller': [
    LOGGING,
    METRICS,
    { title: 'DNSRecord controller', flags: DNSRECORD_FLAGS },
    { title: 'Webhook', flags: pick('listen') },
    TLS,
    CONTROLLER_KUBE,
    LEADER,
    DNSRECORD_EMBEDDED,
    DNS_SERVER,
    DNSRECORD_PROVIDERS,
    HEAP,
  ],
  operator: [LOGGING, METRICS, { title: 'Operator', flags: except(OPERATOR_FLAGS, 'status-externaldns') }, TLS, CONTROLLER_KUBE, LEADER, HEAP],
  'privatelink-controller': [
    LOGGING,
    METRICS,
    { title: 'PrivateLink controller', flags: PRIVATELINK_FLAGS },
    TLS,
    CONTROLLER_KUBE,
    LEADER,
    { title: 'AWS', flags: pick('aws-api-retries', 'aws-endpoint-url', 'aws-requests-per-second') },
    HEAP,
  ],
};

export function commandFlags(command: Command): FlagSpec[] {
  const seen = new Set<string>();
  return COMMAND_FLAGS[command].flatMap((g) => g.flags).filter((f) => !seen.has(f.name) && seen.add(f.name) !== undefined);
}

/** The commands whose table has `--name`, for the error when another command is given it. */
function ownersOf(name: string): Command[] {
  return COMMANDS.filter((c) => COMMAND_FLAGS[c].some((g) => g.flags.some((f) => f.name === name)));
}

/**
 * Parses `argv` and the environment against the command's table only. Flags the command does not
 * take still get their defaults, so the shared configuration reads the same for every command.
 */
export function parseCommandArgs(command: Command, argv: readonly string[], env: Readonly<Record<string, string | undefined>>): ParsedArgs {
  let parsed: ParsedArgs;
  try {
    parsed = parseArgs(argv, env, commandFlags(command));
  } catch (err) {
    const flag = err instanceof ConfigError ? err.flag : undefined;
    const owners = flag !== undefined && flag.startsWith('--') ? ownersOf(flag.slice(2).split('=')[0] ?? '') : [];
    // A bad value of the command's own flag is the error itself, not a misplaced flag.
    if (owners.length === 0 || owners.includes(command)) throw err;
    throw new ConfigError(`${flag ?? ''} is not a flag of "hostwarden ${command}"; it belongs to ${owners.map((c) => `"hostwarden ${c}"`).join(', ')}`, flag);
  }
  const defaults = parseArgs([], {}, ALL);
  for (const [name, value] of defaults.values) if (!parsed.values.has(name)) parsed.values.set(name, value);
  return parsed;
}

function describe(f: FlagSpec): string {
  const d = f.default;
  const shown = d === undefined || d === '' || (Array.isArray(d) && d.length === 0) ? '' : ` (default ${Array.isArray(d) ? d.join(',') : String(d)})`;
  const aliases = (f.aliases ?? []).map((a) => `, --${a}`).join('');
  // Names longer than the column still get a space before their help.
  return `${`  --${f.name}${aliases}${f.kind === 'bool' ? '' : ' VALUE'}`.padEnd(39)} ${f.help}${shown}`;
}

/** `hostwarden <command> --help`: the command's flags, grouped, with defaults. */
export function commandHelp(command: Command, usage: string): string {
  const lines = [usage, '', 'Flags (each also read from EXTERNAL_DNS_<NAME>):'];
  const seen = new Set<string>();
  for (const group of COMMAND_FLAGS[command]) {
    const flags = group.flags.filter((f) => !seen.has(f.name));
    if (flags.length === 0) continue;
    lines.push('', `${group.title}:`);
    for (const f of flags) {
      seen.add(f.name);
      lines.push(describe(f));
    }
  }
  return `${lines.join('\n')}\n`;
}
