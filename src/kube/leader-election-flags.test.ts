import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlagValues } from '../config/config.ts';
import { FLAGS } from '../config/flags.ts';
import { parseArgs } from '../config/parse.ts';
import { ConfigError } from '../errors.ts';
import { silentLogger } from '../log.ts';
import { KubeApiError } from './errors.ts';
import { KUBE_FLAGS } from './flags.ts';
import { leaderElectorFromFlags, leaseNamespace } from './leader-election.ts';

const client = { request: (): Promise<never> => Promise.reject(new Error('not called')) };

function cfg(argv: string[], env: Record<string, string> = {}): { flags: FlagValues; explicit: ReadonlySet<string> } {
  const parsed = parseArgs(argv, env, [...FLAGS, ...KUBE_FLAGS]);
  return { flags: new FlagValues(parsed.values), explicit: parsed.explicit };
}

describe('leaseNamespace', () => {
  test('the flag wins over everything', () => {
    assert.equal(leaseNamespace({ flag: 'ns-flag', serviceAccountNamespace: 'ns-sa', defaultNamespace: 'ns-op' }), 'ns-flag');
  });
  test('in a cluster, the service-account namespace comes before the component default', () => {
    assert.equal(leaseNamespace({ flag: '', serviceAccountNamespace: 'ns-sa', defaultNamespace: 'ns-op' }), 'ns-sa');
  });
  test('outside a cluster (or with an empty namespace file), the component default', () => {
    assert.equal(leaseNamespace({ flag: '', serviceAccountNamespace: undefined, defaultNamespace: 'ns-op' }), 'ns-op');
    assert.equal(leaseNamespace({ flag: '', serviceAccountNamespace: '', defaultNamespace: 'ns-op' }), 'ns-op');
  });
  test('with none of them, "default"', () => {
    assert.equal(leaseNamespace({ flag: '', serviceAccountNamespace: undefined }), 'default');
  });
});

describe('leaderElectorFromFlags', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hw-sa-'));
  writeFileSync(join(dir, 'namespace'), 'hostwarden-system\n');
  after(() => rmSync(dir, { recursive: true, force: true }));
  const base = { client, logger: silentLogger(), serviceAccountDir: dir };

  test('in a cluster it elects by default, in the Pod namespace, under the component Lease name', () => {
    const el = leaderElectorFromFlags(cfg([]), { ...base, inCluster: true, defaultName: 'hostwarden-x', defaultNamespace: 'ns-op' });
    assert.ok(el !== undefined);
    assert.deepEqual(el.lease, { namespace: 'hostwarden-system', name: 'hostwarden-x' });
  });

  test('outside a cluster it does not elect unless --leader-elect is given', () => {
    assert.equal(leaderElectorFromFlags(cfg([]), { ...base, inCluster: false, defaultName: 'x' }), undefined);
    assert.equal(leaderElectorFromFlags(cfg(['--leader-elect=false']), { ...base, inCluster: true, defaultName: 'x' }), undefined);
    const el = leaderElectorFromFlags(cfg(['--leader-elect']), { ...base, inCluster: false, defaultName: 'x', defaultNamespace: 'ns-op' });
    assert.deepEqual(el?.lease, { namespace: 'ns-op', name: 'x' });
  });

  test('--leader-election-namespace and --leader-election-id win', () => {
    const el = leaderElectorFromFlags(cfg(['--leader-elect', '--leader-election-namespace=ns-flag', '--leader-election-id=mine']), {
      ...base,
      inCluster: true,
      defaultName: 'x',
    });
    assert.deepEqual(el?.lease, { namespace: 'ns-flag', name: 'mine' });
  });

  test('a missing namespace file falls back to the component default', () => {
    const el = leaderElectorFromFlags(cfg([]), { ...base, serviceAccountDir: join(dir, 'absent'), inCluster: true, defaultName: 'x' });
    assert.deepEqual(el?.lease, { namespace: 'default', name: 'x' });
  });

  test('inconsistent timings are a ConfigError naming the flag', () => {
    assert.throws(
      () => leaderElectorFromFlags(cfg(['--leader-elect', '--leader-election-renew-deadline=20s']), { ...base, inCluster: false, defaultName: 'x' }),
      (err: unknown) => err instanceof ConfigError && /--leader-election-lease-duration/.test(err.message),
    );
  });
  test('acting alone on a refused Lease is for election on by default only: --leader-elect or its env var turns it off', async () => {
    const refusing = { request: (): Promise<never> => Promise.reject(new KubeApiError('leases is forbidden', 403, 'Forbidden')) };
    const actsAlone = async (c: ReturnType<typeof cfg>): Promise<boolean> => {
      const el = leaderElectorFromFlags(c, { ...base, client: refusing, inCluster: true, defaultName: 'x', actAloneUnlessAsked: true, forbiddenRetryMs: 10 });
      assert.ok(el !== undefined);
      el.start();
      await new Promise((r) => setTimeout(r, 50));
      const leads = el.isLeader();
      await el.stop(false);
      return leads;
    };
    assert.equal(await actsAlone(cfg([])), true);
    assert.equal(await actsAlone(cfg(['--leader-elect'])), false);
    assert.equal(await actsAlone(cfg([], { EXTERNAL_DNS_LEADER_ELECT: 'true' })), false);
  });
});
