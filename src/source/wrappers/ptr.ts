/**
 * external-dns's PTR wrapper (`--create-ptr` and the `record-type` annotation): every A/AAAA
 * endpoint that asks for it yields a PTR endpoint at the reverse name of each target
 * (`4.3.2.1.in-addr.arpa`, nibbles under `ip6.arpa`) pointing back at the endpoint's name. The
 * `record-type` property decides per endpoint (`ptr`, any case: yes; any other value, even empty:
 * no) and `--create-ptr` is the default. Names sharing an address become one PTR endpoint with
 * several targets and the lowest TTL; wildcard names get none. The property is removed from the
 * endpoints it was read from, so it never reaches a provider.
 */
import { isIPv4 } from 'node:net';
import { parseIPv4, parseIPv6 } from '../../dns/wire.ts';
import { cloneEndpoint, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { Logger } from '../../log.ts';

export const PS_RECORD_TYPE = 'record-type';

/** The reverse-lookup name of an IP address, without trailing dot; undefined for anything else. */
export function reverseName(ip: string): string | undefined {
  if (isIPv4(ip)) {
    const b = parseIPv4(ip);
    return b === undefined ? undefined : `${b[3]}.${b[2]}.${b[1]}.${b[0]}.in-addr.arpa`;
  }
  const b = parseIPv6(ip);
  if (b === undefined) return undefined;
  const nibbles: string[] = [];
  for (let i = 15; i >= 0; i--) {
    const byte = b[i] ?? 0;
    nibbles.push((byte & 0x0f).toString(16), (byte >> 4).toString(16));
  }
  return `${nibbles.join('.')}.ip6.arpa`;
}

export interface PtrOptions {
  /** `--create-ptr`: PTR for endpoints without a record-type property. */
  createByDefault: boolean;
  /** PTR is in --managed-record-types; otherwise only the property is removed. */
  ptrManaged: boolean;
  logger: Logger;
}

export function addPtrEndpoints(endpoints: Endpoint[], options: PtrOptions): Endpoint[] {
  // The common case on every sync: PTR not managed and no object asking for it; nothing to copy.
  if (!options.ptrManaged && !endpoints.some((ep) => ep.providerSpecific.some((p) => p.name === PS_RECORD_TYPE))) return endpoints;
  const byAddress = new Map<string, { names: string[]; ttl: number }>();
  const out: Endpoint[] = [];
  for (const ep of endpoints) {
    const requested = ep.providerSpecific.find((p) => p.name === PS_RECORD_TYPE)?.value;
    const eligible = (ep.recordType === 'A' || ep.recordType === 'AAAA') && !ep.dnsName.startsWith('*.');
    if (requested === undefined) {
      out.push(ep);
    } else {
      if (!eligible)
        options.logger.warn({ dnsName: ep.dnsName, recordType: ep.recordType }, 'record-type annotation ignored: only A and AAAA records get PTR records');
      out.push(withoutRecordType(ep));
    }
    if (!eligible || !options.ptrManaged) continue;
    if (!(requested === undefined ? options.createByDefault : requested.toLowerCase() === 'ptr')) continue;
    for (const target of ep.targets) {
      const seen = byAddress.get(target);
      if (seen === undefined) {
        byAddress.set(target, { names: [ep.dnsName], ttl: ep.recordTTL });
        continue;
      }
      if (ep.recordTTL < seen.ttl) {
        options.logger.warn(
          { address: target, dnsName: ep.dnsName, ttl: ep.recordTTL, previousTTL: seen.ttl },
          'PTR: names of one address have different TTLs; using the lowest',
        );
        seen.ttl = ep.recordTTL;
      }
      if (!seen.names.includes(ep.dnsName)) seen.names.push(ep.dnsName);
    }
  }
  for (const [address, { names, ttl }] of byAddress) {
    const name = reverseName(address);
    if (name === undefined) {
      options.logger.warn({ address }, 'PTR: no reverse name for this target');
      continue;
    }
    out.push(newEndpoint({ dnsName: name, recordType: 'PTR', targets: names, recordTTL: ttl }));
  }
  return out;
}

function withoutRecordType(ep: Endpoint): Endpoint {
  const copy = cloneEndpoint(ep);
  copy.providerSpecific = copy.providerSpecific.filter((p) => p.name !== PS_RECORD_TYPE);
  return copy;
}
