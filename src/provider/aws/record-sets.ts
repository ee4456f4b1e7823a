/**
 * What the DNSRecord controller's aws backend (src/dnsrecord/backends/) may use of this provider:
 * the record-set level pieces, named here so the rest of the folder stays free to change.
 */
export { Route53Api, newRoute53Client } from './api.ts';
export { canonicalHostedZone } from './canonical-zones.ts';
export { decodeRoute53Name } from './convert.ts';
export { toZone } from './zones.ts';
