/**
 * `hive.openshift.io/reconcile-pause` on a ClusterDeployment, read as Hive reads it (Go's
 * strconv.ParseBool): a paused cluster is left exactly as it is — no conditions, no finalizer, no AWS
 * call, no cleanup even while deleting — and converges once the annotation goes.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PAUSE_ANNOTATION, findCondition, parseGoBool } from '../../src/privatelink/conditions.ts';
import { FINALIZER, READY } from '../../src/privatelink/types.ts';
import { PrivateLinkController } from '../../src/privatelink/controller.ts';
import { silentLogger } from '../../src/log.ts';
import { capturingLogger } from '../support/log-capture.ts';
import { endState, isEmpty } from './end-state.ts';
import { CD_NAME, NS, startWorld } from './world.ts';
import type { World } from './world.ts';

async function withWorld(opts: Parameters<typeof startWorld>[0], fn: (w: World) => Promise<void>): Promise<void> {
  const w = await startWorld(opts);
  try {
    await fn(w);
  } finally {
    await w.stop();
  }
}

function annotate(w: World, value: string | undefined): void {
  w.patchCd((cd) => {
    const a = { ...cd.metadata.annotations };
    if (value === undefined) delete a[PAUSE_ANNOTATION];
    else a[PAUSE_ANNOTATION] = value;
    cd.metadata.annotations = a;
  });
}

const PAUSE_MSG = 'skipping reconcile due to ClusterDeployment pause annotation';

describe('PrivateLink reconcile-pause', () => {
  test("Go's ParseBool: 1, t, T, TRUE, true, True pause; false values and unparsable ones do not", () => {
    for (const v of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.equal(parseGoBool(v), true, v);
    for (const v of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.equal(parseGoBool(v), false, v);
    for (const v of ['yes', 'on', 'tRUE', ' true', '']) assert.equal(parseGoBool(v), undefined, v);
  });

  test('a paused new cluster: nothing in AWS, no status, no finalizer, one info line per reconcile; unpaused it converges', async () => {
    const cap = capturingLogger('info');
    await withWorld({ initialized: false, logger: cap.logger }, async (w) => {
      annotate(w, 'True');
      const rv = w.cd().metadata.resourceVersion;
      assert.deepEqual(await w.reconcile(), {});
      assert.deepEqual(await w.reconcile(), {});
      assert.equal(w.aws.aws.log.length, 0, 'no AWS call');
      assert.equal(w.cd().metadata.resourceVersion, rv, 'nothing written');
      assert.equal(w.cd().status?.conditions, undefined);
      assert.ok(!(w.cd().metadata.finalizers ?? []).includes(FINALIZER));
      assert.deepEqual(
        cap.lines.filter((l) => l.msg === PAUSE_MSG).map((l) => l.level),
        [30, 30],
        'logged at info once per reconcile',
      );

      annotate(w, 'yes'); // unparsable: not paused, as in Hive
      await w.reconcile();
      assert.equal(findCondition(w.cd().status?.conditions, READY)?.reason, 'Initialized');
      annotate(w, undefined);
      await w.reconcile();
      await w.reconcile();
      assert.equal(findCondition(w.cd().status?.conditions, READY)?.status, 'True');
      assert.ok(w.cd().metadata.finalizers?.includes(FINALIZER));
    });
  });

  test('a paused deleting cluster keeps its finalizer and its resources; unpaused it is cleaned up and released', () =>
    withWorld({}, async (w) => {
      await w.reconcile();
      await w.reconcile();
      assert.equal(findCondition(w.cd().status?.conditions, READY)?.status, 'True');
      const before = endState(w);
      annotate(w, '1');
      w.api.delete({ apiVersion: 'hive.openshift.io/v1', kind: 'ClusterDeployment', namespace: NS, name: CD_NAME });
      const mark = w.aws.aws.log.length;
      assert.deepEqual(await w.reconcile(), {});
      assert.ok(w.cd().metadata.deletionTimestamp !== undefined);
      assert.ok(w.cd().metadata.finalizers?.includes(FINALIZER), 'finalizer kept');
      assert.deepEqual(endState(w), before, 'resources kept');
      assert.equal(w.aws.aws.log.length, mark, 'no AWS call');
      annotate(w, 'false');
      await w.reconcile();
      assert.equal(w.cd(), undefined, 'finalizer removed, object gone');
      assert.ok(isEmpty(endState(w)), JSON.stringify(endState(w)));
    }));

  test('under the controller, removing the annotation brings the cluster back: it converges without a timer', async () => {
    const w = await startWorld({ initialized: false });
    annotate(w, 'true');
    let runs = 0;
    const controller = new PrivateLinkController({
      client: w.client,
      reconcile: (k) => {
        runs++;
        return w.reconciler.reconcile(k);
      },
      logger: silentLogger(),
      backoff: { initialMs: 20, maxMs: 200 },
    });
    try {
      controller.start();
      for (let i = 0; i < 400 && runs === 0; i++) await new Promise((r) => setTimeout(r, 25));
      await controller.queue.idle();
      assert.ok(runs > 0);
      assert.equal(w.cd().status?.conditions, undefined, 'paused: nothing written');
      assert.equal(controller.queue.pendingDelays().size, 0, 'paused: no timer');
      annotate(w, undefined);
      for (let i = 0; i < 800 && findCondition(w.cd().status?.conditions, READY)?.status !== 'True'; i++) await new Promise((r) => setTimeout(r, 25));
      assert.equal(findCondition(w.cd().status?.conditions, READY)?.status, 'True');
    } finally {
      await controller.stop();
      await w.stop();
    }
  });
});
