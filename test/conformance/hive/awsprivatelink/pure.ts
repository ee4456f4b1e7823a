/**
 * Replays of Hive's tests of single functions through Hostwarden's counterparts in
 * src/privatelink/conditions.ts (setErrCondition, setReadyCondition, shouldSync), the API host from
 * the admin kubeconfig Secret and the inventory subnets an endpoint may use.
 */
import assert from 'node:assert/strict';
import { errConditions, readyConditions, shouldSync } from '../../../../src/privatelink/conditions.ts';
import type { HiveCondition } from '../../../../src/privatelink/types.ts';
import { eligibleVpcs } from '../../../../src/privatelink/steps/endpoint.ts';
import { apiHostFromSecret } from '../../../../src/privatelink/steps/hosted-zone.ts';
import type { ClusterDeployment, InventoryVPC } from '../../../../src/privatelink/types.ts';
import { conditionSet, wanted } from './cases.ts';
import type { Case, ExpectedCondition } from './cases.ts';

const NOW = new Date('2026-01-01T12:00:00Z');

function asConditions(list: readonly ExpectedCondition[]): HiveCondition[] {
  return list.map((c) => ({ type: c.type, status: c.status as HiveCondition['status'], reason: c.reason ?? '', message: c.message ?? '' }));
}

export type ErrCase = Case<{ conditions: ExpectedCondition[]; error: string; reason: string }, { conditions: ExpectedCondition[] }>;
export function replaySetErr(c: ErrCase): void {
  const out = errConditions(asConditions(c.given.conditions), c.given.reason, c.given.error, NOW).list;
  assert.deepEqual(conditionSet(out), conditionSet(asConditions(wanted(c).conditions)));
}

export type ProgressCase = Case<
  { conditions: ExpectedCondition[]; completed: 'True' | 'False'; reason: string; message: string },
  { conditions: ExpectedCondition[] }
>;
export function replaySetProgress(c: ProgressCase): void {
  const { completed, reason, message } = c.given;
  const out = readyConditions(asConditions(c.given.conditions), completed, reason, message, NOW).list;
  assert.deepEqual(conditionSet(out), conditionSet(asConditions(wanted(c).conditions)));
}

export type UrlCase = Case<{ secretData: Record<string, string> }, { host: string }>;
export function replayInitialUrl(c: UrlCase): void {
  assert.equal(apiHostFromSecret(c.given.secretData, 'test'), wanted(c).host);
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
        return { type: c.type, status: c.status as HiveCondition['status'], reason: '', message: '', lastTransitionTime: at, lastProbeTime: at };
      }),
      ...(g.status === undefined ? {} : { platformStatus: { aws: { privateLink: g.status } } }),
    },
  };
}

/** Hostwarden's sync decision (`shouldSync` in src/privatelink/conditions.ts). */
export function replayShouldSync(c: SyncCase): void {
  const got = shouldSync(syncCd(c.given.clusterDeployment, NOW), NOW);
  assert.deepEqual({ sync: got.sync, syncAfterMs: got.afterMs }, wanted(c));
}
