/**
 * The powerdns type: the PowerDNS Authoritative HTTP API through the pdns provider's client. An
 * upsert is one PATCH with changetype REPLACE (idempotent by nature); a remove is DELETE, which
 * PowerDNS accepts for a missing RRset too. Secret keys: `server`/`Server`/`PDNS_SERVER` (API URL),
 * `apiKey`/`ApiKey`/`PDNS_API_KEY`, and optionally `serverId`/`PDNS_SERVER_ID`.
 */
import { tryNormalizeDnsName } from '../../endpoint/name.ts';
import { ProviderError } from '../../errors.ts';
import { PdnsClient } from '../../provider/pdns/record-sets.ts';
import type { PdnsZoneInfo } from '../../provider/pdns/record-sets.ts';
import { absoluteName, toPresentation } from '../../provider/presentation.ts';
import { ConfigurationProblem, secretValue } from '../backend.ts';
import type { BackendContext, BackendZone, RecordSet, RecordSetBackend } from '../backend.ts';
import { redactUrl } from '../../redact.ts';

export const POWERDNS_KEYS = {
  server: ['server', 'Server', 'PDNS_SERVER'],
  apiKey: ['apiKey', 'ApiKey', 'PDNS_API_KEY'],
  serverId: ['serverId', 'ServerId', 'PDNS_SERVER_ID'],
} as const;

export class PowerDnsBackend implements RecordSetBackend {
  private readonly client: PdnsClient;

  constructor(ctx: BackendContext, opts: { timeoutMs?: number } = {}) {
    const server = secretValue(ctx, POWERDNS_KEYS.server, true);
    if (!/^https?:\/\/[^/]+/.test(server))
      throw new ConfigurationProblem(`secret ${ctx.secretName}: server ${JSON.stringify(redactUrl(server))} is not an http:// or https:// URL`);
    this.client = new PdnsClient({
      server,
      apiKey: secretValue(ctx, POWERDNS_KEYS.apiKey, true),
      serverId: secretValue(ctx, POWERDNS_KEYS.serverId, false) ?? 'localhost',
      timeoutMs: opts.timeoutMs ?? 10_000,
      ...(server.startsWith('https:') ? { tls: { rejectUnauthorized: true } } : {}),
    });
  }

  async listZones(): Promise<BackendZone[]> {
    return (await this.client.listZones()).map((z) => ({ id: z.id, name: tryNormalizeDnsName(z.name) ?? z.name }));
  }

  async upsert(zoneId: string, rrset: RecordSet): Promise<void> {
    const records = rrset.values.map((v) => ({ content: toPresentation(rrset.type, v), disabled: false }));
    await this.client.patchZone(zoneInfo(zoneId), [{ name: absoluteName(rrset.name), type: rrset.type, ttl: rrset.ttl, changetype: 'REPLACE', records }]);
  }

  async remove(zoneId: string, rrset: RecordSet): Promise<void> {
    try {
      await this.client.patchZone(zoneInfo(zoneId), [{ name: absoluteName(rrset.name), type: rrset.type, changetype: 'DELETE' }]);
    } catch (err) {
      // The zone is gone, and the record with it.
      if (err instanceof ProviderError && /HTTP 404|HTTP 422.*[Cc]ould not find/.test(err.message)) return;
      throw err;
    }
  }
}

function zoneInfo(zoneId: string): PdnsZoneInfo {
  const id = zoneId.endsWith('.') ? zoneId : `${zoneId}.`;
  return { id, name: id };
}
