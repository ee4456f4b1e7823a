/**
 * traefik-proxy through the CLI configuration, the real client and reflectors against the test API
 * server with Traefik's CRDs (both groups) installed: IngressRoute, IngressRouteTCP and
 * IngressRouteUDP created, renamed and deleted reach the endpoints; two routes asking for one name
 * are merged; routes of different kinds with one name do not shadow each other; a bad annotation
 * or hostname is reported and skipped; --traefik-enable-legacy and --traefik-disable-new choose the
 * groups read; synced by the controller, records land in the provider and Events on the routes. A source started before its CRDs exist fails its syncs until they appear, then starts.
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
import { Registry } from 'prom-client';
import { Controller } from '../../src/controller/controller.ts';
import { RecordEventReporter } from '../../src/controller/record-events.ts';
import { AllDomainFilters } from '../../src/endpoint/domain-filter.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { EventRecorder } from '../../src/kube/events.ts';
import { LEGACY_TRAEFIK_INGRESSROUTES, TRAEFIK_INGRESSROUTES, TRAEFIK_INGRESSROUTETCPS, TRAEFIK_INGRESSROUTEUDPS } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { InMemoryProvider } from '../../src/provider/inmemory/inmemory.ts';
import { TXTRegistry } from '../../src/registry/txt/txt-registry.ts';
import { TraefikProxySource, traefikProxySource } from '../../src/source/kube/traefik-proxy.ts';
import { buildTranslateOptions } from '../../src/source/translate/options.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { KubeWriter, eventsFor, waitFor, assertCrdAbsent } from './harness.ts';
import { loadCrds } from '../support/crds/load.ts';

const HOSTNAME = 'external-dns.alpha.kubernetes.io/hostname';
const TARGET = 'external-dns.alpha.kubernetes.io/target';
const TTL = 'external-dns.alpha.kubernetes.io/ttl';

const view = async (source: TraefikProxySource): Promise<string[]> =>
  (await source.endpoints()).map((e) => `${e.dnsName} ${e.recordType} ${[...e.targets].sort().join(',')}`).sort();

describe('traefik-proxy against the test API server', () => {
  let api: TestApiServer;
  let kube: KubeWriter;
  let client: KubeClient;
  let dir: string;
  let kubeconfig: string;
  const sources: TraefikProxySource[] = [];
  const logger = silentLogger();

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 200, namespaces: ['apps'] });
    for (const crd of loadCrds('traefik')) api.create(crd);
    client = new KubeClient({ config: api.kubeConfig(), logger });
    kube = new KubeWriter(client);
    dir = await mkdtemp(join(tmpdir(), 'hw-traefik-'));
    kubeconfig = await api.writeKubeconfig(dir);
  });
  after(async () => {
    await Promise.all(sources.map((s) => s.close()));
    client.close();
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  });

  function open(flags: string[], problems: SourceProblem[] = []): TraefikProxySource {
    const cfg = resolveConfig(parseArgs(['--source', 'traefik-proxy', '--kubeconfig', kubeconfig, ...flags], {}, [...FLAGS, ...EXTRA_FLAGS]), {
      sources: SOURCE_NAMES,
      providers: PROVIDER_NAMES,
    });
    const source = TraefikProxySource.fromConfig(cfg, { logger, onProblem: (p) => problems.push(p) });
    sources.push(source);
    source.start();
    return source;
  }

  const until = (source: TraefikProxySource, what: string, want: string[]): Promise<true> =>
    waitFor(what, async () => (JSON.stringify(await view(source)) === JSON.stringify([...want].sort()) ? true : undefined), 20_000);

  test('all three kinds in both groups: create, rename, merge, bad input, delete', async () => {
    await kube.create(TRAEFIK_INGRESSROUTES, {
      metadata: { name: 'web', namespace: 'apps', annotations: { [TARGET]: '192.0.2.1' } },
      spec: { entryPoints: ['websecure'], routes: [{ match: 'Host(`web.example.org`) && PathPrefix(`/`)', services: [{ name: 'web', port: 80 }] }] },
    });
    await kube.create(TRAEFIK_INGRESSROUTETCPS, {
      metadata: { name: 'db', namespace: 'apps', annotations: { [TARGET]: 'lb.example.net' } },
      spec: { routes: [{ match: 'HostSNI(`db.example.org`)', services: [{ name: 'db', port: 5432 }] }], tls: { passthrough: true } },
    });
    await kube.create(TRAEFIK_INGRESSROUTEUDPS, {
      metadata: { name: 'dns', namespace: 'apps', annotations: { [TARGET]: '192.0.2.3', [HOSTNAME]: 'dns.example.org' } },
      spec: { routes: [{ services: [{ name: 'dns', port: 53 }] }] },
    });
    await kube.create(LEGACY_TRAEFIK_INGRESSROUTES, {
      metadata: { name: 'old', namespace: 'apps', annotations: { [TARGET]: '192.0.2.4' } },
      spec: { routes: [{ kind: 'Rule', match: 'Host(`old.example.org`)', services: [{ name: 'old', port: 80 }] }] },
    });

    const problems: SourceProblem[] = [];
    const source = open(['--traefik-enable-legacy'], problems);
    const all = ['web.example.org A 192.0.2.1', 'db.example.org CNAME lb.example.net', 'dns.example.org A 192.0.2.3', 'old.example.org A 192.0.2.4'];
    assert.deepEqual(await view(source), [...all].sort());
    assert.equal(source.objectCount(), 4);
    assert.equal((await source.endpoints()).find((e) => e.dnsName === 'old.example.org')?.labels['resource'], 'ingressroute/apps/old');

    // Renamed: the match rule names another host.
    await kube.patch(TRAEFIK_INGRESSROUTES, 'apps', 'web', {
      spec: { routes: [{ match: 'Host(`web2.example.org`)', services: [{ name: 'web', port: 80 }] }] },
    });
    const renamed = ['web2.example.org A 192.0.2.1', ...all.slice(1)];
    await until(source, 'rename', renamed);

    // Two routes (an IngressRouteTCP of the same name as the IngressRoute, and a legacy one) asking
    // for one name: one record with both targets; neither shadows the other.
    await kube.create(TRAEFIK_INGRESSROUTETCPS, {
      metadata: { name: 'web', namespace: 'apps', annotations: { [TARGET]: '192.0.2.5' } },
      spec: { routes: [{ match: 'HostSNI(`shared.example.org`)', services: [{ name: 'web', port: 443 }] }] },
    });
    await kube.create(LEGACY_TRAEFIK_INGRESSROUTES, {
      metadata: { name: 'shared', namespace: 'apps', annotations: { [TARGET]: '192.0.2.6' } },
      spec: { routes: [{ kind: 'Rule', match: 'Host(`shared.example.org`)', services: [{ name: 'x', port: 80 }] }] },
    });
    await until(source, 'merge', [...renamed, 'shared.example.org A 192.0.2.5,192.0.2.6']);

    // A bad TTL is reported and skipped (default TTL); a bad host in a rule is reported and skipped, the other host stays.
    await kube.create(TRAEFIK_INGRESSROUTES, {
      metadata: { name: 'bad', namespace: 'apps', annotations: { [TARGET]: '192.0.2.7', [TTL]: 'forever' } },
      spec: { routes: [{ match: 'Host(`bad..example.org`) || Host(`good.example.org`)', services: [{ name: 'x', port: 80 }] }] },
    });
    await until(source, 'bad input', [...renamed, 'shared.example.org A 192.0.2.5,192.0.2.6', 'good.example.org A 192.0.2.7']);
    await waitFor(
      'problems',
      () => (problems.some((p) => p.message.includes('forever')) && problems.some((p) => p.message.includes('bad..example.org')) ? true : undefined),
      20_000,
    );
    assert.match(problems.find((p) => p.message.includes('forever'))?.message ?? '', /^IngressRoute\/apps\/bad: /);
    assert.equal((await source.endpoints()).find((e) => e.dnsName === 'good.example.org')?.recordTTL, 0);
    assert.equal(source.invalidEndpoints().length, 1);

    for (const [res, name] of [
      [TRAEFIK_INGRESSROUTES, 'web'],
      [TRAEFIK_INGRESSROUTES, 'bad'],
      [TRAEFIK_INGRESSROUTETCPS, 'web'],
      [LEGACY_TRAEFIK_INGRESSROUTES, 'shared'],
    ] as const)
      await kube.delete(res, 'apps', name);
    await until(source, 'delete', all.slice(1));

    // --traefik-disable-new with --traefik-enable-legacy: only the legacy group is read; without
    // --traefik-enable-legacy (the default) the legacy objects are not read.
    const legacyOnly = open(['--traefik-enable-legacy', '--traefik-disable-new']);
    assert.deepEqual(await view(legacyOnly), ['old.example.org A 192.0.2.4']);
    const newOnly = open([]);
    assert.deepEqual(await view(newOnly), all.slice(1, 3).sort());
  });
});

describe('traefik-proxy synced by the controller', () => {
  test('records in the provider, Events on the routes, reflector metrics per group', async () => {
    const api = await startTestApiServer({ bookmarkIntervalMs: 200, namespaces: ['apps'] });
    for (const crd of loadCrds('traefik')) api.create(crd);
    const logger = silentLogger();
    const writer = new KubeClient({ config: api.kubeConfig(), logger });
    const dir = await mkdtemp(join(tmpdir(), 'hw-traefik-sync-'));
    const kubeconfig = await api.writeKubeconfig(dir);
    const cfg = resolveConfig(parseArgs(['--source', 'traefik-proxy', '--kubeconfig', kubeconfig, '--traefik-enable-legacy'], {}, [...FLAGS, ...EXTRA_FLAGS]), {
      sources: SOURCE_NAMES,
      providers: PROVIDER_NAMES,
    });
    const metrics = new Registry();
    const source = TraefikProxySource.fromConfig(cfg, { logger, metrics });
    const provider = new InMemoryProvider({ zones: ['example.org'] });
    const registry = new TXTRegistry(provider, { ownerId: 'hw', managedRecordTypes: ['A', 'AAAA', 'CNAME'], excludeRecordTypes: [], logger });
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
    const records = async (): Promise<string> =>
      JSON.stringify(
        (await registry.records())
          .filter((e) => e.recordType !== 'TXT')
          .map((e) => `${e.dnsName} ${e.recordType} ${[...e.targets].sort().join(',')}`)
          .sort(),
      );
    try {
      const kube = new KubeWriter(writer);
      await kube.create(TRAEFIK_INGRESSROUTES, {
        metadata: { name: 'web', namespace: 'apps', annotations: { [TARGET]: '192.0.2.1' } },
        spec: { routes: [{ match: 'Host(`web.example.org`)' }] },
      });
      await kube.create(LEGACY_TRAEFIK_INGRESSROUTES, {
        metadata: { name: 'old', namespace: 'apps', annotations: { [TARGET]: '192.0.2.2' } },
        spec: { routes: [{ kind: 'Rule', match: 'Host(`old.example.org`)' }] },
      });
      const want = JSON.stringify(['old.example.org A 192.0.2.2', 'web.example.org A 192.0.2.1']);
      await waitFor('records in the provider', async () => ((await records()) === want ? true : undefined), 20_000);
      const ready = await waitFor(
        'a RecordReady Event on the IngressRoute',
        () => eventsFor(api, 'IngressRoute', 'web').find((e) => e.reason === 'RecordReady'),
        20_000,
      );
      assert.match(ready.note, /web\.example\.org/);
      const objects = (await metrics.getSingleMetric('hostwarden_kube_reflector_objects')?.get())?.values ?? [];
      const count = (resource: string): number | undefined =>
        objects.find((v) => v.labels['source'] === 'traefik-proxy' && v.labels['resource'] === resource)?.value;
      assert.equal(count('ingressroutes'), 1);
      assert.equal(count('ingressroutes.traefik.containo.us'), 1);
      assert.equal(count('ingressrouteudps.traefik.containo.us'), 0);
      await kube.delete(TRAEFIK_INGRESSROUTES, 'apps', 'web');
      await waitFor('record deleted', async () => ((await records()) === JSON.stringify(['old.example.org A 192.0.2.2']) ? true : undefined), 20_000);
    } finally {
      stop.abort();
      await loop;
      await source.close();
      await recorder.flush();
      writer.close();
      await api.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('traefik-proxy before its CRDs exist', () => {
  test('endpoints() fails until the CRDs appear, then the source starts by itself', async () => {
    const api = await startTestApiServer({ bookmarkIntervalMs: 200 });
    const logger = silentLogger();
    const client = new KubeClient({ config: api.kubeConfig(), logger });
    const writer = new KubeClient({ config: api.kubeConfig(), logger });
    const source = traefikProxySource({ client, logger, translateOptions: buildTranslateOptions({}), namespace: '', syncTimeoutMs: 5000 });
    try {
      source.start();
      // The reflectors retry the 404 with backoff instead of stopping.
      await assertCrdAbsent(source, 'ingressroute/*');
      for (const crd of loadCrds('traefik').filter((c) => c.spec.group === 'traefik.io')) api.create(crd);
      await new KubeWriter(writer).create(TRAEFIK_INGRESSROUTES, {
        metadata: { name: 'r', namespace: 'default', annotations: { [TARGET]: '192.0.2.1' } },
        spec: { routes: [{ match: 'Host(`r.example.org`)' }] },
      });
      const published = async (): Promise<true | undefined> => {
        try {
          return (await source.endpoints()).some((e) => e.dnsName === 'r.example.org') ? true : undefined;
        } catch {
          return undefined;
        }
      };
      // Bounded by the reflectors' backoff (a few seconds by then) on two shared cores.
      await waitFor('the source starts once the CRDs exist', published, 30_000);
    } finally {
      await source.close();
      writer.close();
      await api.stop();
    }
  });
});
