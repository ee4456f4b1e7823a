/**
 * The reconciler and its controller against the test API server: operand objects, credentials,
 * conditions, secret rotation, deletion, and the OpenShift CredentialsRequest path.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { findCondition } from '../../src/kube/conditions.ts';
import { objectPath } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { ExternalDNSController } from '../../src/operator/controller.ts';
import { SECRET_HASH_ANNOTATION } from '../../src/operator/operand.ts';
import { ExternalDNSReconciler, SECRET_RETRY_MS } from '../../src/operator/reconciler.ts';
import {
  CCO_NAMESPACE,
  CLUSTER_ROLE_BINDINGS,
  CLUSTER_ROLES,
  CREDENTIALS_REQUESTS,
  DEPLOYMENTS,
  SECRETS,
  SERVICE_ACCOUNTS,
} from '../../src/operator/resources.ts';
import { CONDITION, EXTERNALDNSES, LEGACY_FINALIZER, REASON } from '../../src/operator/types.ts';
import { OPERAND_NS, OPERATOR_NS, awsExternalDNS, awsSecret, getExternalDNS, startOperatorEnv, installCcoApi } from './harness.ts';
import type { OperatorEnv } from './harness.ts';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 500; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('operator reconciler', () => {
  let env: OperatorEnv;
  before(async () => {
    env = await startOperatorEnv();
  });
  after(async () => env.stop());

  test('creates the operand with a copied Secret, RBAC and conditions; deletion removes it all', async () => {
    const { client, settings } = env;
    await client.request('POST', `/api/v1/namespaces/${OPERATOR_NS}/secrets`, { body: awsSecret('aws-creds') });
    await client.request('POST', '/apis/externaldns.olm.openshift.io/v1beta1/externaldnses', { body: awsExternalDNS('one') });
    const r = new ExternalDNSReconciler({ client, logger: silentLogger(), operand: settings, operatorNamespace: OPERATOR_NS });
    assert.deepEqual(await r.reconcile('one'), {});

    const dep = await client.request<Obj>('GET', objectPath(DEPLOYMENTS, OPERAND_NS, 'hostwarden-one'));
    const c = dep['spec'].template.spec.containers[0];
    assert.ok(c.args.includes('--aws-assume-role=arn:aws:iam::444455556666:role/external-dns'));
    assert.ok(c.args.includes('--aws-shared-credentials-file=/etc/hostwarden/credentials/credentials'));
    assert.equal(dep['metadata'].ownerReferences[0].kind, 'ExternalDNS');
    const copy = await client.request<Obj>('GET', objectPath(SECRETS, OPERAND_NS, 'hostwarden-one-credentials'));
    assert.equal(
      Buffer.from(copy['data'].credentials, 'base64').toString(),
      '[default]\naws_access_key_id = AKIDTESTER0000000001\naws_secret_access_key = tester-secret\n',
    );
    await client.request('GET', objectPath(SERVICE_ACCOUNTS, OPERAND_NS, 'hostwarden-one'));
    const role = await client.request<Obj>('GET', objectPath(CLUSTER_ROLES, '', 'hostwarden-hostwarden-one'));
    assert.deepEqual(role['rules'].at(-1), {
      apiGroups: ['externaldns.olm.openshift.io'],
      resources: ['externaldnses/status'],
      verbs: ['patch'],
      resourceNames: ['one'],
    });
    await client.request('GET', objectPath(CLUSTER_ROLE_BINDINGS, '', 'hostwarden-hostwarden-one'));

    let ed = await getExternalDNS(client, 'one');
    assert.equal(ed.metadata.finalizers, undefined, 'no finalizer: deletion never waits for the operator');
    assert.equal(ed.status?.observedGeneration, ed.metadata.generation);
    assert.deepEqual(ed.status?.zones, ['Z1']);
    const cond = (t: string): { status: string; reason: string } | undefined => findCondition(ed.status?.conditions, t);
    assert.equal(cond(CONDITION.credentialsSecretExists)?.reason, REASON.secretFound);
    assert.equal(cond(CONDITION.deploymentAvailable)?.reason, REASON.deploymentPending);
    assert.equal(cond(CONDITION.podsScheduled)?.status, 'Unknown');
    assert.equal(cond(CONDITION.providerAuthorized)?.reason, REASON.notYetReported);

    // The Deployment becomes available and its pod is scheduled.
    const stored = env.api.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: OPERAND_NS, name: 'hostwarden-one' });
    assert.ok(stored !== undefined);
    env.api.update({
      ...stored,
      status: { replicas: 1, availableReplicas: 1, conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' }] },
    });
    env.api.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'hostwarden-one-abc', namespace: OPERAND_NS, labels: { 'app.kubernetes.io/instance': 'hostwarden-one' } },
      spec: { containers: [{ name: 'x', image: 'x' }] },
      status: { conditions: [{ type: 'PodScheduled', status: 'True' }] },
    });
    await r.reconcile('one');
    ed = await getExternalDNS(client, 'one');
    for (const t of [CONDITION.deploymentAvailable, CONDITION.replicasMinAvailable, CONDITION.replicasAllAvailable, CONDITION.podsScheduled])
      assert.equal(cond(t)?.status, 'True', t);
    // Nothing changed: no write.
    const rv = ed.metadata.resourceVersion;
    await r.reconcile('one');
    assert.equal((await getExternalDNS(client, 'one')).metadata.resourceVersion, rv);

    // Credentials taken out of the spec outside OpenShift (the role alone): refused as upstream's
    // webhook refuses it — no silent fallback to the pod's identity; the running operand is left alone.
    await client.request('PATCH', objectPath(EXTERNALDNSES, '', 'one'), {
      body: { spec: { provider: { aws: { credentials: { name: '' } } } } },
      contentType: 'application/merge-patch+json',
    });
    await r.reconcile('one');
    const refused = findCondition((await getExternalDNS(client, 'one')).status?.conditions, CONDITION.deploymentAvailable);
    assert.deepEqual(
      [refused?.reason, refused?.message],
      [REASON.unsupportedSpec, 'spec.provider.aws.credentials.name: Required value: credentials secret must be specified when provider type is AWS'],
    );
    const after = await client.request<Obj>('GET', objectPath(DEPLOYMENTS, OPERAND_NS, 'hostwarden-one'));
    assert.ok(after['spec'].template.spec.containers[0].args.some((a: string) => a.startsWith('--aws-shared-credentials-file')));

    // Deletion is the garbage collector's: every operand object names the ExternalDNS as its controller.
    const uid = ed.metadata.uid;
    await client.request('PATCH', objectPath(EXTERNALDNSES, '', 'one'), {
      body: { spec: { provider: { aws: { credentials: { name: 'aws-creds' } } } } },
      contentType: 'application/merge-patch+json',
    });
    await r.reconcile('one');
    for (const path of [
      objectPath(DEPLOYMENTS, OPERAND_NS, 'hostwarden-one'),
      objectPath(SECRETS, OPERAND_NS, 'hostwarden-one-credentials'),
      objectPath(SERVICE_ACCOUNTS, OPERAND_NS, 'hostwarden-one'),
      objectPath(CLUSTER_ROLES, '', 'hostwarden-hostwarden-one'),
      objectPath(CLUSTER_ROLE_BINDINGS, '', 'hostwarden-hostwarden-one'),
    ]) {
      const owners = (await client.request<Obj>('GET', path))['metadata'].ownerReferences;
      assert.deepEqual(
        owners,
        [{ apiVersion: 'externaldns.olm.openshift.io/v1beta1', kind: 'ExternalDNS', name: 'one', uid, controller: true, blockOwnerDeletion: true }],
        path,
      );
    }
    // With the operator gone, deleting the ExternalDNS does not hang.
    await client.request('DELETE', objectPath(EXTERNALDNSES, '', 'one'));
    await assert.rejects(getExternalDNS(client, 'one'), /not found/);
    assert.deepEqual(await r.reconcile('one'), {});
  });

  test('an object stored with the old finalizer loses it; one already being deleted then goes', async () => {
    const { client, settings } = env;
    const r = new ExternalDNSReconciler({ client, logger: silentLogger(), operand: settings, operatorNamespace: OPERATOR_NS });
    for (const name of ['legacy', 'legacy-deleting']) {
      const body = awsExternalDNS(name);
      body.metadata.finalizers = [LEGACY_FINALIZER];
      await client.request('POST', '/apis/externaldns.olm.openshift.io/v1beta1/externaldnses', { body });
    }
    await r.reconcile('legacy');
    assert.deepEqual((await getExternalDNS(client, 'legacy')).metadata.finalizers ?? [], []);
    await client.request('DELETE', objectPath(EXTERNALDNSES, '', 'legacy-deleting'));
    assert.ok((await getExternalDNS(client, 'legacy-deleting')).metadata.deletionTimestamp !== undefined, 'held by the old finalizer');
    assert.deepEqual(await r.reconcile('legacy-deleting'), {});
    await assert.rejects(getExternalDNS(client, 'legacy-deleting'), /not found/);
  });

  test('a missing Secret: condition False with the reason, a requeue, and no Deployment', async () => {
    const { client, settings } = env;
    await client.request('POST', '/apis/externaldns.olm.openshift.io/v1beta1/externaldnses', {
      body: awsExternalDNS('nosecret', { provider: { type: 'AWS', aws: { credentials: { name: 'absent' } } } }),
    });
    const r = new ExternalDNSReconciler({ client, logger: silentLogger(), operand: settings, operatorNamespace: OPERATOR_NS });
    assert.deepEqual(await r.reconcile('nosecret'), { requeueAfterMs: SECRET_RETRY_MS });
    const c = findCondition((await getExternalDNS(client, 'nosecret')).status?.conditions, CONDITION.credentialsSecretExists);
    assert.deepEqual([c?.status, c?.reason, c?.message], ['False', REASON.secretNotFound, `Secret ${OPERATOR_NS}/absent not found`]);
    await assert.rejects(client.request('GET', objectPath(DEPLOYMENTS, OPERAND_NS, 'hostwarden-nosecret')), /not found/);
  });

  test('an object the webhook would refuse gets DeploymentAvailable=False UnsupportedSpec and no operand', async () => {
    const { client, settings } = env;
    await client.request('POST', '/apis/externaldns.olm.openshift.io/v1beta1/externaldnses', {
      body: awsExternalDNS('refused', { provider: { type: 'Infoblox' } }),
    });
    const r = new ExternalDNSReconciler({ client, logger: silentLogger(), operand: settings, operatorNamespace: OPERATOR_NS });
    assert.deepEqual(await r.reconcile('refused'), {});
    const c = findCondition((await getExternalDNS(client, 'refused')).status?.conditions, CONDITION.deploymentAvailable);
    assert.deepEqual(
      [c?.status, c?.reason, c?.message],
      [
        'False',
        REASON.unsupportedSpec,
        'spec.provider.type: Unsupported value: "Infoblox": Hostwarden has no provider for it; supported values: "AWS", "GCP", "Azure", "RFC2136", "PowerDNS", "Embedded"',
      ],
    );
    await assert.rejects(client.request('GET', objectPath(DEPLOYMENTS, OPERAND_NS, 'hostwarden-refused')), /not found/);
  });

  test('controller: a created Secret starts the operand, a rotated Secret changes the pod template hash', async () => {
    const { client, settings } = env;
    const reconciler = new ExternalDNSReconciler({ client, logger: silentLogger(), operand: settings, operatorNamespace: OPERATOR_NS });
    const controller = new ExternalDNSController({
      client,
      logger: silentLogger(),
      reconciler,
      operandNamespace: OPERAND_NS,
      operatorNamespace: OPERATOR_NS,
      backoff: { initialMs: 20, maxMs: 200 },
    });
    controller.start();
    try {
      assert.ok(await controller.waitForSync(5000));
      await client.request('POST', '/apis/externaldns.olm.openshift.io/v1beta1/externaldnses', {
        body: awsExternalDNS('rot', { provider: { type: 'AWS', aws: { credentials: { name: 'rot-creds' } } } }),
      });
      await until('SecretNotFound', async () =>
        findCondition((await getExternalDNS(client, 'rot')).status?.conditions, CONDITION.credentialsSecretExists)?.reason === REASON.secretNotFound
          ? true
          : undefined,
      );
      await client.request('POST', `/api/v1/namespaces/${OPERATOR_NS}/secrets`, { body: awsSecret('rot-creds') });
      const path = objectPath(DEPLOYMENTS, OPERAND_NS, 'hostwarden-rot');
      const hashOf = async (): Promise<string | undefined> =>
        (await client.request<Obj>('GET', path).catch(() => undefined))?.['spec'].template.metadata.annotations[SECRET_HASH_ANNOTATION];
      const first = await until('the Deployment', hashOf);
      await client.request('PATCH', objectPath(SECRETS, OPERATOR_NS, 'rot-creds'), {
        body: { data: { aws_secret_access_key: Buffer.from('rotated').toString('base64') } },
        contentType: 'application/merge-patch+json',
      });
      const second = await until('a new hash', async () => {
        const h = await hashOf();
        return h !== first ? h : undefined;
      });
      assert.match(second, /^[0-9a-f]{64}$/);
      const copy = await client.request<Obj>('GET', objectPath(SECRETS, OPERAND_NS, 'hostwarden-rot-credentials'));
      assert.match(Buffer.from(copy['data'].credentials, 'base64').toString(), /aws_secret_access_key = rotated/);
      // Deleting: nothing holds it (the garbage collector takes the operand by its owner reference).
      await client.request('DELETE', objectPath(EXTERNALDNSES, '', 'rot'));
      await assert.rejects(getExternalDNS(client, 'rot'), /not found/);
    } finally {
      await controller.stop();
    }
  });

  test('OpenShift: a CredentialsRequest instead of a Secret; the minted Secret is used as is', async () => {
    const { client } = env;
    await installCcoApi(client);
    const settings = { ...env.settings, platform: { openshift: true } };
    await client.request('POST', '/apis/externaldns.olm.openshift.io/v1beta1/externaldnses', {
      body: awsExternalDNS('ocp', { provider: { type: 'AWS', aws: { assumeRole: { arn: 'arn:aws:iam::444455556666:role/external-dns' } } } }),
    });
    const r = new ExternalDNSReconciler({ client, logger: silentLogger(), operand: settings, operatorNamespace: OPERATOR_NS });
    assert.deepEqual(await r.reconcile('ocp'), { requeueAfterMs: SECRET_RETRY_MS });
    const cr = await client.request<Obj>('GET', objectPath(CREDENTIALS_REQUESTS, CCO_NAMESPACE, 'hostwarden-ocp'));
    assert.deepEqual(cr['spec'].secretRef, { name: 'hostwarden-ocp-credentials', namespace: OPERAND_NS });
    assert.ok(cr['spec'].providerSpec.statementEntries.flatMap((e: Obj) => e['action']).includes('sts:AssumeRole'));
    assert.equal(
      findCondition((await getExternalDNS(client, 'ocp')).status?.conditions, CONDITION.credentialsSecretExists)?.reason,
      REASON.credentialsRequested,
    );
    // The Cloud Credential Operator writes the Secret.
    await client.request('POST', `/api/v1/namespaces/${OPERAND_NS}/secrets`, {
      body: { ...awsSecret('hostwarden-ocp-credentials'), metadata: { name: 'hostwarden-ocp-credentials', namespace: OPERAND_NS } },
    });
    assert.deepEqual(await r.reconcile('ocp'), {});
    const dep = await client.request<Obj>('GET', objectPath(DEPLOYMENTS, OPERAND_NS, 'hostwarden-ocp'));
    assert.ok(dep['spec'].template.spec.containers[0].args.includes('--aws-shared-credentials-file=/etc/hostwarden/credentials/credentials'));
    assert.equal(dep['spec'].template.spec.volumes[1].secret.secretName, 'hostwarden-ocp-credentials');
    // The CredentialsRequest (in the CCO's namespace) is collected with the ExternalDNS too.
    assert.equal(cr['metadata'].ownerReferences[0].uid, (await getExternalDNS(client, 'ocp')).metadata.uid);
  });
});
