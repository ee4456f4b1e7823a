/**
 * Which DNSRecord events become work, as Gardener's DNSRecord controller filters them
 * (extensions/pkg/controller/dnsrecord/controller.go): HasClass and the type predicate, then
 * either the library's default controller predicate (the operation annotation drives work) or,
 * with --ignore-operation-annotation, GenerationChangedPredicate.
 */
import { EXTENSION_CLASS_SHOOT, OPERATION_ANNOTATION, OP_MIGRATE, OP_RECONCILE, OP_RESTORE } from './types.ts';
import type { DNSRecord } from './types.ts';

/** HasClass: no classes (or one empty class) means `shoot`; a record without a class is `shoot` (GetExtensionClassOrDefault). */
export function hasClass(classes: readonly string[]): (obj: DNSRecord) => boolean {
  const served = new Set(classes.length === 0 || (classes.length === 1 && classes[0] === '') ? [EXTENSION_CLASS_SHOOT] : classes);
  return (obj) => served.has(classOf(obj));
}

export function classOf(obj: DNSRecord): string {
  const c = obj.spec?.class;
  return c === undefined || c === null || c === '' ? EXTENSION_CLASS_SHOOT : c;
}

function hasOperationAnnotation(obj: DNSRecord): boolean {
  const op = obj.metadata.annotations?.[OPERATION_ANNOTATION];
  return op === OP_RECONCILE || op === OP_RESTORE || op === OP_MIGRATE;
}

/** Create (also every record listed at start): an operation annotation, deletion, or a last operation that did not succeed. */
export function defaultCreate(obj: DNSRecord): boolean {
  if (hasOperationAnnotation(obj)) return true;
  if (obj.metadata.deletionTimestamp !== undefined) return true;
  const last = obj.status?.lastOperation;
  return last === undefined || last === null || last.state !== 'Succeeded';
}

/** Update: an operation annotation, or deletion with the status unchanged (so our own status writes do not loop). */
export function defaultUpdate(old: DNSRecord, obj: DNSRecord): boolean {
  if (hasOperationAnnotation(obj)) return true;
  return obj.metadata.deletionTimestamp !== undefined && sameJson(old.status, obj.status);
}

/** GenerationChangedPredicate: every create, and updates that change metadata.generation. */
export function generationChangedUpdate(old: DNSRecord, obj: DNSRecord): boolean {
  return old.metadata.generation !== obj.metadata.generation;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** Key order does not make two statuses differ (apiequality.Semantic.DeepEqual). */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
  );
}
