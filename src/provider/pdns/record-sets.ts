/**
 * What the DNSRecord controller's pdns backend (src/dnsrecord/backends/) may use of this provider:
 * the record-set level pieces, named here so the rest of the folder stays free to change.
 */
export { PdnsClient } from './client.ts';
export type { PdnsZoneInfo } from './client.ts';
