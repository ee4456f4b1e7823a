/** A sample zone covering every record type and lookup case the DNS tests exercise. */
import type { ZoneContent } from '../../src/dns/zone-content.ts';

export function sampleZone(origin = 'example.test', serial = 1): ZoneContent {
  const n = (s: string): string => (s === '@' ? origin : `${s}.${origin}`);
  const long = 'x'.repeat(300);
  const bigTxt = Array.from({ length: 40 }, (_, i) => `big-record-${i}-${'y'.repeat(60)}`);
  return {
    origin,
    soa: { mname: `ns1.${origin}`, rname: `hostmaster.${origin}`, serial, refresh: 3600, retry: 600, expire: 86400, minimum: 300, ttl: 3600 },
    rrsets: [
      { name: n('@'), type: 'NS', ttl: 3600, rdata: [`ns1.${origin}`, `ns2.${origin}`] },
      { name: n('@'), type: 'MX', ttl: 300, rdata: [`10 mail.${origin}`] },
      { name: n('@'), type: 'TXT', ttl: 300, rdata: ['v=spf1 -all'] },
      { name: n('@'), type: 'CAA', ttl: 300, rdata: ['0 issue letsencrypt.org'] },
      { name: n('ns1'), type: 'A', ttl: 300, rdata: ['192.0.2.53'] },
      { name: n('ns2'), type: 'A', ttl: 300, rdata: ['192.0.2.54'] },
      { name: n('ns2'), type: 'AAAA', ttl: 300, rdata: ['2001:db8::54'] },
      { name: n('mail'), type: 'A', ttl: 300, rdata: ['192.0.2.25'] },
      { name: n('www'), type: 'A', ttl: 60, rdata: ['192.0.2.1', '192.0.2.2'] },
      { name: n('www'), type: 'AAAA', ttl: 60, rdata: ['2001:db8::1'] },
      { name: n('alias'), type: 'CNAME', ttl: 120, rdata: [`www.${origin}`] },
      { name: n('alias2'), type: 'CNAME', ttl: 120, rdata: [`alias.${origin}`] },
      { name: n('dangling'), type: 'CNAME', ttl: 120, rdata: [`nothere.${origin}`] },
      { name: n('outside'), type: 'CNAME', ttl: 120, rdata: ['www.example.org'] },
      { name: n('loop1'), type: 'CNAME', ttl: 120, rdata: [`loop2.${origin}`] },
      { name: n('loop2'), type: 'CNAME', ttl: 120, rdata: [`loop1.${origin}`] },
      { name: n('towild'), type: 'CNAME', ttl: 120, rdata: [`foo.wild.${origin}`] },
      { name: n('long'), type: 'TXT', ttl: 300, rdata: [long, 'short one'] },
      { name: n('big'), type: 'TXT', ttl: 300, rdata: bigTxt },
      { name: n('_sip._tcp'), type: 'SRV', ttl: 300, rdata: [`10 60 5060 mail.${origin}`] },
      { name: n('a.b.c.deep'), type: 'A', ttl: 300, rdata: ['192.0.2.77'] },
      { name: n('*.wild'), type: 'A', ttl: 300, rdata: ['192.0.2.99'] },
      { name: n('*.wild'), type: 'TXT', ttl: 300, rdata: ['wildcard'] },
      { name: n('exists.wild'), type: 'AAAA', ttl: 300, rdata: ['2001:db8::99'] },
      { name: n('1.2.0.192.rev'), type: 'PTR', ttl: 300, rdata: [`www.${origin}`] },
      { name: n('sub'), type: 'NS', ttl: 300, rdata: [`ns.sub.${origin}`] },
      { name: n('ns.sub'), type: 'A', ttl: 300, rdata: ['192.0.2.200'] },
    ],
  };
}
