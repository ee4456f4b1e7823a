/**
 * Which AWS identity acts in each account, for every credentials shape Hive accepts (Secret keys,
 * an `aws_config` / `config` file, a chained role, credentialsAssumeRole with or without the
 * service-provider Secret) and the shapes refused. Signatures are verified, so each call reached
 * the emulator signed by the identity the log names.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findCondition } from '../../src/privatelink/conditions.ts';
import { StepError } from '../../src/privatelink/errors.ts';
import { FAILED, READY } from '../../src/privatelink/types.ts';
import type { Identity } from '../support/aws/emulator.ts';
import { endState, isEmpty, writes } from './end-state.ts';
import { HIVE_NS, NS, startWorld } from './world.ts';
import type { World, WorldOptions } from './world.ts';

const ROLE = 'arn:aws:iam::111111111111:role/hive-managed';

async function withWorld(opts: WorldOptions, fn: (w: World) => Promise<void>): Promise<void> {
  const w = await startWorld({ verifySignatures: true, ...opts });
  try {
    await fn(w);
  } finally {
    await w.stop();
  }
}

const keysOf = (id: Identity): Record<string, string> => ({ aws_access_key_id: id.accessKeyId, aws_secret_access_key: id.secretAccessKey });
const file = (id: Identity, extra = ''): string =>
  `[default]\nregion = eu-west-3\naws_access_key_id = ${id.accessKeyId}\naws_secret_access_key = ${id.secretAccessKey}\n${extra}`;

/** Who made the first `op` call. */
function caller(w: World, op: string): string | undefined {
  return w.aws.aws.log.find((l) => l.operation === op)?.principal;
}

async function reconcileReady(w: World): Promise<void> {
  await w.reconcile();
  const ready = findCondition(w.cd().status?.conditions, READY);
  assert.equal(ready?.status, 'True', ready?.message);
}

/** The CD refers to no Secret and assumes ROLE (externalID `ext-42`). */
function assumeRoleOnly(w: World, withSecretToo = false): void {
  w.patchCd((cd) => {
    const aws = cd.spec.platform!.aws!;
    if (!withSecretToo) delete aws.credentialsSecretRef;
    aws.credentialsAssumeRole = { roleARN: ROLE, externalID: 'ext-42' };
  });
}

async function refused(w: World, message: RegExp): Promise<void> {
  const mark = w.aws.aws.log.length;
  await assert.rejects(w.reconcile(), (err: unknown) => err instanceof StepError && err.reason === 'CredentialsFailed');
  const failed = findCondition(w.cd().status?.conditions, FAILED);
  assert.equal(failed?.status, 'True');
  assert.equal(failed?.reason, 'CredentialsFailed');
  assert.match(failed?.message ?? '', message);
  assert.equal(findCondition(w.cd().status?.conditions, READY)?.status, 'False');
  assert.deepEqual(writes(w, mark), [], 'nothing created in AWS');
  assert.ok(isEmpty(endState(w)));
}

describe('PrivateLink credentials as Hive resolves them', () => {
  test('a keys Secret: the cluster user creates the service, the hub user the endpoint', () =>
    withWorld({}, async (w) => {
      await reconcileReady(w);
      assert.equal(caller(w, 'CreateVpcEndpointServiceConfiguration'), w.user.arn);
      assert.equal(caller(w, 'CreateVpcEndpoint'), w.hub.arn);
      assert.equal(caller(w, 'CreateHostedZone'), w.hub.arn);
    }));

  test('an aws_config-only cluster Secret and a config-only hub Secret (region in them ignored)', () =>
    withWorld({}, async (w) => {
      w.secret(NS, 'cluster-creds', { aws_config: file(w.user) });
      w.secret(HIVE_NS, 'hub-creds', { config: file(w.hub) });
      await reconcileReady(w);
      assert.equal(caller(w, 'CreateVpcEndpointServiceConfiguration'), w.user.arn);
      assert.equal(caller(w, 'CreateVpcEndpoint'), w.hub.arn);
      assert.ok(w.aws.aws.log.every((l) => l.region !== 'eu-west-3'));
    }));

  test('a config with role_arn + source_profile: the role is assumed with the source keys and acts', () =>
    withWorld({}, async (w) => {
      w.aws.sts.addRole({ arn: ROLE, trusted: [w.other.arn], externalId: 'chain-ext' });
      const config = `[default]\nrole_arn = ${ROLE}\nsource_profile = base\nexternal_id = chain-ext\nrole_session_name = chained\n[profile base]\naws_access_key_id = ${w.other.accessKeyId}\naws_secret_access_key = ${w.other.secretAccessKey}\n`;
      w.secret(NS, 'cluster-creds', { aws_config: config });
      await reconcileReady(w);
      assert.deepEqual(
        w.aws.sts.assumeRoleCalls.map((c) => [c.roleArn, c.caller, c.externalId, c.ok]),
        [[ROLE, w.other.arn, 'chain-ext', true]],
      );
      assert.equal(caller(w, 'CreateVpcEndpointServiceConfiguration'), 'arn:aws:sts::111111111111:assumed-role/hive-managed/chained');
      assert.equal(endState(w).services.length, 1, 'in the role’s account');
    }));

  test('credentialsAssumeRole with the service-provider Secret of HiveConfig', () =>
    withWorld({}, async (w) => {
      const sp = w.aws.aws.addAccount('444444444444', 'service-provider');
      w.aws.sts.addRole({ arn: ROLE, trusted: [sp.arn], externalId: 'ext-42' });
      w.secret(HIVE_NS, 'sp-creds', keysOf(sp));
      w.hiveConfig((h) => {
        h.spec.serviceProviderCredentialsConfig = { aws: { credentialsSecretRef: { name: 'sp-creds' } } };
      });
      assumeRoleOnly(w);
      await reconcileReady(w);
      assert.deepEqual(
        w.aws.sts.assumeRoleCalls.map((c) => [c.roleArn, c.caller, c.externalId, c.ok]),
        [[ROLE, sp.arn, 'ext-42', true]],
      );
      assert.equal(caller(w, 'CreateVpcEndpointServiceConfiguration'), 'arn:aws:sts::111111111111:assumed-role/hive-managed/hostwarden-privatelink');
      assert.equal(caller(w, 'CreateVpcEndpoint'), w.hub.arn);
    }));

  test('credentialsAssumeRole with no service-provider Secret: the default chain assumes it', () =>
    withWorld({ defaultIdentity: 'hub' }, async (w) => {
      w.aws.sts.addRole({ arn: ROLE, trusted: [w.hub.arn], externalId: 'ext-42' });
      assumeRoleOnly(w);
      await reconcileReady(w);
      assert.deepEqual(
        w.aws.sts.assumeRoleCalls.map((c) => [c.caller, c.externalId, c.ok]),
        [[w.hub.arn, 'ext-42', true]],
      );
      assert.match(caller(w, 'CreateVpcEndpointServiceConfiguration') ?? '', /^arn:aws:sts::111111111111:assumed-role\/hive-managed\//);
    }));

  test('a credentialsSecretRef wins over credentialsAssumeRole: no role is assumed', () =>
    withWorld({ defaultIdentity: 'hub' }, async (w) => {
      w.aws.sts.addRole({ arn: ROLE, trusted: [w.hub.arn], externalId: 'ext-42' });
      assumeRoleOnly(w, true);
      await reconcileReady(w);
      assert.deepEqual(w.aws.sts.assumeRoleCalls, []);
      assert.equal(caller(w, 'CreateVpcEndpointServiceConfiguration'), w.user.arn);
    }));

  test('the hub with an empty Secret name in HiveConfig (the schema requires the ref) uses the default chain', () =>
    withWorld({ defaultIdentity: 'hub' }, async (w) => {
      w.hiveConfig((h) => {
        h.spec.awsPrivateLink!.credentialsSecretRef = { name: '' };
      });
      await reconcileReady(w);
      assert.equal(caller(w, 'CreateVpcEndpoint'), w.hub.arn);
    }));

  test("an associated VPC's Secret is read by the same rules (an aws_config file)", () =>
    withWorld({ associateOther: true }, async (w) => {
      w.secret(HIVE_NS, 'other-creds', { aws_config: file(w.other) });
      await reconcileReady(w);
      assert.equal(caller(w, 'AssociateVPCWithHostedZone'), w.other.arn);
      assert.equal(caller(w, 'CreateVPCAssociationAuthorization'), w.hub.arn);
    }));

  test('a named service-provider Secret that does not exist fails the credentials step', () =>
    withWorld({ defaultIdentity: 'hub' }, async (w) => {
      w.hiveConfig((h) => {
        h.spec.serviceProviderCredentialsConfig = { aws: { credentialsSecretRef: { name: 'missing' } } };
      });
      assumeRoleOnly(w);
      await refused(w, /service provider credentials Secret hive\/missing not found/);
    }));

  test('neither a Secret nor a role: refused, never the controller identity in the cluster account', () =>
    withWorld({ defaultIdentity: 'user' }, async (w) => {
      w.patchCd((cd) => {
        delete cd.spec.platform!.aws!.credentialsSecretRef;
      });
      await refused(w, /neither spec\.platform\.aws\.credentialsSecretRef nor spec\.platform\.aws\.credentialsAssumeRole/);
    }));

  test('credential_process is refused as a data key and inside a config file', async () => {
    await withWorld({}, async (w) => {
      w.secret(NS, 'cluster-creds', { ...keysOf(w.user), Credential_Process: '/bin/id' });
      await refused(w, /^credential_process is insecure and thus forbidden$/);
    });
    await withWorld({}, async (w) => {
      w.secret(HIVE_NS, 'hub-creds', { aws_config: `${file(w.hub)}[profile x]\ncredential_process = /bin/id\n` });
      await refused(w, /^credential_process is insecure and thus forbidden$/);
    });
  });
});
