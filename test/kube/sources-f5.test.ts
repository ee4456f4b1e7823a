/**
 * The f5-virtualserver and f5-transportserver sources end to end: F5 CIS's CRDs installed in the
 * test API server, the sources built from the CLI flags, the controller syncing through the TXT
 * registry into the inmemory provider. VirtualServers and TransportServers are written as F5 CIS
 * does (spec by the user, `status.vsAddress` by the controller once it has an address): nothing
 * until the address is set; create, rename, delete; two VirtualServers asking for one name share a
 * record; a bad annotation is reported and skipped while the rest sync; Events land on the F5
 * objects. A source started before its CRD exists starts once the CRD appears.
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
import { Controller } from '../../src/controller/controller.ts';
import { RecordEventReporter } from '../../src/controller/record-events.ts';
import { AllDomainFilters } from '../../src/endpoint/domain-filter.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { EventRecorder } from '../../src/kube/events.ts';
import { TRANSPORTSERVERS, VIRTUALSERVERS } from '../../src/kube/resource.ts';
import type { KubeResource } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { InMemoryProvider } from '../../src/provider/inmemory/inmemory.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';
import { f5Source } from '../../src/source/kube/f5.ts';
import { kubeSourceFromConfig } from '../../src/source/kube/factory.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { buildTranslateOptions } from '../../src/source/translate/options.ts';
import { MultiSource } from '../../src/source/wrappers/multi-source.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { loadCrd, loadCrds } from '../support/crds/load.ts';
import { KubeWriter, eventsFor, waitFor, assertCrdAbsent } from './harness.ts';

const A = 'external-dns.kubernetes.io/';
const NS = 'apps';
// What F5's TransportServer CRD requires besides the fields the source reads.
const TS_REQUIRED = { virtualServerPort: 5432, mode: 'standard', pool: { service: 'db', servicePort: 5432 } };

describe('f5-virtualserver and f5-transportserver against the test API server', () => {
  let api: TestApiServer;
  let kube: KubeWriter;
  let writer: KubeClient;
  let dir: string;
  const logger = silentLogger();
  const closers: (() => Promise<void>)[] = [];

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 200, namespaces: [NS] });
    for (const crd of loadCrds('f5')) api.create(crd);
    writer = new KubeClient({ config: api.kubeConfig(), logger });
    kube = new KubeWriter(writer);
    dir = await mkdtemp(join(tmpdir(), 'hw-f5-'));
  });

  after(async () => {
    for (const close of closers) await close();
    writer.close();
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Created as a user does, then given its address as F5 CIS does (a create drops the status). */
  const create = async (
    res: KubeResource,
    name: string,
    spec: Record<string, unknown>,
    annotations: Record<string, string> = {},
    vsAddress?: string,
  ): Promise<void> => {
    await kube.create(res, { metadata: { name, namespace: NS, annotations }, spec });
    if (vsAddress !== undefined) await setAddress(res, name, vsAddress);
  };
  const setAddress = async (res: KubeResource, name: string, vsAddress: string): Promise<void> => {
    await kube.patch(res, NS, name, { status: { vsAddress, status: vsAddress === 'None' ? 'Pending' : 'OK' } }, 'status');
  };

  /** Both sources built from flags, synced by the controller into a fresh inmemory zone, Events on. */
  const pipeline = async (problems: SourceProblem[]): Promise<{ records: () => Promise<string[]>; sources: KubeObjectSource[] }> => {
    const kubeconfig = await api.writeKubeconfig(dir);
    const args = ['--source', 'f5-virtualserver', '--source', 'f5-transportserver', '--kubeconfig', kubeconfig, '--namespace', NS];
    const cfg = resolveConfig(parseArgs(args, {}, [...FLAGS, ...EXTRA_FLAGS]), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
    const sources = (['f5-virtualserver', 'f5-transportserver'] as const).map((name) =>
      kubeSourceFromConfig(name, cfg, { logger, onProblem: (p) => problems.push(p) }),
    );
    const provider = new InMemoryProvider({ zones: ['example.org'] });
    const registry = new TXTRegistry(provider, { ownerId: 'hw', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger });
    const recorder = new EventRecorder({ client: writer, logger, instance: 'hw' });
    const reporter = new RecordEventReporter({ recorder, enabled: new Set(['RecordReady', 'RecordDeleted', 'RecordError']) });
    const controller = new Controller({
      source: new MultiSource({ sources }),
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
      await Promise.all(sources.map((s) => s.close()));
      await recorder.flush();
    });
    const records = async (): Promise<string[]> =>
      (await registry.records())
        .filter((e) => e.recordType !== 'TXT')
        .map((e) => `${e.dnsName} ${e.recordType} ${[...e.targets].sort().join(',')} ${e.recordTTL}`)
        .sort();
    return { records, sources };
  };

  const until = async (what: string, records: () => Promise<string[]>, expected: string[]): Promise<void> => {
    const want = JSON.stringify([...expected].sort());
    await waitFor(what, async () => (JSON.stringify(await records()) === want ? true : undefined), 20_000).catch(async (err: unknown) => {
      assert.deepEqual(await records(), [...expected].sort(), String(err));
      throw err;
    });
  };

  test('address, create, rename, shared names, a bad annotation, delete; Events on the F5 objects', async () => {
    const problems: SourceProblem[] = [];
    // Waiting for IPAM: status.vsAddress is None, nothing is published (and that is reported).
    await create(VIRTUALSERVERS, 'web', { host: 'web.example.org', hostAliases: ['www.example.org'], ipamLabel: 'prod' }, {}, 'None');
    await create(TRANSPORTSERVERS, 'db', { ...TS_REQUIRED, host: 'db.example.org', ipamLabel: 'prod' }, { [`${A}ttl`]: '120' });
    const { records } = await pipeline(problems);
    await waitFor('the pending VirtualServer is reported', () =>
      problems.some((p) => /VirtualServer\/apps\/web: .*missing a valid IP address/.test(p.message)) ? true : undefined,
    );
    assert.deepEqual(await records(), []);

    // F5 CIS assigns addresses: the VirtualServer's host and alias, and the TransportServer's host.
    await setAddress(VIRTUALSERVERS, 'web', '192.0.2.10');
    await setAddress(TRANSPORTSERVERS, 'db', '192.0.2.20');
    await until('addresses assigned', records, ['db.example.org A 192.0.2.20 120', 'web.example.org A 192.0.2.10 0', 'www.example.org A 192.0.2.10 0']);

    // Renamed host; a second VirtualServer asks for the same name (one record, both addresses),
    // with spec.virtualServerAddress winning over its status; a third has a bad target annotation
    // and TTL: reported, the target skipped (its endpoint with it), the rest sync.
    await kube.patch(VIRTUALSERVERS, NS, 'web', { spec: { host: 'app.example.org' } });
    await create(VIRTUALSERVERS, 'web-b', { host: 'app.example.org', virtualServerAddress: '192.0.2.11' }, {}, '192.0.2.99');
    await create(
      VIRTUALSERVERS,
      'bad',
      { host: 'bad.example.org', virtualServerAddress: '192.0.2.12' },
      { [`${A}target`]: 'not_a-target!', [`${A}ttl`]: 'forever' },
      '192.0.2.12',
    );
    await until('after rename and the shared name', records, [
      'app.example.org A 192.0.2.10,192.0.2.11 0',
      'db.example.org A 192.0.2.20 120',
      'www.example.org A 192.0.2.10 0',
    ]);
    for (const bad of ['forever', 'not_a-target!'])
      await waitFor(`${bad} is reported`, () =>
        problems.some((p) => p.message.startsWith('VirtualServer/apps/bad: ') && p.message.includes(bad)) ? true : undefined,
      );

    const ready = await waitFor('a RecordReady Event on the TransportServer', () =>
      eventsFor(api, 'TransportServer', 'db').find((e) => e.reason === 'RecordReady'),
    );
    assert.match(ready.note, /db\.example\.org/);

    await kube.delete(VIRTUALSERVERS, NS, 'web');
    await kube.delete(TRANSPORTSERVERS, NS, 'db');
    await until('deleted', records, ['app.example.org A 192.0.2.11 0']);
    await kube.delete(VIRTUALSERVERS, NS, 'web-b');
    await kube.delete(VIRTUALSERVERS, NS, 'bad');
    await until('all deleted', records, []);
  });
});

describe('f5-transportserver before its CRD exists', () => {
  test('endpoints() fails until the CRD appears, then the source starts by itself', async () => {
    const api = await startTestApiServer({ bookmarkIntervalMs: 200 });
    const logger = silentLogger();
    const client = new KubeClient({ config: api.kubeConfig(), logger });
    const writer = new KubeClient({ config: api.kubeConfig(), logger });
    const source = f5Source({ client, logger, translateOptions: buildTranslateOptions({}), namespace: '', syncTimeoutMs: 5000 }, 'TransportServer');
    try {
      source.start();
      // The reflector retries the 404 with backoff instead of stopping.
      await assertCrdAbsent(source, 'f5-transportserver/*');
      api.create(loadCrd('f5', 'transportservers.cis.f5.com'));
      const kube = new KubeWriter(writer);
      await kube.create(TRANSPORTSERVERS, {
        metadata: { name: 'ts', namespace: 'default' },
        spec: { ...TS_REQUIRED, host: 'ts.example.org', virtualServerAddress: '192.0.2.30' },
      });
      await kube.patch(TRANSPORTSERVERS, 'default', 'ts', { status: { vsAddress: '192.0.2.30' } }, 'status');
      const published = async (): Promise<true | undefined> => {
        try {
          return (await source.endpoints()).some((e) => e.dnsName === 'ts.example.org') ? true : undefined;
        } catch {
          return undefined;
        }
      };
      // Bounded by the reflector's backoff (a few seconds by then) on two shared cores.
      await waitFor('the source starts once the CRD exists', published, 30_000);
    } finally {
      await source.close();
      writer.close();
      await api.stop();
    }
  });
});
