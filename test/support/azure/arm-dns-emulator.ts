/**
 * An Azure Resource Manager emulator over HTTPS for Microsoft.Network/dnsZones and
 * privateDnsZones, driven by @azure/arm-dns and @azure/arm-privatedns in tests, plus the two
 * Entra ID (AAD) endpoints a client-secret login uses. Rules kept: bearer token required, lists
 * paginated with nextLink ($top honoured), one record set per name and type whose records field
 * must match the type, a CNAME alone at its name, If-Match / If-None-Match answered with 412,
 * PUT 201 on create and 200 on update, DELETE of a missing record set 204. Record-set metadata
 * (`properties.metadata`, a map of strings) is kept and listed as written; a PUT replaces the whole
 * record set, so one without metadata clears it. `throttle(n)` answers the next n requests with 429
 * and Retry-After: 0.
 */
import { startJsonHttps } from '../tls.ts';
import type { JsonReply, JsonRequest, SelfSignedCert } from '../tls.ts';

export type ArmZoneKind = 'public' | 'private';

export interface ArmRecordSet {
  /** Relative name, '@' at the apex. */
  name: string;
  type: string;
  etag: string;
  /** Wire properties (public: TTL, ARecords, …; private: ttl, aRecords, …). */
  properties: Record<string, unknown>;
}

interface Zone {
  kind: ArmZoneKind;
  resourceGroup: string;
  name: string;
  sets: Map<string, ArmRecordSet>;
}

export interface ArmCalls {
  zoneLists: number;
  recordSetLists: number;
  puts: number;
  deletes: number;
  throttled: number;
  tokens: number;
}

export interface ArmEmulatorOptions {
  subscriptionId: string;
  cert: SelfSignedCert;
  pageSize?: number;
  token?: string;
  /** The client a client-secret login must present. */
  clientId?: string;
  clientSecret?: string;
}

const RECORD_FIELDS: Readonly<Record<ArmZoneKind, Readonly<Record<string, string>>>> = {
  public: {
    A: 'ARecords',
    AAAA: 'AAAARecords',
    CNAME: 'CNAMERecord',
    TXT: 'TXTRecords',
    MX: 'MXRecords',
    NS: 'NSRecords',
    PTR: 'PTRRecords',
    SRV: 'SRVRecords',
    CAA: 'caaRecords',
    SOA: 'SOARecord',
  },
  private: {
    A: 'aRecords',
    AAAA: 'aaaaRecords',
    CNAME: 'cnameRecord',
    TXT: 'txtRecords',
    MX: 'mxRecords',
    PTR: 'ptrRecords',
    SRV: 'srvRecords',
    SOA: 'soaRecord',
  },
};
const PROVIDER_SEGMENT: Readonly<Record<ArmZoneKind, string>> = { public: 'dnszones', private: 'privateDnsZones' };

/**
 * Azure DNS's record set name rule: '@' at the apex; otherwise labels of letters, digits,
 * underscores and dashes, and a wildcard '*' only as the whole name or the whole first label.
 */
function validRelativeName(relative: string): boolean {
  if (relative === '@') return true;
  return relative.split('.').every((label, i) => (label === '*' ? i === 0 : /^[a-z0-9_-]{1,63}$/i.test(label)));
}

/** Why `metadata` is not ARM's map of strings; undefined when it is one (or absent). */
function badMetadata(metadata: unknown): string | undefined {
  if (metadata === undefined || metadata === null) return undefined;
  if (typeof metadata !== 'object' || Array.isArray(metadata)) return 'properties.metadata must be an object';
  const bad = Object.entries(metadata).find(([, v]) => typeof v !== 'string');
  return bad === undefined ? undefined : `the value of metadata '${bad[0]}' must be a string`;
}

const armError = (status: number, code: string, message: string, headers?: Record<string, string>): JsonReply => ({
  status,
  body: { error: { code, message } },
  ...(headers === undefined ? {} : { headers }),
});

export class ArmDnsEmulator {
  readonly calls: ArmCalls = { zoneLists: 0, recordSetLists: 0, puts: 0, deletes: 0, throttled: 0, tokens: 0 };
  private readonly opts: Required<ArmEmulatorOptions>;
  private readonly zones: Zone[] = [];
  private throttleLeft = 0;
  private etagSeq = 0;
  private server: { port: number; close(): Promise<void> } | undefined;

  constructor(opts: ArmEmulatorOptions) {
    this.opts = { pageSize: 100, token: 'arm-test-token', clientId: 'test-client', clientSecret: 'test-secret', ...opts };
  }

  static async start(opts: ArmEmulatorOptions): Promise<ArmDnsEmulator> {
    const emu = new ArmDnsEmulator(opts);
    emu.server = await startJsonHttps(opts.cert, (req) => emu.handle(req));
    return emu;
  }

  get url(): string {
    return `https://127.0.0.1:${this.server?.port ?? 0}`;
  }

  async stop(): Promise<void> {
    await this.server?.close();
  }

  addZone(kind: ArmZoneKind, resourceGroup: string, name: string): void {
    const zone: Zone = { kind, resourceGroup, name, sets: new Map() };
    this.zones.push(zone);
    const ttl = kind === 'public' ? 'TTL' : 'ttl';
    this.put(kind, name, {
      name: '@',
      type: 'SOA',
      properties: { [ttl]: 3600, [RECORD_FIELDS[kind]['SOA'] as string]: { host: 'ns1-01.azure-dns.com.', email: 'azuredns-hostmaster.microsoft.com' } },
    });
    if (kind === 'public')
      this.put(kind, name, {
        name: '@',
        type: 'NS',
        properties: { TTL: 172800, NSRecords: [{ nsdname: 'ns1-01.azure-dns.com.' }, { nsdname: 'ns2-01.azure-dns.net.' }] },
      });
  }

  /** Puts a record set directly, as another tool would. */
  put(kind: ArmZoneKind, zoneName: string, set: Omit<ArmRecordSet, 'etag'>): void {
    this.zone(kind, zoneName).sets.set(`${set.name.toLowerCase()} ${set.type}`, { ...set, etag: this.nextEtag() });
  }

  get(kind: ArmZoneKind, zoneName: string, name: string, type: string): ArmRecordSet | undefined {
    return this.zone(kind, zoneName).sets.get(`${name.toLowerCase()} ${type}`);
  }

  throttle(requests: number): void {
    this.throttleLeft = requests;
  }

  private zone(kind: ArmZoneKind, name: string): Zone {
    const zone = this.zones.find((z) => z.kind === kind && z.name === name);
    if (zone === undefined) throw new Error(`no ${kind} zone ${name}`);
    return zone;
  }

  private nextEtag(): string {
    return `etag-${++this.etagSeq}`;
  }

  private handle(req: JsonRequest): JsonReply {
    const path = req.url.pathname;
    if (/\/v2\.0\/\.well-known\/openid-configuration$/.test(path) || /\/oauth2\/v2\.0\/token$/.test(path)) return this.login(req);
    if (req.headers.authorization !== `Bearer ${this.opts.token}`)
      return armError(401, 'AuthenticationFailed', 'Authentication failed. The Authorization header is missing or invalid.');
    if (this.throttleLeft > 0) {
      this.throttleLeft--;
      this.calls.throttled++;
      return armError(429, 'TooManyRequests', 'The request is being throttled.', { 'retry-after': '0' });
    }
    if (req.url.searchParams.get('api-version') === null) return armError(400, 'MissingApiVersionParameter', 'The api-version query parameter is required.');
    const m =
      /^\/subscriptions\/([^/]+)(?:\/resourceGroups\/([^/]+))?\/providers\/Microsoft\.Network\/(dnszones|privatednszones)(?:\/([^/]+)(?:\/([^/]+)(?:\/([^/]+))?)?)?$/i.exec(
        path,
      );
    if (m === null || m[1] !== this.opts.subscriptionId) return armError(404, 'NotFound', `no route ${req.method} ${path}`);
    const kind: ArmZoneKind = (m[3] as string).toLowerCase() === 'dnszones' ? 'public' : 'private';
    const rg = m[2];
    const zoneName = m[4] === undefined ? undefined : decodeURIComponent(m[4]).toLowerCase();
    if (zoneName === undefined) {
      if (req.method !== 'GET') return armError(405, 'MethodNotAllowed', 'method not allowed');
      this.calls.zoneLists++;
      const zones = this.zones.filter((z) => z.kind === kind && (rg === undefined || z.resourceGroup.toLowerCase() === rg.toLowerCase()));
      return this.page(
        req,
        zones.map((z) => this.zoneJson(z)),
      );
    }
    const zone = this.zones.find((z) => z.kind === kind && z.name === zoneName && rg !== undefined && z.resourceGroup.toLowerCase() === rg.toLowerCase());
    if (zone === undefined)
      return armError(404, 'ResourceNotFound', `The Resource '${PROVIDER_SEGMENT[kind]}/${zoneName}' under resource group '${rg ?? ''}' was not found.`);
    const typeSeg = m[5] === undefined ? undefined : decodeURIComponent(m[5]).toUpperCase();
    if (typeSeg === undefined) return armError(405, 'MethodNotAllowed', 'zone operations are not emulated');
    if (m[6] === undefined) {
      if (req.method !== 'GET') return armError(405, 'MethodNotAllowed', 'method not allowed');
      this.calls.recordSetLists++;
      const all = typeSeg === 'ALL' || typeSeg === 'RECORDSETS';
      const sets = [...zone.sets.values()]
        .filter((s) => all || s.type === typeSeg)
        .sort((a, b) => (a.name === b.name ? a.type.localeCompare(b.type) : a.name.localeCompare(b.name)));
      return this.page(
        req,
        sets.map((s) => this.setJson(zone, s)),
      );
    }
    const relative = decodeURIComponent(m[6]).toLowerCase();
    const k = `${relative} ${typeSeg}`;
    const existing = zone.sets.get(k);
    const ifMatch = req.headers['if-match'];
    const ifNoneMatch = req.headers['if-none-match'];
    if (ifNoneMatch === '*' && existing !== undefined) return armError(412, 'PreconditionFailed', `The record set ${relative} ${typeSeg} already exists.`);
    if (typeof ifMatch === 'string' && ifMatch !== '*' && existing?.etag !== ifMatch)
      return armError(412, 'PreconditionFailed', `The etag of record set ${relative} ${typeSeg} does not match.`);
    if (req.method === 'GET')
      return existing === undefined
        ? armError(404, 'NotFound', `record set ${relative} ${typeSeg} not found`)
        : { status: 200, body: this.setJson(zone, existing) };
    if (req.method === 'DELETE') {
      this.calls.deletes++;
      if (existing === undefined) return { status: 204 };
      zone.sets.delete(k);
      return { status: 200 };
    }
    if (req.method !== 'PUT') return armError(405, 'MethodNotAllowed', 'method not allowed');
    this.calls.puts++;
    return this.putSet(zone, relative, typeSeg, req.body, existing);
  }

  private putSet(zone: Zone, relative: string, type: string, body: unknown, existing: ArmRecordSet | undefined): JsonReply {
    if (!validRelativeName(relative)) {
      return armError(
        400,
        'BadRequest',
        `The domain name '${relative}.${zone.name}' is invalid. The provided record set relative name '${relative}' is invalid.`,
      );
    }
    const field = RECORD_FIELDS[zone.kind][type];
    if (field === undefined || type === 'SOA') return armError(400, 'BadRequest', `record type ${type} is not supported in ${PROVIDER_SEGMENT[zone.kind]}`);
    const props = (body as { properties?: Record<string, unknown> } | undefined)?.properties;
    if (props === undefined || props[field] === undefined) return armError(400, 'BadRequest', `The record set of type ${type} must have ${field}.`);
    for (const [other, f] of Object.entries(RECORD_FIELDS[zone.kind])) {
      if (other !== type && props[f] !== undefined) return armError(400, 'BadRequest', `A record set of type ${type} cannot have ${f}.`);
    }
    if (type === 'TXT') {
      for (const rec of props[field] as { value?: string[] }[]) {
        // Each string becomes one DNS character-string; the client splits longer values.
        if ((rec.value ?? []).some((v) => Buffer.byteLength(v, 'utf8') > 255))
          return armError(400, 'BadRequest', 'A TXT string is longer than 255 characters.');
      }
    }
    const metadataProblem = badMetadata(props['metadata']);
    if (metadataProblem !== undefined) return armError(400, 'InvalidRequestFormat', `Cannot parse the request: ${metadataProblem}.`);
    const others = [...zone.sets.values()].filter((s) => s.name === relative && s.type !== type);
    if ((type === 'CNAME' && others.length > 0) || others.some((s) => s.type === 'CNAME')) {
      return armError(409, 'Conflict', `The record set ${relative} ${type} conflicts with a CNAME record set at the same name.`);
    }
    const { metadata, ...rest } = props;
    // Read-only fields a client sends back are ignored, as ARM does; null metadata is none.
    delete rest['fqdn'];
    delete rest['provisioningState'];
    const stored = metadata === undefined || metadata === null ? rest : { ...rest, metadata: { ...(metadata as Record<string, string>) } };
    const set: ArmRecordSet = { name: relative, type, etag: this.nextEtag(), properties: stored };
    zone.sets.set(`${relative} ${type}`, set);
    return { status: existing === undefined ? 201 : 200, body: this.setJson(zone, set) };
  }

  private login(req: JsonRequest): JsonReply {
    const tenantBase = `${this.url}${req.url.pathname.replace(/\/(v2\.0\/\.well-known\/openid-configuration|oauth2\/v2\.0\/token)$/, '')}`;
    if (req.method === 'GET') {
      return {
        status: 200,
        body: {
          token_endpoint: `${tenantBase}/oauth2/v2.0/token`,
          authorization_endpoint: `${tenantBase}/oauth2/v2.0/authorize`,
          end_session_endpoint: `${tenantBase}/oauth2/v2.0/logout`,
          jwks_uri: `${tenantBase}/discovery/v2.0/keys`,
          issuer: `${tenantBase}/v2.0`,
        },
      };
    }
    const form = new URLSearchParams(typeof req.body === 'string' ? req.body : '');
    if (form.get('client_id') !== this.opts.clientId || form.get('client_secret') !== this.opts.clientSecret) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' } };
    }
    this.calls.tokens++;
    return { status: 200, body: { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: this.opts.token } };
  }

  private page(req: JsonRequest, items: unknown[]): JsonReply {
    const top = Number(req.url.searchParams.get('$top') ?? '0');
    const size = top > 0 ? Math.min(top, this.opts.pageSize) : this.opts.pageSize;
    const skip = Number(req.url.searchParams.get('$skiptoken') ?? '0');
    const body: Record<string, unknown> = { value: items.slice(skip, skip + size) };
    if (skip + size < items.length) {
      const next = new URL(req.url.pathname, this.url);
      for (const [k, v] of req.url.searchParams) if (k !== '$skiptoken') next.searchParams.set(k, v);
      next.searchParams.set('$skiptoken', String(skip + size));
      body['nextLink'] = next.toString();
    }
    return { status: 200, body };
  }

  private zoneJson(z: Zone): unknown {
    const seg = PROVIDER_SEGMENT[z.kind];
    return {
      id: `/subscriptions/${this.opts.subscriptionId}/resourceGroups/${z.resourceGroup}/providers/Microsoft.Network/${seg}/${z.name}`,
      name: z.name,
      type: `Microsoft.Network/${seg}`,
      location: 'global',
      properties: { numberOfRecordSets: z.sets.size },
    };
  }

  private setJson(z: Zone, s: ArmRecordSet): unknown {
    const seg = PROVIDER_SEGMENT[z.kind];
    return {
      id: `/subscriptions/${this.opts.subscriptionId}/resourceGroups/${z.resourceGroup}/providers/Microsoft.Network/${seg}/${z.name}/${s.type}/${s.name}`,
      name: s.name,
      type: `Microsoft.Network/${seg}/${s.type}`,
      etag: s.etag,
      properties: { ...s.properties, fqdn: s.name === '@' ? `${z.name}.` : `${s.name}.${z.name}.` },
    };
  }
}
