/**
 * The ambassador-host source end to end: Emissary Hosts (the CRD restated from Emissary's API
 * types) and Services written to the test API server, read back by the real reflectors, synced by
 * the controller into the inmemory provider. Covers create, a Service's new load balancer, a
 * rename, two Hosts asking for one name (merged), delete, Hosts whose annotation is bad or names a
 * missing Service (reported, skipped, the rest syncing), Events on the Host, and a source started
 * before the Host CRD exists.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AMBASSADOR_HOSTS, SERVICES } from '../../src/kube/resource.ts';
import { ambassadorHostSource } from '../../src/source/kube/ambassador-host.ts';
import { kubeSourceFromConfig } from '../../src/source/kube/factory.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { loadCrd } from '../support/crds/load.ts';
import { eventsFor, waitFor } from './harness.ts';
import { assertStartsOnceCrdsExist, configFromFlags, syncPipeline, until, useTestApiServer } from './source-harness.ts';

const SERVICE = 'external-dns.ambassador-service';
const TTL = 'external-dns.kubernetes.io/ttl';
const TARGET = 'external-dns.kubernetes.io/target';
const CRD = (): ReturnType<typeof loadCrd> => loadCrd('ambassador', 'hosts.getambassador.io');

describe('ambassador-host source against the test API server', () => {
  const suite = useTestApiServer({ namespaces: ['edge', 'apps'], crds: [CRD()] });

  const loadBalancer = async (ip: string): Promise<void> => {
    await suite.kube.patch(SERVICES, 'edge', 'ambassador', { status: { loadBalancer: { ingress: [{ ip }] } } }, 'status');
  };
  const createHost = (name: string, hostname: string, annotations: Record<string, string>): Promise<unknown> =>
    suite.kube.create(AMBASSADOR_HOSTS, {
      metadata: { name, namespace: 'apps', annotations },
      spec: { hostname, ambassador_id: ['default'], acmeProvider: { authority: 'none' } },
    });

  test('built from flags: create, load-balancer change, rename, merge, delete; bad Hosts reported and skipped; Events on the Host', async () => {
    await suite.kube.create(SERVICES, { metadata: { name: 'ambassador', namespace: 'edge' }, spec: { type: 'LoadBalancer', ports: [{ port: 443 }] } });
    await loadBalancer('192.0.2.1');
    await createHost('a', 'a.example.org', { [SERVICE]: 'edge/ambassador' });
    await createHost('b', 'b.example.org', { [SERVICE]: 'ambassador.edge', [TTL]: '300' });
    // Another Host asking for a.example.org: one record with both targets.
    await createHost('a-too', 'a.example.org', { [SERVICE]: 'edge/ambassador', [TARGET]: '192.0.2.9' });
    // Without the annotation a Host is not external-dns's.
    await createHost('plain', 'plain.example.org', {});

    const cfg = configFromFlags(['--source', 'ambassador-host', '--kubeconfig', suite.kubeconfig]);
    const problems: SourceProblem[] = [];
    const source = kubeSourceFromConfig('ambassador-host', cfg, { logger: suite.logger, onProblem: (p) => problems.push(p) });
    const { records, close } = syncPipeline(source, suite.writer, suite.logger);
    suite.closeAfter(close);
    await until('first sync', records, ['a.example.org A 192.0.2.1,192.0.2.9 0', 'b.example.org A 192.0.2.1 300']);
    assert.equal(source.objectCount(), 4);

    // The Service's load balancer moves: the Hosts that read it follow.
    await loadBalancer('192.0.2.2');
    await until('new load balancer', records, ['a.example.org A 192.0.2.2,192.0.2.9 0', 'b.example.org A 192.0.2.2 300']);

    // Renamed.
    await suite.kube.patch(AMBASSADOR_HOSTS, 'apps', 'b', { spec: { hostname: 'b2.example.org' } });
    await until('rename', records, ['a.example.org A 192.0.2.2,192.0.2.9 0', 'b2.example.org A 192.0.2.2 300']);

    // Bad Hosts: an unparseable annotation and a missing Service are reported; the rest sync.
    await createHost('bad', 'bad.example.org', { [SERVICE]: 'edge/ambassador/extra' });
    await createHost('lost', 'lost.example.org', { [SERVICE]: 'edge/nothing' });
    await waitFor('problems naming the bad Hosts', () =>
      problems.some((p) => /^Host\/apps\/bad: .*invalid external-dns service/.test(p.message)) &&
      problems.some((p) => /^Host\/apps\/lost: Service edge\/nothing .*not found/.test(p.message))
        ? true
        : undefined,
    );
    // The Service appears: the Host that named it publishes.
    await suite.kube.create(SERVICES, { metadata: { name: 'nothing', namespace: 'edge' }, spec: { type: 'LoadBalancer', ports: [{ port: 443 }] } });
    await suite.kube.patch(SERVICES, 'edge', 'nothing', { status: { loadBalancer: { ingress: [{ hostname: 'lb.example.net' }] } } }, 'status');
    await until('the missing Service appears', records, [
      'a.example.org A 192.0.2.2,192.0.2.9 0',
      'b2.example.org A 192.0.2.2 300',
      'lost.example.org CNAME lb.example.net 0',
    ]);

    const ready = await waitFor('a RecordReady Event on Host a', () => eventsFor(suite.api, 'Host', 'a').find((e) => e.reason === 'RecordReady'));
    assert.match(ready.note, /a\.example\.org/);

    await suite.kube.delete(AMBASSADOR_HOSTS, 'apps', 'a-too');
    await until('a-too deleted', records, ['a.example.org A 192.0.2.2 0', 'b2.example.org A 192.0.2.2 300', 'lost.example.org CNAME lb.example.net 0']);
    for (const name of ['a', 'b', 'lost', 'bad', 'plain']) await suite.kube.delete(AMBASSADOR_HOSTS, 'apps', name);
    await until('all deleted', records, []);
  });

  test('started before the Host CRD exists: syncs fail until it appears, then the source starts by itself', () =>
    assertStartsOnceCrdsExist({
      build: ambassadorHostSource,
      held: 'host/*',
      crds: [CRD()],
      write: async (kube) => {
        await kube.create(AMBASSADOR_HOSTS, {
          metadata: { name: 'h', namespace: 'default', annotations: { [SERVICE]: 'x', [TARGET]: '192.0.2.7' } },
          spec: { hostname: 'late.example.org' },
        });
      },
      publishes: 'late.example.org',
    }));
});
