/**
 * external-dns's post-processor wrapper, the last step before the planner: `--min-ttl` is the TTL
 * of endpoints whose source set none (a set TTL is kept, even a lower one: the flag is a default,
 * not a floor), `--prefer-alias` gives CNAME endpoints without an `alias` property `alias=true`,
 * so providers with ALIAS records write one, and provider-specific properties of other providers
 * (`aws/weight` with `--provider google`) are dropped: no provider stores them, so they would show
 * as a change on every sync. Properties without a `provider/` prefix (`alias`) stay, as in
 * external-dns, and so do Cloudflare's annotation-named ones (below).
 *
 * A provider's properties are those of its family: external-dns keeps only `<--provider>/…`, so
 * with its alias `azure-dns` (or `skydns`) and with `azure-private-dns` it drops the `azure/tags`
 * (`coredns/group`) the same provider would use under its main name. Hostwarden keeps them: one
 * provider, whatever name started it (docs/external-dns-compatibility.md lists the difference).
 */
import { cloneEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';

export interface PostProcessOptions {
  /** Seconds; 0 leaves unset TTLs to the provider. */
  minTTL: number;
  preferAlias: boolean;
  /** `--provider`: properties named `<other provider>/…` are dropped; '' keeps all. */
  provider: string;
}

/** Provider names whose properties carry another name's prefix. */
const PROPERTY_FAMILY: Readonly<Record<string, string>> = { 'azure-dns': 'azure', 'azure-private-dns': 'azure', skydns: 'coredns' };

export function postProcess(endpoints: readonly Endpoint[], options: PostProcessOptions): Endpoint[] {
  const family = PROPERTY_FAMILY[options.provider] ?? options.provider;
  const own = family === '' || family === 'cloudflare' ? undefined : `${family}/`;
  // Cloudflare's properties are named after their annotation (`…/cloudflare-proxied`), not
  // `cloudflare/…`: they are kept for every provider, so a Cloudflare webhook provider behind
  // --provider webhook still gets them (external-dns drops them there). With --provider cloudflare
  // everything is kept, as in external-dns; the provider's adjustEndpoints keeps only its own.
  const foreign = (name: string): boolean => own !== undefined && name.includes('/') && !name.startsWith(own) && !name.includes('/cloudflare-');
  return endpoints.map((ep) => {
    const setTTL = options.minTTL > 0 && ep.recordTTL === 0;
    const setAlias = options.preferAlias && ep.recordType === 'CNAME' && !ep.providerSpecific.some((p) => p.name === 'alias');
    const dropForeign = ep.providerSpecific.some((p) => foreign(p.name));
    if (!setTTL && !setAlias && !dropForeign) return ep;
    const copy = cloneEndpoint(ep);
    if (setTTL) copy.recordTTL = options.minTTL;
    if (dropForeign) copy.providerSpecific = copy.providerSpecific.filter((p) => !foreign(p.name));
    if (setAlias) copy.providerSpecific.push({ name: 'alias', value: 'true' });
    return copy;
  });
}
