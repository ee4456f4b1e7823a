/**
 * The rfc2136 type: one signed UPDATE per write through the rfc2136 provider, so BIND, Knot,
 * PowerDNS or Windows DNS can hold Gardener's records. An upsert deletes the RRset and adds the
 * values in the same atomic message. The server cannot list its zones, so the zone comes from
 * spec.zone or the Secret's `Zone` key.
 */
import { tsigKey } from '../../dns/tsig.ts';
import type { TsigKey } from '../../dns/tsig.ts';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { tryNormalizeDnsName } from '../../endpoint/name.ts';
import { ProviderError, errorMessage } from '../../errors.ts';
import { Rfc2136Provider } from '../../provider/rfc2136/record-sets.ts';
import { NetworkTransport } from '../../provider/rfc2136/record-sets.ts';
import { ConfigurationProblem, secretValue } from '../backend.ts';
import type { BackendContext, BackendZone, RecordSet, RecordSetBackend } from '../backend.ts';

export const RFC2136_KEYS = {
  server: ['Server', 'server'],
  keyName: ['TSIGKeyName', 'tsigKeyName'],
  secret: ['TSIGSecret', 'tsigSecret'],
  algorithm: ['TSIGSecretAlgorithm', 'tsigSecretAlgorithm'],
  zone: ['Zone', 'zone'],
} as const;

function hostPort(server: string, secretName: string): { host: string; port: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(server) ?? /^([^:]+)(?::(\d+))?$/.exec(server);
  const port = m?.[2] === undefined ? 53 : Number(m[2]);
  if (m === null || m[1] === undefined || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new ConfigurationProblem(`secret ${secretName}: Server ${JSON.stringify(server)} is not host[:port]`);
  }
  return { host: m[1], port };
}

export class Rfc2136Backend implements RecordSetBackend {
  private readonly ctx: BackendContext;
  private readonly server: { host: string; port: number };
  private readonly key: TsigKey;
  private readonly zone: string | undefined;
  private readonly timeoutMs: number;

  constructor(ctx: BackendContext, opts: { timeoutMs?: number } = {}) {
    this.ctx = ctx;
    this.server = hostPort(secretValue(ctx, RFC2136_KEYS.server, true), ctx.secretName);
    const keyName = secretValue(ctx, RFC2136_KEYS.keyName, true);
    const secret = secretValue(ctx, RFC2136_KEYS.secret, true);
    const alg = (secretValue(ctx, RFC2136_KEYS.algorithm, false) ?? 'hmac-sha256').toLowerCase().replace(/\.$/, '');
    try {
      this.key = tsigKey(alg === 'hmac-md5.sig-alg.reg.int' ? 'hmac-md5' : alg, keyName, secret);
    } catch (err) {
      throw new ConfigurationProblem(`secret ${ctx.secretName}: ${errorMessage(err)}`);
    }
    const zone = secretValue(ctx, RFC2136_KEYS.zone, false);
    if (zone !== undefined && tryNormalizeDnsName(zone) === undefined)
      throw new ConfigurationProblem(`secret ${ctx.secretName}: Zone ${JSON.stringify(zone)} is not a DNS name`);
    this.zone = zone === undefined ? undefined : tryNormalizeDnsName(zone);
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  listZones(): Promise<BackendZone[]> {
    return Promise.resolve(this.zone === undefined ? [] : [{ id: this.zone, name: this.zone }]);
  }

  async upsert(zoneId: string, rrset: RecordSet): Promise<void> {
    const ep = this.endpoint(rrset, rrset.values);
    await this.provider(zoneId).applyChanges({ create: [], updateOld: [{ ...ep, targets: [] }], updateNew: [ep], delete: [] });
  }

  async remove(zoneId: string, rrset: RecordSet): Promise<void> {
    try {
      // No values: the whole RRset goes, whatever it holds now (deleting a missing RRset is a no-op).
      await this.provider(zoneId).applyChanges({ create: [], updateOld: [], updateNew: [], delete: [this.endpoint(rrset, [])] });
    } catch (err) {
      // The server no longer serves the zone: nothing is left to delete.
      if (err instanceof ProviderError && (err.code === 'PROVIDER_NOTAUTH' || err.code === 'PROVIDER_NOTZONE')) return;
      throw err;
    }
  }

  private endpoint(rrset: RecordSet, targets: string[]): Endpoint {
    return newEndpoint({ dnsName: rrset.name, recordType: rrset.type, targets, recordTTL: rrset.ttl });
  }

  private provider(zone: string): Rfc2136Provider {
    const name = tryNormalizeDnsName(zone);
    if (name === undefined) throw new ConfigurationProblem(`zone ${JSON.stringify(zone)} is not a DNS name`);
    const { host, port } = this.server;
    return new Rfc2136Provider({
      zones: [name],
      transport: new NetworkTransport({ host, port, timeoutMs: this.timeoutMs }),
      key: this.key,
      logger: this.ctx.logger,
      server: `${host}:${port}`,
    });
  }
}
