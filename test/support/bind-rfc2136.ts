/** Zone contents shared by the rfc2136 tests against BIND (the harness itself is bind.ts). */
import type { ZoneContent } from '../../src/dns/zone-content.ts';

export const KEY_NAME = 'test-key';

export function bindZone(origin: string): ZoneContent {
  return {
    origin,
    soa: { mname: `ns1.${origin}`, rname: `hostmaster.${origin}`, serial: 1, refresh: 3600, retry: 600, expire: 86400, minimum: 300, ttl: 300 },
    rrsets: [
      { name: origin, type: 'NS', ttl: 300, rdata: [`ns1.${origin}`] },
      { name: `ns1.${origin}`, type: 'A', ttl: 300, rdata: ['127.0.0.1'] },
    ],
  };
}
