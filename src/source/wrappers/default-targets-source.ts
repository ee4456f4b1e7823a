/**
 * `--default-targets` with external-dns's current semantics: endpoints that arrive without
 * targets get the default targets (IPs → A/AAAA, names → CNAME, keeping name, TTL, set identifier,
 * labels and provider-specific properties); endpoints with targets keep them unless
 * `--force-default-targets` is set. Only address-like records (A, AAAA, CNAME) are rewritten:
 * forcing addresses onto a TXT or MX record would change what the record means.
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { Endpoint, RecordType } from '../../endpoint/endpoint.ts';
import { tryNormalizeDnsName } from '../../endpoint/name.ts';
import { validateEndpoint } from '../../endpoint/validate.ts';
import { ConfigError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { InvalidEndpoint, Source } from '../source.ts';
import { endpointsForHostname } from '../translate/hostname.ts';

const ADDRESS_TYPES: ReadonlySet<RecordType> = new Set<RecordType>(['A', 'AAAA', 'CNAME']);

export interface DefaultTargetsOptions {
  source: Source;
  defaultTargets: readonly string[];
  force?: boolean;
  logger: Logger;
}

export class DefaultTargetsSource implements Source {
  readonly name: string;
  private readonly source: Source;
  private readonly defaultTargets: readonly string[];
  private readonly force: boolean;
  private readonly logger: Logger;

  constructor(options: DefaultTargetsOptions) {
    this.source = options.source;
    this.name = options.source.name;
    this.defaultTargets = options.defaultTargets.map((t) => checkTarget(t));
    this.force = options.force ?? false;
    this.logger = options.logger;
  }

  static fromConfig(config: { defaultTargets?: readonly string[]; forceDefaultTargets?: boolean }, deps: { source: Source; logger: Logger }): Source {
    const targets = (config.defaultTargets ?? []).map((t) => t.trim()).filter((t) => t !== '');
    if (targets.length === 0 && config.forceDefaultTargets !== true) return deps.source;
    return new DefaultTargetsSource({ source: deps.source, defaultTargets: targets, force: config.forceDefaultTargets ?? false, logger: deps.logger });
  }

  async endpoints(): Promise<Endpoint[]> {
    const out: Endpoint[] = [];
    for (const ep of await this.source.endpoints()) {
      const replace = ADDRESS_TYPES.has(ep.recordType) && (ep.targets.length === 0 || this.force);
      if (!replace) {
        if (ep.targets.length === 0) this.logger.debug({ dnsName: ep.dnsName, recordType: ep.recordType }, 'endpoint without targets dropped');
        else out.push(ep);
        continue;
      }
      if (this.defaultTargets.length === 0) {
        this.logger.debug({ dnsName: ep.dnsName, recordType: ep.recordType }, 'endpoint without targets dropped: no default targets');
        continue;
      }
      const common = { ttl: ep.recordTTL, setIdentifier: ep.setIdentifier, providerSpecific: ep.providerSpecific, resource: '' };
      for (const filled of endpointsForHostname(ep.dnsName, this.defaultTargets, common)) {
        filled.labels = { ...ep.labels };
        try {
          out.push(validateEndpoint(filled));
        } catch (err) {
          this.logger.warn({ dnsName: ep.dnsName, recordType: filled.recordType }, `default targets not applied: ${(err as Error).message}`);
        }
      }
    }
    return out;
  }

  invalidEndpoints(): InvalidEndpoint[] {
    return this.source.invalidEndpoints?.() ?? [];
  }

  heldResources(): ReadonlySet<string> {
    return this.source.heldResources?.() ?? new Set();
  }

  addEventHandler(handler: () => void): () => void {
    return this.source.addEventHandler(handler);
  }

  async close(): Promise<void> {
    await this.source.close?.();
  }
}

function checkTarget(target: string): string {
  const t = target.trim();
  if (isIPv4(t) || isIPv6(t)) return t;
  const host = tryNormalizeDnsName(t);
  if (host === undefined || host.startsWith('*')) {
    throw new ConfigError(`--default-targets: ${JSON.stringify(target)} is neither an IP address nor a hostname`, '--default-targets');
  }
  return host;
}
