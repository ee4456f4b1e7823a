/**
 * Packs Route53 changes into ChangeResourceRecordSets requests within Route53's limits. Changes
 * are packed in groups (a record and its ownership TXT record) that never straddle two requests,
 * so a record never lands without its owner mark, nor the mark without the record.
 */
import type { Change } from '@aws-sdk/client-route-53';

export interface BatchLimits {
  /** Changes per request (`--aws-batch-change-size`). */
  changes: number;
  /** Characters of Value elements per request, UPSERT counting twice (`--aws-batch-change-size-bytes`). */
  bytes: number;
  /** ResourceRecord elements per request, UPSERT counting twice (`--aws-batch-change-size-values`). */
  values: number;
}

export const ROUTE53_LIMITS: BatchLimits = { changes: 1000, bytes: 32_000, values: 1000 };

/** Changes that must be applied together, with what to call them in errors. */
export interface ChangeGroup {
  /** Grouping key: the owned record's name and set identifier. */
  key: string;
  changes: Change[];
  /** `www.example.org A`, … for messages. */
  records: string[];
}

export interface ChangeCost {
  changes: number;
  bytes: number;
  values: number;
}

/** What one change costs against the limits, counted as Route53 counts it. */
export function changeCost(change: Change): ChangeCost {
  const factor = change.Action === 'UPSERT' ? 2 : 1;
  const records = change.ResourceRecordSet?.ResourceRecords ?? [];
  const values = change.ResourceRecordSet?.AliasTarget !== undefined ? 1 : records.length;
  const bytes = records.reduce((n, r) => n + (r.Value ?? '').length, 0);
  return { changes: 1, bytes: bytes * factor, values: values * factor };
}

export function groupCost(group: ChangeGroup): ChangeCost {
  const total = { changes: 0, bytes: 0, values: 0 };
  for (const c of group.changes) {
    const cost = changeCost(c);
    total.changes += cost.changes;
    total.bytes += cost.bytes;
    total.values += cost.values;
  }
  return total;
}

function fits(a: ChangeCost, b: ChangeCost, limits: BatchLimits): boolean {
  return a.changes + b.changes <= limits.changes && a.bytes + b.bytes <= limits.bytes && a.values + b.values <= limits.values;
}

/**
 * Splits groups into batches, first fit in order. A group larger than the limits on its own goes
 * alone: Route53 will refuse it and the refusal is reported for that group only.
 */
export function packBatches(groups: readonly ChangeGroup[], limits: BatchLimits): ChangeGroup[][] {
  const batches: ChangeGroup[][] = [];
  let current: ChangeGroup[] = [];
  let used: ChangeCost = { changes: 0, bytes: 0, values: 0 };
  for (const group of groups) {
    const cost = groupCost(group);
    if (current.length > 0 && !fits(used, cost, limits)) {
      batches.push(current);
      current = [];
      used = { changes: 0, bytes: 0, values: 0 };
    }
    current.push(group);
    used = { changes: used.changes + cost.changes, bytes: used.bytes + cost.bytes, values: used.values + cost.values };
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/**
 * Route53 applies a batch's changes in order and rejects deleting a name's record after creating
 * a conflicting one; deletes first, then upserts, then creates keeps CNAME↔A swaps valid.
 */
export function orderChanges(changes: Change[]): Change[] {
  const rank = (c: Change): number => (c.Action === 'DELETE' ? 0 : c.Action === 'UPSERT' ? 1 : 2);
  return [...changes].sort((a, b) => rank(a) - rank(b));
}
