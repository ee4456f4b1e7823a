/**
 * DNSEndpoint (`externaldns.k8s.io/v1alpha1`) → endpoints: each `spec.endpoints[]` entry is an
 * endpoint in the external-dns JSON shape. A malformed entry is a problem naming the object and
 * the entry; the other entries of the object are still published.
 */
import { LABEL_RESOURCE, isRecordType, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, ProviderSpecificProperty } from '../../endpoint/endpoint.ts';
import { finalizeEndpoints, problemFor } from './hostname.ts';
import { asArray, asRecord, asString, path, refAt, stringArray, stringMap } from './object.ts';
import type { KindContext } from './options.ts';

export const DNSENDPOINT_KIND = 'DNSEndpoint';
export const DNSENDPOINT_GROUP = 'externaldns.k8s.io';

export function isDNSEndpointApiVersion(apiVersion: string): boolean {
  return apiVersion.startsWith(`${DNSENDPOINT_GROUP}/`);
}

export function dnsEndpointCandidates(ctx: KindContext): Endpoint[] {
  const { obj, meta } = ctx;
  const resource = `crd/${meta.namespace}/${meta.name}`;
  const out: Endpoint[] = [];
  const entries = path(obj, 'spec', 'endpoints');
  if (entries !== undefined && !Array.isArray(entries)) {
    ctx.problems.push(problemFor(refAt(ctx.ref, ctx.origin, ['spec', 'endpoints']), 'spec.endpoints is not a list'));
    return out;
  }
  asArray(entries).forEach((entry, i) => {
    const at = ['spec', 'endpoints', i];
    const problem = (message: string): void => {
      ctx.problems.push(problemFor(refAt(ctx.ref, ctx.origin, at), `spec.endpoints[${i}]: ${message}`));
    };
    const rec = asRecord(entry);
    if (rec === undefined) return problem('not an object');
    const dnsName = asString(rec['dnsName']);
    if (dnsName === undefined || dnsName === '') return problem('dnsName is missing');
    const recordType = asString(rec['recordType']) ?? '';
    if (!isRecordType(recordType)) return problem(`${dnsName}: unsupported recordType ${JSON.stringify(recordType)}`);
    const rawTargets = rec['targets'];
    if (rawTargets !== undefined && rawTargets !== null && !Array.isArray(rawTargets)) return problem(`${dnsName} ${recordType}: targets is not a list`);
    const ttlRaw = rec['recordTTL'];
    const ttl = ttlRaw === undefined || ttlRaw === null ? 0 : Number(ttlRaw);
    if (!Number.isInteger(ttl) || ttl < 0) return problem(`${dnsName} ${recordType}: recordTTL ${JSON.stringify(ttlRaw)} is not a whole number of seconds`);
    const providerSpecific: ProviderSpecificProperty[] = [];
    for (const p of asArray(rec['providerSpecific'])) {
      const name = asString(path(p, 'name'));
      if (name !== undefined && name !== '') providerSpecific.push({ name, value: asString(path(p, 'value')) ?? '' });
    }
    const candidate = newEndpoint({
      dnsName,
      targets: stringArray(rawTargets),
      recordType,
      setIdentifier: asString(rec['setIdentifier']) ?? '',
      recordTTL: ttl,
      labels: { ...stringMap(rec['labels']), [LABEL_RESOURCE]: resource },
      providerSpecific,
    });
    // Validated here, not only by the caller, so a bad entry's problem points at the entry's line.
    out.push(...finalizeEndpoints(refAt(ctx.ref, ctx.origin, at), [candidate], ctx.problems, ctx.options.keepEmptyTargets === true));
  });
  return out;
}
