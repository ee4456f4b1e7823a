import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { resolveConfig } from '../config/config.ts';
import type { Config } from '../config/config.ts';
import { parseArgs } from '../config/parse.ts';
import { ConfigError } from '../errors.ts';
import { KubeClient } from '../kube/client.ts';
import { LeaderElector } from '../kube/leader-election.ts';
import { silentLogger } from '../log.ts';
import { ZoneStore } from '../provider/embedded/zone-store.ts';
import { startTestApiServer } from '../../test/support/kube-apiserver/server.ts';
import type { KubeRunHooks, RoleHooks } from './run-hooks.ts';
import { peerAddressOf, refreshMsOf, replicaSetOf } from './run-replicas.ts';

const choices = { sources: ['manifest', 'service'], providers: ['embedded', 'inmemory'] };
const config = (argv: string[]): Config => resolveConfig(parseArgs(argv, {}), choices);

function assertConfigError(fn: () => unknown, flag: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
    assert.equal(err.flag, flag);
    assert.ok(err.message.includes(flag), err.message);
    return true;
  });
}

describe('peerAddressOf', () => {
  test('the flag wins, as given', () => {
    const cfg = config(['--embedded-peer-address', 'pod-0.hw.ns.svc:5353', '--dns-listen', '0.0.0.0:53']);
    assert.equal(peerAddressOf(cfg, { POD_IP: '10.0.0.9' }), 'pod-0.hw.ns.svc:5353');
    assert.equal(peerAddressOf(config(['--embedded-peer-address', '[fd00::1]:53']), {}), '[fd00::1]:53');
  });

  test('a flag that is not host:port is a ConfigError naming it', () => {
    for (const bad of ['10.0.0.1', 'fd00::1:53', '10.0.0.1:0', 'a b:53'])
      assertConfigError(() => peerAddressOf(config(['--embedded-peer-address', bad]), {}), '--embedded-peer-address');
  });

  test('POD_IP (v4 or v6) with the port of the first --dns-listen', () => {
    const cfg = config(['--dns-listen', '0.0.0.0:5353', '--dns-listen', '[::]:53']);
    assert.equal(peerAddressOf(cfg, { POD_IP: '10.1.2.3' }), '10.1.2.3:5353');
    assert.equal(peerAddressOf(cfg, { POD_IP: ' fd00:10::7 ' }), '[fd00:10::7]:5353');
    assert.equal(peerAddressOf(config(['--dns-listen', '127.0.0.1:1053']), { POD_IP: '10.1.2.3' }), '10.1.2.3:1053', 'POD_IP before a specific host');
  });

  test('without POD_IP: a specific --dns-listen host, else undefined', () => {
    assert.equal(peerAddressOf(config(['--dns-listen', '192.0.2.10:53']), {}), '192.0.2.10:53');
    assert.equal(peerAddressOf(config(['--dns-listen', '[2001:db8::5]:53']), undefined), '[2001:db8::5]:53');
    for (const any of ['0.0.0.0:53', '[::]:53', ':53']) assert.equal(peerAddressOf(config(['--dns-listen', any]), { POD_IP: '' }), undefined, any);
  });
});

test('refreshMsOf: 250ms by default, between 10ms and 1h, else a ConfigError naming the flag', () => {
  assert.equal(refreshMsOf(config([])), 250);
  assert.equal(refreshMsOf(config(['--embedded-peer-refresh', '10ms'])), 10);
  assert.equal(refreshMsOf(config(['--embedded-peer-refresh', '1h'])), 3_600_000);
  for (const bad of ['9ms', '0s', '61m']) assertConfigError(() => refreshMsOf(config(['--embedded-peer-refresh', bad])), '--embedded-peer-refresh');
});

describe('replicaSetOf', () => {
  test('the leader writes its Lease once per retry period, not on every follower refresh', async () => {
    const api = await startTestApiServer();
    const client = new KubeClient({ config: api.kubeConfig(), logger: silentLogger() });
    const dir = await mkdtemp(join(tmpdir(), 'hostwarden-replicas-'));
    const store = new ZoneStore({ dataDir: dir, zones: ['example.org'], logger: silentLogger() });
    const stop = new AbortController();
    const hooks: { role?: RoleHooks } = {};
    const elector = new LeaderElector({
      client,
      logger: silentLogger(),
      namespace: 'default',
      name: 'replicas',
      identity: 'a',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 1000,
      annotations: () => hooks.role?.annotations() ?? {},
      onStartedLeading: () => hooks.role?.startedLeading(),
    });
    const kube = { elector, client, namespace: 'default', setRoleHooks: (h: RoleHooks) => void (hooks.role = h) } as unknown as KubeRunHooks;
    const cfg = config(['--embedded-peer-secret', '', '--embedded-peer-address', '127.0.0.1:5353', '--embedded-peer-refresh', '20ms']);
    await store.open();
    const set = await replicaSetOf(cfg, {
      kube,
      store,
      recorder: undefined,
      logger: silentLogger(),
      metrics: new Registry(),
      env: {},
      trigger: () => undefined,
      stopSignal: stop.signal,
    });
    const rv = (): number =>
      Number(
        (api.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'default', name: 'replicas' })?.['metadata'] as { resourceVersion: string })
          .resourceVersion,
      );
    try {
      elector.start();
      const until = Date.now() + 5000;
      while (!elector.isLeader() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(elector.isLeader(), true);
      set.start();
      const before = rv();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      // Each refresh (every 20 ms) would be a write if the leader's follower woke its elector.
      assert.ok(rv() - before <= 2, `${rv() - before} Lease writes in 1.5 s`);
    } finally {
      stop.abort();
      await set.stop();
      await elector.stop(false);
      await store.close();
      client.close();
      await api.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
