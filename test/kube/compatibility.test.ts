/**
 * --compatibility kops-dns-controller on NodePort Services through the real client and reflectors
 * against the test API server: the addresses of Nodes labelled node-role.kubernetes.io/node, and a
 * Node gaining the label re-translates the Service.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '../../src/kube/client.ts';
import { NODES, SERVICES } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import { serviceSource } from '../../src/source/kube/sources.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { KubeWriter, waitFor } from './harness.ts';

describe('service source with --compatibility kops-dns-controller against the test API server', () => {
  let api: TestApiServer;
  let client: KubeClient;
  let kube: KubeWriter;
  let source: KubeObjectSource | undefined;
  const logger = silentLogger();

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 200 });
    client = new KubeClient({ config: api.kubeConfig(), logger });
    kube = new KubeWriter(client);
    for (const [name, role, internal, external] of [
      ['worker-a', 'node', '10.0.0.1', '198.51.100.1'],
      ['worker-b', '', '10.0.0.2', '198.51.100.2'],
      ['control', 'control-plane', '10.0.0.9', '198.51.100.9'],
    ] as const) {
      api.create({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name, labels: role === '' ? {} : { [`node-role.kubernetes.io/${role}`]: '' } },
        status: {
          addresses: [
            { type: 'InternalIP', address: internal },
            { type: 'ExternalIP', address: external },
          ],
        },
      });
    }
  });
  after(async () => {
    await source?.close();
    client.close();
    await api.stop();
  });

  test('external and internal names at the kOps workers; a node joining the role is followed', async () => {
    source = serviceSource({
      client: new KubeClient({ config: api.kubeConfig(), logger }),
      logger,
      translateOptions: { compatibility: 'kops-dns-controller' },
      namespace: '',
      syncTimeoutMs: 5000,
    });
    source.start();
    const nodePort = (name: string, annotations: Record<string, string>) => ({
      metadata: { name, namespace: 'default', annotations },
      spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] },
    });
    await kube.create(SERVICES, nodePort('pub', { 'dns.alpha.kubernetes.io/external': 'pub.example.org' }));
    await kube.create(SERVICES, nodePort('priv', { 'dns.alpha.kubernetes.io/internal': 'priv.example.org' }));
    const view = async (): Promise<string[]> =>
      (await (source as KubeObjectSource).endpoints())
        .filter((e) => e.recordType === 'A')
        .map((e) => `${e.dnsName} ${[...e.targets].sort().join(',')}`)
        .sort();
    const until = (expected: string[]): Promise<true> =>
      waitFor(JSON.stringify(expected), async () => (JSON.stringify(await view()) === JSON.stringify(expected) ? true : undefined), 20_000).catch(
        async (err: unknown) => {
          assert.deepEqual(await view(), expected, String(err));
          throw err;
        },
      );
    await until(['priv.example.org 10.0.0.1', 'pub.example.org 198.51.100.1']);
    await kube.patch(NODES, '', 'worker-b', { metadata: { labels: { 'node-role.kubernetes.io/node': '' } } });
    await until(['priv.example.org 10.0.0.1,10.0.0.2', 'pub.example.org 198.51.100.1,198.51.100.2']);
  });
});
