/**
 * Builds prepared answers: everything after the question section, encoded once per (node, qtype,
 * minimal) and cached on the node. Because the answer owner for the query name is always written
 * as a pointer to the question (offset 12), one prepared answer serves every spelling of the name
 * and every name a wildcard synthesises. Other compression pointers are fragment-relative and
 * fixed up with the question length when copied (see Writer).
 */
import { QNAME, writeRR } from '../rdata.ts';
import type { Owner, WireRR } from '../rdata.ts';
import { RCODE_NOERROR, RCODE_NXDOMAIN, RCODE_SERVFAIL, T_A, T_AAAA, T_ANY, T_CNAME, T_NS, T_SOA, Writer } from '../wire.ts';
import { inZone } from './zone-index.ts';
import { rrsetOf } from './zone-index.ts';
import type { Prepared, ZoneIndex, ZoneNode } from './zone-index.ts';

export type Lookup = { kind: 'node'; node: ZoneNode } | { kind: 'wildcard'; node: ZoneNode } | { kind: 'referral'; cut: ZoneNode } | { kind: 'nxdomain' };

/** Chains longer than this stop (BIND restarts at most 11 times). */
const MAX_CHAIN = 12;

/** Resolves a name inside one zone following RFC 4592 for wildcards and RFC 1034 for cuts. */
export function lookupInZone(zone: ZoneIndex, name: string): Lookup {
  const n = zone.nodes.get(name);
  if (n !== undefined) return n.cut !== undefined ? { kind: 'referral', cut: n.cut } : { kind: 'node', node: n };
  return closestEncloser(zone, name);
}

/** For a name that has no node: referral, wildcard synthesis or NXDOMAIN from its closest encloser. */
export function closestEncloser(zone: ZoneIndex, name: string): Lookup {
  let rest = name;
  while (rest !== zone.origin) {
    const dot = rest.indexOf('.');
    if (dot === -1) break;
    rest = rest.slice(dot + 1);
    const e = zone.nodes.get(rest);
    if (e === undefined) continue;
    return fromEncloser(e);
  }
  return fromEncloser(zone.apex);
}

export function fromEncloser(e: ZoneNode): Lookup {
  if (e.cut !== undefined) return { kind: 'referral', cut: e.cut };
  const w = e.zone.nodes.get(e.name === '' ? '*' : `*.${e.name}`);
  if (w !== undefined) return { kind: 'wildcard', node: w };
  return { kind: 'nxdomain' };
}

/** Types answered from their own cache slot; any other type shares slot 0 (always NODATA). */
const KNOWN_TYPES = [1, 2, 5, 6, 12, 15, 16, 28, 33, 35, 39, 255, 257];
/** KNOWN_TYPES as a table (a Set lookup per query showed in profiles); 257 (CAA) is the largest. */
const KNOWN = new Uint8Array(258);
for (const t of KNOWN_TYPES) KNOWN[t] = 1;

export function cacheKey(qtype: number, minimal: boolean): number {
  return (qtype >= 0 && qtype < KNOWN.length && KNOWN[qtype] === 1 ? qtype : 0) * 2 + (minimal ? 1 : 0);
}

export function prepareNode(node: ZoneNode, qtype: number, minimal: boolean): Prepared {
  const key = cacheKey(qtype, minimal);
  let p = node.cache?.get(key);
  if (p === undefined) {
    p = buildAnswer(node, key >> 1, minimal);
    (node.cache ??= new Map()).set(key, p);
  }
  return p;
}

export function prepareReferral(cut: ZoneNode): Prepared {
  const key = -1;
  let p = cut.cache?.get(key);
  if (p === undefined) {
    p = buildReferral(cut);
    (cut.cache ??= new Map()).set(key, p);
  }
  return p;
}

export function prepareNxdomain(zone: ZoneIndex, qtype: number): Prepared {
  const key = qtype === T_SOA ? 1 : 0;
  let p = zone.cache.get(key);
  if (p === undefined) {
    const b = new Builder(zone);
    b.authoritySoa(qtype);
    p = b.finish(RCODE_NXDOMAIN, true);
    zone.cache.set(key, p);
  }
  return p;
}

class Builder {
  readonly w = new Writer({ relative: true });
  an = 0;
  ns = 0;
  ar = 0;
  anEnd = 0;
  nsEnd = 0;
  private readonly extra: string[] = [];
  /** "name type" of answer records, which BIND does not repeat in the additional section. */
  private readonly answered = new Set<string>();
  constructor(readonly zone: ZoneIndex) {}

  /** `ownerName` names the owner when `owner` is the question pointer. */
  answer(owner: Owner, rr: WireRR, ownerName: string, withAdditional = true): void {
    writeRR(this.w, owner, rr);
    this.an++;
    this.answered.add(`${ownerName} ${rr.type}`);
    if (rr.target !== undefined && withAdditional) this.extra.push(rr.target);
    this.anEnd = this.w.len;
    this.nsEnd = this.w.len;
  }

  authority(owner: string, rr: WireRR): void {
    this.nsEnd = this.anEnd;
    writeRR(this.w, owner, rr);
    this.ns++;
    if (rr.target !== undefined) this.extra.push(rr.target);
    this.nsEnd = this.w.len;
  }

  /** Like BIND, NXDOMAIN for an SOA query carries the SOA with TTL 0 so that it is not cached. */
  authoritySoa(qtype: number): void {
    const soa = this.zone.negativeSoa;
    this.authority(this.zone.origin, qtype === T_SOA ? { ...soa, ttl: 0 } : soa);
  }

  /** Address records for in-zone targets (including glue below cuts), once per name. */
  additional(): void {
    const done = new Set<string>();
    for (const t of this.extra) {
      if (done.has(t)) continue;
      done.add(t);
      const n = this.zone.nodes.get(t);
      if (n === undefined) continue;
      for (const type of [T_A, T_AAAA]) {
        const set = rrsetOf(n, type);
        if (set === undefined || this.answered.has(`${t} ${type}`)) continue;
        for (const rr of set.rrs) {
          writeRR(this.w, t, rr);
          this.ar++;
        }
      }
    }
  }

  finish(rcode: number, aa: boolean): Prepared {
    if (this.anEnd === 0 && this.an === 0) this.anEnd = 0;
    if (this.ns === 0) this.nsEnd = this.anEnd;
    return {
      rcode,
      aa,
      tail: this.w.finish(),
      fixups: Uint16Array.from(this.w.fixups),
      an: this.an,
      ns: this.ns,
      ar: this.ar,
      anEnd: this.anEnd,
      nsEnd: this.nsEnd,
    };
  }
}

function buildReferral(cut: ZoneNode): Prepared {
  const b = new Builder(cut.zone);
  const ns = rrsetOf(cut, T_NS);
  for (const rr of ns?.rrs ?? []) b.authority(cut.name, rr);
  b.additional();
  return b.finish(RCODE_NOERROR, false);
}

function buildAnswer(start: ZoneNode, qtype: number, minimal: boolean): Prepared {
  const zone = start.zone;
  const b = new Builder(zone);
  let node: ZoneNode = start;
  let owner: Owner = QNAME;
  let ownerName = start.name;
  let leftZone = false;
  let rcode = RCODE_NOERROR;
  let negative = false;
  const visited = new Set<ZoneNode>();
  for (let step = 0; ; step++) {
    if (step === MAX_CHAIN) {
      rcode = RCODE_SERVFAIL;
      break;
    }
    visited.add(node);
    if (qtype === T_ANY) {
      // BIND does no additional-section processing for ANY.
      for (const set of node.rrsets) for (const rr of set.rrs) b.answer(owner, rr, ownerName, false);
      negative = b.an === 0;
      break;
    }
    const exact = rrsetOf(node, qtype);
    if (exact !== undefined) {
      for (const rr of exact.rrs) b.answer(owner, rr, ownerName);
      break;
    }
    const cname = rrsetOf(node, T_CNAME);
    if (cname === undefined || cname.rrs[0] === undefined) {
      negative = true;
      break;
    }
    const rr = cname.rrs[0];
    b.answer(owner, rr, ownerName);
    const target = (rr.parts[0] as { name: string }).name;
    if (!inZone(target, zone.origin)) {
      // The rest of the chain is someone else's: BIND adds no authority data then.
      leftZone = true;
      break;
    }
    const next = lookupInZone(zone, target);
    if (next.kind === 'referral') break;
    if (next.kind === 'nxdomain') {
      rcode = RCODE_NXDOMAIN;
      negative = true;
      break;
    }
    if (visited.has(next.node)) {
      // Like BIND: a CNAME loop is a server failure, with the chain as far as it went.
      rcode = RCODE_SERVFAIL;
      break;
    }
    node = next.node;
    owner = target;
    ownerName = target;
  }
  if (negative) {
    b.authoritySoa(rcode === RCODE_NXDOMAIN ? qtype : 0);
  } else if (!minimal && !leftZone && rcode !== RCODE_SERVFAIL) {
    const answeredApexNs = b.an > 0 && node === zone.apex && (qtype === T_NS || qtype === T_ANY);
    const apexNs = rrsetOf(zone.apex, T_NS);
    if (!answeredApexNs && apexNs !== undefined) for (const rr of apexNs.rrs) b.authority(zone.origin, rr);
  }
  // BIND does no additional-section processing for ANY or after a failed chain.
  if (qtype !== T_ANY && rcode !== RCODE_SERVFAIL) b.additional();
  return b.finish(rcode, true);
}
