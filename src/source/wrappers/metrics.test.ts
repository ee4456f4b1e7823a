import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry as MetricsRegistry } from 'prom-client';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { InvalidEndpoint, Source } from '../source.ts';
import { DedupSource } from './dedup-source.ts';
import { SourceChainMetrics, sourceTypeOf } from './metrics.ts';
import { MultiSource } from './multi-source.ts';

class ListSource implements Source {
  constructor(
    readonly name: string,
    public items: Endpoint[],
    public invalid: InvalidEndpoint[] = [],
  ) {}
  async endpoints(): Promise<Endpoint[]> {
    return this.items;
  }
  invalidEndpoints(): InvalidEndpoint[] {
    return this.invalid;
  }
  addEventHandler(): () => void {
    return () => undefined;
  }
}

async function series(metrics: MetricsRegistry, name: string): Promise<string[]> {
  const m = (await metrics.getMetricsAsJSON()).find((x) => x.name === name);
  return (m?.values ?? []).map((v) => `${String(v.labels['record_type'])}/${String(v.labels['source_type'])}=${v.value}`).sort();
}

const web = newEndpoint({ dnsName: 'www.example.org', recordType: 'A', targets: ['192.0.2.1'], labels: { resource: 'service/default/web' } });

test('the dedup wrapper reports invalid and duplicate endpoints of the last call, by type and source', async () => {
  const metrics = new MetricsRegistry();
  const svc = new ListSource('service', [web, newEndpoint(web), newEndpoint(web)], [{ recordType: 'CNAME', sourceType: 'service' }]);
  const ing = new ListSource('ingress', [newEndpoint({ ...web, labels: { resource: 'ingress/default/web' } })], [{ recordType: 'A', sourceType: 'ingress' }]);
  const dedup = new DedupSource({ source: new MultiSource({ sources: [svc, ing] }), metrics: new SourceChainMetrics(metrics) });
  assert.equal((await dedup.endpoints()).length, 2, 'the ingress endpoint is another object asking for the same record: kept for the planner');
  assert.deepEqual(await series(metrics, 'external_dns_source_deduplicated_endpoints'), ['a/service=2']);
  assert.deepEqual(await series(metrics, 'external_dns_source_invalid_endpoints'), ['a/ingress=1', 'cname/service=1']);
  svc.items = [web];
  svc.invalid = [];
  await dedup.endpoints();
  assert.deepEqual(await series(metrics, 'external_dns_source_deduplicated_endpoints'), [], 'a gauge of the current state, not a total');
  assert.deepEqual(await series(metrics, 'external_dns_source_invalid_endpoints'), ['a/ingress=1']);
});

test('sourceTypeOf reads the kind from the resource label, unknown without one', () => {
  assert.equal(sourceTypeOf(web), 'service');
  assert.equal(sourceTypeOf(newEndpoint({ ...web, labels: {} })), 'unknown');
});
