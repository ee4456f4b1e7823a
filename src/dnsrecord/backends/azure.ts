/**
 * The azure-dns and azure-private-dns types: Azure DNS zones (public or private) of one
 * subscription through the azure provider's ARM SDK client, logged in with a service principal
 * from the Secret in Gardener's provider-azure naming (`subscriptionID`, `tenantID`, `clientID`,
 * `clientSecret`) or the SDK's (`AZURE_SUBSCRIPTION_ID`, …). Zone ids are `<resourceGroup>/<zone>`
 * as Gardener writes them, since the same zone name can exist in two resource groups. A PUT of the
 * whole record set is an upsert; DELETE of a missing record set succeeds.
 */
import { isInZone } from '../../endpoint/name.ts';
import { ProviderError } from '../../errors.ts';
import { SdkAzureDnsApi } from '../../provider/azure/record-sets.ts';
import type { AzureDnsApi, AzureHttpOptions, AzureZoneKind, AzureZoneRef } from '../../provider/azure/record-sets.ts';
import { relativeName, splitTxt } from '../../provider/azure/record-sets.ts';
import type { AzureRecordSetModel } from '../../provider/azure/record-sets.ts';
import { credentialOf } from '../../provider/azure/record-sets.ts';
import { ConfigurationProblem, secretValue } from '../backend.ts';
import type { BackendContext, BackendZone, RecordSet, RecordSetBackend } from '../backend.ts';

export const AZURE_KEYS = {
  subscriptionId: ['subscriptionID', 'AZURE_SUBSCRIPTION_ID'],
  tenantId: ['tenantID', 'AZURE_TENANT_ID'],
  clientId: ['clientID', 'AZURE_CLIENT_ID'],
  clientSecret: ['clientSecret', 'AZURE_CLIENT_SECRET'],
} as const;

const PUBLIC_CLOUD = { endpoint: 'https://management.azure.com', authorityHost: 'https://login.microsoftonline.com' };

export interface AzureBackendDefaults {
  /** Azure Resource Manager base URL (default the public cloud). */
  endpoint?: string;
  /** Entra ID authority for the client-secret login (default the public cloud). */
  authorityHost?: string;
  /** SDK pipeline settings: retries, TLS (a private CA, tests). */
  http?: AzureHttpOptions;
}

/** The record set body: TTL and the one records field of the type, TXT split at 255 bytes. */
export function toAzureRecordSet(rrset: RecordSet): AzureRecordSetModel {
  const set: AzureRecordSetModel = { ttl: rrset.ttl };
  const v = rrset.values;
  switch (rrset.type) {
    case 'A':
      set.aRecords = v.map((ipv4Address) => ({ ipv4Address }));
      break;
    case 'AAAA':
      set.aaaaRecords = v.map((ipv6Address) => ({ ipv6Address }));
      break;
    case 'CNAME':
      set.cnameRecord = { cname: (v[0] ?? '').replace(/\.$/, '') };
      break;
    case 'TXT':
      set.txtRecords = v.map((value) => ({ value: splitTxt(value) }));
      break;
  }
  return set;
}

/** `<resourceGroup>/<zone>` back to its parts; anything else is a person's mistake in spec.zone. */
export function parseZoneId(zoneId: string): AzureZoneRef {
  const m = /^([^/]+)\/([^/]+)$/.exec(zoneId.trim());
  if (m === null) throw new ConfigurationProblem(`zone ${JSON.stringify(zoneId)} is not <resourceGroup>/<zoneName>`);
  return { resourceGroup: m[1] as string, name: (m[2] as string).toLowerCase().replace(/\.$/, '') };
}

export class AzureDnsBackend implements RecordSetBackend {
  constructor(private readonly api: AzureDnsApi) {}

  static build(ctx: BackendContext, kind: AzureZoneKind, defaults: AzureBackendDefaults): AzureDnsBackend {
    const subscriptionId = secretValue(ctx, AZURE_KEYS.subscriptionId, true);
    const tenantId = secretValue(ctx, AZURE_KEYS.tenantId, true);
    const clientId = secretValue(ctx, AZURE_KEYS.clientId, true);
    const secret = secretValue(ctx, AZURE_KEYS.clientSecret, true);
    const endpoint = (defaults.endpoint ?? PUBLIC_CLOUD.endpoint).replace(/\/+$/, '');
    const http = defaults.http ?? {};
    const credential = credentialOf(
      {
        subscriptionId,
        resourceGroup: '',
        endpoint,
        authorityHost: defaults.authorityHost ?? PUBLIC_CLOUD.authorityHost,
        auth: { kind: 'secret', tenantId, clientId, secret },
      },
      http,
    );
    return new AzureDnsBackend(new SdkAzureDnsApi({ kind, credential, subscriptionId, resourceGroup: '', endpoint, http }));
  }

  async listZones(): Promise<BackendZone[]> {
    return (await this.api.listZones()).map((z) => ({ id: `${z.resourceGroup}/${z.name}`, name: z.name }));
  }

  async upsert(zoneId: string, rrset: RecordSet): Promise<void> {
    const zone = parseZoneId(zoneId);
    await this.api.putRecordSet(zone, relativeIn(zone, rrset.name), rrset.type, toAzureRecordSet(rrset), {});
  }

  async remove(zoneId: string, rrset: RecordSet): Promise<void> {
    const zone = parseZoneId(zoneId);
    try {
      await this.api.deleteRecordSet(zone, relativeIn(zone, rrset.name), rrset.type, {});
    } catch (err) {
      // The zone (or its resource group) is gone, and the record set with it.
      const cause = err instanceof ProviderError ? err.cause : err;
      if ((cause as { statusCode?: unknown } | undefined)?.statusCode === 404) return;
      throw err;
    }
  }
}

/** Azure names record sets relative to their zone, so a spec.zone that does not hold the name is refused here. */
function relativeIn(zone: AzureZoneRef, name: string): string {
  if (!isInZone(name, zone.name)) throw new ConfigurationProblem(`${name} is not in zone ${zone.resourceGroup}/${zone.name}`);
  return relativeName(name, zone.name);
}
