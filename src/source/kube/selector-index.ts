/**
 * Services by each `key=value` pair of their `spec.selector`, kept current from the Service
 * reflector's changes. An Istio Gateway picks the Services whose selector includes every pair of
 * its own; scanning every Service for each Gateway was most of a large cluster's initial sync, so
 * a Gateway looks up the Services holding the rarest of its pairs and checks only those.
 */
import type { KubeObject } from '../../kube/resource.ts';
import { asRecord, stringMap } from '../translate/object.ts';

export class SelectorIndex {
  /** selector key → value → keys of the Services whose selector holds that pair. */
  private readonly byPair = new Map<string, Map<string, Set<string>>>();
  /** Service key → its selector pairs as last indexed. */
  private readonly pairsOf = new Map<string, [string, string][]>();

  /** Indexes the Service at `key` as `svc` (undefined: deleted). */
  update(key: string, svc: KubeObject | undefined): void {
    for (const [k, v] of this.pairsOf.get(key) ?? []) {
      const values = this.byPair.get(k);
      const keys = values?.get(v);
      keys?.delete(key);
      if (keys?.size === 0) values?.delete(v);
      if (values?.size === 0) this.byPair.delete(k);
    }
    this.pairsOf.delete(key);
    if (svc === undefined) return;
    const pairs = Object.entries(stringMap(asRecord(svc['spec'])?.['selector']));
    if (pairs.length > 0) this.pairsOf.set(key, pairs);
    for (const [k, v] of pairs) {
      let values = this.byPair.get(k);
      if (values === undefined) this.byPair.set(k, (values = new Map()));
      let keys = values.get(v);
      if (keys === undefined) values.set(v, (keys = new Set()));
      keys.add(key);
    }
  }

  /**
   * Keys of the Services that hold every pair of `selector`, and maybe more: the caller still
   * checks each. Undefined for an empty selector, which picks every Service.
   */
  candidates(selector: Readonly<Record<string, string>>): Iterable<string> | undefined {
    let smallest: Set<string> | undefined;
    for (const [k, v] of Object.entries(selector)) {
      const keys = this.byPair.get(k)?.get(v);
      if (keys === undefined) return [];
      if (smallest === undefined || keys.size < smallest.size) smallest = keys;
    }
    return smallest;
  }
}
