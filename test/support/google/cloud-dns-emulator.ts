/**
 * A Cloud DNS v1 JSON API emulator over HTTPS for driving @google-cloud/dns in tests. It keeps the
 * documented rules that matter to a provider: listings are paginated with pageToken, a change is
 * applied all or nothing, deleting a missing rrset is 404 notFound, deleting one whose ttl or
 * rrdatas differ is 412 conditionNotMet, adding an existing one is 409 alreadyExists. Requests
 * without the bearer token get 401; `throttle(n)` answers the next n requests with 429. It also
 * answers the STS token exchange of an `external_account` (workload identity federation) login.
 */
import { startJsonHttps } from '../tls.ts';
import type { JsonReply, JsonRequest, SelfSignedCert } from '../tls.ts';

export interface CloudDnsRRSet {
  name: string;
  type: string;
  ttl: number;
  rrdatas: string[];
}

interface Zone {
  name: string;
  dnsName: string;
  visibility: 'public' | 'private';
  /** Cloud DNS gives every managed zone a numeric id, unique in the project. */
  id: string;
  rrsets: Map<string, CloudDnsRRSet>;
}

export interface CloudDnsCalls {
  zoneLists: number;
  rrsetLists: number;
  changes: number;
  throttled: number;
  tokens: number;
}

export interface CloudDnsEmulatorOptions {
  project: string;
  cert: SelfSignedCert;
  /** Items per page when the client does not ask for fewer. */
  pageSize?: number;
  /** Bearer token the requests must carry. */
  token?: string;
  /** Subject token an `external_account` login must present to the token exchange. */
  subjectToken?: string;
}

const key = (name: string, type: string): string => `${name.toLowerCase()} ${type}`;

/** The record types Cloud DNS documents as supported (no DNAME). */
const CLOUD_DNS_TYPES = new Set([
  'A',
  'AAAA',
  'ALIAS',
  'CAA',
  'CNAME',
  'DNSKEY',
  'DS',
  'HTTPS',
  'IPSECKEY',
  'MX',
  'NAPTR',
  'NS',
  'PTR',
  'SOA',
  'SPF',
  'SRV',
  'SSHFP',
  'SVCB',
  'TLSA',
  'TXT',
]);

function apiError(status: number, reason: string, message: string): JsonReply {
  return { status, body: { error: { code: status, message, errors: [{ domain: 'global', reason, message }] } } };
}

function sameRRSet(a: CloudDnsRRSet, b: CloudDnsRRSet): boolean {
  const x = [...a.rrdatas].sort();
  const y = [...b.rrdatas].sort();
  return a.ttl === b.ttl && x.length === y.length && x.every((v, i) => v === y[i]);
}

export class CloudDnsEmulator {
  readonly calls: CloudDnsCalls = { zoneLists: 0, rrsetLists: 0, changes: 0, throttled: 0, tokens: 0 };
  /** Every change body accepted, in order. */
  readonly changeLog: { zone: string; additions: CloudDnsRRSet[]; deletions: CloudDnsRRSet[] }[] = [];
  private readonly zones = new Map<string, Zone>();
  private readonly opts: Required<CloudDnsEmulatorOptions>;
  private throttleLeft = 0;
  private throttleOnly: 'all' | 'changes' = 'all';
  private server: { port: number; close(): Promise<void> } | undefined;

  constructor(opts: CloudDnsEmulatorOptions) {
    this.opts = { pageSize: 100, token: 'test-token', subjectToken: 'test-subject-token', ...opts };
  }

  static async start(opts: CloudDnsEmulatorOptions): Promise<CloudDnsEmulator> {
    const emu = new CloudDnsEmulator(opts);
    emu.server = await startJsonHttps(opts.cert, (req) => emu.handle(req));
    return emu;
  }

  /** host:port, the SDK's apiEndpoint. */
  get endpoint(): string {
    return `127.0.0.1:${this.server?.port ?? 0}`;
  }

  async stop(): Promise<void> {
    await this.server?.close();
  }

  /** The numeric id the emulator gave a zone (for --zone-id-filter). */
  zoneId(name: string): string {
    return this.zones.get(name)?.id ?? '';
  }

  addZone(name: string, dnsName: string, visibility: 'public' | 'private' = 'public'): void {
    const fqdn = dnsName.endsWith('.') ? dnsName : `${dnsName}.`;
    const zone: Zone = { name, dnsName: fqdn, visibility, id: String(7_000_000_000_000_000 + this.zones.size * 1_000_003), rrsets: new Map() };
    zone.rrsets.set(key(fqdn, 'SOA'), {
      name: fqdn,
      type: 'SOA',
      ttl: 21600,
      rrdatas: [`ns-cloud-a1.googledomains.com. cloud-dns-hostmaster.google.com. 1 21600 3600 259200 300`],
    });
    zone.rrsets.set(key(fqdn, 'NS'), { name: fqdn, type: 'NS', ttl: 21600, rrdatas: ['ns-cloud-a1.googledomains.com.', 'ns-cloud-a2.googledomains.com.'] });
    this.zones.set(name, zone);
  }

  /** Puts an rrset directly, as another tool would. */
  put(zoneName: string, rrset: CloudDnsRRSet): void {
    this.zone(zoneName).rrsets.set(key(rrset.name, rrset.type), { ...rrset, rrdatas: [...rrset.rrdatas] });
  }

  get(zoneName: string, name: string, type: string): CloudDnsRRSet | undefined {
    return this.zone(zoneName).rrsets.get(key(name, type));
  }

  rrsets(zoneName: string): CloudDnsRRSet[] {
    return [...this.zone(zoneName).rrsets.values()];
  }

  /** Answers the next `requests` requests (or only change requests) with 429 rateLimitExceeded. */
  throttle(requests: number, only: 'all' | 'changes' = 'all'): void {
    this.throttleLeft = requests;
    this.throttleOnly = only;
  }

  private zone(name: string): Zone {
    const zone = this.zones.get(name);
    if (zone === undefined) throw new Error(`no zone ${name}`);
    return zone;
  }

  /** URL of the STS token exchange, for an `external_account` credentials file. */
  get tokenUrl(): string {
    return `https://${this.endpoint}/v1/token`;
  }

  private handle(req: JsonRequest): JsonReply {
    if (req.url.pathname === '/v1/token' && req.method === 'POST') return this.exchange(req);
    if (req.headers.authorization !== `Bearer ${this.opts.token}`) return apiError(401, 'required', 'Request had invalid authentication credentials.');
    if (this.throttleLeft > 0 && (this.throttleOnly === 'all' || req.method === 'POST')) {
      this.throttleLeft--;
      this.calls.throttled++;
      return apiError(429, 'rateLimitExceeded', 'Rate limit exceeded.');
    }
    const prefix = `/dns/v1/projects/${this.opts.project}/managedZones`;
    const path = req.url.pathname;
    if (!path.startsWith(prefix)) return apiError(404, 'notFound', `The requested project or path was not found: ${path}`);
    const parts = path
      .slice(prefix.length)
      .split('/')
      .filter((p) => p !== '')
      .map(decodeURIComponent);
    if (parts.length === 0 && req.method === 'GET') {
      this.calls.zoneLists++;
      const zones = [...this.zones.values()].map((z) => ({
        kind: 'dns#managedZone',
        name: z.name,
        dnsName: z.dnsName,
        visibility: z.visibility,
        id: z.id,
      }));
      return this.page(req, zones, 'managedZones', 'dns#managedZonesListResponse');
    }
    const zone = this.zones.get(parts[0] ?? '');
    if (zone === undefined) return apiError(404, 'notFound', `The 'parameters.managedZone' resource named '${parts[0] ?? ''}' does not exist.`);
    if (parts[1] === 'rrsets' && parts.length === 2 && req.method === 'GET') {
      this.calls.rrsetLists++;
      const sorted = [...zone.rrsets.values()].sort((a, b) => (a.name === b.name ? a.type.localeCompare(b.type) : a.name.localeCompare(b.name)));
      return this.page(
        req,
        sorted.map((r) => ({ kind: 'dns#resourceRecordSet', ...r })),
        'rrsets',
        'dns#resourceRecordSetsListResponse',
      );
    }
    if (parts[1] === 'changes' && parts.length === 2 && req.method === 'POST') {
      this.calls.changes++;
      return this.change(zone, req.body);
    }
    return apiError(404, 'notFound', `no route ${req.method} ${path}`);
  }

  /** Workload identity federation: trades the subject token for the access token. */
  private exchange(req: JsonRequest): JsonReply {
    const form = new URLSearchParams(typeof req.body === 'string' ? req.body : '');
    if (form.get('subject_token') !== this.opts.subjectToken)
      return { status: 400, body: { error: 'invalid_grant', error_description: 'The subject token is not valid.' } };
    this.calls.tokens++;
    return {
      status: 200,
      body: { access_token: this.opts.token, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token', token_type: 'Bearer', expires_in: 3600 },
    };
  }

  private page(req: JsonRequest, items: unknown[], field: string, kind: string): JsonReply {
    const asked = Number(req.url.searchParams.get('maxResults') ?? '0');
    const size = asked > 0 ? Math.min(asked, this.opts.pageSize) : this.opts.pageSize;
    const start = Number(req.url.searchParams.get('pageToken') ?? '0');
    if (!Number.isInteger(start) || start < 0 || start > items.length) return apiError(400, 'invalid', 'Invalid value for pageToken');
    const body: Record<string, unknown> = { kind, [field]: items.slice(start, start + size) };
    if (start + size < items.length) body['nextPageToken'] = String(start + size);
    return { status: 200, body };
  }

  private change(zone: Zone, body: unknown): JsonReply {
    const b = (body ?? {}) as { additions?: CloudDnsRRSet[]; deletions?: CloudDnsRRSet[] };
    const additions = b.additions ?? [];
    const deletions = b.deletions ?? [];
    if (additions.length + deletions.length === 0) return apiError(400, 'required', 'The change must have additions or deletions.');
    // Work on a copy so a rejected change leaves the zone untouched.
    const next = new Map(zone.rrsets);
    for (const del of deletions) {
      const k = key(del.name, del.type);
      const existing = next.get(k);
      if (existing === undefined)
        return apiError(404, 'notFound', `The 'entity.change.deletions[${del.name}][${del.type}]' resource named '${del.name} (${del.type})' does not exist.`);
      if (!sameRRSet(existing, del)) return apiError(412, 'conditionNotMet', `Precondition not met for 'entity.change.deletions[${del.name}][${del.type}]'`);
      next.delete(k);
    }
    for (const add of additions) {
      if (typeof add.name !== 'string' || !add.name.endsWith('.') || !Array.isArray(add.rrdatas) || add.rrdatas.length === 0 || typeof add.ttl !== 'number') {
        return apiError(400, 'invalid', `Invalid value for 'entity.change.additions[${String(add.name)}]'`);
      }
      if (!CLOUD_DNS_TYPES.has(add.type)) return apiError(400, 'invalid', `Invalid value for 'entity.change.additions[${add.name}].type': '${add.type}'`);
      const inZone = add.name.toLowerCase() === zone.dnsName || add.name.toLowerCase().endsWith(`.${zone.dnsName}`);
      if (!inZone) return apiError(400, 'invalid', `Invalid value for 'entity.change.additions[${add.name}].name': not in zone ${zone.dnsName}`);
      const k = key(add.name, add.type);
      if (next.has(k))
        return apiError(
          409,
          'alreadyExists',
          `The resource 'entity.change.additions[${add.name}][${add.type}]' named '${add.name} (${add.type})' already exists`,
        );
      next.set(k, { name: add.name, type: add.type, ttl: add.ttl, rrdatas: [...add.rrdatas] });
    }
    zone.rrsets = next;
    this.changeLog.push({ zone: zone.name, additions, deletions });
    return {
      status: 200,
      body: { kind: 'dns#change', id: String(this.changeLog.length), status: 'done', additions, deletions, startTime: new Date(0).toISOString() },
    };
  }
}
