/**
 * Leader election over a real Lease on the test API server, with short durations: only the
 * leader applies, a crashed leader is replaced within the lease duration, and a leader that
 * cannot renew stops applying by its renew deadline.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '../../src/kube/client.ts';
import { LeaderElector } from '../../src/kube/leader-election.ts';
import { SERVICES } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
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
