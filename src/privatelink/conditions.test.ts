import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  errConditions,
  errorScrub,
  initializeConditions,
  readyConditions,
  setConditionWithChangeCheck,
  shouldSync,
  sortConditions,
  WINDOW_INSTALLED_MS,
  WINDOW_INSTALLING_MS,
} from './conditions.ts';
import type { HiveCondition } from './types.ts';
import { FAILED, FINALIZER, READY } from './types.ts';
import type { ClusterDeployment } from './types.ts';

const T0 = new Date('2026-11-26T10:00:00.123Z');
const T1 = new Date('2026-11-26T10:05:00.456Z');

function cd(conditions: HiveCondition[], extra: Partial<ClusterDeployment['spec']> = {}, meta: Partial<ClusterDeployment['metadata']> = {}): ClusterDeployment {
  return {
    metadata: { name: 'c', namespace: 'ns', finalizers: [FINALIZER], ...meta },
    spec: { installed: true, platform: { aws: { region: 'us-east-1', privateLink: { enabled: true } } }, ...extra },
    status: { conditions },
  };
}

describe("Hive's ClusterDeployment conditions", () => {
  test('initialization adds Unknown/Initialized "Condition Initialized" with both times, once', () => {
    const first = initializeConditions(undefined, [FAILED, READY], T0);
    assert.equal(first.changed, true);
    assert.deepEqual(first.list, [
      {
        type: FAILED,
        status: 'Unknown',
        reason: 'Initialized',
        message: 'Condition Initialized',
        lastTransitionTime: '2026-11-26T10:00:00Z',
        lastProbeTime: '2026-11-26T10:00:00Z',
      },
      {
        type: READY,
        status: 'Unknown',
        reason: 'Initialized',
        message: 'Condition Initialized',
        lastTransitionTime: '2026-11-26T10:00:00Z',
        lastProbeTime: '2026-11-26T10:00:00Z',
      },
    ]);
    assert.equal(initializeConditions(first.list, [FAILED, READY], T1).changed, false);
  });

  test('setErrCondition: Failed=True and Ready=False with one reason and message; the same again changes nothing', () => {
    const init = initializeConditions(undefined, [FAILED, READY], T0).list;
    const err = errConditions(init, 'VPCEndpointReconcileFailed', 'boom', T1);
    assert.equal(err.changed, true);
    const byType = Object.fromEntries(err.list.map((c) => [c.type, c]));
    assert.deepEqual([byType[FAILED]!.status, byType[FAILED]!.reason, byType[FAILED]!.message], ['True', 'VPCEndpointReconcileFailed', 'boom']);
    assert.deepEqual([byType[READY]!.status, byType[READY]!.reason, byType[READY]!.message], ['False', 'VPCEndpointReconcileFailed', 'boom']);
    assert.equal(byType[READY]!.lastTransitionTime, '2026-11-26T10:05:00Z');
    assert.equal(errConditions(err.list, 'VPCEndpointReconcileFailed', 'boom', new Date('2026-11-26T11:00:00Z')).changed, false);
  });

  test('setReadyCondition: progress only before Ready; True sets Failed=False with the same reason; a True Ready is re-probed', () => {
    const init = initializeConditions(undefined, [FAILED, READY], T0).list;
    const progress = readyConditions(init, 'False', 'ReconciledVPCEndpoint', 'm', T0);
    assert.equal(progress.list.find((c) => c.type === FAILED)!.status, 'Unknown', 'progress leaves Failed alone');
    const ready = readyConditions(progress.list, 'True', 'PrivateLinkAccessReady', 'private link access is ready for use', T0);
    const failed = ready.list.find((c) => c.type === FAILED)!;
    assert.deepEqual([failed.status, failed.reason], ['False', 'PrivateLinkAccessReady']);
    const again = readyConditions(ready.list, 'True', 'PrivateLinkAccessReady', 'private link access is ready for use', T1);
    assert.equal(again.changed, true);
    const r = again.list.find((c) => c.type === READY)!;
    assert.deepEqual([r.lastTransitionTime, r.lastProbeTime], ['2026-11-26T10:00:00Z', '2026-11-26T10:05:00Z']);
    const lowered = readyConditions(again.list, 'False', 'PreviousAttemptCleanupComplete', 'x', T1);
    assert.equal(lowered.changed, false, 'a False progress does not replace a True Ready');
  });

  test('the sort: undesired first, desired next, Unknown last, by type within each', () => {
    const c = (type: string, status: HiveCondition['status']): HiveCondition => ({ type, status });
    const sorted = sortConditions([c('Zed', 'Unknown'), c(READY, 'True'), c(FAILED, 'False'), c('Provisioned', 'False'), c('DNSNotReady', 'True')]);
    assert.deepEqual(
      sorted.map((x) => `${x.type}=${x.status}`),
      ['DNSNotReady=True', 'Provisioned=False', `${FAILED}=False`, `${READY}=True`, 'Zed=Unknown'],
    );
    const set = setConditionWithChangeCheck([c(READY, 'True')], { type: FAILED, status: 'True', reason: 'r', message: 'm' }, 'ifReasonOrMessageChange', T0);
    assert.deepEqual(
      set.list.map((x) => x.type),
      [FAILED, READY],
    );
  });

  test('ErrorScrub: request IDs, assumed-role accounts and encoded messages go; newline-tabs become commas', () => {
    assert.equal(errorScrub('failed: status code: 400, request id: 0a1b-2c3d'), 'failed: status code: 400');
    assert.equal(errorScrub('a\n\tb'), 'a, b');
    assert.equal(
      errorScrub('User: arn:aws:sts::123456789012:assumed-role/role/session is not authorized to perform: ec2:X on resource: arn:aws:iam::123456789012:role/y'),
      'User: arn:aws:sts::XXX:assumed-role/role/XXX is not authorized to perform: ec2:X on resource: arn:aws:iam::XXX:role/y',
    );
    assert.equal(errorScrub('Encoded authorization failure message: abcdef, more'), 'Encoded authorization failure message: XXX, more');
  });

  test('shouldSync: at once when failed, not Ready, deleting or principals differ; else after the window from lastProbeTime', () => {
    const ready = (probe: string): HiveCondition[] => [
      { type: FAILED, status: 'False', reason: 'PrivateLinkAccessReady' },
      { type: READY, status: 'True', reason: 'PrivateLinkAccessReady', lastProbeTime: probe },
    ];
    const now = new Date('2026-11-26T12:00:00Z');
    assert.deepEqual(shouldSync(cd(ready('2026-11-26T11:00:00Z')), now), { sync: false, afterMs: 60 * 60_000 });
    assert.deepEqual(shouldSync(cd(ready('2026-11-26T10:00:00Z')), now), { sync: true, afterMs: 0 });
    assert.deepEqual(shouldSync(cd(ready('2026-11-26T11:59:50Z'), { installed: false }), now), { sync: false, afterMs: WINDOW_INSTALLING_MS });
    assert.deepEqual(shouldSync(cd(ready('2026-11-26T11:50:00Z'), { installed: false }), now), { sync: true, afterMs: 0 });
    assert.deepEqual(
      shouldSync(cd(ready('2026-11-26T09:59:50Z')), new Date('2026-11-26T11:59:45Z')),
      { sync: false, afterMs: 60_000 },
      'under a minute: one minute',
    );
    assert.equal(WINDOW_INSTALLED_MS, 2 * 60 * 60_000);
    const failed = ready('2026-11-26T11:00:00Z');
    failed[0]!.status = 'True';
    assert.equal(shouldSync(cd(failed), now).sync, true);
    assert.equal(shouldSync(cd([]), now).sync, true);
    assert.equal(shouldSync(cd(ready('2026-11-26T11:00:00Z'), {}, { deletionTimestamp: '2026-11-26T11:00:00Z' }), now).sync, true);
    assert.equal(shouldSync(cd(ready('2026-11-26T11:00:00Z'), {}, { deletionTimestamp: '2026-11-26T11:00:00Z', finalizers: [] }), now).sync, false);
    const principals = cd(ready('2026-11-26T11:00:00Z'), {
      platform: { aws: { region: 'us-east-1', privateLink: { enabled: true, additionalAllowedPrincipals: ['arn:x'] } } },
    });
    assert.equal(shouldSync(principals, now).sync, true);
    // The hub's own ARN in spec is never listed as additional in status: no sync on its account.
    const hub = 'arn:aws:iam::222222222222:user/hive';
    const withHub = cd(ready('2026-11-26T11:00:00Z'), {
      platform: { aws: { region: 'us-east-1', privateLink: { enabled: true, additionalAllowedPrincipals: [hub, 'arn:x'] } } },
    });
    withHub.status!.platformStatus = {
      aws: { privateLink: { vpcEndpointService: { name: 'n', id: 'i', defaultAllowedPrincipal: hub, additionalAllowedPrincipals: ['arn:x'] } } },
    };
    assert.equal(shouldSync(withHub, now).sync, false);
  });
});
