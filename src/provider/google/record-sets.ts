/**
 * What the DNSRecord controller's google backend (src/dnsrecord/backends/) may use of this provider:
 * the record-set level pieces, named here so the rest of the folder stays free to change.
 */
export { SdkGoogleDnsApi } from './client.ts';
export type { GoogleClientOptions, GoogleDnsApi, GoogleZone } from './client.ts';
export type { GoogleRRSet } from './convert.ts';
