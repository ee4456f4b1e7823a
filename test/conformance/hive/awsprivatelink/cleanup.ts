/**
 * Replays of Hive's cleanup tests. TestCleanupVPCEndpoints and TestCleanupVPCEndpointServices:
 * Hostwarden's cleanup of one infraID against the AWS emulator holding the tagged endpoints or
 * endpoint services, with the AWS errors the mocks return. TestCleanupRequired: Hostwarden keeps
 * Hive's predicate but also cleans up by the infraID tag when status records nothing
 * (cleanupWanted), so each case runs through the reconciler where Hive asks the question — a deleted ClusterDeployment, or a
 * retried install whose provision names the previous infraID — and "cleanup" means the resources
 * tagged for that infraID are gone afterwards.
 */
import assert from 'node:assert/strict';
import { silentLogger } from '../../../../src/log.ts';
import { AwsAccounts } from '../../../../src/privatelink/aws/clients.ts';
import { cleanupAccess } from '../../../../src/privatelink/steps/cleanup.ts';
import { FAILED, FINALIZER, READY } from '../../../../src/privatelink/types.ts';
import { startAwsEmulators } from '../../../support/aws/start.ts';
import { wanted } from './cases.ts';
import type { Case } from './cases.ts';
import { CD, NS, TAG, startCaseWorld } from './world.ts';
import type { Given, GivenCd } from './world.ts';

const REGION = 'us-east-1';

export type TaggedCase = Case<
  { infraID: string; tagged: string[]; awsErrors: { operation: string; code: string; message: string }[] },
  { error: boolean; remaining?: string[] }
>;

/** `kind`: which of the two Hive tests — the hub's endpoints or the cluster account's services. */
export function replayTagged(kind: 'endpoints' | 'services'): (c: TaggedCase) => Promise<void> {
  return async (c) => {
    const aws = await startAwsEmulators();
    const logger = silentLogger();
    const accounts = new AwsAccounts({ logger, endpointUrl: aws.url, retries: 0, requestsPerSecond: 0, sleep: async () => undefined });
    try {
      const hub = aws.aws.addAccount('222222222222', 'hub-user');
      const user = aws.aws.addAccount('111111111111', 'installer');
      const tags = [{ key: TAG, value: c.given.infraID }];
      const net = aws.network;
      for (const id of c.given.tagged) {
        if (kind === 'services') {
          net.services.set(id, {
            id,
            name: `com.amazonaws.vpce.${REGION}.${id}`,
            account: user.account,
            region: REGION,
            tags,
            acceptanceRequired: false,
            nlbArns: [],
            allowedPrincipals: [],
          });
          continue;
        }
        net.endpoints.set(id, {
          ...{
            id,
            account: hub.account,
            region: REGION,
            vpcId: 'vpc-1',
            serviceName: 'com.amazonaws.vpce.us-east-1.vpce-svc-x',
            serviceId: 'vpce-svc-x',
            tags,
          },
          ...{
            subnetIds: [],
            eniIds: [],
            privateDnsEnabled: false,
            state: 'available',
            pendingDescribes: 0,
            outcome: 'available',
            dnsPrefix: id,
            createdAt: new Date(),
          },
        });
      }
      for (const f of c.given.awsErrors) aws.aws.fail({ code: f.code, message: f.message, operations: [f.operation], count: 1, status: 400 });
      const key = (id: typeof hub): Record<string, string> => ({ aws_access_key_id: id.accessKeyId, aws_secret_access_key: id.secretAccessKey });
      const h = accounts.account({ region: REGION, secret: key(hub) });
      const u = accounts.account({ region: REGION, secret: key(user) });
      const failed = await cleanupAccess({ hubEc2: h.ec2, hubRoute53: h.route53, userEc2: u.ec2 }, { infraID: c.given.infraID }, logger).then(
        () => false,
        () => true,
      );
      const e = wanted(c);
      assert.equal(failed, e.error, 'cleanup failed');
      if (e.remaining !== undefined) {
        const left = kind === 'services' ? [...net.services.keys()] : [...net.endpoints.values()].filter((x) => x.state !== 'deleted').map((x) => x.id);
        assert.deepEqual(left, e.remaining, `tagged ${kind} left`);
      }
    } finally {
      accounts.close();
      await aws.stop();
    }
  };
}

interface RequiredCd {
  privateLink?: null;
  enabled?: boolean;
  deleted?: boolean;
  preserveOnDelete?: boolean;
  status?: Record<string, unknown>;
}
export type RequiredCase = Case<{ clusterDeployment: RequiredCd }, { cleanup: boolean }>;

const KUBECONFIG = 'test-cd-provision-0-kubeconfig';

/** The world of one TestCleanupRequired case: where Hostwarden decides about that cleanup. */
function requiredWorld(r: RequiredCd): Given {
  const usesPl = r.privateLink !== null;
  const retried = usesPl && r.deleted !== true;
  const cd: GivenCd = {
    platform: { aws: { region: REGION, ...(usesPl ? { privateLink: { enabled: r.enabled ?? false } } : {}) } },
    clusterMetadata: { infraID: 'test-cd-1234', adminKubeconfigSecretRef: KUBECONFIG },
    // A deleted object needs a finalizer to exist at all; an enabled one carries Hostwarden's.
    finalizers: usesPl ? [FINALIZER] : [],
    // Hive's test calls cleanupRequired directly; here the conditions are already initialized, so the reconcile goes on to the question.
    conditions: [
      { type: FAILED, status: 'Unknown' },
      { type: READY, status: 'Unknown' },
    ],
    ...(r.status === undefined ? {} : { status: r.status }),
    ...(r.deleted === true ? { deleted: true } : {}),
    ...(r.preserveOnDelete === undefined ? {} : { preserveOnDelete: r.preserveOnDelete }),
    ...(retried ? { provisionRef: 'test-cd-provision-1' } : {}),
  };
  return {
    clusterDeployment: cd,
    provisions: retried
      ? [{ name: 'test-cd-provision-1', stage: 'initializing', infraID: 'test-cd-5678', prevInfraID: 'test-cd-1234', adminKubeconfigSecretRef: KUBECONFIG }]
      : [],
    secrets: [{ name: KUBECONFIG, apiServer: 'https://api.test-cluster:6443' }],
    controllerConfig: { endpointVPCInventory: [{ vpcID: 'vpc-1', region: REGION, subnets: [{ subnetID: 'subnet-1', availabilityZone: 'us-east-1a' }] }] },
    aws: { endpoints: [{ id: 'vpce-12345', vpcID: 'vpc-1', forCluster: true }] },
  };
}

export async function replayCleanupRequired(c: RequiredCase): Promise<void> {
  const w = await startCaseWorld(requiredWorld(c.given.clusterDeployment));
  try {
    await w.reconciler.reconcile(`${NS}/${CD}`);
    const left = [...w.aws.network.endpoints.values()].filter((x) => x.state !== 'deleted' && x.tags.some((t) => t.key === TAG && t.value === 'test-cd-1234'));
    assert.equal(left.length === 0, wanted(c).cleanup, 'the resources tagged for test-cd-1234 were removed');
  } finally {
    await w.stop();
  }
}
