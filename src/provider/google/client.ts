/**
 * The three Cloud DNS calls the provider makes, through the official @google-cloud/dns SDK.
 * SDK errors become ProviderErrors: 429 and 5xx (and no answer at all) are transient, the rest
 * permanent with Cloud DNS's own reason (alreadyExists, notFound, conditionNotMet, …).
 */
import { DNS } from '@google-cloud/dns';
import type { DNSOptions } from '@google-cloud/dns';
import { ProviderError } from '../../errors.ts';
import type { GoogleRRSet } from './convert.ts';

export const PROVIDER_NAME = 'google';

export interface GoogleZone {
  /** The managed zone's resource name (used in API paths). */
  id: string;
  /** The DNS name without the trailing dot. */
  dnsName: string;
  visibility: string;
  /** Cloud DNS's numeric id of the zone (--zone-id-filter matches it or the resource name). */
  numericId?: string;
}

export interface GoogleDnsApi {
  listZones(): Promise<GoogleZone[]>;
  listRRSets(zoneId: string): Promise<GoogleRRSet[]>;
  createChange(zoneId: string, additions: GoogleRRSet[], deletions: GoogleRRSet[]): Promise<void>;
}

export interface GoogleClientOptions {
  /** Empty: the project of the application default credentials. */
  project: string;
  /** A service account key file; empty for application default credentials. */
  keyFile: string;
  /** host[:port] of the API, for tests and private endpoints; empty for dns.googleapis.com. */
  apiEndpoint: string;
  /** Supplies tokens instead of the default credentials (tests use a static token). */
  authClient?: DNSOptions['authClient'];
}

interface SdkError {
  code?: number | string;
  message?: string;
  errors?: { reason?: string }[];
}

export class SdkGoogleDnsApi implements GoogleDnsApi {
  private readonly dns: DNS;

  constructor(opts: GoogleClientOptions) {
    const options: DNSOptions = {};
    if (opts.project !== '') options.projectId = opts.project;
    if (opts.keyFile !== '') options.keyFilename = opts.keyFile;
    if (opts.apiEndpoint !== '') options.apiEndpoint = opts.apiEndpoint;
    if (opts.authClient !== undefined) options.authClient = opts.authClient;
    this.dns = new DNS(options);
  }

  async listZones(): Promise<GoogleZone[]> {
    try {
      const [zones] = await this.dns.getZones({ autoPaginate: true });
      return zones.map((z) => {
        const meta = (z.metadata ?? {}) as { name?: string; dnsName?: string; visibility?: string; id?: string | number };
        return {
          id: meta.name ?? z.name,
          dnsName: (meta.dnsName ?? '').replace(/\.$/, '').toLowerCase(),
          visibility: meta.visibility ?? 'public',
          ...(meta.id === undefined ? {} : { numericId: String(meta.id) }),
        };
      });
    } catch (err) {
      throw googleError('list managed zones', err, undefined);
    }
  }

  async listRRSets(zoneId: string): Promise<GoogleRRSet[]> {
    try {
      const [records] = await this.dns.zone(zoneId).getRecords({ autoPaginate: true });
      return records.map((r) => {
        const meta = (r.metadata ?? {}) as { name?: string; ttl?: number; rrdatas?: string[] };
        return { name: meta.name ?? '', type: r.type, ttl: meta.ttl ?? 0, rrdatas: meta.rrdatas ?? [] };
      });
    } catch (err) {
      throw googleError('list record sets', err, zoneId);
    }
  }

  async createChange(zoneId: string, additions: GoogleRRSet[], deletions: GoogleRRSet[]): Promise<void> {
    const zone = this.dns.zone(zoneId);
    const toRecord = (s: GoogleRRSet): ReturnType<typeof zone.record> => zone.record(s.type, { name: s.name, ttl: s.ttl, data: s.rrdatas });
    try {
      await zone.createChange({ add: additions.map(toRecord), delete: deletions.map(toRecord) });
    } catch (err) {
      throw googleError('create change', err, zoneId);
    }
  }
}

function googleError(what: string, err: unknown, zone: string | undefined): ProviderError {
  const e = (err ?? {}) as SdkError;
  const status = typeof e.code === 'number' ? e.code : 0;
  const reason = e.errors?.[0]?.reason;
  const detail = `${status === 0 ? 'no answer' : `HTTP ${status}`}${reason === undefined ? '' : ` ${reason}`}: ${e.message ?? String(err)}`;
  const hint = status === 401 || status === 403 ? ' (check the credentials and --google-project)' : '';
  return new ProviderError(PROVIDER_NAME, `${what}${zone === undefined ? '' : ` in zone ${zone}`}: ${detail}${hint}`, {
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
