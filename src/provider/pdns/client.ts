/**
 * A small client for the PowerDNS Authoritative HTTP API (v1): the three calls the provider
 * needs. Errors are ProviderErrors classified for the sync loop: connection failures, timeouts
 * and 5xx are transient, other statuses permanent and carry PowerDNS's own message.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { RequestOptions } from 'node:https';
import { ProviderError } from '../../errors.ts';
import type { PdnsRRSet } from './convert.ts';

export const PROVIDER_NAME = 'pdns';
/** Zone listings of large servers run to megabytes; anything beyond this is not PowerDNS talking. */
const MAX_RESPONSE_BYTES = 64 << 20;

export interface PdnsTLS {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized: boolean;
}

export interface PdnsClientOptions {
  /** Base URL of the API server, e.g. http://127.0.0.1:8081 */
  server: string;
  apiKey: string;
  serverId: string;
  tls?: PdnsTLS;
  timeoutMs: number;
}

export interface PdnsZoneInfo {
  id: string;
  name: string;
}

export class PdnsClient {
  private readonly opts: PdnsClientOptions;
  private readonly base: URL;

  constructor(opts: PdnsClientOptions) {
    this.opts = opts;
    this.base = new URL(opts.server.endsWith('/') ? opts.server : `${opts.server}/`);
  }

  async listZones(): Promise<PdnsZoneInfo[]> {
    const body = await this.call('GET', 'zones', undefined, undefined);
    if (!Array.isArray(body)) throw new ProviderError(PROVIDER_NAME, 'zone listing is not a JSON array', { code: 'PROVIDER_BAD_RESPONSE' });
    return body
      .filter((z): z is { id: string; name: string } => typeof z === 'object' && z !== null && typeof (z as { name?: unknown }).name === 'string')
      .map((z) => ({ id: typeof z.id === 'string' ? z.id : z.name, name: z.name }));
  }

  async zoneRRSets(zone: PdnsZoneInfo): Promise<PdnsRRSet[]> {
    const body = (await this.call('GET', `zones/${encodeURIComponent(zone.id)}`, undefined, zone.name)) as { rrsets?: unknown } | null;
    const rrsets = body?.rrsets;
    if (!Array.isArray(rrsets))
      throw new ProviderError(PROVIDER_NAME, `zone ${zone.name}: response has no rrsets`, { zone: zone.name, code: 'PROVIDER_BAD_RESPONSE' });
    return rrsets as PdnsRRSet[];
  }

  async patchZone(zone: PdnsZoneInfo, rrsets: PdnsRRSet[]): Promise<void> {
    await this.call('PATCH', `zones/${encodeURIComponent(zone.id)}`, { rrsets }, zone.name);
  }

  private call(method: string, path: string, payload: unknown, zone: string | undefined): Promise<unknown> {
    const url = new URL(`api/v1/servers/${encodeURIComponent(this.opts.serverId)}/${path}`, this.base);
    const data = payload === undefined ? undefined : Buffer.from(JSON.stringify(payload));
    const headers: Record<string, string> = { 'x-api-key': this.opts.apiKey, accept: 'application/json' };
    if (data !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(data.length);
    }
    const where = `${method} ${url.pathname}`;
    const zoneOpt = zone === undefined ? {} : { zone };
    const options: RequestOptions = { method, headers, timeout: this.opts.timeoutMs };
    const tls = this.opts.tls;
    if (url.protocol === 'https:' && tls !== undefined) {
      options.rejectUnauthorized = tls.rejectUnauthorized;
      if (tls.ca !== undefined) options.ca = tls.ca;
      if (tls.cert !== undefined) options.cert = tls.cert;
      if (tls.key !== undefined) options.key = tls.key;
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(url, options, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy(new Error(`response larger than ${MAX_RESPONSE_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', (err) => reject(transportError(where, err, zoneOpt)));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) {
            if (text.trim() === '') return resolve(null);
            try {
              return resolve(JSON.parse(text) as unknown);
            } catch {
              return reject(new ProviderError(PROVIDER_NAME, `${where}: response is not JSON`, { ...zoneOpt, code: 'PROVIDER_BAD_RESPONSE', transient: true }));
            }
          }
          reject(statusError(where, status, text, zoneOpt));
        });
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.opts.timeoutMs} ms`)));
      req.on('error', (err) => reject(transportError(where, err, zoneOpt)));
      req.end(data);
    });
  }
}

function transportError(where: string, err: Error, zone: { zone?: string }): ProviderError {
  return new ProviderError(PROVIDER_NAME, `${where}: cannot reach PowerDNS: ${err.message}`, {
    ...zone,
    transient: true,
    cause: err,
    code: 'PROVIDER_UNAVAILABLE',
  });
}

/** PowerDNS answers errors as {"error": "..."}; 401 comes as plain text. */
function statusError(where: string, status: number, text: string, zone: { zone?: string }): ProviderError {
  let detail = text.trim().slice(0, 500);
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (typeof parsed.error === 'string') detail = parsed.error;
  } catch {
    // plain text body: keep it as is
  }
  const hint = status === 401 || status === 403 ? ' (check --pdns-api-key)' : status === 404 ? ' (check --pdns-server-id and the zone)' : '';
  return new ProviderError(PROVIDER_NAME, `${where}: HTTP ${status}${hint}: ${detail}`, {
    ...zone,
    transient: status >= 500 || status === 429,
    code: status === 401 || status === 403 ? 'PROVIDER_UNAUTHORIZED' : 'PROVIDER_REJECTED',
  });
}
