import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { AwsAccessDeniedError } from '../aws/errors.ts';
import { ProviderError } from '../errors.ts';
import { KubeApiError } from '../kube/errors.ts';
import { silentLogger } from '../log.ts';
import { OperandStatusReporter, authorizationCondition } from './operand-status.ts';
import type { ExternalDNS } from './types.ts';

/** One ExternalDNS object behind GET and a merge patch of /status, with optimistic concurrency. */
function fakeApi(conflicts = 0): { client: { request: <T>(m: string, p: string, s?: { body?: unknown }) => Promise<T> }; obj: ExternalDNS; patches: number } {
  const state = { obj: { metadata: { name: 'x', resourceVersion: '1', generation: 3 }, status: { conditions: [] } } as ExternalDNS, patches: 0, conflicts };
  const client = {
    request: async <T>(method: string, path: string, spec?: { body?: unknown }): Promise<T> => {
      if (method === 'GET') return structuredClone(state.obj) as T;
      assert.equal(method, 'PATCH');
      assert.ok(path.endsWith('/externaldnses/x/status'));
      const body = spec?.body as { metadata: { resourceVersion: string }; status: ExternalDNS['status'] };
      if (state.conflicts-- > 0) throw new KubeApiError('conflict', 409, 'Conflict');
      assert.equal(body.metadata.resourceVersion, state.obj.metadata.resourceVersion);
      state.patches++;
      state.obj = {
        ...state.obj,
        metadata: { ...state.obj.metadata, resourceVersion: String(Number(state.obj.metadata.resourceVersion) + 1) },
        status: { ...state.obj.status, ...body.status },
      };
      return structuredClone(state.obj) as T;
    },
  };
  return Object.defineProperties({ client } as { client: typeof client; obj: ExternalDNS; patches: number }, {
    obj: { get: () => state.obj },
    patches: { get: () => state.patches },
  });
}

const denied = new AwsAccessDeniedError('aws', 'access denied: route53:ListHostedZones for role arn:aws:iam::123456789012:role/dns (AccessDenied: no)', {
  action: 'route53:ListHostedZones',
  role: 'arn:aws:iam::123456789012:role/dns',
});

describe('operand status reporter', () => {
  test('AccessDenied names the role and the action; other failures are not about authorization', () => {
    assert.deepEqual(authorizationCondition(denied), {
      type: 'ProviderAuthorized',
      status: 'False',
      reason: 'AccessDenied',
      message:
        'role arn:aws:iam::123456789012:role/dns is not allowed route53:ListHostedZones: access denied: route53:ListHostedZones for role arn:aws:iam::123456789012:role/dns (AccessDenied: no)',
    });
    assert.equal(authorizationCondition(new ProviderError('aws', 'throttled', { transient: true })), undefined);
    assert.equal(authorizationCondition('boom'), undefined);
  });

  test('writes on change only; True after a success, False after a refusal; retries a conflict', async () => {
    const api = fakeApi(1);
    const r = new OperandStatusReporter({ client: api.client, name: 'x', logger: silentLogger(), now: () => new Date('2026-01-01T00:00:00Z') });
    r.onSyncFailed(denied);
    r.onSyncFailed(denied);
    r.onSyncFailed(new Error('network down'));
    await r.flush();
    assert.equal(api.patches, 1);
    const c = api.obj.status?.conditions?.[0];
    assert.deepEqual([c?.status, c?.reason, c?.observedGeneration, c?.lastTransitionTime], ['False', 'AccessDenied', 3, '2026-01-01T00:00:00.000Z']);
    r.onSynced();
    r.onSynced();
    await r.flush();
    assert.equal(api.patches, 2);
    assert.equal(api.obj.status?.conditions?.[0]?.status, 'True');
  });
});
