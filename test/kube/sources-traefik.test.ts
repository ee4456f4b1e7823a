/**
 * traefik-proxy through the CLI configuration, the real client and reflectors against the test API
 * server with Traefik's CRDs (both groups) installed: IngressRoute, IngressRouteTCP and
 * IngressRouteUDP created, renamed and deleted reach the endpoints; two routes asking for one name
 * are merged; routes of different kinds with one name do not shadow each other; a bad annotation
 * or hostname is reported and skipped; --traefik-enable-legacy and --traefik-disable-new choose the
 * groups read; synced by the controller, records land in the provider and Events on the routes. A source started before its CRDs exist fails its syncs until they appear, then starts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { LEGACY_TRAEFIK_INGRESSROUTES, TRAEFIK_INGRESSROUTES, TRAEFIK_INGRESSROUTETCPS, TRAEFIK_INGRESSROUTEUDPS } from '../../src/kube/resource.ts';
import { TraefikProxySource, traefikProxySource } from '../../src/source/kube/traefik-proxy.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { eventsFor, waitFor } from './harness.ts';
import { assertStartsOnceCrdsExist, configFromFlags, endpointLines, syncPipeline, until, useTestApiServer, viewOf } from './source-harness.ts';
import { loadCrds } from '../support/crds/load.ts';

const HOSTNAME = 'external-dns.alpha.kubernetes.io/hostname';
const TARGET = 'external-dns.alpha.kubernetes.io/target';
const TTL = 'external-dns.alpha.kubernetes.io/ttl';

describe('traefik-proxy against the test API server', () => {
  const suite = useTestApiServer({ namespaces: ['apps'], crds: loadCrds('traefik') });

  function open(flags: string[], problems: SourceProblem[] = []): TraefikProxySource {
    const cfg = configFromFlags(['--source', 'traefik-proxy', '--kubeconfig', suite.kubeconfig, ...flags]);
    const source = TraefikProxySource.fromConfig(cfg, { logger: suite.logger, onProblem: (p) => problems.push(p) });
    suite.closeAfter(() => source.close());
    source.start();
    return source;
  }

  test('all three kinds in both groups: create, rename, merge, bad input, delete', async () => {
    await suite.kube.create(TRAEFIK_INGRESSROUTES, {
      metadata: { name: 'web', namespace: 'apps', annotations: { [TARGET]: '192.0.2.1' } },
      spec: { entryPoints: ['websecure'], routes: [{ match: 'Host(`web.example.org`) && PathPrefix(`/`)', services: [{ name: 'web', port: 80 }] }] },
    });
    await suite.kube.create(TRAEFIK_INGRESSROUTETCPS, {
      metadata: { name: 'db', namespace: 'apps', annotations: { [TARGET]: 'lb.example.net' } },
      spec: { routes: [{ match: 'HostSNI(`db.example.org`)', services: [{ name: 'db', port: 5432 }] }], tls: { passthrough: true } },
    });
    await suite.kube.create(TRAEFIK_INGRESSROUTEUDPS, {
      metadata: { name: 'dns', namespace: 'apps', annotations: { [TARGET]: '192.0.2.3', [HOSTNAME]: 'dns.example.org' } },
      spec: { routes: [{ services: [{ name: 'dns', port: 53 }] }] },
    });
    await suite.kube.create(LEGACY_TRAEFIK_INGRESSROUTES, {
      metadata: { name: 'old', namespace: 'apps', annotations: { [TARGET]: '192.0.2.4' } },
      spec: { routes: [{ kind: 'Rule', match: 'Host(`old.example.org`)', services: [{ name: 'old', port: 80 }] }] },
    });

    const problems: SourceProblem[] = [];
    const source = open(['--traefik-enable-legacy'], problems);
    const all = ['web.example.org A 192.0.2.1', 'db.example.org CNAME lb.example.net', 'dns.example.org A 192.0.2.3', 'old.example.org A 192.0.2.4'];
    assert.deepEqual(await viewOf(source), [...all].sort());
    assert.equal(source.objectCount(), 4);
    assert.equal((await source.endpoints()).find((e) => e.dnsName === 'old.example.org')?.labels['resource'], 'ingressroute/apps/old');

    // Renamed: the match rule names another host.
    await suite.kube.patch(TRAEFIK_INGRESSROUTES, 'apps', 'web', {
      spec: { routes: [{ match: 'Host(`web2.example.org`)', services: [{ name: 'web', port: 80 }] }] },
    });
    const renamed = ['web2.example.org A 192.0.2.1', ...all.slice(1)];
    await until('rename', () => viewOf(source), renamed);

    // Two routes (an IngressRouteTCP of the same name as the IngressRoute, and a legacy one) asking
    // for one name: one record with both targets; neither shadows the other.
    await suite.kube.create(TRAEFIK_INGRESSROUTETCPS, {
      metadata: { name: 'web', namespace: 'apps', annotations: { [TARGET]: '192.0.2.5' } },
      spec: { routes: [{ match: 'HostSNI(`shared.example.org`)', services: [{ name: 'web', port: 443 }] }] },
    });
    await suite.kube.create(LEGACY_TRAEFIK_INGRESSROUTES, {
      metadata: { name: 'shared', namespace: 'apps', annotations: { [TARGET]: '192.0.2.6' } },
      spec: { routes: [{ kind: 'Rule', match: 'Host(`shared.example.org`)', services: [{ name: 'x', port: 80 }] }] },
    });
    await until('merge', () => viewOf(source), [...renamed, 'shared.example.org A 192.0.2.5,192.0.2.6']);

    // A bad TTL is reported and skipped (default TTL); a bad host in a rule is reported and skipped, the other host stays.
    await suite.kube.create(TRAEFIK_INGRESSROUTES, {
      metadata: { name: 'bad', namespace: 'apps', annotations: { [TARGET]: '192.0.2.7', [TTL]: 'forever' } },
      spec: { routes: [{ match: 'Host(`bad..example.org`) || Host(`good.example.org`)', services: [{ name: 'x', port: 80 }] }] },
    });
    await until('bad input', () => viewOf(source), [...renamed, 'shared.example.org A 192.0.2.5,192.0.2.6', 'good.example.org A 192.0.2.7']);
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
      await suite.kube.delete(res, 'apps', name);
    await until('delete', () => viewOf(source), all.slice(1));

    // --traefik-disable-new with --traefik-enable-legacy: only the legacy group is read; without
    // --traefik-enable-legacy (the default) the legacy objects are not read.
    const legacyOnly = open(['--traefik-enable-legacy', '--traefik-disable-new']);
    assert.deepEqual(await viewOf(legacyOnly), ['old.example.org A 192.0.2.4']);
    const newOnly = open([]);
    assert.deepEqual(await viewOf(newOnly), all.slice(1, 3).sort());
  });
});

describe('traefik-proxy synced by the controller', () => {
  const suite = useTestApiServer({ namespaces: ['apps'], crds: loadCrds('traefik') });

  test('records in the provider, Events on the routes, reflector metrics per group', async () => {
    const metrics = new Registry();
    const source = TraefikProxySource.fromConfig(configFromFlags(['--source', 'traefik-proxy', '--kubeconfig', suite.kubeconfig, '--traefik-enable-legacy']), {
      logger: suite.logger,
      metrics,
    });
    const pipeline = syncPipeline(source, suite.writer, suite.logger);
    suite.closeAfter(pipeline.close);
    const records = async (): Promise<string[]> => endpointLines(await pipeline.endpoints());
    const kube = suite.kube;
    await kube.create(TRAEFIK_INGRESSROUTES, {
      metadata: { name: 'web', namespace: 'apps', annotations: { [TARGET]: '192.0.2.1' } },
      spec: { routes: [{ match: 'Host(`web.example.org`)' }] },
    });
    await kube.create(LEGACY_TRAEFIK_INGRESSROUTES, {
      metadata: { name: 'old', namespace: 'apps', annotations: { [TARGET]: '192.0.2.2' } },
      spec: { routes: [{ kind: 'Rule', match: 'Host(`old.example.org`)' }] },
    });
    await until('records in the provider', records, ['old.example.org A 192.0.2.2', 'web.example.org A 192.0.2.1']);
    const ready = await waitFor(
      'a RecordReady Event on the IngressRoute',
      () => eventsFor(suite.api, 'IngressRoute', 'web').find((e) => e.reason === 'RecordReady'),
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
    await until('record deleted', records, ['old.example.org A 192.0.2.2']);
  });
});

describe('traefik-proxy before its CRDs exist', () => {
  test('endpoints() fails until the CRDs appear, then the source starts by itself', () =>
    assertStartsOnceCrdsExist({
      build: traefikProxySource,
      held: 'ingressroute/*',
      crds: loadCrds('traefik').filter((c) => c.spec.group === 'traefik.io'),
      write: async (kube) => {
        await kube.create(TRAEFIK_INGRESSROUTES, {
          metadata: { name: 'r', namespace: 'default', annotations: { [TARGET]: '192.0.2.1' } },
          spec: { routes: [{ match: 'Host(`r.example.org`)' }] },
        });
      },
      publishes: 'r.example.org',
    }));
});
