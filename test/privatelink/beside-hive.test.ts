/**
 * Beside Hive: while hive-operator manages HiveConfig and its spec.disabledControllers lacks
 * "awsprivatelink", the controller leaves every ClusterDeployment alone (no AWS call, no status,
 * no finalizer) and says so (gauge, /readyz reason); listing it there lets the cluster converge.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { findCondition } from '../../src/privatelink/conditions.ts';
import { silentLogger } from '../../src/log.ts';
import { PrivateLinkController } from '../../src/privatelink/controller.ts';
import { FINALIZER, READY } from '../../src/privatelink/types.ts';
import { endState, isEmpty } from './end-state.ts';
import { hiveOperatorReconciled, setDisabledControllers } from './hive-operator.ts';
import { startWorld } from './world.ts';

async function until(what: string, cond: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function gauge(metrics: Registry): Promise<number | undefined> {
  const m = await metrics.getSingleMetric('hostwarden_privatelink_hive_conflict')?.get();
  return m?.values[0]?.value;
}

describe('PrivateLink controller beside Hive', () => {
  test('Hive installed with its awsprivatelink controller enabled: nothing is done; listing it in disabledControllers converges', async () => {
    const w = await startWorld({ initialized: false });
    await hiveOperatorReconciled(w.client);
    await setDisabledControllers(w.client, ['clustersync']);
    const metrics = new Registry();
    const controller = new PrivateLinkController({
      client: w.client,
      reconcile: (k) => w.reconciler.reconcile(k),
      logger: silentLogger(),
      backoff: { initialMs: 20, maxMs: 200 },
      metrics,
    });
    try {
      controller.start();
      await until('the conflict is seen', () => controller.synced() && controller.hiveConflict() !== undefined);
      // The ClusterDeployment key ran through the gate (the cache listed it before the gate was asked).
      await controller.queue.idle();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await controller.queue.idle();
      assert.match(controller.hiveConflict() ?? '', /"awsprivatelink" in spec\.disabledControllers/);
      assert.equal(await gauge(metrics), 1);
      assert.equal(w.aws.aws.log.length, 0, 'no AWS call');
      const cd = w.cd();
      assert.equal(cd.status?.conditions, undefined, 'no status written');
      assert.deepEqual(cd.metadata.finalizers ?? [], [], 'no finalizer');
      assert.ok(isEmpty(endState(w)));

      // A merge patch replaces the list: the administrator repeats clustersync and adds awsprivatelink.
      await setDisabledControllers(w.client, ['clustersync', 'awsprivatelink']);
      await until('the cluster is ready', () => findCondition(w.cd()?.status?.conditions, READY)?.status === 'True');
      assert.equal(controller.hiveConflict(), undefined);
      assert.equal(await gauge(metrics), 0);
      assert.ok(w.cd().metadata.finalizers?.includes(FINALIZER));
      assert.equal(endState(w).endpoints.length, 1);

      // Hive's controller enabled again: further changes are left alone.
      await setDisabledControllers(w.client, ['clustersync']);
      await until('the conflict is seen again', () => controller.hiveConflict() !== undefined);
      const calls = w.aws.aws.log.length;
      w.patchCd((c) => {
        c.spec.platform!.aws!.privateLink!.additionalAllowedPrincipals = ['arn:aws:iam::444444444444:root'];
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await controller.queue.idle();
      assert.equal(w.aws.aws.log.length, calls, 'no AWS call while Hive runs its own controller');
    } finally {
      await controller.stop();
      await w.stop();
    }
  });

  test('a HiveConfig no hive-operator manages (no status) does not stop the controller', async () => {
    const w = await startWorld({});
    const controller = new PrivateLinkController({ client: w.client, reconcile: (k) => w.reconciler.reconcile(k), logger: silentLogger() });
    try {
      controller.start();
      await until('the cluster is ready', () => findCondition(w.cd()?.status?.conditions, READY)?.status === 'True');
      assert.equal(controller.hiveConflict(), undefined);
    } finally {
      await controller.stop();
      await w.stop();
    }
  });
});
