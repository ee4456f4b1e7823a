/**
 * The controller as deployed: reflectors feed the queue, a ClusterDeployment converges and is
 * deleted; every Kubernetes request it made is covered by PRIVATELINK_PERMISSIONS and every
 * permission is used. Then the real `hostwarden privatelink-controller` process does the same.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findCondition } from '../../src/privatelink/conditions.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import { LeaderElector } from '../../src/kube/leader-election.ts';
import { silentLogger } from '../../src/log.ts';
import { PRIVATELINK_WEBHOOK_PATH } from '../../src/privatelink/admission-server.ts';
import { PrivateLinkController } from '../../src/privatelink/controller.ts';
import { PRIVATELINK_PERMISSIONS } from '../../src/privatelink/permissions.ts';
import { PrivateLinkReconciler } from '../../src/privatelink/reconciler.ts';
import { READY } from '../../src/privatelink/types.ts';
import { httpsCall, opensslMissing, responseOf } from '../admission/harness.ts';
import { endState, isEmpty } from './end-state.ts';
import { hiveOperatorReconciled, setDisabledControllers } from './hive-operator.ts';
import { CD_NAME, HIVE_NS, NS, startWorld } from './world.ts';
import type { World } from './world.ts';

const NO_OPENSSL = (await opensslMissing()) || false;
const BIN = join(dirname(fileURLToPath(import.meta.url)), '../../bin/hostwarden');

async function until(what: string, cond: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `group/resource:verb` of one request, as RBAC sees it. */
function permissionOf(method: string, path: string, watch: boolean): string {
  const p = path.split('?')[0]!.split('/').filter(Boolean);
  const group = p[0] === 'api' ? 'core' : p[1]!;
  let rest = p.slice(p[0] === 'api' ? 2 : 3);
  if (rest[0] === 'namespaces' && rest.length > 2) rest = rest.slice(2);
  const [resource, name, sub] = rest;
  const res = sub === undefined ? resource! : `${resource!}/${sub}`;
  const verb =
    method === 'GET'
      ? name === undefined
        ? watch
          ? 'watch'
          : 'list'
        : 'get'
      : ({ POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' } as Record<string, string>)[method]!;
  return `${group}/${res}:${verb}`;
}

function recording(client: KubeClient, seen: Set<string>): Pick<KubeClient, 'request' | 'watch'> {
  return {
    request: (method, path, spec) => {
      seen.add(permissionOf(method, path, false));
      return client.request(method, path, spec);
    },
    watch: (path, query, onEvent, signal) => {
      seen.add(permissionOf('GET', path, true));
      return client.watch(path, query, onEvent, signal);
    },
  };
}

const ready = (w: World): boolean => findCondition(w.cd()?.status?.conditions, READY)?.status === 'True';

describe('PrivateLink controller', () => {
  test('reflectors and queue converge a cluster and clean up on delete, using exactly the RBAC it declares', async () => {
    const w = await startWorld({ associateOther: true });
    const seen = new Set<string>();
    const client = recording(w.client, seen);
    const reconciler = new PrivateLinkReconciler({
      client,
      accounts: (s) => w.accounts.account(s),
      hiveNamespace: HIVE_NS,
      logger: silentLogger(),
      endpointWait: { attempts: 5, delayMs: 10 },
    });
    const onLead: { kick?: () => void } = {};
    const elector = new LeaderElector({
      client,
      logger: silentLogger(),
      namespace: 'default',
      name: 'hostwarden-privatelink',
      retryPeriodMs: 50,
      renewDeadlineMs: 2000,
      leaseDurationMs: 3000,
      onStartedLeading: () => onLead.kick?.(),
    });
    const controller = new PrivateLinkController({
      client,
      reconcile: (k) => reconciler.reconcile(k),
      logger: silentLogger(),
      canRun: () => elector.isLeader(),
      backoff: { initialMs: 20, maxMs: 200 },
    });
    onLead.kick = () => controller.queue.kick();
    try {
      controller.start();
      elector.start();
      await until('the cluster is ready', () => ready(w));
      // A HiveConfig change applies at once, inside shouldSync's 2 h window (Hive would wait for
      // it): dropping the associated VPC disassociates it.
      w.hiveConfig((h) => {
        h.spec.awsPrivateLink!.associatedVPCs = [];
      });
      await until('the associated VPC is dropped', () => endState(w).zones[0]?.vpcs.length === 1);
      w.api.delete({ apiVersion: 'hive.openshift.io/v1', kind: 'ClusterDeployment', namespace: NS, name: CD_NAME });
      await until('the ClusterDeployment is gone', () => w.cd() === undefined);
      assert.ok(isEmpty(endState(w)));
      await controller.queue.idle();
    } finally {
      await controller.stop();
      await elector.stop();
      await w.stop();
    }
    const granted = new Set(PRIVATELINK_PERMISSIONS.map((p) => `${p.group === '' ? 'core' : p.group}/${p.resource}:${p.verb}`));
    assert.deepEqual([...seen].filter((s) => !granted.has(s)).sort(), [], 'requests no permission covers');
    // ClusterProvision/Deprovision GETs happen only while installing or deprovisioning.
    const unused = [...granted].filter((g) => !seen.has(g) && !/clusterprovisions:get|clusterdeprovisions:get/.test(g));
    assert.deepEqual(unused.sort(), [], 'permissions never used');
  });

  test('a ClusterProvision appearing brings its installing cluster back (Hive waits for it without a timer or condition)', async () => {
    const w = await startWorld({ installed: false });
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
      w.patchCd((cd) => {
        cd.status = { ...cd.status, provisionRef: { name: 'p1' } };
      });
      controller.start();
      await until('the cluster was reconciled', () => runs > 0);
      await controller.queue.idle();
      assert.equal(findCondition(w.cd().status?.conditions, READY)?.reason, 'Initialized', 'no condition while waiting for the provision');
      assert.equal(controller.queue.pendingDelays().get(`${NS}/${CD_NAME}`), undefined, 'not parked on a timer');
      w.api.create({
        apiVersion: 'hive.openshift.io/v1',
        kind: 'ClusterProvision',
        metadata: { name: 'p1', namespace: NS },
        spec: {
          clusterDeploymentRef: { name: CD_NAME },
          infraID: 'mycluster-x7k2p',
          adminKubeconfigSecretRef: { name: 'admin-kubeconfig' },
          stage: 'Provisioning',
          attempt: 0,
          podSpec: { containers: [] },
        },
      } as never);
      await until('the cluster is ready', () => ready(w));
    } finally {
      await controller.stop();
      await w.stop();
    }
  });

  test(
    '`hostwarden privatelink-controller` runs from flags, converges a cluster, answers admission reviews and stops on SIGTERM',
    { skip: NO_OPENSSL },
    async () => {
      const w = await startWorld({});
      const dir = await mkdtemp(join(tmpdir(), 'hw-pl-'));
      const kubeconfig = await w.api.writeKubeconfig(dir);
      const child = spawn(
        process.execPath,
        [
          BIN,
          'privatelink-controller',
          '--kubeconfig',
          kubeconfig,
          '--aws-endpoint-url',
          w.aws.url,
          '--hive-namespace',
          HIVE_NS,
          '--metrics-address',
          '127.0.0.1:0',
          '--leader-elect=false',
          '--privatelink-endpoint-wait',
          '1s',
          '--log-format',
          'json',
          '--privatelink-admission-listen',
          '127.0.0.1:0',
          '--tls-self-signed',
        ],
        {
          env: { PATH: process.env['PATH'] ?? '', AWS_REGION: 'us-east-1' },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        await until('the cluster is ready', () => ready(w), 30_000).catch((err: unknown) => assert.fail(`${String(err)}\n${stderr.slice(-2000)}`));
        assert.equal(endState(w).endpoints.length, 1);

        const port = Number(/"address":"127\.0\.0\.1:(\d+)","path":"\/validate-clusterdeployments-privatelink"/.exec(stderr)?.[1]);
        assert.ok(port > 0, 'the admission address is logged');
        const review = (region: string): string =>
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            request: {
              uid: `uid-${region}`,
              operation: 'CREATE',
              resource: { group: 'hive.openshift.io', version: 'v1', resource: 'clusterdeployments' },
              namespace: NS,
              name: 'new',
              object: {
                apiVersion: 'hive.openshift.io/v1',
                kind: 'ClusterDeployment',
                metadata: { name: 'new', namespace: NS },
                spec: { platform: { aws: { region, privateLink: { enabled: true } } } },
              },
            },
          });
        const denied = responseOf(await httpsCall(port, 'insecure', { path: PRIVATELINK_WEBHOOK_PATH, body: review('eu-west-1') }));
        assert.deepEqual([denied.uid, denied.allowed, denied.status?.code], ['uid-eu-west-1', false, 422]);
        assert.equal(
          denied.status?.message,
          'ClusterDeployment.hive.openshift.io "new" is invalid: spec.platform.aws.privateLink.enabled: Forbidden: AWS Private Link is not supported in eu-west-1 region',
        );
        assert.equal(responseOf(await httpsCall(port, 'insecure', { path: PRIVATELINK_WEBHOOK_PATH, body: review('us-east-1') })).allowed, true);
        child.kill('SIGTERM');
        assert.equal(await exited, 0, stderr.slice(-2000));
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        await rm(dir, { recursive: true, force: true });
        await w.stop();
      }
    },
  );

  test(
    '`hostwarden privatelink-controller` beside a Hive that runs its own awsprivatelink controller: one error line naming the fix, not ready, nothing done; then converges',
    { skip: NO_OPENSSL },
    async () => {
      const w = await startWorld({ initialized: false });
      await hiveOperatorReconciled(w.client);
      const dir = await mkdtemp(join(tmpdir(), 'hw-pl-'));
      const kubeconfig = await w.api.writeKubeconfig(dir);
      const args = ['--kubeconfig', kubeconfig, '--aws-endpoint-url', w.aws.url, '--hive-namespace', HIVE_NS, '--metrics-address', '127.0.0.1:0'];
      const child = spawn(
        process.execPath,
        [
          BIN,
          'privatelink-controller',
          ...args,
          '--leader-elect=false',
          '--log-format',
          'json',
          '--privatelink-admission-listen',
          '127.0.0.1:0',
          '--tls-self-signed',
        ],
        { env: { PATH: process.env['PATH'] ?? '', AWS_REGION: 'us-east-1' }, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const lines = (): { level: number; msg: string }[] =>
        stderr
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as { level: number; msg: string });
      try {
        await until('the error line', () => lines().some((l) => l.level === 50 && /disabledControllers/.test(l.msg)), 30_000).catch((err: unknown) =>
          assert.fail(`${String(err)}\n${stderr.slice(-2000)}`),
        );
        const errors = lines().filter((l) => l.level === 50);
        assert.equal(errors.length, 1, stderr.slice(-2000));
        assert.match(
          errors[0]!.msg,
          /Hive is installed and runs its own "awsprivatelink" controller.*HiveConfig hive lists "awsprivatelink" in spec\.disabledControllers/,
        );
        assert.ok(lines().some((l) => l.level === 40 && /--privatelink-admission-listen duplicates Hive's own ClusterDeployment admission/.test(l.msg)));
        const ops = Number(/"address":"127\.0\.0\.1:(\d+)","msg":"serving \/metrics/.exec(stderr)?.[1]);
        const readyz = await fetch(`http://127.0.0.1:${ops}/readyz`);
        assert.equal(readyz.status, 503);
        assert.match(await readyz.text(), /spec\.disabledControllers/);
        assert.equal((await fetch(`http://127.0.0.1:${ops}/healthz`)).status, 200, 'alive: a restart would not help');
        assert.match(await (await fetch(`http://127.0.0.1:${ops}/metrics`)).text(), /^hostwarden_privatelink_hive_conflict 1$/m);
        assert.equal(w.aws.aws.log.length, 0, 'no AWS call');
        assert.equal(w.cd().status?.conditions, undefined);

        await setDisabledControllers(w.client, ['awsprivatelink']);
        await until('the cluster is ready', () => ready(w), 30_000).catch((err: unknown) => assert.fail(`${String(err)}\n${stderr.slice(-2000)}`));
        assert.equal((await fetch(`http://127.0.0.1:${ops}/readyz`)).status, 200);
        child.kill('SIGTERM');
        assert.equal(await exited, 0, stderr.slice(-2000));
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        await rm(dir, { recursive: true, force: true });
        await w.stop();
      }
    },
  );
});
