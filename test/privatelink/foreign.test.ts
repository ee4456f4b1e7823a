/**
 * Endpoints of other accounts connected to the cluster's endpoint service (issue #23 item 6): a
 * principal taken off `additionalAllowedPrincipals` loses its connection on the next reconcile, the
 * hub's stays; a foreign endpoint left at deprovision is rejected so the service can be deleted;
 * without the permissions setup still gets Ready, with one warning per cluster.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findCondition } from '../../src/privatelink/conditions.ts';
import { FAILED, READY } from '../../src/privatelink/types.ts';
import { capturingLogger, WARN } from '../support/log-capture.ts';
import type { LogLine } from '../support/log-capture.ts';
import { endState, isEmpty } from './end-state.ts';
import { startWorld } from './world.ts';
import type { World, WorldOptions } from './world.ts';

const CONNECTION_OPS = ['DescribeVpcEndpointConnections', 'RejectVpcEndpointConnections'];

async function withWorld(opts: WorldOptions, fn: (w: World) => Promise<void>): Promise<void> {
  const w = await startWorld(opts);
  try {
    await fn(w);
  } finally {
    await w.stop();
  }
}

function allow(w: World, principals: string[] | undefined): void {
  w.patchCd((cd) => {
    const pl = cd.spec.platform!.aws!.privateLink!;
    if (principals === undefined) delete pl.additionalAllowedPrincipals;
    else pl.additionalAllowedPrincipals = principals;
  });
}

/** Runs until Ready and settled (bounded). */
async function converge(w: World): Promise<void> {
  for (let i = 0; i < 4; i++) {
    const r = await w.reconcile();
    if (findCondition(w.cd().status?.conditions, READY)?.status === 'True' && r.requeueAfterMs !== 0) return;
  }
  assert.fail(`not converged: ${JSON.stringify(w.cd().status?.conditions)}`);
}

const stateOf = (w: World, id: string): string | undefined => w.aws.network.endpoints.get(id)?.state;

/** The EC2 answer to a caller without the two permissions. */
function denyConnections(w: World): void {
  w.aws.aws.fail({
    code: 'UnauthorizedOperation',
    status: 403,
    message: 'You are not authorized to perform this operation.',
    operations: CONNECTION_OPS,
    count: 1000,
  });
}

const warnings = (lines: LogLine[]): LogLine[] => lines.filter((l) => l.level === WARN && /list or reject VPC endpoint connections/.test(l.msg));

describe('PrivateLink foreign endpoint connections', () => {
  test('a principal removed from additionalAllowedPrincipals loses its connection on the next reconcile; the hub keeps its own', () => {
    const log = capturingLogger('info');
    return withWorld({ logger: log.logger }, async (w) => {
      allow(w, [`arn:aws:iam::${w.other.account}:root`]);
      await converge(w);
      const foreign = await w.connectEndpoint(w.other);
      await converge(w);
      assert.equal(stateOf(w, foreign), 'pending', 'still allowed: left alone');

      allow(w, undefined);
      await converge(w);
      assert.equal(stateOf(w, foreign), 'rejected');
      const hubEndpoint = endState(w).endpoints;
      assert.deepEqual(
        hubEndpoint.map((e) => e.state),
        ['available'],
      );
      assert.deepEqual(endState(w).services[0]?.principals, [w.hub.arn]);
      const rejected = log.lines.filter((l) => l.msg === 'rejected VPC endpoint connection');
      assert.deepEqual(
        rejected.map((l) => [l['endpoint'], l['owner']]),
        [[foreign, w.other.account]],
      );
      assert.equal(findCondition(w.cd().status?.conditions, READY)?.status, 'True');
    });
  });

  test('an IAM user or role ARN covers its account; `*` covers every account', () =>
    withWorld({}, async (w) => {
      allow(w, [`arn:aws:iam::${w.other.account}:user/shared-dns`]);
      await converge(w);
      const foreign = await w.connectEndpoint(w.other);
      allow(w, [`arn:aws:iam::${w.other.account}:role/anything`]);
      await converge(w);
      assert.equal(stateOf(w, foreign), 'pending');
      allow(w, ['*']);
      await converge(w);
      assert.equal(stateOf(w, foreign), 'pending');
      allow(w, [`arn:aws:iam::444444444444:root`]);
      await converge(w);
      assert.equal(stateOf(w, foreign), 'rejected');
    }));

  test('a foreign endpoint left at deprovision: cleanup rejects it and deletes the service', () =>
    withWorld({ associateOther: true }, async (w) => {
      allow(w, [`arn:aws:iam::${w.other.account}:root`]);
      await converge(w);
      const foreign = await w.connectEndpoint(w.other);
      w.deprovision();
      await w.reconcile();
      assert.ok(isEmpty(endState(w)), JSON.stringify(endState(w)));
      assert.equal(stateOf(w, foreign), 'rejected');
      // Hive's setReadyCondition never lowers a True Ready: DeprovisionCleanupComplete shows only before Ready.
      const ready = findCondition(w.cd().status?.conditions, READY);
      assert.deepEqual([ready?.status, ready?.reason], ['True', 'PrivateLinkAccessReady']);
      assert.equal(w.cd().status?.platformStatus?.aws?.privateLink, undefined, 'status cleared with the resources');
    }));

  test('permissions missing: Ready with one warning per cluster; cleanup still succeeds when nothing foreign is left', () => {
    const log = capturingLogger('info');
    return withWorld({ logger: log.logger }, async (w) => {
      denyConnections(w);
      await converge(w);
      await w.reconcile();
      assert.equal(findCondition(w.cd().status?.conditions, READY)?.status, 'True');
      assert.equal(findCondition(w.cd().status?.conditions, FAILED)?.status, 'False');
      const warned = warnings(log.lines);
      assert.equal(warned.length, 1, JSON.stringify(warned));
      assert.equal(warned[0]!['action'], 'ec2:DescribeVpcEndpointConnections');
      w.deprovision();
      await w.reconcile();
      assert.ok(isEmpty(endState(w)), JSON.stringify(endState(w)));
      assert.equal(warnings(log.lines).length, 1, 'still one warning for the cluster');
    });
  });

  test('permissions missing and a foreign endpoint left: cleanup fails naming the missing permissions, then succeeds once granted', () =>
    withWorld({}, async (w) => {
      denyConnections(w);
      allow(w, [`arn:aws:iam::${w.other.account}:root`]);
      await converge(w);
      const foreign = await w.connectEndpoint(w.other);
      w.deprovision();
      await assert.rejects(
        w.reconcile(),
        /ExistingVpcEndpointConnections.*denied ec2:DescribeVpcEndpointConnections; grant ec2:DescribeVpcEndpointConnections and ec2:RejectVpcEndpointConnections/,
      );
      const failed = findCondition(w.cd().status?.conditions, FAILED);
      assert.equal(failed?.reason, 'CleanupForDeprovisionFailed');
      assert.match(failed?.message ?? '', /ec2:RejectVpcEndpointConnections/);
      assert.equal(endState(w).services.length, 1);

      w.aws.aws.clearFaults();
      await w.reconcile();
      assert.ok(isEmpty(endState(w)), JSON.stringify(endState(w)));
      assert.equal(stateOf(w, foreign), 'rejected');
    }));
});
