/**
 * The Azure DNS calls the providers make, through the official ARM SDKs: @azure/arm-dns for
 * public zones and @azure/arm-privatedns for private ones (same model, different paths and
 * argument order). SDK errors become ProviderErrors: 429, 5xx and no answer are transient
 * (the SDK has already retried them with Retry-After), the rest permanent.
 */
import type { TokenCredential } from '@azure/identity';
import { DnsManagementClient } from '@azure/arm-dns';
import type { DnsManagementClientOptionalParams, RecordSet as PublicRecordSet, RecordType as PublicRecordType } from '@azure/arm-dns';
import { PrivateDnsManagementClient } from '@azure/arm-privatedns';
import type { RecordSet as PrivateRecordSet, RecordType as PrivateRecordType } from '@azure/arm-privatedns';
import { ProviderError } from '../../errors.ts';
import type { AzureRecordSetModel } from './convert.ts';

export type AzureZoneKind = 'public' | 'private';

export const providerName = (kind: AzureZoneKind): string => (kind === 'public' ? 'azure' : 'azure-private-dns');

export interface AzureZoneRef {
  name: string;
  resourceGroup: string;
  /** The zone's ARM resource id (--zone-id-filter matches its end). */
  id?: string;
}

/** Conditions for optimistic concurrency: If-Match with a listed etag, If-None-Match '*' for creates. */
export interface AzureCondition {
  ifMatch?: string;
  ifNoneMatch?: string;
}

export interface AzureDnsApi {
  readonly kind: AzureZoneKind;
  listZones(): Promise<AzureZoneRef[]>;
  listRecordSets(zone: AzureZoneRef): Promise<AzureRecordSetModel[]>;
  putRecordSet(zone: AzureZoneRef, relative: string, type: string, set: AzureRecordSetModel, condition: AzureCondition): Promise<void>;
  deleteRecordSet(zone: AzureZoneRef, relative: string, type: string, condition: AzureCondition): Promise<void>;
}

/** HTTP settings passed to the SDK pipeline (retries, TLS for private clouds and tests). */
export type AzureHttpOptions = Pick<DnsManagementClientOptionalParams, 'retryOptions' | 'tlsOptions' | 'agent'>;

export interface AzureClientOptions {
  kind: AzureZoneKind;
  credential: TokenCredential;
  subscriptionId: string;
  /** Empty: zones of the whole subscription. */
  resourceGroup: string;
  /** Azure Resource Manager base URL; empty for the public cloud. */
  endpoint: string;
  http?: AzureHttpOptions;
}

interface SdkError {
  statusCode?: number;
  code?: string;
  message?: string;
}

function resourceGroupOf(id: string | undefined, fallback: string): string {
  return /\/resourceGroups\/([^/]+)\//i.exec(id ?? '')?.[1] ?? fallback;
}

async function collect<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of pages) out.push(item);
  return out;
}

export class SdkAzureDnsApi implements AzureDnsApi {
  readonly kind: AzureZoneKind;
  private readonly name: string;
  private readonly resourceGroup: string;
  private readonly pub: DnsManagementClient | undefined;
  private readonly priv: PrivateDnsManagementClient | undefined;

  constructor(opts: AzureClientOptions) {
    this.kind = opts.kind;
    this.name = providerName(opts.kind);
    this.resourceGroup = opts.resourceGroup;
    const params = { ...opts.http, ...(opts.endpoint === '' ? {} : { endpoint: opts.endpoint }) };
    if (opts.kind === 'public') this.pub = new DnsManagementClient(opts.credential, opts.subscriptionId, params);
    else this.priv = new PrivateDnsManagementClient(opts.credential, opts.subscriptionId, params);
  }

  async listZones(): Promise<AzureZoneRef[]> {
    try {
      const rg = this.resourceGroup;
      const zones: { name?: string; id?: string }[] =
        this.pub !== undefined
          ? await collect(rg === '' ? this.pub.zones.list() : this.pub.zones.listByResourceGroup(rg))
          : await collect(
              rg === ''
                ? (this.priv as PrivateDnsManagementClient).privateZones.list()
                : (this.priv as PrivateDnsManagementClient).privateZones.listByResourceGroup(rg),
            );
      return zones
        .filter((z) => z.name !== undefined)
        .map((z) => ({
          name: (z.name as string).toLowerCase().replace(/\.$/, ''),
          resourceGroup: resourceGroupOf(z.id, rg),
          ...(z.id === undefined ? {} : { id: z.id }),
        }));
    } catch (err) {
      throw azureError(this.name, 'list zones', err, undefined);
    }
  }

  async listRecordSets(zone: AzureZoneRef): Promise<AzureRecordSetModel[]> {
    try {
      if (this.pub !== undefined) return await collect<PublicRecordSet>(this.pub.recordSets.listAllByDnsZone(zone.resourceGroup, zone.name));
      return await collect<PrivateRecordSet>((this.priv as PrivateDnsManagementClient).recordSets.list(zone.resourceGroup, zone.name));
    } catch (err) {
      throw azureError(this.name, 'list record sets', err, zone.name);
    }
  }

  async putRecordSet(zone: AzureZoneRef, relative: string, type: string, set: AzureRecordSetModel, condition: AzureCondition): Promise<void> {
    try {
      if (this.pub !== undefined) await this.pub.recordSets.createOrUpdate(zone.resourceGroup, zone.name, relative, type as PublicRecordType, set, condition);
      else
        await (this.priv as PrivateDnsManagementClient).recordSets.createOrUpdate(
          zone.resourceGroup,
          zone.name,
          type as PrivateRecordType,
          relative,
          set as PrivateRecordSet,
          condition,
        );
    } catch (err) {
      throw azureError(this.name, `put ${relative} ${type}`, err, zone.name);
    }
  }

  async deleteRecordSet(zone: AzureZoneRef, relative: string, type: string, condition: AzureCondition): Promise<void> {
    try {
      if (this.pub !== undefined) await this.pub.recordSets.delete(zone.resourceGroup, zone.name, relative, type as PublicRecordType, condition);
      else await (this.priv as PrivateDnsManagementClient).recordSets.delete(zone.resourceGroup, zone.name, type as PrivateRecordType, relative, condition);
    } catch (err) {
      throw azureError(this.name, `delete ${relative} ${type}`, err, zone.name);
    }
  }
}

export function azureError(provider: string, what: string, err: unknown, zone: string | undefined): ProviderError {
  const e = (err ?? {}) as SdkError;
  const status = typeof e.statusCode === 'number' ? e.statusCode : 0;
  const detail = `${status === 0 ? 'no answer' : `HTTP ${status}`}${e.code === undefined ? '' : ` ${e.code}`}: ${e.message ?? String(err)}`;
  const hint = status === 401 || status === 403 ? ' (check the credentials, --azure-subscription-id and --azure-resource-group)' : '';
  return new ProviderError(provider, `${what}${zone === undefined ? '' : ` in zone ${zone}`}: ${detail}${hint}`, {
    ...(zone === undefined ? {} : { zone }),
    cause: err,
    transient: status === 0 || status === 429 || status >= 500,
    code:
      status === 401 || status === 403
        ? 'PROVIDER_UNAUTHORIZED'
        : status === 0
          ? 'PROVIDER_UNAVAILABLE'
          : status === 429
            ? 'PROVIDER_THROTTLED'
            : 'PROVIDER_REJECTED',
  });
}
