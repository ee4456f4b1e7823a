/**
 * Status conditions (metav1.Condition) and finalizers, shared by the reconcilers. Conditions keep
 * their lastTransitionTime while the status stays the same, as `meta.SetStatusCondition` does, so a
 * reconcile that changes nothing writes nothing.
 */
import type { KubeClient } from './client.ts';
import type { KubeResource } from './resource.ts';
import { objectPath } from './resource.ts';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export type ConditionInput = Omit<Condition, 'lastTransitionTime'>;

/** A new list with `input` set; the transition time moves only when the status changes. */
export function setCondition(list: readonly Condition[] | undefined, input: ConditionInput, now: Date): Condition[] {
  const out = [...(list ?? [])];
  const i = out.findIndex((c) => c.type === input.type);
  const old = i >= 0 ? out[i] : undefined;
  const next: Condition = {
    ...input,
    lastTransitionTime: old !== undefined && old.status === input.status ? old.lastTransitionTime : now.toISOString(),
  };
  if (i >= 0) out[i] = next;
  else out.push(next);
  return out;
}

export function findCondition(list: readonly Condition[] | undefined, type: string): Condition | undefined {
  return list?.find((c) => c.type === type);
}

export function isConditionTrue(list: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(list, type)?.status === 'True';
}

interface MetaWithFinalizers {
  metadata: { name: string; namespace?: string | undefined; resourceVersion?: string | undefined; finalizers?: string[] | undefined };
}

export function hasFinalizer(obj: MetaWithFinalizers, finalizer: string): boolean {
  return (obj.metadata.finalizers ?? []).includes(finalizer);
}

/**
 * Adds or removes one finalizer with a merge patch that carries the resourceVersion we read, so a
 * concurrent writer makes this fail with 409 (retried by the queue) instead of losing its finalizer.
 * Returns the object as the server stored it.
 */
export async function patchFinalizers<T extends MetaWithFinalizers>(
  client: Pick<KubeClient, 'request'>,
  resource: KubeResource,
  obj: T,
  change: { add?: string; remove?: string },
): Promise<T> {
  let list = [...(obj.metadata.finalizers ?? [])];
  if (change.add !== undefined && !list.includes(change.add)) list.push(change.add);
  if (change.remove !== undefined) list = list.filter((f) => f !== change.remove);
  const path = objectPath(resource, obj.metadata.namespace ?? '', obj.metadata.name);
  return client.request<T>('PATCH', path, {
    body: { metadata: { finalizers: list, resourceVersion: obj.metadata.resourceVersion } },
    contentType: 'application/merge-patch+json',
  });
}
