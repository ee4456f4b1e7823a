/**
 * The kong-tcpingress source end to end: TCPIngresses (the CRD restated from Kong's published CRD)
 * written to the test API server, read back by the real reflector, synced by the controller into
 * the inmemory provider. Covers create, a new load-balancer status, a rename, two TCPIngresses
 * asking for one name (merged), delete, a TCPIngress with a bad annotation (reported, the rest
 * published), Events on the TCPIngress, and a source started before the CRD exists.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXTRA_FLAGS, PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';
import { resolveConfig } from '../../src/config/config.ts';
import { FLAGS } from '../../src/config/flags.ts';
import { parseArgs } from '../../src/config/parse.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { KONG_TCPINGRESSES } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { kubeSourceFromConfig } from '../../src/source/kube/factory.ts';
import { kongTcpIngressSource } from '../../src/source/kube/kong-tcpingress.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { buildTranslateOptions } from '../../src/source/translate/options.ts';
import { loadCrd } from '../support/crds/load.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { syncPipeline, until } from './crd-source-pipeline.ts';
import { KubeWriter, eventsFor, waitFor, assertCrdAbsent } from './harness.ts';

const HOSTNAME = 'external-dns.kubernetes.io/hostname';
const TTL = 'external-dns.kubernetes.io/ttl';
const CRD = (): ReturnType<typeof loadCrd> => loadCrd('kong', 'tcpingresses.configuration.konghq.com');

describe('kong-tcpingress source against the test API server', () => {
  let api: TestApiServer;
  let kube: KubeWriter;
  let writer: KubeClient;
  let dir: string;
  const logger = silentLogger();
  const closers: (() => Promise<void>)[] = [];

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 200, namespaces: ['kong'] });
    api.create(CRD());
    writer = new KubeClient({ config: api.kubeConfig(), logger });
    kube = new KubeWriter(writer);
    dir = await mkdtemp(join(tmpdir(), 'hw-kong-'));
  });
  after(async () => {
    for (const close of closers) await close();
    writer.close();
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** As Kong does: the TCPIngress, then its load balancer through the status subresource. */
  const create = async (name: string, annotations: Record<string, string>, hosts: string[], ip: string): Promise<void> => {
    const rules = hosts.map((host, i) => ({ host, port: 9000 + i, backend: { serviceName: 'db', servicePort: 5432 } }));
    await kube.create(KONG_TCPINGRESSES, { metadata: { name, namespace: 'kong', annotations }, spec: { rules } });
    await kube.patch(KONG_TCPINGRESSES, 'kong', name, { status: { loadBalancer: { ingress: [{ ip }] } } }, 'status');
  };

  test('built from flags: create, status change, rename, merge, delete; a bad annotation reported; Events on the TCPIngress', async () => {
    await create('db', { [HOSTNAME]: 'db.example.org' }, ['sni.example.org'], '192.0.2.1');
    await create('db2', { [TTL]: '300' }, ['db2.example.org'], '192.0.2.2');
    // Another TCPIngress asking for db.example.org: one record with both addresses.
    await create('db-too', { [HOSTNAME]: 'db.example.org' }, [], '192.0.2.9');

    const args = ['--source', 'kong-tcpingress', '--namespace', 'kong', '--kubeconfig', await api.writeKubeconfig(dir)];
    const cfg = resolveConfig(parseArgs(args, {}, [...FLAGS, ...EXTRA_FLAGS]), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
    const problems: SourceProblem[] = [];
    const source = kubeSourceFromConfig('kong-tcpingress', cfg, { logger, onProblem: (p) => problems.push(p) });
    const { records, close } = syncPipeline(source, writer, logger);
    closers.push(close);
    await until('first sync', records, ['db.example.org A 192.0.2.1,192.0.2.9 0', 'db2.example.org A 192.0.2.2 300', 'sni.example.org A 192.0.2.1 0']);

    // Kong's load balancer moves.
    await kube.patch(KONG_TCPINGRESSES, 'kong', 'db2', { status: { loadBalancer: { ingress: [{ hostname: 'lb.example.net' }] } } }, 'status');
    await until('new status', records, ['db.example.org A 192.0.2.1,192.0.2.9 0', 'db2.example.org CNAME lb.example.net 300', 'sni.example.org A 192.0.2.1 0']);

    // Renamed: the rule's host.
    await kube.patch(KONG_TCPINGRESSES, 'kong', 'db', {
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

    const ready = await waitFor('a RecordReady Event on TCPIngress db2', () => eventsFor(api, 'TCPIngress', 'db2').find((e) => e.reason === 'RecordReady'));
    assert.match(ready.note, /db2\.example\.org/);

    await kube.delete(KONG_TCPINGRESSES, 'kong', 'db-too');
    await until('db-too deleted', records, [
      'bad.example.org A 192.0.2.3 0',
      'db.example.org A 192.0.2.1 0',
      'db2.example.org CNAME lb.example.net 300',
      'sni2.example.org A 192.0.2.1 0',
    ]);
    for (const name of ['db', 'db2', 'bad']) await kube.delete(KONG_TCPINGRESSES, 'kong', name);
    await until('all deleted', records, []);
  });

  test('started before the TCPIngress CRD exists: syncs fail until it appears, then the source starts by itself', async () => {
    const bare = await startTestApiServer({ bookmarkIntervalMs: 200 });
    const client = new KubeClient({ config: bare.kubeConfig(), logger });
    const w = new KubeClient({ config: bare.kubeConfig(), logger });
    const source = kongTcpIngressSource({ client, logger, translateOptions: buildTranslateOptions({}), namespace: '', syncTimeoutMs: 5000 });
    try {
      source.start();
      await assertCrdAbsent(source, 'tcpingress/*');
      bare.create(CRD());
      await new KubeWriter(w).create(KONG_TCPINGRESSES, {
        metadata: { name: 't', namespace: 'default', annotations: { [HOSTNAME]: 'late.example.org', 'external-dns.kubernetes.io/target': '192.0.2.7' } },
        spec: {},
      });
      const published = async (): Promise<true | undefined> => {
        try {
          return (await source.endpoints()).some((e) => e.dnsName === 'late.example.org') ? true : undefined;
        } catch {
          return undefined;
        }
      };
      // Bounded by the reflector's backoff (a few seconds by then) on two shared cores.
      await waitFor('the source starts once the CRD exists', published, 30_000);
    } finally {
      await source.close();
      w.close();
      await bare.stop();
    }
  });
});
