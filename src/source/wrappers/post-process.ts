/**
 * external-dns's post-processor wrapper, the last step before the planner: `--min-ttl` is the TTL
 * of endpoints whose source set none (a set TTL is kept, even a lower one: the flag is a default,
 * not a floor), and `--prefer-alias` gives CNAME endpoints without an `alias` property
 * `alias=true`, so providers with ALIAS records write one.
 */
import { cloneEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';

export interface PostProcessOptions {
  /** Seconds; 0 leaves unset TTLs to the provider. */
  minTTL: number;
  preferAlias: boolean;
}

export function postProcess(endpoints: readonly Endpoint[], options: PostProcessOptions): Endpoint[] {
  return endpoints.map((ep) => {
    const setTTL = options.minTTL > 0 && ep.recordTTL === 0;
    const setAlias = options.preferAlias && ep.recordType === 'CNAME' && !ep.providerSpecific.some((p) => p.name === 'alias');
    if (!setTTL && !setAlias) return ep;
    const copy = cloneEndpoint(ep);
    if (setTTL) copy.recordTTL = options.minTTL;
    if (setAlias) copy.providerSpecific.push({ name: 'alias', value: 'true' });
    return copy;
  });
}
