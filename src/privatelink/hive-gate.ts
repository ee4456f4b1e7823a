/**
 * Beside Hive: Hive's controller manager runs its own `awsprivatelink` controller unless
 * HiveConfig `spec.disabledControllers` lists it, and two controllers must never work on one
 * ClusterDeployment. This decides, from HiveConfig `hive` alone (the controller already lists and
 * watches it, so no further permission is needed), whether Hostwarden may reconcile.
 *
 * Hive counts as installed when hive-operator manages the HiveConfig: its first reconcile writes
 * status.conditions (type `Ready`) and status.observedGeneration, before it deploys
 * hive-controllers, so the signal is there before Hive's controller can run. A HiveConfig nobody
 * manages (created by hand for Hostwarden alone) has neither.
 *
 * Hive's newer generic `privatelink` controller serves only GCP ClusterDeployments (it skips every
 * other platform), so it never acts on an AWS one and needs no entry.
 */
import type { HiveConfig } from './types.ts';

/** Hive's name of its AWS PrivateLink controller (hivev1.AWSPrivateLinkControllerName). */
export const HIVE_AWS_PRIVATELINK_CONTROLLER = 'awsprivatelink';
/** hive-operator's HiveConfig condition (hivev1.HiveReadyCondition). */
const HIVE_READY_CONDITION = 'Ready';

export type HiveGate =
  /** No HiveConfig, or one hive-operator does not manage: Hostwarden works alone. */
  | { hive: 'absent' | 'unmanaged'; conflict: false }
  /** Hive is installed and its controller is disabled: Hostwarden works. */
  | { hive: 'installed'; conflict: false }
  /** Hive is installed and runs its own awsprivatelink controller: Hostwarden must do nothing. */
  | { hive: 'installed'; conflict: true; message: string };

type ManagedStatus = { status?: { conditions?: { type?: string }[]; observedGeneration?: number } };

/** True when hive-operator has reconciled this HiveConfig (it wrote its status). */
export function hiveOperatorManages(hive: HiveConfig): boolean {
  const status = (hive as HiveConfig & ManagedStatus).status;
  return (status?.conditions ?? []).some((c) => c.type === HIVE_READY_CONDITION) || (status?.observedGeneration ?? 0) > 0;
}

export function hiveGate(hive: HiveConfig | undefined): HiveGate {
  if (hive === undefined) return { hive: 'absent', conflict: false };
  if (!hiveOperatorManages(hive)) return { hive: 'unmanaged', conflict: false };
  const disabled = (hive.spec as { disabledControllers?: string[] }).disabledControllers ?? [];
  if (disabled.includes(HIVE_AWS_PRIVATELINK_CONTROLLER)) return { hive: 'installed', conflict: false };
  return {
    hive: 'installed',
    conflict: true,
    message:
      `Hive is installed and runs its own "${HIVE_AWS_PRIVATELINK_CONTROLLER}" controller: no ClusterDeployment is reconciled until ` +
      `HiveConfig hive lists "${HIVE_AWS_PRIVATELINK_CONTROLLER}" in spec.disabledControllers ` +
      `(a merge patch replaces the whole list: keep the entries already there)`,
  };
}
