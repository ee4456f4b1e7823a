/**
 * Leader election over a real Lease on the test API server, with short durations: only the
 * leader applies, a crashed leader is replaced within the lease duration, and a leader that
 * cannot renew stops applying by its renew deadline. Under RBAC: without permission on Leases a
 * replica acts alone only when election is on by default and its very first request is refused
 * (external-dns's chart); an explicit --leader-elect, or a replica that led or saw a holder, never
 * acts alone, so there are never two leaders.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { FlagValues } from '../../src/config/config.ts';
import { FLAGS } from '../../src/config/flags.ts';
import { parseArgs } from '../../src/config/parse.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { KUBE_FLAGS } from '../../src/kube/flags.ts';
import { LeaderElector, leaderElectorFromFlags } from '../../src/kube/leader-election.ts';
import { SERVICES } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { WARN, capturingLogger } from '../support/log-capture.ts';
import type { LogLine } from '../support/log-capture.ts';
import { InMemoryProvider } from '../../src/provider/inmemory/inmemory.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { KubeWriter, sleep, startStack, waitFor } from './harness.ts';
import type { Stack } from './harness.ts';

const LEASE = { leaseMs: 1500, renewMs: 1000, retryMs: 150 };

function service(
  name: string,
  host: string,
  ip: string,
): Record<string, unknown> & { metadata: { name: string; namespace: string; annotations: Record<string, string> } } {
  return {
    metadata: { name, namespace: 'default', annotations: { 'external-dns.alpha.kubernetes.io/hostname': host } },
    spec: { type: 'LoadBalancer', externalIPs: [ip] },
  };
}

describe('leader election', () => {
  let api: TestApiServer;
  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 200 });
  });
  after(async () => {
    await api.stop();
  });

  test('two instances: only the leader applies; when it dies the other takes over within the lease duration', async () => {
    const provider = new InMemoryProvider({ zones: ['example.org'] });
    const a = await startStack(api, { sources: ['service'], provider, lease: { ...LEASE, name: 'failover', identity: 'a' } });
    const b = await startStack(api, { sources: ['service'], provider, lease: { ...LEASE, name: 'failover', identity: 'b' } });
    const stacks: Stack[] = [a, b];
    try {
      const leader = await waitFor('a leader', () => stacks.find((s) => s.elector?.isLeader() === true));
      const follower = leader === a ? b : a;
      assert.equal(follower.elector?.isLeader(), false);
      const kube = new KubeWriter(leader.client);
      await kube.create(SERVICES, service('one', 'one.example.org', '192.0.2.1'));
      await waitFor('one.example.org', async () => ((await provider.records()).some((e) => e.dnsName === 'one.example.org') ? true : undefined));

      // A crash: no release, the Lease must expire.
      await leader.stop({ releaseLease: false });
      const crashedAt = Date.now();
      await waitFor('the follower leads', () => (follower.elector?.isLeader() === true ? true : undefined), 5000);
      const tookMs = Date.now() - crashedAt;
      assert.ok(tookMs <= LEASE.leaseMs + 3 * LEASE.retryMs + 500, `takeover took ${tookMs} ms`);
      const lease = api.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'default', name: 'failover' });
      assert.equal((lease?.['spec'] as { holderIdentity?: string }).holderIdentity, follower === a ? 'a' : 'b');

      await new KubeWriter(follower.client).create(SERVICES, service('two', 'two.example.org', '192.0.2.2'));
      await waitFor('two.example.org applied by the new leader', async () =>
        (await provider.records()).some((e) => e.dnsName === 'two.example.org') ? true : undefined,
      );
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  test('a replica that is not the leader plans but applies nothing', async () => {
    const holder = new KubeClient({ config: api.kubeConfig(), logger: silentLogger() });
    const other = new LeaderElector({
      client: holder,
      logger: silentLogger(),
      namespace: 'default',
      name: 'held',
      identity: 'someone-else',
      leaseDurationMs: 60_000,
      renewDeadlineMs: 40_000,
      retryPeriodMs: 100,
    });
    other.start();
    await waitFor('someone-else leads', () => (other.isLeader() ? true : undefined));
    const stack = await startStack(api, { sources: ['service'], lease: { ...LEASE, name: 'held', identity: 'me' } });
    try {
      await new KubeWriter(stack.client).create(SERVICES, service('three', 'three.example.org', '192.0.2.3'));
      await sleep(600);
      assert.equal(stack.elector?.isLeader(), false);
      assert.deepEqual(await stack.records(), []);
      // Handing the Lease back lets the waiting replica lead and apply at once.
      await other.stop(true);
      await waitFor('three.example.org applied after takeover', async () =>
        (await stack.records()).some((e) => e.dnsName === 'three.example.org') ? true : undefined,
      );
    } finally {
      await stack.stop();
      holder.close();
    }
  });

  test('a leader that cannot renew stops leading by its renew deadline', async () => {
    const client = new KubeClient({ config: api.kubeConfig(), logger: silentLogger() });
    let stoppedAt = 0;
    const elector = new LeaderElector({
      client,
      logger: silentLogger(),
      namespace: 'default',
      name: 'flaky',
      identity: 'x',
      leaseDurationMs: LEASE.leaseMs,
      renewDeadlineMs: LEASE.renewMs,
      retryPeriodMs: LEASE.retryMs,
      onStoppedLeading: () => (stoppedAt = Date.now()),
    });
    elector.start();
    try {
      await waitFor('x leads', () => (elector.isLeader() ? true : undefined));
      api.failNextRequests(1000, 503, (r) => r.plural === 'leases');
      const failingFrom = Date.now();
      await waitFor('x stops leading', () => (elector.isLeader() ? undefined : true), 5000);
      const after = Date.now() - failingFrom;
      assert.ok(after <= LEASE.renewMs + 2 * LEASE.retryMs + 300, `stopped after ${after} ms`);
      assert.ok(stoppedAt > 0, 'onStoppedLeading was called');
    } finally {
      await elector.stop(false);
      client.close();
    }
  });
});

describe('leader election: annotations the holder publishes on the Lease (embedded replica sets)', () => {
  const ADDR = 'hostwarden.io/embedded-peer-address';
  let api: TestApiServer;
  let client: KubeClient;
  before(async () => {
    api = await startTestApiServer();
    client = new KubeClient({ config: api.kubeConfig(), logger: silentLogger() });
  });
  after(async () => {
    client.close();
    await api.stop();
  });

  const leaseOf = (name: string): { holder: string | undefined; annotations: Record<string, string> } => {
    const lease = api.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'default', name }) as
      { metadata: { annotations?: Record<string, string> }; spec?: { holderIdentity?: string } } | undefined;
    return { holder: lease?.spec?.holderIdentity, annotations: lease?.metadata.annotations ?? {} };
  };

  function elector(name: string, identity: string, annotations: () => Record<string, string | undefined>, timing = LEASE): LeaderElector {
    return new LeaderElector({
      client,
      logger: silentLogger(),
      namespace: 'default',
      name,
      identity,
      leaseDurationMs: timing.leaseMs,
      renewDeadlineMs: timing.renewMs,
      retryPeriodMs: timing.retryMs,
      annotations,
    });
  }

  test('written on create and on renewals, over what others put there; a key mapped to undefined is removed', async () => {
    let own: Record<string, string | undefined> = { [ADDR]: '10.0.0.1:53', gone: undefined };
    // A retry period far longer than the test: every write after the first is a renewSoon().
    const a = elector('annotated', 'a', () => own, { leaseMs: 60_000, renewMs: 40_000, retryMs: 20_000 });
    a.start();
    try {
      await waitFor('a leads', () => (a.isLeader() ? true : undefined));
      assert.deepEqual(leaseOf('annotated').annotations, { [ADDR]: '10.0.0.1:53' }, 'on create');
      assert.deepEqual(a.observedLease(), { holder: 'a', annotations: { [ADDR]: '10.0.0.1:53' } });
      own = { [ADDR]: undefined, other: 'x' };
      const asked = Date.now();
      a.renewSoon();
      await waitFor('the renewal', () => (leaseOf('annotated').annotations['other'] === 'x' ? true : undefined), 5000);
      assert.ok(Date.now() - asked < 5000, 'well before the retry period');
      assert.deepEqual(leaseOf('annotated').annotations, { other: 'x' });
      assert.deepEqual(a.observedLease(), { holder: 'a', annotations: { other: 'x' } });
    } finally {
      await a.stop(false);
    }
    // Someone else's annotation survives a holder's writes.
    api.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'shared', namespace: 'default', annotations: { 'example.com/owner': 'ops' } },
      spec: { holderIdentity: '' },
    });
    const b = elector('shared', 'b', () => ({ [ADDR]: '10.0.0.2:53' }));
    b.start();
    try {
      await waitFor('b leads', () => (b.isLeader() ? true : undefined));
      assert.deepEqual(leaseOf('shared').annotations, { 'example.com/owner': 'ops', [ADDR]: '10.0.0.2:53' });
    } finally {
      await b.stop(true);
    }
    assert.deepEqual(leaseOf('shared'), { holder: '', annotations: { 'example.com/owner': 'ops' } }, 'release removes its own keys only');
  });

  test("a new holder's first write removes the previous holder's address; observedLease shows who holds it", async () => {
    const a = elector('handover', 'a', () => ({ [ADDR]: '10.0.0.1:53' }));
    let bPublished = false;
    const b = elector('handover', 'b', () => ({ [ADDR]: bPublished ? '10.0.0.2:53' : undefined }));
    a.start();
    await waitFor('a leads', () => (a.isLeader() ? true : undefined));
    b.start();
    try {
      await waitFor('b read the Lease', () => (b.observedLease() !== undefined ? true : undefined));
      assert.deepEqual(b.observedLease(), { holder: 'a', annotations: { [ADDR]: '10.0.0.1:53' } });
      // A crash: no release, the address stays until the next holder writes.
      await a.stop(false);
      assert.equal(leaseOf('handover').annotations[ADDR], '10.0.0.1:53');
      await waitFor('b leads', () => (b.isLeader() ? true : undefined), 5000);
      assert.deepEqual(leaseOf('handover'), { holder: 'b', annotations: {} });
      assert.deepEqual(b.observedLease(), { holder: 'b', annotations: {} });
      bPublished = true;
      b.renewSoon();
      await waitFor('b publishes', () => (leaseOf('handover').annotations[ADDR] === '10.0.0.2:53' ? true : undefined));
    } finally {
      await b.stop(true);
    }
    assert.deepEqual(leaseOf('handover'), { holder: '', annotations: {} });
  });
});

interface ChartRbac {
  serviceAccount: { namespace: string; name: string };
  objects: Record<string, unknown>[];
}

const chart = JSON.parse(readFileSync(new URL('../conformance/external-dns/chart-rbac.json', import.meta.url), 'utf8')) as ChartRbac;
const SA_TOKEN = 'replica-token';
const TIMING = ['--leader-election-lease-duration=1500ms', '--leader-election-renew-deadline=1s', '--leader-election-retry-period=150ms'];
const FORBIDDEN_RETRY_MS = 200;

describe("leader election under RBAC (the replicas share the ServiceAccount of external-dns's chart)", () => {
  const ns = chart.serviceAccount.namespace;
  const sa = { kind: 'ServiceAccount', name: chart.serviceAccount.name, namespace: ns };
  const leaseRole = (verbs: string[]) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'leases', namespace: ns },
    rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs }],
  });
  let api: TestApiServer;
  let saDir: string;
  before(async () => {
    api = await startTestApiServer({
      namespaces: [ns],
      authorization: 'rbac',
      users: {
        [SA_TOKEN]: {
          name: `system:serviceaccount:${ns}:${sa.name}`,
          groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
        },
      },
      bookmarkIntervalMs: 200,
    });
    for (const o of chart.objects) api.create(o as never);
    saDir = mkdtempSync(join(tmpdir(), 'hw-lease-rbac-'));
    writeFileSync(join(saDir, 'namespace'), `${ns}\n`);
  });
  after(async () => {
    await api.stop();
    rmSync(saDir, { recursive: true, force: true });
  });

  /** A replica of `hostwarden run` in the cluster: the elector run-hooks builds from these args. */
  function replica(argv: string[], identity: string, name: string, logger = silentLogger()): { elector: LeaderElector; close(): Promise<void> } {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'test', server: api.url, skipTLSVerify: true }],
      users: [{ name: 'sa', token: SA_TOKEN }],
      contexts: [{ name: 'test', cluster: 'test', user: 'sa', namespace: ns }],
      currentContext: 'test',
    });
    const client = new KubeClient({ config: kc, logger: silentLogger() });
    const parsed = parseArgs([...argv, ...TIMING, `--leader-election-id=${name}`], {}, [...FLAGS, ...KUBE_FLAGS]);
    const elector = leaderElectorFromFlags(
      { flags: new FlagValues(parsed.values), explicit: parsed.explicit },
      {
        client,
        logger,
        inCluster: true,
        serviceAccountDir: saDir,
        defaultName: 'hostwarden-leader',
        identity,
        actAloneUnlessAsked: true,
        forbiddenRetryMs: FORBIDDEN_RETRY_MS,
      },
    );
    assert.ok(elector !== undefined, 'in a cluster election is on by default');
    elector.start();
    return {
      elector,
      close: async () => {
        await elector.stop(true);
        client.close();
      },
    };
  }

  /** Samples both replicas every 10 ms; `twice` counts the samples where both would apply. */
  function watchLeaders(a: LeaderElector, b: LeaderElector): { twice: number; stop(): void } {
    const seen = { twice: 0, stop: () => clearInterval(timer) };
    const timer = setInterval(() => {
      if (a.isLeader() && b.isLeader()) seen.twice++;
    }, 10);
    return seen;
  }

  const leaseWarnings = (lines: LogLine[], identity: string): LogLine[] =>
    lines.filter((l) => l.level === WARN && l['resource'] === 'leases' && l['identity'] === identity);

  test('(a) the chart role, --leader-elect not given: the first refusal means acting alone, with one warning', async () => {
    const { logger, lines } = capturingLogger();
    const r = replica([], 'solo', 'chart-default', logger);
    try {
      await waitFor('acting alone', () => (r.elector.isLeader() ? true : undefined));
      await sleep(4 * FORBIDDEN_RETRY_MS);
      assert.equal(r.elector.isLeader(), true, 'still applying while it asks again');
      const warned = leaseWarnings(lines, 'solo');
      assert.equal(warned.length, 1, JSON.stringify(warned));
      assert.deepEqual([warned[0]?.['verb'], warned[0]?.['namespace'], warned[0]?.['code']], ['get', ns, 'KUBE_LEASE_FORBIDDEN']);
      assert.ok(lines.filter((l) => l['msg'] === 'lease still forbidden' && l['identity'] === 'solo').length >= 2, 'it kept asking, quietly');
    } finally {
      await r.close();
    }
  });

  test('(b) the chart role with --leader-elect given: a refused Lease never means acting alone; one warning each', async () => {
    const { logger, lines } = capturingLogger();
    const a = replica(['--leader-elect'], 'a', 'chart-explicit', logger);
    const b = replica(['--leader-elect=true'], 'b', 'chart-explicit', logger);
    try {
      await waitFor('both refused', () => (leaseWarnings(lines, 'a').length > 0 && leaseWarnings(lines, 'b').length > 0 ? true : undefined));
      await sleep(4 * FORBIDDEN_RETRY_MS);
      assert.deepEqual([a.elector.isLeader(), b.elector.isLeader()], [false, false]);
      for (const id of ['a', 'b']) {
        const warned = leaseWarnings(lines, id);
        assert.deepEqual(
          warned.map((w) => w['verb']),
          ['get'],
          `${id}: ${JSON.stringify(warned)}`,
        );
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('(c) update revoked from a leader: it stops applying, the other cannot take over, never two leaders; (d) restored: election resumes', async () => {
    const { logger, lines } = capturingLogger();
    api.create({ ...leaseRole(['get', 'create', 'update']) } as never);
    api.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'leases', namespace: ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'leases' },
      subjects: [sa],
    } as never);
    const a = replica([], 'a', 'revoked', logger);
    let b: ReturnType<typeof replica> | undefined;
    let watch: ReturnType<typeof watchLeaders> | undefined;
    try {
      await waitFor('a leads', () => (a.elector.isLeader() ? true : undefined));
      b = replica([], 'b', 'revoked', logger);
      watch = watchLeaders(a.elector, b.elector);
      await sleep(3 * 150);
      assert.deepEqual([a.elector.isLeader(), b.elector.isLeader()], [true, false], 'b saw a holding the Lease');

      api.update(leaseRole(['get', 'create']) as never);
      const revokedAt = Date.now();
      await waitFor('a stops applying', () => (a.elector.isLeader() ? undefined : true), 5000);
      assert.ok(Date.now() - revokedAt <= 1000 + 2 * 150 + 300, `a stopped after ${Date.now() - revokedAt} ms`);
      // Longer than a lease duration: b would take over now if it could.
      await waitFor('b refused too', () => (leaseWarnings(lines, 'b').length > 0 ? true : undefined), 5000);
      await sleep(1500 + 4 * FORBIDDEN_RETRY_MS);
      assert.deepEqual([a.elector.isLeader(), b.elector.isLeader()], [false, false], 'nobody applies without the permission');
      for (const id of ['a', 'b']) {
        const warned = leaseWarnings(lines, id);
        assert.deepEqual(
          warned.map((w) => w['verb']),
          ['update'],
          `${id}: one warning, about update: ${JSON.stringify(warned)}`,
        );
      }
      assert.equal(leaseWarnings(lines, 'a')[0]?.['leading'], true);

      api.update(leaseRole(['get', 'create', 'update']) as never);
      const electors = [a.elector, b.elector];
      await waitFor('a leader again', () => (electors.some((e) => e.isLeader()) ? true : undefined), 5000);
      await sleep(1000);
      assert.equal(electors.filter((e) => e.isLeader()).length, 1, 'exactly one leader');
      assert.equal(watch.twice, 0, 'never two leaders at once');
    } finally {
      watch?.stop();
      await a.close();
      await b?.close();
    }
  });
});
