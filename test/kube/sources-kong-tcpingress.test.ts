/**
 * The kong-tcpingress source end to end: TCPIngresses (the CRD restated from Kong's published CRD)
 * written to the test API server, read back by the real reflector, synced by the controller into
 * the inmemory provider. Covers create, a new load-balancer status, a rename, two TCPIngresses
 * asking for one name (merged), delete, a TCPIngress with a bad annotation (reported, the rest
 * published), Events on the TCPIngress, and a source started before the CRD exists.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KONG_TCPINGRESSES } from '../../src/kube/resource.ts';
import { kubeSourceFromConfig } from '../../src/source/kube/factory.ts';
import { kongTcpIngressSource } from '../../src/source/kube/kong-tcpingress.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { loadCrd } from '../support/crds/load.ts';
import { eventsFor, waitFor } from './harness.ts';
import { assertStartsOnceCrdsExist, configFromFlags, syncPipeline, until, useTestApiServer } from './source-harness.ts';

const HOSTNAME = 'external-dns.kubernetes.io/hostname';
const TTL = 'external-dns.kubernetes.io/ttl';
const CRD = (): ReturnType<typeof loadCrd> => loadCrd('kong', 'tcpingresses.configuration.konghq.com');

describe('kong-tcpingress source against the test API server', () => {
  const suite = useTestApiServer({ namespaces: ['kong'], crds: [CRD()] });

  /** As Kong does: the TCPIngress, then its load balancer through the status subresource. */
  const create = async (name: string, annotations: Record<string, string>, hosts: string[], ip: string): Promise<void> => {
    const rules = hosts.map((host, i) => ({ host, port: 9000 + i, backend: { serviceName: 'db', servicePort: 5432 } }));
    await suite.kube.create(KONG_TCPINGRESSES, { metadata: { name, namespace: 'kong', annotations }, spec: { rules } });
    await suite.kube.patch(KONG_TCPINGRESSES, 'kong', name, { status: { loadBalancer: { ingress: [{ ip }] } } }, 'status');
  };

  test('built from flags: create, status change, rename, merge, delete; a bad annotation reported; Events on the TCPIngress', async () => {
    await create('db', { [HOSTNAME]: 'db.example.org' }, ['sni.example.org'], '192.0.2.1');
    await create('db2', { [TTL]: '300' }, ['db2.example.org'], '192.0.2.2');
    // Another TCPIngress asking for db.example.org: one record with both addresses.
    await create('db-too', { [HOSTNAME]: 'db.example.org' }, [], '192.0.2.9');

    const cfg = configFromFlags(['--source', 'kong-tcpingress', '--namespace', 'kong', '--kubeconfig', suite.kubeconfig]);
    const problems: SourceProblem[] = [];
    const source = kubeSourceFromConfig('kong-tcpingress', cfg, { logger: suite.logger, onProblem: (p) => problems.push(p) });
    const { records, close } = syncPipeline(source, suite.writer, suite.logger);
    suite.closeAfter(close);
    await until('first sync', records, ['db.example.org A 192.0.2.1,192.0.2.9 0', 'db2.example.org A 192.0.2.2 300', 'sni.example.org A 192.0.2.1 0']);

    // Kong's load balancer moves.
    await suite.kube.patch(KONG_TCPINGRESSES, 'kong', 'db2', { status: { loadBalancer: { ingress: [{ hostname: 'lb.example.net' }] } } }, 'status');
    await until('new status', records, ['db.example.org A 192.0.2.1,192.0.2.9 0', 'db2.example.org CNAME lb.example.net 300', 'sni.example.org A 192.0.2.1 0']);

    // Renamed: the rule's host.
    await suite.kube.patch(KONG_TCPINGRESSES, 'kong', 'db', {
      spec: { rules: [{ host: 'sni2.example.org', port: 9000, backend: { serviceName: 'db', servicePort: 5432 } }] },
    });
    await until('rename', records, ['db.example.org A 192.0.2.1,192.0.2.9 0', 'db2.example.org CNAME lb.example.net 300', 'sni2.example.org A 192.0.2.1 0']);

    // A bad TTL is reported and skipped; the TCPIngress is published with the default TTL.
    await create('bad', { [TTL]: 'forever' }, ['bad.example.org'], '192.0.2.3');
    await waitFor('a problem naming the bad TCPIngress', () => (problems.some((p) => /^TCPIngress\/kong\/bad: .*forever/.test(p.message)) ? true : undefined));
    await until('bad published with the default TTL', records, [
      'bad.example.org A 192.0.2.3 0',
      'db.example.org A 192.0.2.1,192.0.2.9 0',
      'db2.example.org CNAME lb.example.net 300',
      'sni2.example.org A 192.0.2.1 0',
    ]);

    const ready = await waitFor('a RecordReady Event on TCPIngress db2', () =>
      eventsFor(suite.api, 'TCPIngress', 'db2').find((e) => e.reason === 'RecordReady'),
    );
    assert.match(ready.note, /db2\.example\.org/);

    await suite.kube.delete(KONG_TCPINGRESSES, 'kong', 'db-too');
    await until('db-too deleted', records, [
      'bad.example.org A 192.0.2.3 0',
      'db.example.org A 192.0.2.1 0',
      'db2.example.org CNAME lb.example.net 300',
      'sni2.example.org A 192.0.2.1 0',
    ]);
    for (const name of ['db', 'db2', 'bad']) await suite.kube.delete(KONG_TCPINGRESSES, 'kong', name);
    await until('all deleted', records, []);
  });

  test('started before the TCPIngress CRD exists: syncs fail until it appears, then the source starts by itself', () =>
    assertStartsOnceCrdsExist({
      build: kongTcpIngressSource,
      held: 'tcpingress/*',
      crds: [CRD()],
      write: async (kube) => {
        await kube.create(KONG_TCPINGRESSES, {
          metadata: { name: 't', namespace: 'default', annotations: { [HOSTNAME]: 'late.example.org', 'external-dns.kubernetes.io/target': '192.0.2.7' } },
          spec: {},
        });
      },
      publishes: 'late.example.org',
    }));
});
