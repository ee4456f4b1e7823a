/**
 * Install retries, deprovision, deletion, preserveOnDelete, disabling and unsupported regions: the
 * end state in every account after the reconciler ran.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findCondition } from '../../src/privatelink/conditions.ts';
import { RESYNC_INSTALLING_MS } from '../../src/privatelink/reconciler.ts';
import { StepError } from '../../src/privatelink/errors.ts';
import { LAST_CLEANUP_ANNOTATION, LEGACY_CLEANED_PREV_ANNOTATION, FAILED, FINALIZER, READY } from '../../src/privatelink/types.ts';
import { endState, isEmpty, writes } from './end-state.ts';
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

function provision(w: World, name: string, infraID: string, prevInfraID?: string): void {
  w.api.create({
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterProvision',
    metadata: { name, namespace: NS },
    spec: {
      clusterDeploymentRef: { name: CD_NAME },
      infraID,
      ...(prevInfraID === undefined ? {} : { prevInfraID }),
      adminKubeconfigSecretRef: { name: 'admin-kubeconfig' },
      stage: 'Provisioning',
      attempt: 0,
      podSpec: { containers: [] },
    },
  } as never);
  w.patchCd((cd) => {
    cd.status = { ...cd.status, provisionRef: { name } };
  });
}

async function converge(w: World): Promise<void> {
  await w.reconcile();
  await w.reconcile();
  assert.equal(findCondition(w.cd().status?.conditions, READY)?.status, 'True');
}

describe('PrivateLink lifecycle', () => {
  test('while installing: waits for the provision, then a retried install removes the previous attempt first', () =>
    withWorld({ installed: false, nlb: false, associateOther: true }, async (w) => {
      assert.deepEqual(await w.reconcile(), {}, 'no provision yet: Hive waits for its change, no condition written');
      assert.equal(findCondition(w.cd().status?.conditions, READY)?.reason, 'Initialized');
      w.addNlb('attempt-one');
      provision(w, 'p1', 'attempt-one');
      await w.reconcile();
      assert.deepEqual(await w.reconcile(), { requeueAfterMs: RESYNC_INSTALLING_MS });
      assert.deepEqual(
        endState(w).endpoints.map((e) => e.tag),
        ['attempt-one'],
      );

      w.addNlb('attempt-two');
      provision(w, 'p2', 'attempt-two', 'attempt-one');
      w.advance(RESYNC_INSTALLING_MS); // Ready was reached: shouldSync waits 10 min while installing
      assert.deepEqual(await w.reconcile(), { requeueAfterMs: 0 });
      const cleaned = findCondition(w.cd().status?.conditions, READY);
      // Hive's setReadyCondition never lowers a True Ready: PreviousAttemptCleanupComplete shows only before Ready.
      assert.deepEqual([cleaned?.status, cleaned?.reason], ['True', 'PrivateLinkAccessReady']);
      assert.equal(w.cd().status?.platformStatus?.aws?.privateLink, undefined, 'status cleared with the resources');
      await w.reconcile();
      const s = endState(w);
      assert.deepEqual(
        s.services.map((x) => x.tag),
        ['attempt-two'],
      );
      assert.deepEqual(
        s.endpoints.map((x) => x.tag),
        ['attempt-two'],
      );
      assert.equal(s.zones.length, 1);
      assert.deepEqual(s.zones[0]!.vpcs, [s.endpoints[0]!.vpcId, w.vpcs.other].sort());
      assert.equal(w.cd().metadata.annotations?.[LAST_CLEANUP_ANNOTATION], 'attempt-one');
      assert.equal(w.cd().status?.platformStatus?.aws?.privateLink?.vpcEndpointID, s.endpoints[0]!.id);
      const mark = w.aws.aws.log.length;
      await w.reconcile();
      assert.deepEqual(writes(w, mark), [], 'the previous attempt is cleaned once');
    }));

  test("the key Hostwarden wrote before Hive's is still honoured: a previous attempt recorded there is not cleaned again", () =>
    withWorld({ installed: false, nlb: false }, async (w) => {
      w.addNlb('attempt-one');
      provision(w, 'p1', 'attempt-one');
      await w.reconcile();
      await w.reconcile();
      w.patchCd((cd) => {
        cd.metadata.annotations = { ...cd.metadata.annotations, [LEGACY_CLEANED_PREV_ANNOTATION]: 'attempt-one' };
      });
      w.addNlb('attempt-two');
      provision(w, 'p2', 'attempt-two', 'attempt-one');
      w.advance(RESYNC_INSTALLING_MS);
      const mark = w.aws.aws.log.length;
      await w.reconcile();
      assert.ok(!writes(w, mark).some((x) => /Delete/.test(x)), JSON.stringify(writes(w, mark)));
      assert.equal(w.cd().metadata.annotations?.[LAST_CLEANUP_ANNOTATION], undefined);
      assert.deepEqual(
        endState(w)
          .services.map((x) => x.tag)
          .sort(),
        ['attempt-one', 'attempt-two'],
      );
    }));

  test('a step that fails right after the previous attempt is cleaned records Failed on the patched object', () =>
    withWorld({ installed: false, nlb: false }, async (w) => {
      w.addNlb('attempt-one');
      provision(w, 'p1', 'attempt-one');
      await w.reconcile();
      await w.reconcile();
      // The second attempt's load balancer sits in a zone no inventory VPC covers: the endpoint step fails.
      w.addNlb('attempt-two', ['us-east-1d']);
      provision(w, 'p2', 'attempt-two', 'attempt-one');
      w.advance(RESYNC_INSTALLING_MS);
      await w.reconcile();
      await assert.rejects(w.reconcile(), (e: unknown) => e instanceof StepError && e.reason === 'NoSupportedAZsInInventory');
      assert.equal(w.cd().metadata.annotations?.[LAST_CLEANUP_ANNOTATION], 'attempt-one');
      const failed = findCondition(w.cd().status?.conditions, FAILED);
      assert.deepEqual([failed?.status, failed?.reason], ['True', 'NoSupportedAZsInInventory']);
      assert.equal(w.cd().status?.platformStatus?.aws?.privateLink?.vpcEndpointID, undefined, "the previous attempt's endpoint is gone from status");
    }));

  test('a ClusterDeprovision removes everything in every account and clears status', () =>
    withWorld({ associateOther: true }, async (w) => {
      await converge(w);
      w.deprovision();
      assert.deepEqual(await w.reconcile(), {});
      assert.ok(isEmpty(endState(w)), JSON.stringify(endState(w)));
      assert.equal(w.cd().status?.platformStatus?.aws?.privateLink, undefined);
      // As Hive: DeprovisionCleanupComplete is a False Ready, which does not replace a True one.
      assert.equal(findCondition(w.cd().status?.conditions, READY)?.reason, 'PrivateLinkAccessReady');
      const mark = w.aws.aws.log.length;
      await w.reconcile();
      assert.deepEqual(writes(w, mark), [], 'cleaning up again finds nothing to remove');
    }));

  test('deletion cleans up and releases the finalizer; with preserveOnDelete the resources stay', async () => {
    await withWorld({ associateOther: true }, async (w) => {
      await converge(w);
      w.api.delete({ apiVersion: 'hive.openshift.io/v1', kind: 'ClusterDeployment', namespace: NS, name: CD_NAME });
      assert.ok(w.cd().metadata.deletionTimestamp !== undefined, 'held by the finalizer');
      await w.reconcile();
      assert.equal(w.cd(), undefined, 'finalizer removed, object gone');
      assert.ok(isEmpty(endState(w)), JSON.stringify(endState(w)));
    });
    await withWorld({}, async (w) => {
      await converge(w);
      const before = endState(w);
      w.patchCd((cd) => {
        cd.spec.preserveOnDelete = true;
      });
      w.api.delete({ apiVersion: 'hive.openshift.io/v1', kind: 'ClusterDeployment', namespace: NS, name: CD_NAME });
      await w.reconcile();
      assert.equal(w.cd(), undefined);
      assert.deepEqual(endState(w), before);
    });
  });

  test('a failing cleanup is reported in the conditions, keeps the finalizer and succeeds on a later run', () =>
    withWorld({}, async (w) => {
      await converge(w);
      w.aws.aws.fail({ code: 'InternalFailure', status: 500, message: 'try later', operations: ['DeleteVpcEndpoints'], count: 1 });
      w.api.delete({ apiVersion: 'hive.openshift.io/v1', kind: 'ClusterDeployment', namespace: NS, name: CD_NAME });
      await assert.rejects(w.reconcile(), /try later/);
      const failed = findCondition(w.cd().status?.conditions, FAILED);
      assert.deepEqual([failed?.status, failed?.reason], ['True', 'CleanupForDeprovisionFailed']);
      assert.equal(failed?.message, 'api error InternalFailure: try later', "the Go SDK's API error text, as in Hive's conditions");
      assert.ok(w.cd().metadata.finalizers?.includes(FINALIZER));
      await w.reconcile();
      assert.equal(w.cd(), undefined);
      assert.ok(isEmpty(endState(w)));
    }));

  test('enabled=false removes the resources, the status and the finalizer', () =>
    withWorld({}, async (w) => {
      await converge(w);
      w.patchCd((cd) => {
        cd.spec.platform!.aws!.privateLink!.enabled = false;
      });
      await w.reconcile();
      assert.ok(isEmpty(endState(w)));
      assert.ok(!(w.cd().metadata.finalizers ?? []).includes(FINALIZER));
      assert.equal(w.cd().status?.platformStatus?.aws?.privateLink, undefined);
    }));

  test('a region outside the inventory fails with UnsupportedRegion, touches no AWS API and is not retried', () =>
    withWorld({}, async (w) => {
      w.patchCd((cd) => {
        cd.spec.platform!.aws!.region = 'eu-west-1';
      });
      assert.deepEqual(await w.reconcile(), {});
      const failed = findCondition(w.cd().status?.conditions, FAILED);
      assert.deepEqual([failed?.status, failed?.reason], ['True', 'UnsupportedRegion']);
      assert.equal(w.aws.aws.log.length, 0);
      const rv = w.cd().metadata.resourceVersion;
      await w.reconcile();
      assert.equal(w.cd().metadata.resourceVersion, rv, 'the same failure writes nothing again');
    }));

  test("without spec.platform.aws.privateLink the cluster is not this controller's: after the conditions, nothing", () =>
    withWorld({}, async (w) => {
      w.patchCd((cd) => {
        delete cd.spec.platform!.aws!.privateLink;
      });
      assert.deepEqual(await w.reconcile(), {});
      assert.equal(w.aws.aws.log.length, 0);
      assert.ok(!(w.cd().metadata.finalizers ?? []).includes(FINALIZER));
      assert.equal(findCondition(w.cd().status?.conditions, READY)?.reason, 'Initialized');
    }));

  test("enabled=false with nothing in status: a cleanup by the infraID tag (Hive's cleanupRequired would skip it) writes nothing in AWS and releases the finalizer", () =>
    withWorld({ nlb: false }, async (w) => {
      assert.deepEqual(await w.reconcile(), { requeueAfterMs: 60_000 });
      assert.ok(w.cd().metadata.finalizers?.includes(FINALIZER));
      w.patchCd((cd) => {
        cd.spec.platform!.aws!.privateLink!.enabled = false;
      });
      const mark = w.aws.aws.log.length;
      await w.reconcile();
      assert.deepEqual(writes(w, mark), [], 'nothing existed: lookups only');
      assert.ok(!(w.cd().metadata.finalizers ?? []).includes(FINALIZER));
    }));

  test('a cluster whose status was lost (or never written after a crash) still has its tagged resources removed on deletion', () =>
    withWorld({ associateOther: true }, async (w) => {
      await converge(w);
      assert.ok(!isEmpty(endState(w)));
      w.patchCd((cd) => {
        delete cd.status!.platformStatus;
      });
      assert.equal(w.cd().status?.platformStatus?.aws?.privateLink, undefined, 'status gone');
      w.api.delete({ apiVersion: 'hive.openshift.io/v1', kind: 'ClusterDeployment', namespace: NS, name: CD_NAME });
      await w.reconcile();
      assert.equal(w.cd(), undefined, 'finalizer removed, object gone');
      assert.ok(isEmpty(endState(w)), JSON.stringify(endState(w)));
    }));
});
