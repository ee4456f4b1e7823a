/**
 * What the DNSRecord controller's azure backend (src/dnsrecord/backends/) may use of this provider:
 * the record-set level pieces, named here so the rest of the folder stays free to change.
 */
export { SdkAzureDnsApi } from './client.ts';
export type { AzureDnsApi, AzureHttpOptions, AzureZoneKind, AzureZoneRef } from './client.ts';
export { relativeName, splitTxt } from './convert.ts';
export type { AzureRecordSetModel } from './convert.ts';
export { credentialOf } from './settings.ts';
