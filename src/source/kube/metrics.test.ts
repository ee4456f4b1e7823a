import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { Reflector } from '../../kube/reflector.ts';
import { NODES, SERVICES } from '../../kube/resource.ts';
import type { KubeObject, KubeResource } from '../../kube/resource.ts';
import { silentLogger } from '../../log.ts';
import { registerReflectorMetrics } from './metrics.ts';

function idle(resource: KubeResource): Reflector<KubeObject> {
  // Never started: only its counters are read.
  const client = { request: () => Promise.reject(new Error('unused')), watch: () => Promise.reject(new Error('unused')) };
  return new Reflector<KubeObject>({ client, resource, namespace: '', logger: silentLogger() });
}

describe('reflector metrics', () => {
  test('counters follow the reflector stats; several sources share one registry', async () => {
    const registry = new Registry();
    const services = idle(SERVICES);
    const nodes = idle(NODES);
    registerReflectorMetrics(registry, 'service', 'services', services);
    registerReflectorMetrics(registry, 'service', 'nodes', nodes);
    registerReflectorMetrics(registry, 'ingress', 'services', idle(SERVICES));
    services.stats.lists = 2;
    services.stats.gone = 1;
    nodes.stats.stalls = 3;
    let text = await registry.metrics();
    assert.match(text, /hostwarden_kube_reflector_lists_total\{source="service",resource="services"\} 2/);
    assert.match(text, /hostwarden_kube_reflector_gone_total\{source="service",resource="services"\} 1/);
    assert.match(text, /hostwarden_kube_reflector_stalls_total\{source="service",resource="nodes"\} 3/);
    assert.match(text, /hostwarden_kube_reflector_objects\{source="ingress",resource="services"\} 0/);
    assert.match(text, /hostwarden_kube_reflector_synced\{source="service",resource="nodes"\} 0/);
    assert.match(text, /# TYPE hostwarden_kube_reflector_failures_total counter/);
    // Scraping again reports totals, not the increments twice.
    services.stats.lists = 3;
    text = await registry.metrics();
    assert.match(text, /hostwarden_kube_reflector_lists_total\{source="service",resource="services"\} 3/);
  });
});
