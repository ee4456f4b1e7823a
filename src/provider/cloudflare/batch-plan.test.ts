import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import { silentLogger } from '../../log.ts';
import { emptyChanges } from '../../plan/changes.ts';
import { sdkCloudflareApi } from './api.ts';
import type { CfBatch, CfBatchResult } from './api.ts';
import { planBatchLimit } from './batch.ts';
import { CloudflareProvider } from './cloudflare.ts';
import { FakeCloudflareApi } from '../../../test/support/cloudflare/fake-api.ts';

/** The fake API, remembering the size of every batch it was sent, per zone. */
class SizedBatches extends FakeCloudflareApi {
  readonly sizes = new Map<string, number[]>();
  override batch(zoneId: string, ops: CfBatch): Promise<CfBatchResult> {
    this.sizes.set(zoneId, [...(this.sizes.get(zoneId) ?? []), ops.deletes.length + ops.puts.length + ops.posts.length]);
    return super.batch(zoneId, ops);
  }
}

describe('batch size by the zone plan', () => {
  test('Free: 200; Pro, Business, Enterprise: 3,500; without a plan id, paid decides', () => {
    assert.equal(planBatchLimit({ plan: 'free', paid: true }), 200);
    for (const plan of ['pro', 'business', 'enterprise']) assert.equal(planBatchLimit({ plan, paid: false }), 3500);
    assert.equal(planBatchLimit({ paid: false }), 200);
    assert.equal(planBatchLimit({ paid: true }), 3500);
  });

  test("the zone list carries each zone's plan id (legacy_id) beside paid (is_subscribed)", async () => {
    const result = [
      { id: 'z1', name: 'free.example', plan: { legacy_id: 'free', is_subscribed: false } },
      { id: 'z2', name: 'pro.example', plan: { legacy_id: 'pro', is_subscribed: true } },
      { id: 'z3', name: 'old.example', plan: { is_subscribed: true } },
    ];
    const info = { page: 1, per_page: 50, count: 3, total_count: 3, total_pages: 1 };
    const fetch = (async () =>
      new Response(JSON.stringify({ success: true, errors: [], messages: [], result, result_info: info }), {
        headers: { 'content-type': 'application/json' },
      })) as unknown as typeof globalThis.fetch;
    const zones = await sdkCloudflareApi({ apiToken: 't', baseURL: 'http://127.0.0.1:9/client/v4', fetch }).listZones();
    assert.deepEqual(
      zones.map((z) => [z.name, z.plan, z.paid, planBatchLimit(z)]),
      [
        ['free.example', 'free', false, 200],
        ['pro.example', 'pro', true, 3500],
        ['old.example', undefined, true, 3500],
      ],
    );
  });

  test('--batch-change-size 1000 on an account with a Free and a Pro zone: 200 a batch on Free, 1,000 on Pro, no batch refused', async () => {
    const api = new SizedBatches();
    for (const [id, name, plan] of [
      ['free1', 'free.example', 'free'],
      ['pro1', 'pro.example', 'pro'],
    ] as const) {
      api.zones.push({ id, name, paid: plan !== 'free', plan });
      api.records.set(id, []);
    }
    const p = new CloudflareProvider({ api, logger: silentLogger(), batchChangeSize: 1000, batchChangeIntervalMs: 0 });
    await p.records();
    const create = ['free.example', 'pro.example'].flatMap((z) =>
      Array.from({ length: 1000 }, (_, i) => newEndpoint({ dnsName: `h${i}.${z}`, recordType: 'A', targets: ['192.0.2.1'] })),
    );
    await p.applyChanges({ ...emptyChanges(), create });
    assert.deepEqual(api.sizes.get('free1'), [200, 200, 200, 200, 200]);
    assert.deepEqual(api.sizes.get('pro1'), [1000]);
    assert.equal(api.count('createRecord'), 0, 'no batch was refused and replayed record by record');
    assert.equal(api.records.get('free1')?.length, 1000);
  });
});
