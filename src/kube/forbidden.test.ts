/**
 * A service account without permission on Events or Leases (external-dns's chart grants neither):
 * the Events recorder and the leader elector degrade with one warning per missing permission.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WARN, capturingLogger } from '../../test/support/log-capture.ts';
import { KubeApiError } from './errors.ts';
import { EventRecorder } from './events.ts';
import { HostwardenError } from '../errors.ts';
import { LeaderElector, LeaseForbidden } from './leader-election.ts';

const DEBUG = 20;
const forbidden = (): KubeApiError => new KubeApiError('leases.coordination.k8s.io "x" is forbidden: User "sa" cannot get resource "leases"', 403, 'Forbidden');
const obj = (namespace: string, name: string) => ({ apiVersion: 'v1', kind: 'Service', namespace, name });

describe('Events without permission', () => {
  test('one warning for the missing permission, later namespaces at debug; Events are dropped without a request until the retry time', async () => {
    const { logger, lines } = capturingLogger();
    const calls: string[] = [];
    let allowed = false;
    let now = 1_000_000;
    const recorder = new EventRecorder({
      client: {
        request: async (_method: string, path: string) => {
          calls.push(path);
          if (!allowed) throw forbidden();
          return {} as never;
        },
      } as never,
      logger,
      instance: 'me',
      now: () => new Date(now),
      forbiddenRetryMs: 60_000,
    });
    for (let i = 0; i < 20; i++) recorder.record(obj('default', `svc-${i}`), 'Normal', 'RecordReady', 'ok');
    recorder.record(obj('team-a', 'svc'), 'Normal', 'RecordReady', 'ok');
    await recorder.flush();
    const warnings = lines.filter((l) => l.level === WARN);
    assert.deepEqual(
      warnings.map((w) => [w['verb'], w['resource'], w['apiGroup'], w['namespace'], w['feature']]),
      [['create', 'events', 'events.k8s.io', 'default', 'Kubernetes Events about DNS records']],
    );
    assert.deepEqual(
      lines.filter((l) => l.level === DEBUG && l['resource'] === 'events').map((l) => l['namespace']),
      ['team-a'],
      'a second namespace refusing is logged once, at debug level',
    );
    assert.ok(calls.length <= 5, `${calls.length} requests: the first answers stop the rest`);
    assert.equal(recorder.stats.failed, 0, 'a missing permission is not a failure');

    const before = calls.length;
    recorder.record(obj('default', 'again'), 'Normal', 'RecordReady', 'ok');
    await recorder.flush();
    assert.equal(calls.length, before, 'still within the retry time: no request');

    now += 61_000;
    allowed = true;
    recorder.record(obj('default', 'later'), 'Normal', 'RecordReady', 'ok');
    await recorder.flush();
    assert.equal(recorder.stats.sent, 1, 'written once the permission is there');
    assert.equal(lines.filter((l) => l.level === WARN).length, 1, 'no further warnings');
  });
});

describe('leader election without permission on Leases', () => {
  test('warns once, counts as leader (election off) and asks again quietly', async () => {
    const { logger, lines } = capturingLogger();
    let requests = 0;
    let started = 0;
    const elector = new LeaderElector({
      client: {
        request: async () => {
          requests++;
          throw forbidden();
        },
      } as never,
      logger,
      namespace: 'dns',
      name: 'hostwarden-leader',
      identity: 'me',
      leaseDurationMs: 300,
      renewDeadlineMs: 200,
      retryPeriodMs: 20,
      forbiddenRetryMs: 10,
      actAloneWhenForbidden: true,
      onStartedLeading: () => started++,
    });
    assert.equal(elector.isLeader(), false);
    elector.start();
    const deadline = Date.now() + 3000;
    while (requests < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.equal(elector.isLeader(), true, 'applies as the only replica');
    assert.equal(started, 1, 'the waiting sync is triggered once');
    await elector.stop(true);
    assert.ok(requests >= 5);
    const warnings = lines.filter((l) => l.level === WARN);
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.deepEqual(
      [warnings[0]?.['verb'], warnings[0]?.['resource'], warnings[0]?.['apiGroup'], warnings[0]?.['namespace'], warnings[0]?.['feature']],
      ['get', 'leases', 'coordination.k8s.io', 'dns', 'leader election'],
    );
  });

  test('without actAloneWhenForbidden (the controllers) a replica does not lead, and still warns once', async () => {
    const { logger, lines } = capturingLogger();
    let requests = 0;
    let started = 0;
    const elector = new LeaderElector({
      client: {
        request: async () => {
          requests++;
          throw forbidden();
        },
      } as never,
      logger,
      namespace: 'dns',
      name: 'controller-leader',
      identity: 'me',
      leaseDurationMs: 300,
      renewDeadlineMs: 200,
      retryPeriodMs: 20,
      forbiddenRetryMs: 10,
      onStartedLeading: () => started++,
    });
    elector.start();
    const deadline = Date.now() + 3000;
    while (requests < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.equal(elector.isLeader(), false);
    assert.equal(started, 0);
    await elector.stop(true);
    assert.equal(lines.filter((l) => l.level === WARN).length, 1);
  });

  test('takes part in the election again once the Lease answers', async () => {
    const { logger } = capturingLogger();
    let forbid = true;
    const leases = new Map<string, unknown>();
    const elector = new LeaderElector({
      client: {
        request: async (method: string, path: string, opts?: { body?: unknown }) => {
          if (forbid) throw forbidden();
          if (method === 'GET') {
            const l = leases.get(path);
            if (l === undefined) throw new KubeApiError('not found', 404, 'NotFound');
            return l as never;
          }
          leases.set(method === 'POST' ? `${path}/hostwarden-leader` : path, {
            ...(opts?.body as object),
            metadata: { name: 'hostwarden-leader', resourceVersion: '1' },
          });
          return {} as never;
        },
      } as never,
      logger,
      namespace: 'dns',
      name: 'hostwarden-leader',
      identity: 'me',
      leaseDurationMs: 300,
      renewDeadlineMs: 200,
      retryPeriodMs: 20,
      forbiddenRetryMs: 10,
      actAloneWhenForbidden: true,
    });
    elector.start();
    const wait = async (cond: () => boolean): Promise<void> => {
      const deadline = Date.now() + 3000;
      while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    };
    await wait(() => elector.isLeader());
    forbid = false;
    await wait(() => leases.size > 0);
    assert.equal(leases.size, 1, 'the Lease was created');
    assert.equal(elector.isLeader(), true, 'and is held');
    await elector.stop(false);
  });
  test('a replica that was allowed a Lease request never acts alone on a later 403: it stops applying and warns once', async () => {
    const { logger, lines } = capturingLogger();
    let forbidUpdate = false;
    let stopped = 0;
    let lease: Record<string, unknown> | undefined;
    const elector = new LeaderElector({
      client: {
        request: async (method: string, _path: string, opts?: { body?: unknown }) => {
          if (method === 'GET') {
            if (lease === undefined) throw new KubeApiError('not found', 404, 'NotFound');
            return lease as never;
          }
          if (method === 'PUT' && forbidUpdate) throw forbidden();
          lease = { ...(opts?.body as object), metadata: { name: 'hostwarden-leader', resourceVersion: '1' } };
          return {} as never;
        },
      } as never,
      logger,
      namespace: 'dns',
      name: 'hostwarden-leader',
      identity: 'me',
      leaseDurationMs: 300,
      renewDeadlineMs: 200,
      retryPeriodMs: 20,
      forbiddenRetryMs: 10,
      actAloneWhenForbidden: true,
      onStoppedLeading: () => stopped++,
    });
    elector.start();
    const wait = async (cond: () => boolean): Promise<void> => {
      const deadline = Date.now() + 3000;
      while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    };
    await wait(() => elector.isLeader());
    assert.equal(elector.isLeader(), true);
    forbidUpdate = true;
    await wait(() => !elector.isLeader());
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(elector.isLeader(), false, 'does not apply');
    assert.equal(stopped, 1);
    await elector.stop(false);
    const warnings = lines.filter((l) => l.level === WARN);
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.deepEqual([warnings[0]?.['verb'], warnings[0]?.['leading'], warnings[0]?.['code']], ['update', true, 'KUBE_LEASE_FORBIDDEN']);
  });

  test('LeaseForbidden is a typed, transient error of the code registry', () => {
    const err = new LeaseForbidden('get', forbidden());
    assert.ok(err instanceof HostwardenError);
    assert.equal(err.code, 'KUBE_LEASE_FORBIDDEN');
    assert.equal(err.transient, true);
    assert.equal(err.verb, 'get');
  });
});
