/**
 * The narrow port a DNSRecord needs from a DNS service: find the zones of an account, write
 * exactly one record set idempotently, and remove it. Each provider type adapts its existing
 * Hostwarden client to it (src/dnsrecord/backends/<type>.ts).
 */
import { isThrottle } from '../aws/retry.ts';
import { HostwardenError, ProviderError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { CredentialLimiters } from './limiters.ts';
import { ERR_CONFIGURATION_PROBLEM } from './types.ts';
import type { DNSRecordSpec, DNSRecordType, IpStack } from './types.ts';

export interface RecordSet {
  /** Normalised: lower case, no trailing dot. */
  name: string;
  type: DNSRecordType;
  ttl: number;
  /** As in the spec: TXT values unquoted (each backend quotes and splits them once). */
  values: string[];
  /** The `dns.gardener.cloud/ip-stack` annotation (alias record types on Route53); ipv4 when absent. */
  ipStack?: IpStack;
}

export interface BackendZone {
  /** What the provider API takes (a Route53 hosted zone id; the zone name elsewhere). */
  id: string;
  name: string;
}

export interface RecordSetBackend {
  listZones(): Promise<BackendZone[]>;
  /** Creates or replaces the record set of this name and type. */
  upsert(zoneId: string, rrset: RecordSet): Promise<void>;
  /** Removes it; a record or a zone that is already gone is success. */
  remove(zoneId: string, rrset: RecordSet): Promise<void>;
  close?(): Promise<void>;
}

/** What a backend is built from: the record's spec, the Secret it names, and controller defaults. */
export interface BackendContext {
  spec: DNSRecordSpec;
  /** Secret data, base64-decoded. */
  secret: Readonly<Record<string, string>>;
  /** `namespace/name`, for messages. */
  secretName: string;
  logger: Logger;
  limiters: CredentialLimiters;
}

export type BackendFactory = (ctx: BackendContext) => RecordSetBackend | Promise<RecordSetBackend>;

/**
 * A problem only a person can fix (a missing Secret key, no zone for the name, an invalid spec):
 * reported with Gardener's ERR_CONFIGURATION_PROBLEM and not retried in a tight loop.
 */
export class ConfigurationProblem extends HostwardenError {
  readonly codes: readonly string[];
  /** False when only a change of the DNSRecord itself can fix it (then it waits for that change). */
  readonly retry: boolean;
  constructor(message: string, codes: readonly string[] = [ERR_CONFIGURATION_PROBLEM], opts: { retry?: boolean } = {}) {
    super('DNSRECORD_CONFIGURATION', message);
    this.codes = codes;
    this.retry = opts.retry ?? true;
  }
}

/** Throttled by the provider (after the client's own retries): worth a later, slower retry. */
export function isThrottled(err: unknown): boolean {
  if (err instanceof ProviderError && err.code === 'PROVIDER_THROTTLED') return true;
  return isThrottle(err) || (err instanceof Error && err.cause !== undefined && isThrottle(err.cause));
}

/** The first of `keys` present in the Secret (both Gardener's and the provider SDK's namings). */
export function secretValue(ctx: Pick<BackendContext, 'secret' | 'secretName'>, keys: readonly string[], required: true): string;
export function secretValue(ctx: Pick<BackendContext, 'secret' | 'secretName'>, keys: readonly string[], required: false): string | undefined;
export function secretValue(ctx: Pick<BackendContext, 'secret' | 'secretName'>, keys: readonly string[], required: boolean): string | undefined {
  for (const k of keys) {
    const v = ctx.secret[k];
    if (v !== undefined && v.trim() !== '') return v.trim();
  }
  if (!required) return undefined;
  const alternatives = keys.map((k) => `"${k}"`).join(' or ');
  throw new ConfigurationProblem(`secret ${ctx.secretName} has no key ${alternatives}`);
}
