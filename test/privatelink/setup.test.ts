/**
 * The PrivateLink reconciler against the test API server and the AWS emulator (through the SDK):
 * what exists in each account after the runs, not which calls were made.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findCondition } from '../../src/privatelink/conditions.ts';
import { PrivateLinkReconciler, RESYNC_INSTALLED_MS } from '../../src/privatelink/reconciler.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import { silentLogger } from '../../src/log.ts';
import { StepError } from '../../src/privatelink/errors.ts';
import { FAILED, FINALIZER, READY } from '../../src/privatelink/types.ts';
import { endState, writes } from './end-state.ts';
import { API_HOST, CD_NAME, HIVE_NS, KEY, NS, startWorld } from './world.ts';
import type { World } from './world.ts';

async function withWorld(opts: Parameters<typeof startWorld>[0], fn: (w: World) => Promise<void>): Promise<void> {
  const w = await startWorld(opts);
  try {
    await fn(w);
  } finally {
    await w.stop();
  }
}

const INFRA = 'mycluster-x7k2p';

describe('PrivateLink setup', () => {
  test('happy path (Alias): service, endpoint, private zone and alias record; a second run changes nothing', () =>
    withWorld({}, async (w) => {
      const first = await w.reconcile();
      assert.deepEqual(first, { requeueAfterMs: 0 }, 'principals were just set: come back at once');
      const s = endState(w);
      const hubArn = `arn:aws:iam::${w.hub.account}:user/hive`;
      assert.deepEqual(
        s.services.map((x) => ({ ...x, id: '' })),
        [{ id: '', nlbs: [`${INFRA}-int`], acceptanceRequired: false, principals: [hubArn], tag: INFRA }],
      );
      assert.equal(s.endpoints.length, 1);
      const ep = s.endpoints[0]!;
      assert.deepEqual({ vpc: ep.vpcId, subnets: ep.subnets, state: ep.state, tag: ep.tag }, { vpc: w.vpcs.a, subnets: 2, state: 'available', tag: INFRA });
      const dns = [...w.aws.network.endpoints.values()][0]!;
      assert.equal(s.zones.length, 1);
      assert.equal(s.zones[0]!.name, `${API_HOST}.`);
      assert.deepEqual(s.zones[0]!.vpcs, [w.vpcs.a]);
      assert.equal(s.zones[0]!.records.length, 1);
      assert.match(s.zones[0]!.records[0]!, new RegExp(`^${API_HOST.replace(/\./g, '\\.')}\\. A alias ${dns.id}.*vpce\\.amazonaws\\.com\\. false$`));
      assert.equal(s.foreignZones, 0);

      const cd = w.cd();
      assert.ok(cd.metadata.finalizers?.includes(FINALIZER));
      assert.equal(findCondition(cd.status?.conditions, READY)?.status, 'True');
      assert.equal(findCondition(cd.status?.conditions, READY)?.reason, 'PrivateLinkAccessReady');
      const stored = findCondition(cd.status?.conditions, READY);
      assert.ok(stored?.lastProbeTime !== undefined && stored.lastTransitionTime !== undefined, "Hive's condition shape survives Hive's CRD");
      const failedNow = findCondition(cd.status?.conditions, FAILED);
      assert.deepEqual([failedNow?.status, failedNow?.reason, failedNow?.message], ['False', 'PrivateLinkAccessReady', 'private link access is ready for use']);
      assert.equal(findCondition(cd.status?.conditions, FAILED)?.status, 'False');
      const pl = cd.status?.platformStatus?.aws?.privateLink;
      assert.deepEqual(pl, {
        vpcEndpointService: { name: [...w.aws.network.services.values()][0]!.name, id: s.services[0]!.id, defaultAllowedPrincipal: hubArn },
        vpcEndpointID: ep.id,
        hostedZoneID: s.zones[0]!.id,
      });

      const mark = w.aws.aws.log.length;
      const rv = w.cd().metadata.resourceVersion;
      assert.deepEqual(await w.reconcile(), { requeueAfterMs: RESYNC_INSTALLED_MS });
      assert.deepEqual(writes(w, mark), [], 'a converged cluster costs reads only');
      assert.equal(w.cd().metadata.resourceVersion, rv, 'and no status write');
      assert.deepEqual(endState(w), s);
    }));

  test("ARecord mode: the endpoint interfaces' addresses, sorted, TTL 10", () =>
    withWorld({ dnsRecordType: 'ARecord' }, async (w) => {
      await w.reconcile();
      const ep = [...w.aws.network.endpoints.values()][0]!;
      const ips = ep.eniIds.map((id) => w.aws.network.interfaces.get(id)!.privateIp).sort();
      assert.equal(ips.length, 2);
      assert.deepEqual(endState(w).zones[0]!.records, [`${API_HOST}. A 10 ${ips.join(',')}`]);
    }));

  test('NLB not created yet: Ready=False, back in a minute, nothing created; then it converges', () =>
    withWorld({ nlb: false }, async (w) => {
      assert.deepEqual(await w.reconcile(), { requeueAfterMs: 60_000 });
      const ready = findCondition(w.cd().status?.conditions, READY);
      assert.deepEqual(
        [ready?.status, ready?.reason, ready?.message],
        ['False', 'DiscoveringNLBNotYetFound', 'discovering NLB for the cluster, but it does not exist yet'],
      );
      assert.equal(findCondition(w.cd().status?.conditions, FAILED)?.status, 'Unknown', 'Hive leaves Failed as initialized');
      assert.deepEqual(writes(w), []);
      w.addNlb(INFRA, undefined, { provisioningDescribes: 1 });
      assert.deepEqual(await w.reconcile(), { requeueAfterMs: 60_000 }, 'provisioning is not active yet');
      await w.reconcile();
      assert.equal(findCondition(w.cd().status?.conditions, READY)?.status, 'True');
    }));

  test("progress shows in Ready with Hive's Reconciled* reasons until Ready; waiting for the NLB or the endpoint writes no condition", () =>
    withWorld({ nlb: false }, async (w) => {
      w.addNlb(INFRA, undefined, { provisioningDescribes: 1 });
      assert.deepEqual(await w.reconcile(), { requeueAfterMs: 60_000 });
      assert.equal(findCondition(w.cd().status?.conditions, READY)?.reason, 'Initialized', 'NLB not active yet: nothing written');
      w.aws.ec2.knobs.pendingDescribes = 8;
      assert.deepEqual(await w.reconcile(), { requeueAfterMs: 30_000 }, 'the endpoint is still pending');
      const ready = findCondition(w.cd().status?.conditions, READY);
      assert.deepEqual([ready?.status, ready?.reason, ready?.message], ['False', 'ReconciledVPCEndpoint', 'reconciled the VPC Endpoint for the cluster']);
      assert.equal(findCondition(w.cd().status?.conditions, FAILED)?.status, 'Unknown');
      assert.ok(w.cd().status?.platformStatus?.aws?.privateLink?.vpcEndpointID !== undefined, 'progress written to status');
      for (let i = 0; i < 5 && findCondition(w.cd().status?.conditions, READY)?.status !== 'True'; i++) await w.reconcile();
      const done = findCondition(w.cd().status?.conditions, READY);
      assert.deepEqual([done?.status, done?.reason], ['True', 'PrivateLinkAccessReady']);
    }));

  test("a first setup writes every Reconciled* reason in Hive's order, then PrivateLinkAccessReady", () =>
    withWorld({ associateOther: true }, async (w) => {
      const reasons: string[] = [];
      const reconciler = new PrivateLinkReconciler({
        client: {
          request: <T>(method: string, path: string, spec?: Parameters<KubeClient['request']>[2]): Promise<T> => {
            const conds = (spec?.body as { status?: { conditions?: { type: string; reason?: string }[] } } | undefined)?.status?.conditions;
            const ready = conds?.find((c) => c.type === READY);
            if (ready?.reason !== undefined && reasons.at(-1) !== ready.reason) reasons.push(ready.reason);
            return w.client.request<T>(method, path, spec);
          },
        },
        accounts: (spec) => w.accounts.account(spec),
        hiveNamespace: HIVE_NS,
        logger: silentLogger(),
        sleep: async () => undefined,
        endpointWait: { attempts: 3, delayMs: 0 },
      });
      await reconciler.reconcile(KEY);
      assert.deepEqual(reasons, [
        'ReconciledVPCEndpointService',
        'ReconciledVPCEndpoint',
        'ReconciledPrivateHostedZone',
        'ReconciledAssociationsToVPCs',
        'PrivateLinkAccessReady',
      ]);
    }));

  test("AZ mismatch: no inventory VPC in the service's zones fails the endpoint step, creates no endpoint", () =>
    withWorld({ nlb: false }, async (w) => {
      w.addNlb(INFRA, ['us-east-1d']);
      await assert.rejects(w.reconcile(), (e: unknown) => e instanceof StepError && e.reason === 'NoSupportedAZsInInventory');
      const failed = findCondition(w.cd().status?.conditions, FAILED);
      assert.deepEqual([failed?.status, failed?.reason], ['True', 'NoSupportedAZsInInventory']);
      assert.equal(failed?.message, 'no supported VPC in inventory which support the AZs of the service');
      const ready = findCondition(w.cd().status?.conditions, READY);
      assert.deepEqual([ready?.status, ready?.reason, ready?.message], ['False', failed?.reason, failed?.message]);
      const s = endState(w);
      assert.equal(s.services.length, 1);
      assert.equal(s.endpoints.length, 0);
      assert.equal(w.cd().status?.platformStatus?.aws?.privateLink?.vpcEndpointService?.id, s.services[0]!.id, 'progress so far is recorded');
    }));

  test('endpoints spread over the inventory: the second cluster goes to the VPC with fewer endpoints', () =>
    withWorld({}, async (w) => {
      await w.reconcile();
      const second = w.addCluster('second', 'second-abcde');
      await w.reconciler.reconcile(second); // initializes its conditions
      await w.reconciler.reconcile(second);
      const byVpc = endState(w)
        .endpoints.map((e) => `${e.tag}:${e.vpcId}:${e.subnets}`)
        .sort();
      // vpc-b has only AZ b in common with the NLB (a, b): one subnet.
      assert.deepEqual(byVpc, [`${INFRA}:${w.vpcs.a}:2`, `second-abcde:${w.vpcs.b}:1`].sort());
      assert.equal(endState(w).zones.length, 2);
    }));

  test('a tagged endpoint is adopted; a failed one is replaced and the record follows', () =>
    withWorld({}, async (w) => {
      await w.reconcile();
      const before = endState(w);
      w.patchCd((cd) => {
        delete cd.status!.platform;
      });
      w.advance(RESYNC_INSTALLED_MS); // past shouldSync's window: Ready's lastProbeTime is 2 h old
      await w.reconcile();
      assert.deepEqual(endState(w), before, 'status lost: the same resources are found again');
      assert.equal(w.cd().status?.platformStatus?.aws?.privateLink?.vpcEndpointID, before.endpoints[0]!.id);

      w.aws.network.endpoints.get(before.endpoints[0]!.id)!.state = 'failed';
      w.advance(RESYNC_INSTALLED_MS);
      await w.reconcile();
      const after = endState(w);
      assert.equal(after.endpoints.length, 1);
      assert.notEqual(after.endpoints[0]!.id, before.endpoints[0]!.id);
      assert.equal(after.endpoints[0]!.state, 'available');
      assert.match(after.zones[0]!.records[0]!, new RegExp(after.endpoints[0]!.id));
      assert.equal(w.cd().status?.platformStatus?.aws?.privateLink?.vpcEndpointID, after.endpoints[0]!.id);
    }));

  test('a rejected endpoint fails the step and is replaced on the next run; deleted ones still listed are ignored', () =>
    withWorld({}, async (w) => {
      w.aws.ec2.knobs.keepDeleted = true;
      w.aws.ec2.knobs.outcome = 'rejected';
      await assert.rejects(w.reconcile(), (e: unknown) => e instanceof StepError && e.reason === 'VPCEndpointReconcileFailed' && /rejected/.test(e.message));
      w.aws.ec2.knobs.outcome = 'available';
      await w.reconcile();
      const states = endState(w)
        .endpoints.map((e) => e.state)
        .sort();
      assert.deepEqual(states, ['available', 'deleted']);
      assert.equal(findCondition(w.cd().status?.conditions, READY)?.status, 'True');
      w.patchCd((cd) => {
        cd.spec.platform!.aws!.privateLink!.enabled = false;
      });
      await w.reconcile();
      assert.deepEqual(
        endState(w).endpoints.map((e) => e.state),
        ['deleted', 'deleted'],
      );
      assert.deepEqual(endState(w).services, []);
    }));

  test('cross-account association: authorized, associated by the other account, authorization removed; dropped when unwanted', () =>
    withWorld({ associateOther: true }, async (w) => {
      await w.reconcile();
      const zone = endState(w).zones[0]!;
      assert.deepEqual(zone.vpcs, [w.vpcs.a, w.vpcs.other].sort());
      assert.equal(zone.authorizations, 0);
      w.hiveConfig((h) => {
        h.spec.awsPrivateLink!.associatedVPCs = [];
      });
      w.advance(RESYNC_INSTALLED_MS);
      await w.reconcile();
      assert.deepEqual(endState(w).zones[0]!.vpcs, [w.vpcs.a]);
    }));

  test('additional allowed principals are applied as a diff and reported; a change brings the key back at once', () =>
    withWorld({}, async (w) => {
      await w.reconcile();
      const extra = 'arn:aws:iam::444455556666:role/ops';
      w.patchCd((cd) => {
        cd.spec.platform!.aws!.privateLink!.additionalAllowedPrincipals = [extra];
      });
      assert.deepEqual(await w.reconcile(), { requeueAfterMs: 0 });
      const hubArn = `arn:aws:iam::${w.hub.account}:user/hive`;
      assert.deepEqual(endState(w).services[0]!.principals, [hubArn, extra].sort());
      assert.deepEqual(w.cd().status?.platformStatus?.aws?.privateLink?.vpcEndpointService?.additionalAllowedPrincipals, [extra]);
      assert.deepEqual(await w.reconcile(), { requeueAfterMs: RESYNC_INSTALLED_MS });
      w.patchCd((cd) => {
        cd.spec.platform!.aws!.privateLink!.additionalAllowedPrincipals = [];
      });
      await w.reconcile();
      assert.deepEqual(endState(w).services[0]!.principals, [hubArn]);
      assert.equal(w.cd().status?.platformStatus?.aws?.privateLink?.vpcEndpointService?.additionalAllowedPrincipals, undefined);
    }));

  test('the ClusterDeployment key of another namespace or a missing object is a quiet no-op', () =>
    withWorld({}, async (w) => {
      assert.deepEqual(await w.reconciler.reconcile(`${NS}/nope`), {});
      assert.deepEqual(writes(w), []);
      assert.equal(KEY, `${NS}/${CD_NAME}`);
    }));
});

describe('PrivateLink accounts', () => {
  test('credentialsAssumeRole: the cluster account is reached through the role (with its external id)', () =>
    withWorld({ nlb: false }, async (w) => {
      const role = 'arn:aws:iam::555555555555:role/hive-installer';
      w.aws.sts.addRole({ arn: role, externalId: 'ext-123', trusted: [w.user.arn] });
      w.aws.network.addVpc('555555555555', 'us-east-1');
      const vpc = [...w.aws.network.vpcs.values()].find((v) => v.account === '555555555555')!;
      const subnets = ['us-east-1a', 'us-east-1b'].map((az) => w.aws.network.addSubnet(vpc.id, { az }).id);
      w.aws.network.addLoadBalancer('555555555555', 'us-east-1', `${INFRA}-int`, subnets);
      // As Hive: no credentialsSecretRef, so the service-provider Secret's identity assumes the role.
      w.secret('hive', 'sp-creds', { aws_access_key_id: w.user.accessKeyId, aws_secret_access_key: w.user.secretAccessKey });
      w.hiveConfig((h) => {
        h.spec.serviceProviderCredentialsConfig = { aws: { credentialsSecretRef: { name: 'sp-creds' } } };
      });
      w.patchCd((cd) => {
        delete cd.spec.platform!.aws!.credentialsSecretRef;
        cd.spec.platform!.aws!.credentialsAssumeRole = { roleARN: role, externalID: 'wrong' };
      });
      await assert.rejects(w.reconcile(), /AccessDenied|not authorized|ExternalId/i);
      w.patchCd((cd) => {
        cd.spec.platform!.aws!.credentialsAssumeRole = { roleARN: role, externalID: 'ext-123' };
      });
      await w.reconcile();
      assert.equal(findCondition(w.cd().status?.conditions, READY)?.status, 'True');
      const services = [...w.aws.network.services.values()];
      assert.deepEqual(
        services.map((s) => s.account),
        ['555555555555'],
      );
    }));

  test("availability zones are matched by the names the hub uses, not the cluster account's", () =>
    withWorld({ nlb: false }, async (w) => {
      // The cluster account calls use1-az1 "us-east-1c"; the hub calls it "us-east-1a" (the default).
      w.aws.network.setAzNames(w.user.account, 'us-east-1', { 'use1-az1': 'us-east-1c', 'use1-az3': 'us-east-1a' });
      const vpc = w.aws.network.addVpc(w.user.account, 'us-east-1').id;
      w.aws.network.addLoadBalancer(w.user.account, 'us-east-1', `${INFRA}-int`, [w.aws.network.addSubnet(vpc, { azId: 'use1-az1' }).id]);
      await w.reconcile();
      const ep = endState(w).endpoints;
      // Hub name us-east-1a: only vpc-a has a subnet there.
      assert.deepEqual(
        ep.map((e) => [e.vpcId, e.subnets]),
        [[w.vpcs.a, 1]],
      );
    }));
});
