/**
 * Lists a zone by AXFR (RFC 5936) and turns its records into record sets in the zone store's
 * canonical text form, so they compare equal to what the planner asks for. With a key, every
 * message of the transfer must carry a valid TSIG chained to the previous one (RFC 8945 5.3.1).
 */
import * as dnsPacket from 'dns-packet';
import type { Answer } from 'dns-packet';
import { canonicalTarget, isRecordType } from '../../endpoint/endpoint.ts';
import { formatNaptr } from '../../endpoint/naptr.ts';
import type { RecordType } from '../../endpoint/endpoint.ts';
import { findTsig, sign, verify } from '../../dns/tsig.ts';
import type { TsigKey } from '../../dns/tsig.ts';
import { RCODE_NAMES, T_AXFR } from '../../dns/wire.ts';
import { ProviderError, isErrorCode } from '../../errors.ts';
import type { ErrorCode } from '../../errors.ts';
import type { DnsTransport } from './transport.ts';
import { encodeQuery, readHeader } from './update-message.ts';

export interface ListedRRSet {
  name: string;
  type: RecordType;
  ttl: number;
  rdata: string[];
}

export interface TransferDeps {
  transport: DnsTransport;
  key: TsigKey | undefined;
  /** Seconds since the epoch. */
  now: () => number;
  id: () => number;
  provider: string;
}

const TSIG_ERRORS: Readonly<Record<number, string>> = { 16: 'BADSIG', 17: 'BADKEY', 18: 'BADTIME', 22: 'BADTRUNC' };

/** PROVIDER_<RCODE> for the rcodes a server can answer (all registered); PROVIDER_REJECTED for the rest. */
export function rcodeErrorCode(name: string): ErrorCode {
  const candidate = `PROVIDER_${name}`;
  return isErrorCode(candidate) ? candidate : 'PROVIDER_REJECTED';
}

export function tsigErrorName(code: number): string {
  return TSIG_ERRORS[code] ?? `TSIG error ${code}`;
}

function text(value: unknown): string {
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return String(value);
}

/** Canonical rdata text of a decoded record, or undefined for types the provider does not manage. */
function rdataText(rr: Answer): string | undefined {
  const data: unknown = (rr as { data?: unknown }).data;
  switch (rr.type) {
    case 'A':
    case 'AAAA':
    case 'CNAME':
    case 'DNAME':
    case 'NS':
    case 'PTR':
      return canonicalTarget(rr.type, text(data));
    case 'NAPTR': {
      const n = data as { order?: number; preference?: number; flags?: string; services?: string; regexp?: string; replacement?: string };
      const bytes = (v: string | undefined): Uint8Array => Buffer.from(v ?? '', 'utf8');
      return formatNaptr({
        order: n.order ?? 0,
        preference: n.preference ?? 0,
        flags: bytes(n.flags),
        service: bytes(n.services),
        regexp: bytes(n.regexp),
        // dns-packet gives the root as "." and other names without their trailing dot.
        replacement: (n.replacement ?? '').toLowerCase().replace(/\.$/, ''),
      });
    }
    case 'TXT': {
      const parts = Array.isArray(data) ? data : [data];
      return parts.map(text).join('');
    }
    case 'MX': {
      const mx = data as { preference?: number; exchange: string };
      return `${mx.preference ?? 0} ${canonicalTarget('MX', mx.exchange)}`;
    }
    case 'SRV': {
      const srv = data as { priority?: number; weight?: number; port?: number; target: string };
      return `${srv.priority ?? 0} ${srv.weight ?? 0} ${srv.port ?? 0} ${canonicalTarget('SRV', srv.target)}`;
    }
    case 'CAA': {
      const caa = data as { flags?: number; tag: string; value: string };
      return `${caa.flags ?? 0} ${caa.tag} ${caa.value}`;
    }
    default:
      return undefined;
  }
}

/** Fetches every record set of `zone` except the SOA and the apex NS set. */
export async function transferZone(zone: string, deps: TransferDeps): Promise<ListedRRSet[]> {
  let request = encodeQuery(deps.id(), zone, T_AXFR);
  let previousMac: Buffer | undefined;
  if (deps.key !== undefined) {
    const signed = sign(request, deps.key, deps.now());
    request = signed.message;
    previousMac = signed.mac;
  }
  const sets = new Map<string, ListedRRSet>();
  let soaSeen = 0;
  let first = true;
  await deps.transport.transfer(request, (message) => {
    const header = readHeader(message);
    if (header === undefined) throw failure(zone, deps.provider, 'malformed transfer message', false);
    if (header.rcode !== 0) {
      const tsig = findTsig(message);
      const detail = tsig !== undefined && tsig.error !== 0 ? ` (${tsigErrorName(tsig.error)}: the key was not accepted)` : '';
      const rcode = RCODE_NAMES[header.rcode] ?? String(header.rcode);
      // Zones are read by AXFR by default (unlike external-dns): say how to allow it, or how to go without.
      const hint =
        rcode === 'REFUSED' && detail === ''
          ? ' (the server does not allow this key to transfer the zone: BIND allow-transfer; or --no-rfc2136-axfr to only create records without reading the zone)'
          : '';
      throw failure(zone, deps.provider, `zone transfer of ${zone} failed: ${rcode}${detail}${hint}`, header.rcode === 2, rcodeErrorCode(rcode));
    }
    if (deps.key !== undefined && previousMac !== undefined) {
      const key = deps.key;
      const result = verify(message, (n) => (n === key.name ? key : undefined), {
        now: deps.now(),
        requestMac: previousMac,
        ...(first ? {} : { timersOnly: true }),
      });
      if (result.status !== 'ok') {
        const why = result.status === 'unsigned' ? 'is not signed' : `failed TSIG verification (${tsigErrorName(result.error)})`;
        throw failure(zone, deps.provider, `zone transfer of ${zone}: a message ${why}`, false, 'PROVIDER_TSIG');
      }
      previousMac = result.record.mac;
    }
    first = false;
    const packet = dnsPacket.decode(message);
    for (const rr of packet.answers ?? []) {
      if (rr.type === 'SOA') {
        soaSeen++;
        continue;
      }
      const name = rr.name.toLowerCase().replace(/\.$/, '');
      if (rr.type === 'NS' && name === zone) continue;
      if (!isRecordType(rr.type)) continue;
      const rdata = rdataText(rr);
      if (rdata === undefined) continue;
      const key = `${name}\u0000${rr.type}`;
      const set = sets.get(key);
      if (set === undefined) sets.set(key, { name, type: rr.type, ttl: (rr as { ttl?: number }).ttl ?? 0, rdata: [rdata] });
      else if (!set.rdata.includes(rdata)) set.rdata.push(rdata);
    }
    return soaSeen >= 2;
  });
  return [...sets.values()];
}

function failure(zone: string, provider: string, message: string, transient: boolean, code: ErrorCode = 'PROVIDER_FAILED'): ProviderError {
  return new ProviderError(provider, message, { zone, transient, code });
}
