/**
 * The in-memory form of one zone: every owner name and every empty non-terminal becomes a node,
 * delegation points are resolved once, and prepared answers are cached on nodes (see answer.ts).
 * A zone index is immutable once built; a zone change builds a new one and swaps it in.
 *
 * Building one is a generator (`build`) that yields every few hundred record sets, so that a
 * server can build a large zone in slices between answering queries (zone-loader.ts);
 * `ZoneIndex.from` builds in one go.
 */
import type { RRSet, SOA } from '../zone-content.ts';
import type { ZoneSource } from './zone-pack.ts';
import { soaRR, wireRRSet } from '../rdata.ts';
import type { WireRR, WireRRSet } from '../rdata.ts';
import { T_NS, T_SOA } from '../wire.ts';

/** Record sets (or nodes) handled between two yields of a build: well under a millisecond. */
const STEP = 256;

/** A prepared answer (see answer.ts): encoded once per node, query type and size, then copied per query. */
export interface Prepared {
  rcode: number;
  aa: boolean;
  tail: Buffer;
  /** Positions in `tail` of fragment-relative compression pointers. */
  fixups: Uint16Array;
  an: number;
  ns: number;
  ar: number;
  /** Byte offsets where the answer and authority sections end, for truncation. */
  anEnd: number;
  nsEnd: number;
}

export interface ZoneNode {
  name: string;
  zone: ZoneIndex;
  /** One entry per type, in the order added; an array because most nodes hold one or two types. */
  rrsets: WireRRSet[];
  /** The delegation point at or above this node (below the apex), if the node is not authoritative. */
  cut: ZoneNode | undefined;
  /** Prepared answers by cache key; made by the answer builder when a node is first asked about. */
  cache: Map<number, Prepared> | undefined;
}

export class ZoneIndex {
  readonly origin: string;
  readonly serial: number;
  /** ZoneContent.provisional: never the base of an IXFR difference. */
  provisional = false;
  readonly soa: WireRR;
  /** TTL of the SOA in negative answers (RFC 2308): min(SOA TTL, SOA minimum). */
  readonly negativeSoa: WireRR;
  readonly nodes = new Map<string, ZoneNode>();
  readonly apex: ZoneNode;
  recordCount = 0;
  /** Prepared negative answers by cache key. */
  readonly cache = new Map<number, Prepared>();
  private readonly onInvalid: (name: string, type: string, text: string) => void;

  /** An index holding only the SOA; `build` adds the rest. */
  private constructor(origin: string, soa: SOA, onInvalid: (name: string, type: string, text: string) => void) {
    this.origin = normalise(origin);
    this.serial = soa.serial;
    this.soa = soaRR(soa);
    this.negativeSoa = { ...this.soa, ttl: Math.min(soa.ttl, soa.minimum) };
    this.apex = this.node(this.origin);
    this.apex.rrsets = [{ type: T_SOA, ttl: this.soa.ttl, rrs: [this.soa] }];
    this.recordCount = 1;
    this.onInvalid = onInvalid;
  }

  /** Builds the index in one go. */
  static from(source: ZoneSource, onInvalid: (name: string, type: string, text: string) => void = () => {}): ZoneIndex {
    const gen = ZoneIndex.build(source, onInvalid);
    for (;;) {
      const r = gen.next();
      if (r.done === true) return r.value;
    }
  }

  /**
   * Builds the index, yielding after every STEP record sets or nodes; returns it when complete.
   * Nothing outside sees the index before it is returned, so an abandoned build leaves no trace.
   */
  static *build(source: ZoneSource, onInvalid: (name: string, type: string, text: string) => void = () => {}): Generator<void, ZoneIndex> {
    const zone = new ZoneIndex(source.origin, source.soa, onInvalid);
    zone.provisional = source.provisional === true;
    let n = 0;
    for (const rrset of source.rrsets) {
      zone.add(rrset);
      if (++n % STEP === 0) yield;
    }
    yield* zone.resolveCuts();
    return zone;
  }

  private add(rrset: RRSet): void {
    const name = normalise(rrset.name);
    if (!inZone(name, this.origin)) {
      this.onInvalid(name, rrset.type, 'owner outside the zone');
      return;
    }
    const w = wireRRSet(rrset, (text) => this.onInvalid(name, rrset.type, text));
    if (w === undefined) return;
    const node = this.node(name);
    const existing = rrsetOf(node, w.type);
    if (existing !== undefined) existing.rrs.push(...w.rrs);
    // An array grown by push() reserves 17 slots: a node's first set gets an array of exactly one.
    else if (node.rrsets.length === 0) node.rrsets = [w];
    else node.rrsets.push(w);
    this.recordCount += w.rrs.length;
    this.addAncestors(name);
  }

  private node(name: string): ZoneNode {
    let n = this.nodes.get(name);
    if (n === undefined) {
      n = { name, zone: this, rrsets: [], cut: undefined, cache: undefined };
      this.nodes.set(name, n);
    }
    return n;
  }

  /** Empty non-terminals exist as nodes so that they answer NODATA rather than NXDOMAIN. */
  private addAncestors(name: string): void {
    let rest = name;
    while (rest !== this.origin) {
      const dot = rest.indexOf('.');
      if (dot === -1) return;
      rest = rest.slice(dot + 1);
      if (this.nodes.has(rest)) return;
      this.node(rest);
    }
  }

  private *resolveCuts(): Generator<void> {
    let n = 0;
    for (const node of this.nodes.values()) {
      if (++n % STEP === 0) yield;
      if (node === this.apex) continue;
      // The highest NS owner between the node and the apex is the cut that occludes it.
      let cut: ZoneNode | undefined;
      let rest = node.name;
      while (rest !== this.origin) {
        const n = this.nodes.get(rest);
        if (n !== undefined && rrsetOf(n, T_NS) !== undefined) cut = n;
        const dot = rest.indexOf('.');
        if (dot === -1) break;
        rest = rest.slice(dot + 1);
      }
      node.cut = cut;
    }
  }

  /** Whole-zone record list in transfer order (apex first), for AXFR. */
  *records(): Generator<{ owner: string; rr: WireRR }> {
    const order = [this.apex, ...[...this.nodes.values()].filter((n) => n !== this.apex)];
    for (const node of order) {
      for (const set of node.rrsets) {
        if (set.type === T_SOA) continue;
        for (const rr of set.rrs) yield { owner: node.name, rr };
      }
    }
  }
}

export function rrsetOf(node: ZoneNode, type: number): WireRRSet | undefined {
  const sets = node.rrsets;
  for (let i = 0; i < sets.length; i++) if (sets[i]?.type === type) return sets[i];
  return undefined;
}

export function normalise(name: string): string {
  let n = name.toLowerCase();
  if (n.endsWith('.')) n = n.slice(0, -1);
  return n;
}

export function inZone(name: string, origin: string): boolean {
  return origin === '' || name === origin || name.endsWith(`.${origin}`);
}
