/**
 * The in-memory form of one zone: every owner name and every empty non-terminal becomes a node,
 * delegation points are resolved once, and prepared answers are cached on nodes (see answer.ts).
 * A zone index is immutable once built; a zone change builds a new one and swaps it in.
 */
import type { ZoneContent } from './zone-content.ts';
import { soaRR, wireRRSet } from './rdata.ts';
import type { WireRR, WireRRSet } from './rdata.ts';
import { T_NS, T_SOA } from './wire.ts';
import type { Prepared } from './answer.ts';

export interface ZoneNode {
  name: string;
  zone: ZoneIndex;
  rrsets: Map<number, WireRRSet>;
  /** The delegation point at or above this node (below the apex), if the node is not authoritative. */
  cut: ZoneNode | undefined;
  /** Prepared answers by cache key; filled lazily by the answer builder. */
  cache: Map<number, Prepared>;
}

export class ZoneIndex {
  readonly origin: string;
  readonly serial: number;
  readonly soa: WireRR;
  /** TTL of the SOA in negative answers (RFC 2308): min(SOA TTL, SOA minimum). */
  readonly negativeSoa: WireRR;
  readonly nodes = new Map<string, ZoneNode>();
  readonly apex: ZoneNode;
  readonly content: ZoneContent;
  recordCount = 0;
  /** Prepared negative answers by cache key. */
  readonly cache = new Map<number, Prepared>();

  constructor(content: ZoneContent, onInvalid: (name: string, type: string, text: string) => void = () => {}) {
    this.content = content;
    this.origin = normalise(content.origin);
    this.serial = content.soa.serial;
    this.soa = soaRR(content.soa);
    this.negativeSoa = { ...this.soa, ttl: Math.min(content.soa.ttl, content.soa.minimum) };
    this.apex = this.node(this.origin);
    this.apex.rrsets.set(T_SOA, { type: T_SOA, ttl: this.soa.ttl, rrs: [this.soa] });
    this.recordCount = 1;
    for (const rrset of content.rrsets) {
      const name = normalise(rrset.name);
      if (!inZone(name, this.origin)) {
        onInvalid(name, rrset.type, 'owner outside the zone');
        continue;
      }
      const w = wireRRSet(rrset, (text) => onInvalid(name, rrset.type, text));
      if (w === undefined) continue;
      const node = this.node(name);
      const existing = node.rrsets.get(w.type);
      if (existing !== undefined) {
        existing.rrs.push(...w.rrs);
        this.recordCount += w.rrs.length;
      } else {
        node.rrsets.set(w.type, w);
        this.recordCount += w.rrs.length;
      }
      this.addAncestors(name);
    }
    this.resolveCuts();
  }

  private node(name: string): ZoneNode {
    let n = this.nodes.get(name);
    if (n === undefined) {
      n = { name, zone: this, rrsets: new Map(), cut: undefined, cache: new Map() };
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

  private resolveCuts(): void {
    for (const node of this.nodes.values()) {
      if (node === this.apex) continue;
      // The highest NS owner between the node and the apex is the cut that occludes it.
      let cut: ZoneNode | undefined;
      let rest = node.name;
      while (rest !== this.origin) {
        const n = this.nodes.get(rest);
        if (n !== undefined && n.rrsets.has(T_NS)) cut = n;
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
      for (const set of node.rrsets.values()) {
        if (set.type === T_SOA) continue;
        for (const rr of set.rrs) yield { owner: node.name, rr };
      }
    }
  }
}

export function normalise(name: string): string {
  let n = name.toLowerCase();
  if (n.endsWith('.')) n = n.slice(0, -1);
  return n;
}

export function inZone(name: string, origin: string): boolean {
  return origin === '' || name === origin || name.endsWith(`.${origin}`);
}
