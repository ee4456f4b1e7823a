/**
 * Gardener's status bookkeeping for extension resources: which operation a reconcile is (the
 * rules of gardener's ComputeOperationType), and the status patches that report it.
 */
import { findCondition } from '../kube/conditions.ts';
import { CONDITION_CREATED, OPERATION_ANNOTATION, OP_MIGRATE, OP_RESTORE, REASON_CREATED } from './types.ts';
import type { DNSRecord, DNSRecordStatus, GardenerCondition, LastOperation, OperationState, OperationType } from './types.ts';

/** Migrate and restore come from the annotation; deletion wins over history; an unfinished Create, Migrate or Restore is still one. */
export function operationType(obj: DNSRecord): OperationType {
  const op = obj.metadata.annotations?.[OPERATION_ANNOTATION];
  const last = obj.status?.lastOperation;
  if (op === OP_MIGRATE) return 'Migrate';
  if (op === OP_RESTORE) return 'Restore';
  if (obj.metadata.deletionTimestamp !== undefined) return 'Delete';
  if (last === undefined) return 'Create';
  if ((last.type === 'Create' || last.type === 'Migrate' || last.type === 'Restore') && last.state !== 'Succeeded') return last.type;
  return 'Reconcile';
}

/** Migrated to another seed: left alone until a restore annotation brings it back. */
export function isMigrated(obj: DNSRecord): boolean {
  const last = obj.status?.lastOperation;
  return last?.type === 'Migrate' && last.state === 'Succeeded';
}

export function lastOperation(type: OperationType, state: OperationState, description: string, now: Date): LastOperation {
  return { type, state, description, lastUpdateTime: now.toISOString(), progress: state === 'Succeeded' ? 100 : state === 'Processing' ? 1 : 50 };
}

/** The patch after a successful write (or delete, or migrate): no error, Created as it now is. */
export function succeeded(obj: DNSRecord, type: OperationType, description: string, now: Date, extra: Partial<DNSRecordStatus> = {}): DNSRecordStatus {
  let conditions: GardenerCondition[] | undefined = obj.status?.conditions;
  if (type !== 'Delete' && type !== 'Migrate') {
    conditions = setGardenerCondition(
      conditions,
      { type: CONDITION_CREATED, status: 'True', reason: REASON_CREATED, message: 'the DNS record set exists' },
      now,
    );
  }
  return {
    ...extra,
    lastOperation: lastOperation(type, 'Succeeded', description, now),
    lastError: null,
    ...(conditions === undefined ? {} : { conditions }),
    observedGeneration: obj.metadata.generation ?? 0,
  };
}

export function failed(obj: DNSRecord, type: OperationType, description: string, codes: readonly string[], now: Date): DNSRecordStatus {
  return {
    lastOperation: lastOperation(type, 'Error', description, now),
    lastError: { description, ...(codes.length === 0 ? {} : { codes: [...codes] }), lastUpdateTime: now.toISOString() },
    observedGeneration: obj.metadata.generation ?? 0,
  };
}

export function wasCreated(obj: DNSRecord): boolean {
  // Once True, Created stays True: a record that ever existed may still exist in DNS.
  return findCondition(obj.status?.conditions, CONDITION_CREATED)?.status === 'True';
}

/**
 * Sets a condition as Gardener's ConditionBuilder does: lastTransitionTime moves when the status
 * changes, lastUpdateTime when reason or message change (helper.defaultConditionBuilder.Build), so an unchanged reconcile writes
 * the same condition (Gardener's CRD requires both times).
 */
export function setGardenerCondition(
  list: readonly GardenerCondition[] | undefined,
  input: Pick<GardenerCondition, 'type' | 'status' | 'reason' | 'message'>,
  now: Date,
): GardenerCondition[] {
  const out = [...(list ?? [])];
  const i = out.findIndex((c) => c.type === input.type);
  const old = i >= 0 ? out[i] : undefined;
  const at = now.toISOString();
  const same = old !== undefined && old.reason === input.reason && old.message === input.message;
  const next: GardenerCondition = {
    ...input,
    lastTransitionTime: old !== undefined && old.status === input.status ? old.lastTransitionTime : at,
    lastUpdateTime: same ? (old.lastUpdateTime ?? at) : at,
  };
  if (i >= 0) out[i] = next;
  else out.push(next);
  return out;
}
