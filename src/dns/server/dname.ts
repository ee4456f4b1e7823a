/**
 * DNAME substitution (RFC 6672): a query for a name below a DNAME owner is answered with the
 * DNAME and a CNAME synthesised for the query name (its labels above the owner, then the DNAME
 * target), as BIND answers. The synthesised CNAME depends on the query name, so this answer is
 * built per query rather than prepared on the node; the chain is not followed further here even
 * when the new name is in the zone (resolvers follow the CNAME themselves). The synthesised name
 * is written in lower case, where BIND keeps the query's spelling (RFC 4343 allows either).
 */
import { QNAME, writeRR } from '../rdata.ts';
import type { WireRRSet } from '../rdata.ts';
import { RCODE_NOERROR, T_CNAME, T_DNAME, Writer, nameWireLength } from '../wire.ts';
import { rrsetOf } from './zone-index.ts';
import type { Prepared, ZoneNode } from './zone-index.ts';

/** RFC 6672 2.2: a substituted name too long to exist is answered YXDOMAIN. */
const RCODE_YXDOMAIN = 6;

/** The DNAME set of an authoritative node, if it has one. */
export function dnameOf(node: ZoneNode): WireRRSet | undefined {
  return node.cut === undefined ? rrsetOf(node, T_DNAME) : undefined;
}

/** The answer for `qname`, which lies below `owner`, whose DNAME set is `set`. */
export function synthesiseDname(owner: ZoneNode, set: WireRRSet, qname: string): Prepared {
  const dname = set.rrs[0];
  const w = new Writer({ relative: true });
  if (dname === undefined) return finish(w, RCODE_NOERROR, 0);
  writeRR(w, owner.name, dname);
  const target = (dname.parts[0] as { name: string }).name;
  const prefix = qname.slice(0, qname.length - owner.name.length - 1);
  const name = target === '' ? prefix : `${prefix}.${target}`;
  if (nameWireLength(name) > 255) return finish(w, RCODE_YXDOMAIN, 1);
  writeRR(w, QNAME, { type: T_CNAME, ttl: dname.ttl, parts: [{ name, compress: true }] });
  return finish(w, RCODE_NOERROR, 2);
}

function finish(w: Writer, rcode: number, an: number): Prepared {
  const end = w.len;
  return { rcode, aa: true, tail: w.finish(), fixups: Uint16Array.from(w.fixups), an, ns: 0, ar: 0, anEnd: end, nsEnd: end };
}
