/**
 * Record types a provider's service has no model for (Azure DNS and CoreDNS's etcd format hold no
 * NAPTR or DNAME). external-dns hands such endpoints to the provider, which refuses the write; here
 * the provider drops them before planning with one warning per endpoint naming it, so the rest of
 * the sync goes through and no ownership record is written for a record that cannot exist.
 */
import { describeEndpoint } from '../endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../endpoint/endpoint.ts';
import type { Logger } from '../log.ts';

export function dropUnsupportedTypes(endpoints: Endpoint[], unsupported: readonly RecordType[], logger: Logger, service: string): Endpoint[] {
  if (!endpoints.some((ep) => unsupported.includes(ep.recordType))) return endpoints;
  return endpoints.filter((ep) => {
    if (!unsupported.includes(ep.recordType)) return true;
    logger.warn({ record: describeEndpoint(ep), recordType: ep.recordType }, `skipping endpoint: ${service} has no ${ep.recordType} record type`);
    return false;
  });
}
