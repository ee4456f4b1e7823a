/**
 * Gardener's status bookkeeping for extension resources, as its extension library writes it:
 * which operation a reconcile is (ComputeOperationType), the Processing / Succeeded / Error
 * patches of the status updater, and the DNSRecord reconciler's Created condition.
 */
import { CONDITION_CREATED, OPERATION_ANNOTATION, OP_MIGRATE, OP_RESTORE } from './types.ts';
import type { DNSRecord, DNSRecordStatus, GardenerCondition, LastOperation, OperationState, OperationType } from './types.ts';

/** ComputeOperationType: migrate annotation, then deletion, then restore annotation; an unfinished Create, Migrate or Restore is still one. */
export function operationType(obj: DNSRecord): OperationType {
  const op = obj.metadata.annotations?.[OPERATION_ANNOTATION];
  const last = obj.status?.lastOperation;
  if (op === OP_MIGRATE) return 'Migrate';
  if (obj.metadata.deletionTimestamp !== undefined) return 'Delete';
  if (op === OP_RESTORE) return 'Restore';
  if (last === undefined || last === null) return 'Create';
  if ((last.type === 'Create' || last.type === 'Migrate' || last.type === 'Restore') && last.state !== 'Succeeded') return last.type;
  return 'Reconcile';
}

/** IsMigrated: the last operation is a successful Migrate. */
export function isMigrated(obj: DNSRecord): boolean {
  const last = obj.status?.lastOperation;
  return last?.type === 'Migrate' && last.state === 'Succeeded';
}

/** ShouldSkipOperation: a migrated record is left alone by anything but Migrate and Restore. */
export function shouldSkipOperation(type: OperationType, obj: DNSRecord): boolean {
  return type !== 'Migrate' && type !== 'Restore' && isMigrated(obj);
}

export function lastOperation(type: OperationType, state: OperationState, description: string, progress: number, now: Date): LastOperation {
  return { type, state, description, lastUpdateTime: now.toISOString(), progress };
}

/** The Created condition's status; Unknown when there is none (getCreatedConditionStatus). */
export function createdConditionStatus(status: DNSRecordStatus | undefined): 'True' | 'False' | 'Unknown' {
  return status?.conditions?.find((c) => c.type === CONDITION_CREATED)?.status ?? 'Unknown';
}

export type CreatedUpdate = 'true' | 'false';

/**
 * updateCreatedCondition as reconciler.go has it: True ("Success") replaces any earlier status;
 * False ("Error") is only written when there is no Created condition yet; an unchanged status
 * leaves the condition (and its times) as it is.
 */
export function updateCreatedCondition(conditions: readonly GardenerCondition[] | undefined, update: CreatedUpdate, now: Date): GardenerCondition[] {
  const list = [...(conditions ?? [])];
  const want = update === 'true' ? 'True' : 'False';
  const i = list.findIndex((c) => c.type === CONDITION_CREATED);
  const old = i >= 0 ? list[i] : undefined;
  if (old !== undefined && (update === 'false' || old.status === want)) return list;
  const at = now.toISOString();
  const next: GardenerCondition = {
    type: CONDITION_CREATED,
    status: want,
    lastTransitionTime: at,
    lastUpdateTime: at,
    reason: update === 'true' ? 'Success' : 'Error',
    message: update === 'true' ? 'Record was created successfully in infrastructure at least once' : 'Error on initial record creation in infrastructure',
  };
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}

/** ProcessingCustom: progress 1, observedGeneration untouched. */
export function processing(type: OperationType, description: string, now: Date): DNSRecordStatus {
  return { lastOperation: lastOperation(type, 'Processing', description, 1, now) };
}

/** SuccessCustom: progress 100, lastError cleared, observedGeneration set; Created True unless `created` is undefined. */
export function succeeded(
  obj: DNSRecord,
  type: OperationType,
  description: string,
  now: Date,
  opts: { created?: CreatedUpdate; extra?: Partial<DNSRecordStatus> } = {},
): DNSRecordStatus {
  return {
    ...opts.extra,
    lastOperation: lastOperation(type, 'Succeeded', description, 100, now),
    lastError: null,
    ...(opts.created === undefined ? {} : { conditions: updateCreatedCondition(obj.status?.conditions, opts.created, now) }),
    observedGeneration: obj.metadata.generation ?? 0,
  };
}

/** ErrorCustom: "<description>: <error>" with its first letter upper-cased (FormatLastErrDescription), progress 50. */
export function failed(
  obj: DNSRecord,
  type: OperationType,
  description: string,
  codes: readonly string[],
  now: Date,
  opts: { created?: CreatedUpdate } = {},
): DNSRecordStatus {
  const text = description.length > 0 ? description[0]?.toUpperCase() + description.slice(1) : description;
  return {
    lastOperation: lastOperation(type, 'Error', text, 50, now),
    lastError: { description: text, ...(codes.length === 0 ? {} : { codes: [...codes] }), lastUpdateTime: now.toISOString() },
    ...(opts.created === undefined ? {} : { conditions: updateCreatedCondition(obj.status?.conditions, opts.created, now) }),
    observedGeneration: obj.metadata.generation ?? 0,
  };
}

/** The reconciler's descriptions, per operation. */
export const DESCRIPTIONS: Record<OperationType, { processing: string; success: string; error: string }> = {
  Create: { processing: 'Reconciling the DNSRecord', success: 'Successfully reconciled DNSRecord', error: 'Error reconciling DNSRecord' },
  Reconcile: { processing: 'Reconciling the DNSRecord', success: 'Successfully reconciled DNSRecord', error: 'Error reconciling DNSRecord' },
  Restore: { processing: 'Restoring the DNSRecord', success: 'Successfully restored DNSRecord', error: 'Error restoring DNSRecord' },
  Migrate: { processing: 'Migrating the DNSRecord', success: 'Successfully migrated DNSRecord', error: 'Error migrating DNSRecord' },
  Delete: { processing: 'Deleting the DNSRecord', success: 'Successfully deleted DNSRecord', error: 'Error deleting DNSRecord' },
};
