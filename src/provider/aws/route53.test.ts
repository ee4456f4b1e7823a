import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Change, HostedZone, ResourceRecordSet } from '@aws-sdk/client-route-53';
import { DomainFilter } from '../../endpoint/domain-filter.ts';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import { silentLogger } from '../../log.ts';
import { emptyChanges } from '../../plan/changes.ts';
import type { Route53Port } from './api.ts';
import { ROUTE53_LIMITS } from './batch.ts';
import { Route53Provider } from './route53.ts';
import type { Route53Settings } from './settings.ts';

/** Two zones in memory; counts calls and the most requests in flight for one zone. */
class FakeRoute53 implements Route53Port {
  lists = 0;
  changes: { zone: string; changes: Change[] }[] = [];
  maxInFlight = 0;
  private inFlight = new Map<string, number>();
  sets = new Map<string, ResourceRecordSet[]>([
    ['Z1', [{ Name: 'a.example.org.', Type: 'A', TTL: 60, ResourceRecords: [{ Value: '192.0.2.1' }] }]],
    ['Z2', []],
  ]);

  async listHostedZones(): Promise<HostedZone[]> {
    return [
      { Id: '/hostedzone/Z1', Name: 'example.org.', CallerReference: '1', Config: { PrivateZone: false } },
      { Id: '/hostedzone/Z2', Name: 'example.net.', CallerReference: '2', Config: { PrivateZone: true } },
    ];
  }
  async zoneTags(): Promise<Record<string, string>> {
    return {};
  }
  async listRecordSets(zoneId: string): Promise<ResourceRecordSet[]> {
    this.lists++;
    return [...(this.sets.get(zoneId) ?? [])];
  }
  async changeRecordSets(zoneId: string, changes: Change[]): Promise<void> {
    const n = (this.inFlight.get(zoneId) ?? 0) + 1;
    this.inFlight.set(zoneId, n);
    this.maxInFlight = Math.max(this.maxInFlight, n);
    await new Promise((resolve) => setImmediate(resolve));
    this.changes.push({ zone: zoneId, changes });
    this.inFlight.set(zoneId, n - 1);
  }
}

function settings(over: Partial<Route53Settings> = {}): Route53Settings {
  return {
    filters: { zoneType: '', zoneIds: [], zoneNames: [], tags: [], domainFilter: new DomainFilter() },
    limits: ROUTE53_LIMITS,
    batchIntervalMs: 1000,
    zonesCacheMs: 0,
    recordsCacheMs: 60_000,
    evaluateTargetHealth: true,
    preferCNAME: false,
    ...over,
  };
}

describe('Route53Provider', () => {
  test('records are cached until the cache duration passes, and handed out as fresh objects', async () => {
    let now = 0;
    const api = new FakeRoute53();
    const provider = new Route53Provider({ api, logger: silentLogger(), settings: settings(), now: () => now });
    const first = await provider.records();
    assert.equal(api.lists, 2);
    (first[0] as { targets: string[] }).targets.push('mutated');
    now = 59_000;
    const second = await provider.records();
    assert.equal(api.lists, 2);
    assert.deepEqual(second.find((r) => r.dnsName === 'a.example.org')?.targets, ['192.0.2.1']);
    now = 60_000;
    await provider.records();
    assert.equal(api.lists, 4);
  });

  test('one request in flight per zone, the batch interval between them; zones proceed side by side', async () => {
    const api = new FakeRoute53();
    const sleeps: number[] = [];
    const provider = new Route53Provider({
      api,
      logger: silentLogger(),
      settings: settings({ limits: { changes: 2, bytes: 32_000, values: 1000 } }),
      sleep: async (ms) => void sleeps.push(ms),
    });
    await provider.records();
    const create = [...Array.from({ length: 5 }, (_, i) => `n${i}.example.org`), ...Array.from({ length: 3 }, (_, i) => `n${i}.example.net`)].map((dnsName) =>
      newEndpoint({ dnsName, recordType: 'A', targets: ['192.0.2.9'] }),
    );
    await provider.applyChanges({ ...emptyChanges(), create });
    assert.equal(api.changes.filter((c) => c.zone === 'Z1').length, 3);
    assert.equal(api.changes.filter((c) => c.zone === 'Z2').length, 2);
    assert.equal(api.maxInFlight, 1);
    assert.deepEqual(sleeps, [1000, 1000, 1000]);
    // Written changes are in the cache: the next sync needs no listing.
    const lists = api.lists;
    assert.equal((await provider.records()).filter((r) => r.dnsName.startsWith('n')).length, 8);
    assert.equal(api.lists, lists);
  });

  test('records outside every zone are reported, not sent', async () => {
    const api = new FakeRoute53();
    const provider = new Route53Provider({ api, logger: silentLogger(), settings: settings() });
    await assert.rejects(
      provider.applyChanges({ ...emptyChanges(), create: [newEndpoint({ dnsName: 'x.example.com', recordType: 'A', targets: ['192.0.2.1'] })] }),
      /x\.example\.com A: no hosted zone contains it/,
    );
    assert.equal(api.changes.length, 0);
  });
  test('alias record sets are listed as A and AAAA endpoints; an alias ↔ plain A update is a DELETE and a CREATE', async () => {
    const api = new FakeRoute53();
    const elb = 'k8s-web-1.us-east-1.elb.amazonaws.com.';
    const alias = (type: 'A' | 'AAAA'): ResourceRecordSet => ({
      Name: 'shop.example.org.',
      Type: type,
      AliasTarget: { HostedZoneId: 'Z35SXDOTRQ7X7K', DNSName: elb, EvaluateTargetHealth: false },
    });
    api.sets.set('Z1', [alias('A'), alias('AAAA')]);
    const provider = new Route53Provider({ api, logger: silentLogger(), settings: settings(), sleep: async () => {} });
    const records = await provider.records();
    assert.deepEqual(
      records.map((r) => [r.recordType, r.targets[0], r.recordTTL, r.providerSpecific.map((p) => `${p.name}=${p.value}`).join(',')]),
      [
        ['A', 'k8s-web-1.us-east-1.elb.amazonaws.com', 300, 'alias=true,aws/evaluate-target-health=false'],
        ['AAAA', 'k8s-web-1.us-east-1.elb.amazonaws.com', 300, 'alias=true,aws/evaluate-target-health=false'],
      ],
    );
    const old = records[0];
    assert.ok(old !== undefined);
    const plain = newEndpoint({ dnsName: 'shop.example.org', recordType: 'A', targets: ['192.0.2.7'] });
    await provider.applyChanges({ ...emptyChanges(), updateOld: [old], updateNew: [plain] });
    assert.deepEqual(
      api.changes.flatMap((c) =>
        c.changes.map((x) => `${x.Action} ${x.ResourceRecordSet?.Type} ${x.ResourceRecordSet?.AliasTarget === undefined ? 'plain' : 'alias'}`),
      ),
      ['DELETE A alias', 'CREATE A plain'],
    );
    // The DELETE names the record set as Route53 listed it.
    assert.deepEqual(api.changes[0]?.changes[0]?.ResourceRecordSet, alias('A'));
  });
});
