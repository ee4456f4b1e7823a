/**
 * What the DNSRecord controller's embedded backend (src/dnsrecord/backends/) may use of this provider:
 * the record-set level pieces, named here so the rest of the folder stays free to change.
 */
export { ZoneStore, rrsetKey } from './zone-store.ts';
