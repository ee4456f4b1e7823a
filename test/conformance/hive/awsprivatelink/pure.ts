/**
 * Replays of Hive's tests of single functions through Hostwarden's counterparts: the conditions a
 * failure or progress leaves (reconciler's `conditions` applied as its status writer does), the
 * API host from the admin kubeconfig Secret, the inventory subnets an endpoint may use, and — once
 * Hostwarden has one — the decision whether to sync now.
 */
import assert from 'node:assert/strict';
import { setCondition } from '../../../../src/kube/conditions.ts';
import type { Condition } from '../../../../src/kube/conditions.ts';
import { conditions } from '../../../../src/privatelink/reconciler.ts';
import * as reconcilerModule from '../../../../src/privatelink/reconciler.ts';
import { eligibleVpcs } from '../../../../src/privatelink/steps/endpoint.ts';
import { apiHostFromSecret } from '../../../../src/privatelink/steps/hosted-zone.ts';
import type { ClusterDeployment, InventoryVPC } from '../../../../src/privatelink/types.ts';
import { conditionSet, wanted } from './cases.ts';
import type { Case, ExpectedCondition } from './cases.ts';

const NOW = new Date('2026-01-01T12:00:00Z');

function asConditions(list: readonly ExpectedCondition[]): Condition[] {
  return list.map((c) => ({ type: c.type, status: c.status as Condition['status'], reason: c.reason ?? '', message: c.message ?? '', lastTransitionTime: '' }));
}

/** What Hostwarden's status writer does with one `conditions()` result. */
function apply(list: readonly ExpectedCondition[], input: ReturnType<typeof conditions>): Condition[] {
  return setCondition(setCondition(asConditions(list), input.ready, NOW), input.failed, NOW);
}

export type ErrCase = Case<{ conditions: ExpectedCondition[]; error: string; reason: string }, { conditions: ExpectedCondition[] }>;
export function replaySetErr(c: ErrCase): void {
  const out = apply(c.given.conditions, conditions({ status: 'False', reason: c.given.reason, message: c.given.error }, true));
  assert.deepEqual(conditionSet(out), conditionSet(asConditions(wanted(c).conditions)));
}

export type ProgressCase = Case<
  { conditions: ExpectedCondition[]; completed: 'True' | 'False'; reason: string; message: string },
  { conditions: ExpectedCondition[] }
>;
export function replaySetProgress(c: ProgressCase): void {
  const { completed, reason, message } = c.given;
  const out = apply(c.given.conditions, conditions({ status: completed, reason, message }, false));
  assert.deepEqual(conditionSet(out), conditionSet(asConditions(wanted(c).conditions)));
}

export type UrlCase = Case<{ secretData: Record<string, string> }, { host: string }>;
export function replayInitialUrl(c: UrlCase): void {
  assert.equal(apiHostFromSecret(c.given.secretData, 'test-namespace/test'), wanted(c).host);
}

export type SubnetsCase = Case<{ inventory: InventoryVPC[]; serviceZones: string[] }, { inventory: InventoryVPC[] }>;
export function replaySupportedSubnets(c: SubnetsCase): void {
  const got = eligibleVpcs(c.given.inventory, c.given.serviceZones);
  const want = wanted(c).inventory.map((v) => ({ vpcId: v.vpcID, subnetIds: v.subnets.map((s) => s.subnetID) }));
  assert.deepEqual(got, want);
}

interface SyncCd {
  deleted?: boolean;
  finalizers?: string[];
  installed?: boolean;
  conditions?: { type: string; status: string; lastProbeAgoMs?: number }[];
  privateLink?: { enabled: boolean; additionalAllowedPrincipals?: string[] };
  status?: Record<string, unknown>;
}
export type SyncCase = Case<{ clusterDeployment: SyncCd }, { sync: boolean; syncAfterMs: number }>;

function syncCd(g: SyncCd, now: Date): ClusterDeployment {
  return {
    metadata: {
      name: 'test-cd',
      namespace: 'test-namespace',
      ...(g.deleted === true ? { deletionTimestamp: now.toISOString() } : {}),
      ...(g.finalizers === undefined ? {} : { finalizers: g.finalizers }),
    },
    spec: {
      installed: g.installed ?? false,
      platform: { aws: { region: 'us-east-1', ...(g.privateLink === undefined ? {} : { privateLink: g.privateLink }) } },
    },
    status: {
      conditions: (g.conditions ?? []).map((c) => {
        const at = new Date(now.getTime() - (c.lastProbeAgoMs ?? 0)).toISOString();
        return { type: c.type, status: c.status as Condition['status'], reason: '', message: '', lastTransitionTime: at, lastProbeTime: at };
      }),
      ...(g.status === undefined ? {} : { platformStatus: { aws: { privateLink: g.status } } }),
    },
  };
}

/**
 * Hostwarden's sync decision, once there is one: `shouldSync(cd, now)` exported by the reconciler,
 * answering `[sync, afterMs]` or `{ sync, afterMs }` (the shape is the status work's to choose).
 */
export function replayShouldSync(c: SyncCase): void {
  const fn = (reconcilerModule as Record<string, unknown>)['shouldSync'];
  assert.equal(typeof fn, 'function', 'Hostwarden has no shouldSync yet');
  const raw = (fn as (cd: ClusterDeployment, now: Date) => unknown)(syncCd(c.given.clusterDeployment, NOW), NOW);
  const [sync, afterMs] = Array.isArray(raw) ? raw : [(raw as { sync: boolean }).sync, (raw as { afterMs?: number }).afterMs ?? 0];
  assert.deepEqual({ sync, syncAfterMs: afterMs }, wanted(c));
}
