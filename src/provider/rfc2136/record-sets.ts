/**
 * What the DNSRecord controller's rfc2136 backend (src/dnsrecord/backends/) may use of this provider:
 * the record-set level pieces, named here so the rest of the folder stays free to change.
 */
export { Rfc2136Provider } from './rfc2136.ts';
export { NetworkTransport } from './transport.ts';
