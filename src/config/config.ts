/**
 * The resolved configuration: typed, validated, and the only thing commands read. Validation
 * messages name the flag, so a bad Deployment arg is found from one log line.
 */
import { DomainFilter } from '../endpoint/domain-filter.ts';
import { isRecordType } from '../endpoint/endpoint.ts';
import type { RecordType } from '../endpoint/endpoint.ts';
import { ConfigError } from '../errors.ts';
import type { LogFormat } from '../log.ts';
import type { PolicyChoice } from './flags.ts';
import { unimplementedChoiceMessage } from './upstream-flags.ts';
import type { FlagValue, ParsedArgs } from './parse.ts';

export interface Config {
  sources: string[];
  provider: string;
  registry: 'txt' | 'noop';
  manifestsDir: string;
  txtOwnerId: string;
  txtPrefix: string;
  txtSuffix: string;
  txtWildcardReplacement: string;
  txtEncryptEnabled: boolean;
  txtEncryptAesKey: string;
  txtCacheIntervalMs: number;
  migrateFromTxtOwner: string;
  policy: PolicyChoice;
  domainFilters: string[];
  excludeDomains: string[];
  regexDomainFilter: RegExp | undefined;
  regexDomainExclusion: RegExp | undefined;
  managedRecordTypes: RecordType[];
  excludeRecordTypes: RecordType[];
  annotationFilter: string;
  labelFilter: string;
  /** --fqdn-template values as given (not split on commas: a comma may sit inside a template). */
  fqdnTemplates: string[];
  /** --target-template values as given. */
  targetTemplates: string[];
  /** --fqdn-target-template values as given. */
  fqdnTargetTemplates: string[];
  combineFqdnAnnotation: boolean;
  ignoreHostnameAnnotation: boolean;
  ignoreIngressTLSSpec: boolean;
  ignoreIngressRulesSpec: boolean;
  defaultTargets: string[];
  forceDefaultTargets: boolean;
  publishInternalServices: boolean;
  serviceTypeFilter: string[];
  compatibility: string;
  intervalMs: number;
  minEventSyncIntervalMs: number;
  once: boolean;
  dryRun: boolean;
  logLevel: string;
  logFormat: LogFormat;
  metricsAddress: string;
  embeddedDataDir: string;
  embeddedZones: string[];
  embeddedDefaultTTL: number;
  embeddedNameservers: string[];
  embeddedNameserverAddresses: string[];
  embeddedHostmaster: string;
  dnsListen: string[];
  dnsAllowTransfer: string[];
  dnsTsigKey: string[];
  dnsNotify: string[];
  dnsWorkers: number;
  dnsUdpSize: number;
  dnsIxfrJournalSize: number;
  dnsIxfrJournalBytes: number;
  dnsUdpEngine: string;
  dnsPacketCacheSize: number;
  dnsTcpMaxConnections: number;
  dnsTcpIdleTimeoutMs: number;
  records: string;
  desired: string;
  output: 'text' | 'json';
  color: 'auto' | 'always' | 'never';
  /** Flags given explicitly (argv or environment), for commands that change defaults. */
  explicit: ReadonlySet<string>;
  /** Every flag's value by name, for providers and sources that declare their own flags. */
  flags: FlagValues;
}

/** Typed access to flags declared outside the core table (provider- and source-specific ones). */
export class FlagValues {
  private readonly values: ReadonlyMap<string, FlagValue>;
  constructor(values: ReadonlyMap<string, FlagValue>) {
    this.values = values;
  }
  has(name: string): boolean {
    return this.values.has(name);
  }
  str(name: string): string {
    const v = this.values.get(name);
    return typeof v === 'string' ? v : v === undefined ? '' : String(v);
  }
  bool(name: string): boolean {
    return this.values.get(name) === true;
  }
  /** Numbers, and durations in milliseconds. */
  num(name: string): number {
    const v = this.values.get(name);
    return typeof v === 'number' ? v : 0;
  }
  /** Repeatable flags; comma-separated values are split as for --domain-filter. */
  list(name: string): string[] {
    const v = this.values.get(name);
    const items = Array.isArray(v) ? v : typeof v === 'string' && v !== '' ? [v] : [];
    return items
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter((s) => s !== '');
  }
}

export interface Choices {
  sources: readonly string[];
  providers: readonly string[];
}

function chosenSources(sources: string[], choices: Choices): string[] {
  for (const s of sources) {
    const lacking = choices.sources.includes(s) ? undefined : unimplementedChoiceMessage('source', s);
    if (lacking !== undefined) throw new ConfigError(lacking, '--source');
    if (!choices.sources.includes(s))
      throw new ConfigError(`--source ${JSON.stringify(s)} is not supported; choose from ${choices.sources.join(', ')}`, '--source');
  }
  if (sources.length === 0) throw new ConfigError('--source needs at least one source', '--source');
  return [...new Set(sources)];
}

function chosenProvider(provider: string, choices: Choices): string {
  if (!choices.providers.includes(provider)) {
    const lacking = unimplementedChoiceMessage('provider', provider);
    if (lacking !== undefined) throw new ConfigError(lacking, '--provider');
    throw new ConfigError(`--provider ${JSON.stringify(provider)} is not supported; choose from ${choices.providers.join(', ')}`, '--provider');
  }
  return provider;
}

export function resolveConfig(args: ParsedArgs, choices: Choices): Config {
  const v = args.values;
  const str = (name: string): string => get(v, name) as string;
  const bool = (name: string): boolean => get(v, name) as boolean;
  const num = (name: string): number => get(v, name) as number;
  const list = (name: string): string[] =>
    (get(v, name) as string[])
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter((s) => s !== '');

  const cfg: Config = {
    sources: chosenSources(list('source'), choices),
    provider: chosenProvider(str('provider'), choices),
    registry: str('registry') as 'txt' | 'noop',
    manifestsDir: str('manifests-dir'),
    txtOwnerId: str('txt-owner-id'),
    txtPrefix: str('txt-prefix'),
    txtSuffix: str('txt-suffix'),
    txtWildcardReplacement: str('txt-wildcard-replacement'),
    txtEncryptEnabled: bool('txt-encrypt-enabled'),
    txtEncryptAesKey: str('txt-encrypt-aes-key'),
    txtCacheIntervalMs: num('txt-cache-interval'),
    migrateFromTxtOwner: str('migrate-from-txt-owner'),
    policy: str('policy') as PolicyChoice,
    domainFilters: list('domain-filter'),
    excludeDomains: list('exclude-domains'),
    regexDomainFilter: regex(str('regex-domain-filter'), '--regex-domain-filter'),
    regexDomainExclusion: regex(str('regex-domain-exclusion'), '--regex-domain-exclusion'),
    managedRecordTypes: recordTypes(list('managed-record-types'), '--managed-record-types'),
    excludeRecordTypes: recordTypes(list('exclude-record-types'), '--exclude-record-types'),
    annotationFilter: str('annotation-filter'),
    labelFilter: str('label-filter'),
    fqdnTemplates: [...(get(v, 'fqdn-template') as string[])],
    targetTemplates: [...(get(v, 'target-template') as string[])],
    fqdnTargetTemplates: [...(get(v, 'fqdn-target-template') as string[])],
    combineFqdnAnnotation: bool('combine-fqdn-annotation'),
    ignoreHostnameAnnotation: bool('ignore-hostname-annotation'),
    ignoreIngressTLSSpec: bool('ignore-ingress-tls-spec'),
    ignoreIngressRulesSpec: bool('ignore-ingress-rules-spec'),
    defaultTargets: list('default-targets'),
    forceDefaultTargets: bool('force-default-targets'),
    publishInternalServices: bool('publish-internal-services'),
    serviceTypeFilter: list('service-type-filter'),
    compatibility: str('compatibility'),
    intervalMs: num('interval'),
    minEventSyncIntervalMs: num('min-event-sync-interval'),
    once: bool('once'),
    dryRun: bool('dry-run'),
    logLevel: pinoLevel(str('log-level')),
    logFormat: str('log-format') as LogFormat,
    metricsAddress: str('metrics-address'),
    embeddedDataDir: str('embedded-data-dir'),
    embeddedZones: list('embedded-zone'),
    embeddedDefaultTTL: num('embedded-default-ttl'),
    embeddedNameservers: list('embedded-nameserver'),
    embeddedNameserverAddresses: list('embedded-nameserver-address'),
    embeddedHostmaster: str('embedded-hostmaster'),
    dnsListen: list('dns-listen'),
    dnsAllowTransfer: list('dns-allow-transfer'),
    dnsTsigKey: list('dns-tsig-key'),
    dnsNotify: list('dns-notify'),
    dnsWorkers: num('dns-workers'),
    dnsUdpSize: num('dns-udp-size'),
    dnsIxfrJournalSize: num('dns-ixfr-journal-size'),
    dnsIxfrJournalBytes: num('dns-ixfr-journal-bytes'),
    dnsUdpEngine: str('dns-udp-engine'),
    dnsPacketCacheSize: num('dns-packet-cache-size'),
    dnsTcpMaxConnections: num('dns-tcp-max-connections'),
    dnsTcpIdleTimeoutMs: num('dns-tcp-idle-timeout'),
    records: str('records'),
    desired: str('desired'),
    output: str('output') as 'text' | 'json',
    color: str('color') as 'auto' | 'always' | 'never',
    explicit: args.explicit,
    flags: new FlagValues(args.values),
  };
  validate(cfg);
  return cfg;
}

function validate(cfg: Config): void {
  // The TXT registry's flags are checked by the registry (registry/txt/options.ts) and the DNS
  // server's by the server (DnsServer.fromConfig): each check in one place, where it is used.
  if (cfg.intervalMs <= 0) throw new ConfigError('--interval must be greater than 0', '--interval');
  if (cfg.minEventSyncIntervalMs < 0) throw new ConfigError('--min-event-sync-interval must not be negative', '--min-event-sync-interval');
  if (cfg.managedRecordTypes.length === 0) throw new ConfigError('--managed-record-types needs at least one type', '--managed-record-types');
  if (cfg.embeddedDefaultTTL < 1) throw new ConfigError('--embedded-default-ttl must be at least 1', '--embedded-default-ttl');
  if (cfg.metricsAddress !== '') parseListenAddress(cfg.metricsAddress, '--metrics-address');
  for (const addr of cfg.dnsListen) parseListenAddress(addr, '--dns-listen');
}

export function domainFilterOf(cfg: {
  domainFilters: readonly string[];
  excludeDomains: readonly string[];
  regexDomainFilter?: RegExp | undefined;
  regexDomainExclusion?: RegExp | undefined;
}): DomainFilter {
  return new DomainFilter({
    include: cfg.domainFilters,
    exclude: cfg.excludeDomains,
    regexInclude: cfg.regexDomainFilter,
    regexExclude: cfg.regexDomainExclusion,
  });
}

/** "host:port", ":port" or "[v6]:port" → host ('' = all interfaces) and port. */
export function parseListenAddress(text: string, flag: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text.trim());
  const port = Number(m?.[3]);
  if (m === null || port > 65535) throw new ConfigError(`${flag} ${JSON.stringify(text)} is not an address of the form host:port or :port`, flag);
  return { host: m[1] ?? m[2] ?? '', port };
}

/** external-dns's logrus level names on pino's: warning is warn, panic (which logrus logs before panicking) is fatal. */
function pinoLevel(level: string): string {
  if (level === 'warning') return 'warn';
  return level === 'panic' ? 'fatal' : level;
}

function get(values: Map<string, FlagValue>, name: string): FlagValue {
  const value = values.get(name);
  if (value === undefined) throw new Error(`flag --${name} has no value and no default`);
  return value;
}

function regex(text: string, flag: string): RegExp | undefined {
  if (text === '') return undefined;
  try {
    return new RegExp(text);
  } catch (err) {
    throw new ConfigError(`${flag} ${JSON.stringify(text)} is not a valid regular expression: ${(err as Error).message}`, flag);
  }
}

function recordTypes(values: string[], flag: string): RecordType[] {
  return values.map((v) => {
    const upper = v.toUpperCase();
    if (!isRecordType(upper)) throw new ConfigError(`${flag} ${JSON.stringify(v)} is not a supported record type`, flag);
    return upper;
  });
}
