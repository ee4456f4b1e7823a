/**
 * The data exchanged between the embedded zone store (which owns the durable zone files) and the
 * authoritative DNS server (which answers from an in-memory index). Both sides agree on this
 * shape only, so either can change its internals freely.
 */

export const RR_TYPES = ['SOA', 'NS', 'A', 'AAAA', 'CNAME', 'TXT', 'SRV', 'MX', 'CAA', 'PTR', 'NAPTR', 'DNAME'] as const;
export type RRType = (typeof RR_TYPES)[number];

/**
 * One record set. `name` is absolute, lower case, without the trailing dot. Each `rdata` entry is
 * in a canonical text form:
 * - A "192.0.2.1"; AAAA in RFC 5952 form; CNAME, DNAME, NS, PTR a hostname without trailing dot;
 * - NAPTR the endpoint's canonical form (endpoint/naptr.ts): `<order> <preference> "<flags>"
 *   "<service>" "<regexp>" <replacement>.`, strings quoted, replacement absolute with its dot;
 * - MX "<preference> <host>"; SRV "<priority> <weight> <port> <host>";
 * - CAA "<flags> <tag> <value>" with the value unquoted;
 * - TXT the record's text as one logical string (no surrounding quotes); on the wire and in zone
 *   files it is split into character-strings of at most 255 bytes.
 */
export interface RRSet {
  name: string;
  type: Exclude<RRType, 'SOA'>;
  ttl: number;
  rdata: string[];
}

export interface SOA {
  mname: string;
  rname: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
  ttl: number;
}

/** A whole zone at one serial. `rrsets` never contains the SOA; apex NS sets are included. */
export interface ZoneContent {
  origin: string;
  soa: SOA;
  rrsets: RRSet[];
  /**
   * Content the store made up on its own (a zone created empty at start) that no other server
   * holds: its serial may name different content elsewhere in a replica set, so the DNS server
   * never answers an IXFR with a difference starting from it (a full transfer instead).
   */
  provisional?: boolean;
}

/**
 * Something that wants to know when a zone's content changed (the DNS server's index). A listener
 * that returns a promise holds the commit until it settles: the DNS server resolves once the new
 * content answers queries, so a change is acknowledged only when it is served.
 */
export interface ZoneListener {
  zoneChanged(zone: ZoneContent): void | Promise<void>;
  zoneRemoved?(origin: string): void | Promise<void>;
}
