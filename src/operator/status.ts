/**
 * The status conditions the operator derives from what it observed (pure). ProviderAuthorized is
 * not among them: the operand owns it (operand-status.ts) and the operator only seeds it as Unknown.
 */
import type { ConditionInput } from '../kube/conditions.ts';
import { CONDITION, REASON } from './types.ts';

export interface DeploymentView {
  spec?: { replicas?: number };
  status?: { replicas?: number; availableReplicas?: number; conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

export interface PodView {
  metadata: { name: string };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

export function deploymentConditions(d: DeploymentView | undefined, pods: readonly PodView[], generation: number | undefined): ConditionInput[] {
  const og = generation === undefined ? {} : { observedGeneration: generation };
  const want = d?.spec?.replicas ?? 1;
  const available = d?.status?.availableReplicas ?? 0;
  const cond = d?.status?.conditions?.find((c) => c.type === 'Available');
  const out: ConditionInput[] = [];
  if (cond?.status === 'True')
    out.push({
      type: CONDITION.deploymentAvailable,
      status: 'True',
      reason: REASON.deploymentAvailable,
      message: 'the operand Deployment is available',
      ...og,
    });
  else if (cond === undefined)
    out.push({
      type: CONDITION.deploymentAvailable,
      status: 'False',
      reason: REASON.deploymentPending,
      message: 'the operand Deployment reports no Available condition yet',
      ...og,
    });
  else
    out.push({
      type: CONDITION.deploymentAvailable,
      status: 'False',
      reason: REASON.deploymentUnavailable,
      message: cond.message ?? cond.reason ?? 'the operand Deployment is not available',
      ...og,
    });
  const counts = `${available} of ${want} replicas available`;
  // One replica with the Recreate strategy: the minimum is one pod serving (none when scaled to zero).
  const minOk = want === 0 || available >= 1;
  out.push({
    type: CONDITION.replicasMinAvailable,
    status: minOk ? 'True' : 'False',
    reason: minOk ? REASON.replicasAvailable : REASON.replicasUnavailable,
    message: counts,
    ...og,
  });
  out.push({
    type: CONDITION.replicasAllAvailable,
    status: available >= want ? 'True' : 'False',
    reason: available >= want ? REASON.replicasAvailable : REASON.replicasUnavailable,
    message: counts,
    ...og,
  });
  const unscheduled = pods.filter((p) => p.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status !== 'True');
  if (pods.length === 0)
    out.push({ type: CONDITION.podsScheduled, status: 'Unknown', reason: REASON.deploymentPending, message: 'no operand pods yet', ...og });
  else if (unscheduled.length === 0)
    out.push({
      type: CONDITION.podsScheduled,
      status: 'True',
      reason: REASON.podsScheduled,
      message: `${pods.length} of ${pods.length} pods scheduled`,
      ...og,
    });
  else {
    const first = unscheduled[0];
    const why = first?.status?.conditions?.find((c) => c.type === 'PodScheduled')?.message ?? 'not scheduled yet';
    out.push({ type: CONDITION.podsScheduled, status: 'False', reason: REASON.podsUnschedulable, message: `pod ${first?.metadata.name ?? ''}: ${why}`, ...og });
  }
  return out;
}
