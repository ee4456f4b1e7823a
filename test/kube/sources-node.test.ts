/**
 * The node source end to end: Nodes written to the test API server, read back by the real
 * reflector, translated and synced by the controller through the TXT registry into the inmemory
 * provider. Covers create, update (addresses, cordon, TTL), delete, the fqdn template, and a Node
 * without usable addresses (reported, its records held, the others syncing).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubeSourceFromConfig } from '../../src/source/kube/factory.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { NODES } from '../../src/kube/resource.ts';
import { nodeSource } from '../../src/source/kube/sources.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { buildTranslateOptions } from '../../src/source/translate/options.ts';
import { eventsFor, sleep, waitFor } from './harness.ts';
import { configFromFlags, syncPipeline, until, useTestApiServer, viewOf } from './source-harness.ts';

const addresses = (...pairs: [string, string][]): { addresses: { type: string; address: string }[] } => ({
  addresses: pairs.map(([type, address]) => ({ type, address })),
});

describe('node source against the test API server', () => {
  const suite = useTestApiServer();

  /** As the kubelet does: the Node first, then its addresses through the status subresource (a create drops the status). */
  const createNode = async (metadata: { name: string; annotations?: Record<string, string> }, ...pairs: [string, string][]): Promise<void> => {
    await suite.kube.create(NODES, { metadata });
    if (pairs.length > 0) await suite.kube.patch(NODES, '', metadata.name, { status: addresses(...pairs) }, 'status');
  };

  /** The node source (with `fqdnTemplate`) synced by the controller into a fresh inmemory zone. */
  const pipeline = (fqdnTemplate: string, problems: SourceProblem[]): { records: () => Promise<string[]> } => {
    const source = nodeSource({
      client: new KubeClient({ config: suite.api.kubeConfig(), logger: suite.logger }),
      logger: suite.logger,
      translateOptions: { ...buildTranslateOptions({ fqdnTemplate }), excludeUnschedulable: true },
      namespace: '',
      syncTimeoutMs: 5000,
      onProblem: (p) => problems.push(p),
    });
    const { records, close } = syncPipeline(source, suite.writer, suite.logger);
    suite.closeAfter(close);
    return { records };
  };

  test('create, update, cordon, delete; a Node without addresses is reported and its records held', async () => {
    await createNode({ name: 'worker-1' }, ['ExternalIP', '192.0.2.1'], ['InternalIP', '10.0.0.1']);
    await createNode({ name: 'worker-2', annotations: { 'external-dns.kubernetes.io/ttl': '120' } }, ['InternalIP', '10.0.0.2'], ['InternalIP', 'fd00::2']);
    const problems: SourceProblem[] = [];
    const { records } = pipeline('{{ .Name }}.nodes.example.org', problems);
    await until('first sync', records, [
      'worker-1.nodes.example.org A 192.0.2.1 0',
      'worker-2.nodes.example.org A 10.0.0.2 120',
      'worker-2.nodes.example.org AAAA fd00::2 120',
    ]);

    // A new address, a cordon and a new Node.
    await suite.kube.patch(NODES, '', 'worker-1', { status: addresses(['ExternalIP', '192.0.2.1'], ['ExternalIP', '192.0.2.11']) }, 'status');
    await suite.kube.patch(NODES, '', 'worker-2', { spec: { unschedulable: true } });
    await createNode({ name: 'worker-3', annotations: { 'external-dns.kubernetes.io/target': '203.0.113.3' } });
    await until('after updates', records, ['worker-1.nodes.example.org A 192.0.2.1,192.0.2.11 0', 'worker-3.nodes.example.org A 203.0.113.3 0']);

    // worker-1 loses its addresses (a malformed status): reported, its records kept; worker-3 goes.
    await suite.kube.patch(NODES, '', 'worker-1', { status: { addresses: 'not-a-list' } }, 'status');
    await suite.kube.delete(NODES, '', 'worker-3');
    await until('worker-3 deleted, worker-1 held', records, ['worker-1.nodes.example.org A 192.0.2.1,192.0.2.11 0']);
    await waitFor('a problem naming worker-1', () => (problems.some((p) => /could not find node address for worker-1/.test(p.message)) ? true : undefined));
    // Several syncs later (20 ms apart) the held records are still there.
    await sleep(300);
    assert.deepEqual(await records(), ['worker-1.nodes.example.org A 192.0.2.1,192.0.2.11 0']);

    // Addresses back: the held Node syncs again.
    await suite.kube.patch(NODES, '', 'worker-1', { status: addresses(['ExternalIP', '192.0.2.21']) }, 'status');
    await until('worker-1 back', records, ['worker-1.nodes.example.org A 192.0.2.21 0']);
    // Events about records land on the Node (cluster-scoped: in namespace default, as the kubelet's).
    const ready = await waitFor('a RecordReady Event on worker-1', () => {
      const e = eventsFor(suite.api, 'Node', 'worker-1').find((x) => x.reason === 'RecordReady');
      return e;
    });
    assert.match(ready.note, /worker-1\.nodes\.example\.org/);
    for (const name of ['worker-1', 'worker-2']) await suite.kube.delete(NODES, '', name);
    await until('all deleted', records, []);
  });

  test('built from flags: --source node --no-exclude-unschedulable --expose-internal-ipv6 --fqdn-template', async () => {
    await createNode({ name: 'edge-1' }, ['ExternalIP', '198.51.100.1'], ['InternalIP', '10.1.0.1'], ['InternalIP', 'fd00::1']);
    await suite.kube.patch(NODES, '', 'edge-1', { spec: { unschedulable: true } });
    try {
      const cfg = configFromFlags([
        '--source',
        'node',
        '--no-exclude-unschedulable',
        '--expose-internal-ipv6',
        '--fqdn-template',
        '{{ .Name }}.edge.example.org',
        '--kubeconfig',
        suite.kubeconfig,
      ]);
      const source = kubeSourceFromConfig('node', cfg, { logger: suite.logger });
      suite.closeAfter(() => source.close());
      await until('cordoned edge-1 with its IPv6 InternalIP', () => viewOf(source, { resource: true, suffix: '.edge.example.org' }), [
        'edge-1.edge.example.org A 198.51.100.1 node/edge-1',
        'edge-1.edge.example.org AAAA fd00::1 node/edge-1',
      ]);
    } finally {
      await suite.kube.delete(NODES, '', 'edge-1');
    }
  });
});
