/** The replica set's TSIG key in its Secret, against the test API server (RBAC on for the limited user). */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { HostwardenError } from '../../errors.ts';
import { KubeClient } from '../../kube/client.ts';
import type { RequestSpec } from '../../kube/client.ts';
import { silentLogger } from '../../log.ts';
import { startTestApiServer } from '../../../test/support/kube-apiserver/server.ts';
import type { TestApiServer } from '../../../test/support/kube-apiserver/server.ts';
import { PEER_KEY_NAME, loadOrCreatePeerKey } from './peer-key.ts';

const NS = 'hw';
const LIMITED = 'limited-token';
const bytes = (fill: number) => (n: number) => Buffer.alloc(n, fill);
const never = (): Buffer => assert.fail('no new key may be made');

describe('loadOrCreatePeerKey', () => {
  let api: TestApiServer;
  let admin: KubeClient;
  let limited: KubeClient;
  before(async () => {
    api = await startTestApiServer({
      namespaces: [NS],
      authorization: 'rbac',
      users: { [LIMITED]: { name: `system:serviceaccount:${NS}:hostwarden`, groups: ['system:serviceaccounts', 'system:authenticated'] } },
    });
    admin = new KubeClient({ config: api.kubeConfig(NS), logger: silentLogger() });
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'test', server: api.url, skipTLSVerify: true }],
      users: [{ name: 'sa', token: LIMITED }],
      contexts: [{ name: 'test', cluster: 'test', user: 'sa', namespace: NS }],
      currentContext: 'test',
    });
    limited = new KubeClient({ config: kc, logger: silentLogger() });
  });
  after(async () => {
    admin.close();
    limited.close();
    await api.stop();
  });

  const secretData = (name: string): Record<string, string> | undefined =>
    (api.get({ apiVersion: 'v1', kind: 'Secret', namespace: NS, name }) as { data?: Record<string, string> } | undefined)?.data;

  /** Rejects with a HostwardenError whose message matches and never holds `secret`. */
  async function rejectsWith(p: Promise<unknown>, pattern: RegExp, secret?: Buffer): Promise<void> {
    await assert.rejects(p, (err: unknown) => {
      assert.ok(err instanceof HostwardenError, String(err));
      assert.equal(err.code, 'EMBEDDED_PEER_KEY');
      assert.match(err.message, pattern);
      if (secret !== undefined) {
        const text = `${err.message} ${String((err as Error).cause)} ${err.stack ?? ''}`;
        for (const form of [secret.toString('base64'), secret.toString('hex'), secret.toString('latin1')])
          assert.ok(!text.includes(form), `the secret leaked: ${text}`);
      }
      return true;
    });
  }

  test('creates the Secret when missing, and every later call reads the same key', async () => {
    const key = await loadOrCreatePeerKey({ client: admin, namespace: NS, name: 'made', random: bytes(7) });
    assert.deepEqual(key, { name: PEER_KEY_NAME, algorithm: 'hmac-sha256', secret: Buffer.alloc(32, 7) });
    assert.equal(secretData('made')?.['secret'], Buffer.alloc(32, 7).toString('base64'));
    assert.equal(Buffer.from(secretData('made')?.['algorithm'] ?? '', 'base64').toString(), 'hmac-sha256');
    assert.deepEqual(await loadOrCreatePeerKey({ client: admin, namespace: NS, name: 'made', random: never }), key);
  });

  test('two replicas starting together agree on one key (the second create gets 409 and reads)', async () => {
    // Both reads answer 404 before either creates: the race the 409 path is for.
    const waiting: (() => void)[] = [];
    const gets = { n: 0 };
    const racing = {
      request<T>(method: string, path: string, spec?: RequestSpec): Promise<T> {
        const answer = admin.request<T>(method, path, spec);
        if (method !== 'GET' || ++gets.n > 2) return answer;
        return answer.then(
          (v) => v,
          async (err: unknown) => {
            await new Promise<void>((resolve) => {
              waiting.push(resolve);
              if (waiting.length === 2) for (const w of waiting.splice(0)) w();
            });
            throw err;
          },
        );
      },
    };
    const [a, b] = await Promise.all([
      loadOrCreatePeerKey({ client: racing, namespace: NS, name: 'raced', random: bytes(1) }),
      loadOrCreatePeerKey({ client: racing, namespace: NS, name: 'raced', random: bytes(2) }),
    ]);
    assert.deepEqual(a, b);
    assert.equal(gets.n, 3, 'two reads, and one more after the 409');
    assert.equal(secretData('raced')?.['secret'], a.secret.toString('base64'));
  });

  test('a secret shorter than 16 bytes, or an unknown algorithm, is a clear error that does not show it', async () => {
    const short = Buffer.from('0123456789');
    api.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'short', namespace: NS }, data: { secret: short.toString('base64') } });
    await rejectsWith(
      loadOrCreatePeerKey({ client: admin, namespace: NS, name: 'short', random: never }),
      /secret hw\/short: data\.secret must hold at least 16 bytes/,
      short,
    );
    const long = Buffer.alloc(32, 0x41);
    api.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'md5', namespace: NS },
      data: { secret: long.toString('base64'), algorithm: Buffer.from('hmac-md5').toString('base64') },
    });
    await rejectsWith(
      loadOrCreatePeerKey({ client: admin, namespace: NS, name: 'md5', random: never }),
      /secret hw\/md5: data\.algorithm must be hmac-sha256 or hmac-sha512/,
      long,
    );
  });

  test('a refusal (403) names the verb and what to grant, and never shows the secret', async () => {
    await rejectsWith(
      loadOrCreatePeerKey({ client: limited, namespace: NS, name: 'made', random: never }),
      /cannot get secret hw\/made: .*grant get on secrets/,
      Buffer.alloc(32, 7),
    );
    api.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'peer-key', namespace: NS },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['made', 'not-yet'] }],
    });
    api.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'peer-key', namespace: NS },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'peer-key' },
      subjects: [{ kind: 'ServiceAccount', name: 'hostwarden', namespace: NS }],
    });
    assert.deepEqual(
      (await loadOrCreatePeerKey({ client: limited, namespace: NS, name: 'made', random: never })).secret,
      Buffer.alloc(32, 7),
      'get by name is enough to read',
    );
    const fresh = Buffer.alloc(32, 9);
    await rejectsWith(
      loadOrCreatePeerKey({ client: limited, namespace: NS, name: 'not-yet', random: () => fresh }),
      /cannot create secret hw\/not-yet: .*grant create on secrets/,
      fresh,
    );
    assert.equal(secretData('not-yet'), undefined);
  });
});
