/**
 * A crash at any point converges: the process "dies" right after the n-th AWS write returned (AWS
 * did the work, the controller never saw the answer), for every write of a full setup and of a
 * full cleanup; a fresh run then ends with exactly one of everything (or nothing), in every
 * account. Crashing after a read leaves AWS as the write before it did, so writes cover every
 * state a crash can leave behind.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findCondition } from '../../src/privatelink/conditions.ts';
import { silentLogger } from '../../src/log.ts';
import type { AccountFactory, AwsAccount } from '../../src/privatelink/aws/ports.ts';
import { PrivateLinkReconciler } from '../../src/privatelink/reconciler.ts';
import { READY } from '../../src/privatelink/types.ts';
import { endState, isEmpty } from './end-state.ts';
import type { EndState } from './end-state.ts';
import { HIVE_NS, KEY, startWorld } from './world.ts';
import type { World } from './world.ts';

class Crash extends Error {}

const WRITE = /^(create|modify|delete|upsert|associate|disassociate|reject)/;

/** Accounts whose port writes are counted; write number `at` is done in AWS and then throws. */
function crashingAccounts(w: World, at: number): { factory: AccountFactory; calls: () => number } {
  let calls = 0;
  const wrap = <T extends object>(port: T): T =>
    new Proxy(port, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]): Promise<unknown> => {
          const result: unknown = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          if (WRITE.test(String(prop)) && ++calls === at) throw new Crash(`crash injected after AWS write ${at} (${String(prop)})`);
          return result;
        };
      },
    });
  const factory: AccountFactory = (spec) => {
    const a: AwsAccount = w.accounts.account(spec);
    return { ec2: wrap(a.ec2), elbv2: wrap(a.elbv2), route53: wrap(a.route53), sts: wrap(a.sts) };
  };
  return { factory, calls: () => calls };
}

function reconcilerWith(w: World, accounts: AccountFactory): PrivateLinkReconciler {
  return new PrivateLinkReconciler({
    client: w.client,
    accounts,
    hiveNamespace: HIVE_NS,
    logger: silentLogger(),
    sleep: async () => undefined,
    endpointWait: { attempts: 3, delayMs: 0 },
  });
}

/** Re-runs until the cluster is Ready and settled (bounded). */
async function converge(w: World): Promise<void> {
  for (let i = 0; i < 5; i++) {
    try {
      const r = await w.reconcile();
      if (findCondition(w.cd().status?.conditions, READY)?.status === 'True' && r.requeueAfterMs !== 0) return;
    } catch {
      // a failed run is retried, as the work queue would
    }
  }
  assert.fail(`not converged: ${JSON.stringify(w.cd().status)}`);
}

function assertConverged(w: World, s: EndState, what: string): void {
  assert.equal(s.services.length, 1, `${what}: services ${JSON.stringify(s.services)}`);
  assert.equal(s.services[0]!.principals.length, 1, what);
  assert.equal(s.endpoints.length, 1, `${what}: endpoints ${JSON.stringify(s.endpoints)}`);
  assert.equal(s.endpoints[0]!.state, 'available', what);
  assert.equal(s.zones.length, 1, `${what}: zones ${JSON.stringify(s.zones)}`);
  assert.deepEqual(s.zones[0]!.vpcs, [s.endpoints[0]!.vpcId, w.vpcs.other].sort(), what);
  assert.equal(s.zones[0]!.authorizations, 0, `${what}: leftover authorization`);
  assert.equal(s.zones[0]!.records.length, 1, what);
  assert.match(s.zones[0]!.records[0]!, new RegExp(s.endpoints[0]!.id), what);
  assert.equal(s.foreignZones, 0, what);
  const pl = w.cd().status?.platformStatus?.aws?.privateLink;
  assert.deepEqual(
    [pl?.vpcEndpointService?.id, pl?.vpcEndpointID, pl?.hostedZoneID],
    [s.services[0]!.id, s.endpoints[0]!.id, s.zones[0]!.id],
    `${what}: status`,
  );
}

/** Writes of an uninterrupted setup and of a cleanup. */
async function callsOfCleanRun(): Promise<{ setup: number; cleanup: number }> {
  const w = await startWorld({ associateOther: true });
  try {
    const counting = crashingAccounts(w, Number.POSITIVE_INFINITY);
    const r = reconcilerWith(w, counting.factory);
    await r.reconcile(KEY);
    const setup = counting.calls();
    await r.reconcile(KEY);
    const before = counting.calls();
    w.deprovision();
    await r.reconcile(KEY);
    return { setup, cleanup: counting.calls() - before };
  } finally {
    await w.stop();
  }
}

/**
 * A settled cluster whose service the `other` account was allowed on and connected to; with
 * `revoke` that principal is then taken off the list, so the next setup must reject the endpoint.
 */
async function withForeignEndpoint(revoke: boolean): Promise<{ w: World; foreign: string }> {
  const w = await startWorld({ associateOther: true });
  const setPrincipals = (p: string[] | undefined): void =>
    w.patchCd((cd) => {
      const pl = cd.spec.platform!.aws!.privateLink!;
      if (p === undefined) delete pl.additionalAllowedPrincipals;
      else pl.additionalAllowedPrincipals = p;
    });
  setPrincipals([`arn:aws:iam::${w.other.account}:root`]);
  await converge(w);
  const foreign = await w.connectEndpoint(w.other);
  if (revoke) setPrincipals(undefined);
  return { w, foreign };
}

/** Writes of one reconcile of a foreign-endpoint world (revoked: a setup; otherwise a deprovision cleanup). */
async function foreignWrites(revoke: boolean): Promise<number> {
  const { w } = await withForeignEndpoint(revoke);
  try {
    if (!revoke) w.deprovision();
    const counting = crashingAccounts(w, Number.POSITIVE_INFINITY);
    await reconcilerWith(w, counting.factory).reconcile(KEY);
    return counting.calls();
  } finally {
    await w.stop();
  }
}

describe('PrivateLink crash safety', () => {
  const clean = { setup: 0, cleanup: 0 };
  before(async () => Object.assign(clean, await callsOfCleanRun()));

  test('a crash after any AWS write of the setup, then a re-run: one of everything, nothing leaked', async () => {
    const { setup } = clean;
    // service, principals, endpoint, zone, record, authorization, association, authorization removed
    assert.equal(setup, 8, `a full setup makes ${setup} AWS writes`);
    for (let at = 1; at <= setup; at++) {
      const w = await startWorld({ associateOther: true });
      try {
        await assert.rejects(reconcilerWith(w, crashingAccounts(w, at).factory).reconcile(KEY), /crash injected/);
        await converge(w);
        assertConverged(w, endState(w), `crash after write ${at}`);
      } finally {
        await w.stop();
      }
    }
  });

  test('a crash after any AWS write of the deprovision cleanup, then a re-run: nothing left in any account', async () => {
    const { cleanup } = clean;
    // records, zone, endpoint, service
    assert.equal(cleanup, 4, `a cleanup makes ${cleanup} AWS writes`);
    for (let at = 1; at <= cleanup; at++) {
      const w = await startWorld({ associateOther: true });
      try {
        await converge(w);
        w.deprovision();
        await assert.rejects(reconcilerWith(w, crashingAccounts(w, at).factory).reconcile(KEY), /crash injected/);
        await w.reconcile();
        assert.ok(isEmpty(endState(w)), `crash after cleanup write ${at}: ${JSON.stringify(endState(w))}`);
      } finally {
        await w.stop();
      }
    }
  });

  test('a crash after any AWS write of a setup rejecting a foreign endpoint, then a re-run: rejected, one of everything', async () => {
    const writes = await foreignWrites(true);
    // principals changed, foreign connection rejected
    assert.equal(writes, 2, `the setup makes ${writes} AWS writes`);
    for (let at = 1; at <= writes; at++) {
      const { w, foreign } = await withForeignEndpoint(true);
      try {
        await assert.rejects(reconcilerWith(w, crashingAccounts(w, at).factory).reconcile(KEY), /crash injected/);
        await converge(w);
        assertConverged(w, endState(w), `crash after write ${at}`);
        assert.equal(w.aws.network.endpoints.get(foreign)?.state, 'rejected', `crash after write ${at}`);
      } finally {
        await w.stop();
      }
    }
  });

  test('a crash after any AWS write of a cleanup with a foreign endpoint connected, then a re-run: nothing left', async () => {
    const writes = await foreignWrites(false);
    // records, zone, hub endpoint, foreign connection rejected, service
    assert.equal(writes, 5, `the cleanup makes ${writes} AWS writes`);
    for (let at = 1; at <= writes; at++) {
      const { w, foreign } = await withForeignEndpoint(false);
      try {
        w.deprovision();
        await assert.rejects(reconcilerWith(w, crashingAccounts(w, at).factory).reconcile(KEY), /crash injected/);
        await w.reconcile();
        assert.ok(isEmpty(endState(w)), `crash after cleanup write ${at}: ${JSON.stringify(endState(w))}`);
        assert.equal(w.aws.network.endpoints.get(foreign)?.state, 'rejected', `crash after write ${at}`);
      } finally {
        await w.stop();
      }
    }
  });

  test('answers lost after AWS applied a create: retried with the same client token, or found again — never duplicated', async () => {
    for (const op of ['CreateVpcEndpointServiceConfiguration', 'CreateVpcEndpoint', 'CreateHostedZone', 'AssociateVPCWithHostedZone']) {
      const w = await startWorld({ associateOther: true, retries: 2 });
      try {
        w.aws.aws.fail({ code: 'InternalFailure', status: 500, message: 'lost', operations: [op], count: 1, afterApplying: true });
        await converge(w);
        assertConverged(w, endState(w), `answer of ${op} lost`);
      } finally {
        await w.stop();
      }
    }
  });

  test('a failed status write after the AWS work: the re-run finds the same resources', () =>
    (async () => {
      const w = await startWorld({ associateOther: true });
      try {
        w.api.failNextRequests(3, 500, (r) => r.subresource === 'status');
        await assert.rejects(w.reconcile());
        await converge(w);
        assertConverged(w, endState(w), 'status write failed');
      } finally {
        await w.stop();
      }
    })());
});
