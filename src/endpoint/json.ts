/**
 * Reading endpoints from JSON (plan input files, webhook bodies): checks the shape and reports
 * the position of a bad element, so a user can find it in a large file.
 */
import { InvalidEndpointError } from '../errors.ts';
import { isRecordType, newEndpoint } from './endpoint.ts';
import type { Endpoint, ProviderSpecificProperty } from './endpoint.ts';

export function endpointsFromJSON(value: unknown, where: string): Endpoint[] {
  if (!Array.isArray(value)) throw new InvalidEndpointError(`${where}: expected a JSON array of endpoints`);
  return value.map((item, i) => endpointFromJSON(item, `${where}[${i}]`));
}

export function endpointFromJSON(value: unknown, where: string): Endpoint {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidEndpointError(`${where}: expected an object`);
  const o = value as Record<string, unknown>;
  const dnsName = o['dnsName'];
  if (typeof dnsName !== 'string' || dnsName === '') throw new InvalidEndpointError(`${where}: dnsName must be a non-empty string`);
  const recordType = typeof o['recordType'] === 'string' ? o['recordType'].toUpperCase() : '';
  if (!isRecordType(recordType)) throw new InvalidEndpointError(`${where} (${dnsName}): recordType ${JSON.stringify(o['recordType'])} is not supported`);
  const targets = o['targets'] ?? [];
  if (!Array.isArray(targets) || !targets.every((t) => typeof t === 'string'))
    throw new InvalidEndpointError(`${where} (${dnsName}): targets must be an array of strings`);
  const ttl = o['recordTTL'] ?? 0;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0)
    throw new InvalidEndpointError(`${where} (${dnsName}): recordTTL must be a non-negative whole number`);
  const setIdentifier = o['setIdentifier'] ?? '';
  if (typeof setIdentifier !== 'string') throw new InvalidEndpointError(`${where} (${dnsName}): setIdentifier must be a string`);
  const labels = o['labels'] ?? {};
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels) || !Object.values(labels).every((v) => typeof v === 'string')) {
    throw new InvalidEndpointError(`${where} (${dnsName}): labels must be an object of strings`);
  }
  const ps = o['providerSpecific'] ?? [];
  if (!Array.isArray(ps) || !ps.every((p) => typeof p === 'object' && p !== null && typeof p.name === 'string' && typeof (p.value ?? '') === 'string')) {
    throw new InvalidEndpointError(`${where} (${dnsName}): providerSpecific must be an array of {name, value}`);
  }
  return newEndpoint({
    dnsName,
    recordType,
    targets: targets as string[],
    recordTTL: ttl,
    setIdentifier,
    labels: labels as Record<string, string>,
    providerSpecific: (ps as ProviderSpecificProperty[]).map((p) => ({ name: p.name, value: p.value ?? '' })),
  });
}
