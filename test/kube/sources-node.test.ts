/**
 * The node source end to end: Nodes written to the test API server, read back by the real
 * reflector, translated and synced by the controller through the TXT registry into the inmemory
 * provider. Covers create, update (addresses, cordon, TTL), delete, the fqdn template, and a Node
 * without usable addresses (reported, its records held, the others syncing).
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
import { kubeSourceFromConfig } from '../../src/source/kube/factory.ts';
import { Controller } from '../../src/controller/controller.ts';
import { RecordEventReporter } from '../../src/controller/record-events.ts';
import { EventRecorder } from '../../src/kube/events.ts';
import { AllDomainFilters } from '../../src/endpoint/domain-filter.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { NODES } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { InMemoryProvider } from '../../src/provider/inmemory/inmemory.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import { nodeSource } from '../../src/source/kube/sources.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { buildTranslateOptions } from '../../src/source/translate/options.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { KubeWriter, eventsFor, sleep, waitFor } from './harness.ts';

const addresses = (...pairs: [string, string][]): { addresses: { type: string; address: string }[] } => ({
  addresses: pairs.map(([type, address]) => ({ type, address })),
});

describe('node source against the test API server', () => {
  let api: TestApiServer;
  let kube: KubeWriter;
  let writer: KubeClient;
  const logger = silentLogger();
  const closers: (() => Promise<void>)[] = [];

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 200 });
    writer = new KubeClient({ config: api.kubeConfig(), logger });
    kube = new KubeWriter(writer);
  });

  after(async () => {
    for (const close of closers) await close();
    writer.close();
    await api.stop();
  });

  /** As the kubelet does: the Node first, then its addresses through the status subresource (a create drops the status). */
  const createNode = async (metadata: { name: string; annotations?: Record<string, string> }, ...pairs: [string, string][]): Promise<void> => {
    await kube.create(NODES, { metadata });
    if (pairs.length > 0) await kube.patch(NODES, '', metadata.name, { status: addresses(...pairs) }, 'status');
  };

  /** The node source (with `fqdnTemplate`) synced by the controller into a fresh inmemory zone. */
  const pipeline = (fqdnTemplate: string, problems: SourceProblem[]): { records: () => Promise<string[]>; source: KubeObjectSource } => {
    const provider = new InMemoryProvider({ zones: ['example.org'] });
    const registry = new TXTRegistry(provider, { ownerId: 'hw', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger });
    const source = nodeSource({
      client: new KubeClient({ config: api.kubeConfig(), logger }),
      logger,
      translateOptions: { ...buildTranslateOptions({ fqdnTemplate }), excludeUnschedulable: true },
      namespace: '',
      syncTimeoutMs: 5000,
      onProblem: (p) => problems.push(p),
    });
    const recorder = new EventRecorder({ client: writer, logger, instance: 'hw' });
    const reporter = new RecordEventReporter({ recorder, enabled: new Set(['RecordReady', 'RecordDeleted', 'RecordError']) });
    const controller = new Controller({
      source,
      registry,
      plan: {
        policy: 'sync',
        managedRecordTypes: ['A', 'AAAA', 'CNAME'],
        excludeRecordTypes: [],
        domainFilter: new AllDomainFilters([]),
        migrateFromOwner: '',
      },
      intervalMs: 60_000,
      minEventSyncIntervalMs: 20,
      dryRun: false,
      logger,
      backoff: { initialMs: 50, maxMs: 500 },
      onSynced: (r) => reporter.onSynced(r),
    });
    const stop = new AbortController();
    const loop = controller.run(stop.signal);
    closers.push(async () => {
      stop.abort();
      await loop;
      await source.close();
      await recorder.flush();
    });
    const records = async (): Promise<string[]> =>
      (await registry.records())
        .filter((e) => e.recordType !== 'TXT')
        .map((e) => `${e.dnsName} ${e.recordType} ${[...e.targets].sort().join(',')} ${e.recordTTL}`)
        .sort();
    return { records, source };
  };

  const until = async (what: string, records: () => Promise<string[]>, expected: string[]): Promise<void> => {
    const want = JSON.stringify([...expected].sort());
    await waitFor(what, async () => (JSON.stringify(await records()) === want ? true : undefined)).catch(async (err: unknown) => {
      assert.deepEqual(await records(), [...expected].sort(), String(err));
      throw err;
    });
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
    await kube.patch(NODES, '', 'worker-1', { status: addresses(['ExternalIP', '192.0.2.1'], ['ExternalIP', '192.0.2.11']) }, 'status');
    await kube.patch(NODES, '', 'worker-2', { spec: { unschedulable: true } });
    await createNode({ name: 'worker-3', annotations: { 'external-dns.kubernetes.io/target': '203.0.113.3' } });
    await until('after updates', records, ['worker-1.nodes.example.org A 192.0.2.1,192.0.2.11 0', 'worker-3.nodes.example.org A 203.0.113.3 0']);

    // worker-1 loses its addresses (a malformed status): reported, its records kept; worker-3 goes.
    await kube.patch(NODES, '', 'worker-1', { status: { addresses: 'not-a-list' } }, 'status');
    await kube.delete(NODES, '', 'worker-3');
    await until('worker-3 deleted, worker-1 held', records, ['worker-1.nodes.example.org A 192.0.2.1,192.0.2.11 0']);
    await waitFor('a problem naming worker-1', () => (problems.some((p) => /could not find node address for worker-1/.test(p.message)) ? true : undefined));
    // Several syncs later (20 ms apart) the held records are still there.
    await sleep(300);
    assert.deepEqual(await records(), ['worker-1.nodes.example.org A 192.0.2.1,192.0.2.11 0']);

    // Addresses back: the held Node syncs again.
    await kube.patch(NODES, '', 'worker-1', { status: addresses(['ExternalIP', '192.0.2.21']) }, 'status');
    await until('worker-1 back', records, ['worker-1.nodes.example.org A 192.0.2.21 0']);
    // Events about records land on the Node (cluster-scoped: in namespace default, as the kubelet's).
    const ready = await waitFor('a RecordReady Event on worker-1', () => {
      const e = eventsFor(api, 'Node', 'worker-1').find((x) => x.reason === 'RecordReady');
      return e;
    });
    assert.match(ready.note, /worker-1\.nodes\.example\.org/);
    for (const name of ['worker-1', 'worker-2']) await kube.delete(NODES, '', name);
    await until('all deleted', records, []);
  });

  test('built from flags: --source node --no-exclude-unschedulable --expose-internal-ipv6 --fqdn-template', async () => {
    await createNode({ name: 'edge-1' }, ['ExternalIP', '198.51.100.1'], ['InternalIP', '10.1.0.1'], ['InternalIP', 'fd00::1']);
    await kube.patch(NODES, '', 'edge-1', { spec: { unschedulable: true } });
    const dir = await mkdtemp(join(tmpdir(), 'hostwarden-node-'));
    try {
      const file = await api.writeKubeconfig(dir);
      const args = [
        '--source',
        'node',
        '--no-exclude-unschedulable',
        '--expose-internal-ipv6',
        '--fqdn-template',
        '{{ .Name }}.edge.example.org',
        '--kubeconfig',
        file,
      ];
      const cfg = resolveConfig(parseArgs(args, {}, [...FLAGS, ...EXTRA_FLAGS]), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
      const source = kubeSourceFromConfig('node', cfg, { logger });
      closers.push(() => source.close());
      const view = async (): Promise<string[]> =>
        (await source.endpoints())
          .filter((e) => e.dnsName.endsWith('.edge.example.org'))
          .map((e) => `${e.dnsName} ${e.recordType} ${[...e.targets].join(',')} ${e.labels['resource'] ?? ''}`)
          .sort();
      await until('cordoned edge-1 with its IPv6 InternalIP', view, [
        'edge-1.edge.example.org A 198.51.100.1 node/edge-1',
        'edge-1.edge.example.org AAAA fd00::1 node/edge-1',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
      await kube.delete(NODES, '', 'edge-1');
    }
  });
});
