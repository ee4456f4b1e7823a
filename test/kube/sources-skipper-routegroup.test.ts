/**
 * The skipper-routegroup source end to end: RouteGroups (the CRD restated from Skipper's published
 * CRD, status under `routegroup`) written to the test API server, read back by the real reflector,
 * synced by the controller into the inmemory provider. Covers create, a new load-balancer status,
 * a rename, two RouteGroups asking for one name (merged), --fqdn-template, delete, a bad annotation
 * (reported, the rest published), a template failing on a RouteGroup (reported, its records
 * held), Events on the RouteGroup, --skipper-routegroup-groupversion, and a source started before
 * the CRD exists.
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
import { ROUTEGROUPS } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { kubeSourceFromConfig } from '../../src/source/kube/factory.ts';
import { skipperRouteGroupSource } from '../../src/source/kube/skipper-routegroup.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { buildTranslateOptions } from '../../src/source/translate/options.ts';
import { loadCrd } from '../support/crds/load.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { syncPipeline, until } from './crd-source-pipeline.ts';
import { KubeWriter, eventsFor, waitFor, assertCrdAbsent } from './harness.ts';

const HOSTNAME = 'external-dns.kubernetes.io/hostname';
const TTL = 'external-dns.kubernetes.io/ttl';
const BACKENDS = [{ name: 'app', type: 'service', serviceName: 'app', servicePort: 80 }];
const CRD = (): ReturnType<typeof loadCrd> => loadCrd('skipper', 'routegroups.zalando.org');

describe('skipper-routegroup source against the test API server', () => {
  let api: TestApiServer;
  let kube: KubeWriter;
  let writer: KubeClient;
  let dir: string;
  const logger = silentLogger();
  const closers: (() => Promise<void>)[] = [];

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 200, namespaces: ['web'] });
    api.create(CRD());
    writer = new KubeClient({ config: api.kubeConfig(), logger });
    kube = new KubeWriter(writer);
    dir = await mkdtemp(join(tmpdir(), 'hw-skipper-'));
  });
  after(async () => {
    for (const close of closers) await close();
    writer.close();
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const status = (entry: Record<string, string>): unknown => ({ status: { loadBalancer: { routegroup: [entry] } } });
  /** As Skipper's controller does: the RouteGroup, then its load balancer through the status subresource. */
  const create = async (name: string, annotations: Record<string, string>, hosts: string[] | undefined, ip: string): Promise<void> => {
    const spec = hosts === undefined ? { backends: BACKENDS } : { hosts, backends: BACKENDS };
    await kube.create(ROUTEGROUPS, { metadata: { name, namespace: 'web', annotations }, spec });
    await kube.patch(ROUTEGROUPS, 'web', name, status({ ip }), 'status');
  };

  test('built from flags: create, status change, rename, merge, template, delete; bad objects reported; Events on the RouteGroup', async () => {
    await create('shop', { [HOSTNAME]: 'www.example.org' }, ['shop.example.org'], '192.0.2.1');
    // Another RouteGroup asking for shop.example.org: one record with both addresses.
    await create('shop-canary', { [TTL]: '60' }, ['shop.example.org'], '192.0.2.9');
    // No hosts: --fqdn-template names it.
    await create('api', {}, undefined, '192.0.2.2');

    const args = [
      '--source',
      'skipper-routegroup',
      '--fqdn-template',
      '{{.Metadata.Name}}.{{.Namespace}}.example.org',
      '--kubeconfig',
      await api.writeKubeconfig(dir),
    ];
    const cfg = resolveConfig(parseArgs(args, {}, [...FLAGS, ...EXTRA_FLAGS]), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
    const problems: SourceProblem[] = [];
    const source = kubeSourceFromConfig('skipper-routegroup', cfg, { logger, onProblem: (p) => problems.push(p) });
    const { records, close } = syncPipeline(source, writer, logger);
    closers.push(close);
    // The canary's TTL differs: its endpoint is merged only with others of the same TTL, as upstream.
    await until('first sync', records, ['api.web.example.org A 192.0.2.2 0', 'shop.example.org A 192.0.2.1 0', 'www.example.org A 192.0.2.1 0']);
    await kube.patch(ROUTEGROUPS, 'web', 'shop-canary', { metadata: { annotations: { [TTL]: null } } });
    await until('merged', records, ['api.web.example.org A 192.0.2.2 0', 'shop.example.org A 192.0.2.1,192.0.2.9 0', 'www.example.org A 192.0.2.1 0']);

    // The load balancer moves to a hostname.
    await kube.patch(ROUTEGROUPS, 'web', 'api', status({ hostname: 'lb.example.net' }), 'status');
    await until('new status', records, [
      'api.web.example.org CNAME lb.example.net 0',
      'shop.example.org A 192.0.2.1,192.0.2.9 0',
      'www.example.org A 192.0.2.1 0',
    ]);

    // Renamed: the host changes.
    await kube.patch(ROUTEGROUPS, 'web', 'shop', { spec: { hosts: ['store.example.org'] } });
    await until('rename', records, [
      'api.web.example.org CNAME lb.example.net 0',
      'shop.example.org A 192.0.2.9 0',
      'store.example.org A 192.0.2.1 0',
      'www.example.org A 192.0.2.1 0',
    ]);

    // A bad TTL is reported and skipped; the RouteGroup is published with the default TTL.
    await create('bad', { [TTL]: 'forever' }, ['bad.example.org'], '192.0.2.3');
    await waitFor('a problem naming the bad RouteGroup', () => (problems.some((p) => /^RouteGroup\/web\/bad: .*forever/.test(p.message)) ? true : undefined));
    await until('bad published with the default TTL', records, [
      'api.web.example.org CNAME lb.example.net 0',
      'bad.example.org A 192.0.2.3 0',
      'shop.example.org A 192.0.2.9 0',
      'store.example.org A 192.0.2.1 0',
      'www.example.org A 192.0.2.1 0',
    ]);

    const ready = await waitFor('a RecordReady Event on RouteGroup api', () => eventsFor(api, 'RouteGroup', 'api').find((e) => e.reason === 'RecordReady'));
    assert.match(ready.note, /api\.web\.example\.org/);

    for (const name of ['shop', 'shop-canary', 'api', 'bad']) await kube.delete(ROUTEGROUPS, 'web', name);
    await until('all deleted', records, []);
  });

  test('a template failing on a RouteGroup is reported and its records are held (external-dns fails the whole sync)', async () => {
    await create('held', {}, undefined, '192.0.2.5');
    const args = ['--source', 'skipper-routegroup', '--fqdn-template', '{{ index . 0 }}', '--kubeconfig', await api.writeKubeconfig(dir)];
    const cfg = resolveConfig(parseArgs(args, {}, [...FLAGS, ...EXTRA_FLAGS]), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
    const problems: SourceProblem[] = [];
    const source = kubeSourceFromConfig('skipper-routegroup', cfg, { logger, onProblem: (p) => problems.push(p) });
    closers.push(() => source.close());
    assert.deepEqual(await source.endpoints(), []);
    assert.deepEqual([...source.heldResources()], ['routegroup/web/held']);
    assert.match(problems.at(-1)?.message ?? '', /^RouteGroup\/web\/held: .*kept as they are/);
    await kube.delete(ROUTEGROUPS, 'web', 'held');
  });

  test('--skipper-routegroup-groupversion reads another version of the same CRD', async () => {
    const crd = CRD() as unknown as { spec: { versions: Record<string, unknown>[] } };
    crd.spec.versions = [{ ...crd.spec.versions[0], name: 'v1beta1', storage: true }];
    const other = await startTestApiServer({ bookmarkIntervalMs: 200 });
    other.create(crd as unknown as ReturnType<typeof loadCrd>);
    const client = new KubeClient({ config: other.kubeConfig(), logger });
    const source = skipperRouteGroupSource(
      { client, logger, translateOptions: buildTranslateOptions({}), namespace: '', syncTimeoutMs: 5000 },
      'zalando.org/v1beta1',
    );
    try {
      other.create({
        apiVersion: 'zalando.org/v1beta1',
        kind: 'RouteGroup',
        metadata: { name: 'r', namespace: 'default' },
        spec: { hosts: ['beta.example.org'], backends: BACKENDS },
        status: { loadBalancer: { routegroup: [{ ip: '192.0.2.8' }] } },
      });
      assert.deepEqual(
        (await source.endpoints()).map((e) => `${e.dnsName} ${e.targets.join(',')}`),
        ['beta.example.org 192.0.2.8'],
      );
    } finally {
      await source.close();
      await other.stop();
    }
  });

  test('started before the RouteGroup CRD exists: syncs fail until it appears, then the source starts by itself', async () => {
    const bare = await startTestApiServer({ bookmarkIntervalMs: 200 });
    const client = new KubeClient({ config: bare.kubeConfig(), logger });
    const w = new KubeClient({ config: bare.kubeConfig(), logger });
    const source = skipperRouteGroupSource({ client, logger, translateOptions: buildTranslateOptions({}), namespace: '', syncTimeoutMs: 5000 });
    try {
      source.start();
      await assertCrdAbsent(source, 'routegroup/*');
      bare.create(CRD());
      await new KubeWriter(w).create(ROUTEGROUPS, {
        metadata: { name: 'r', namespace: 'default', annotations: { 'external-dns.kubernetes.io/target': '192.0.2.7' } },
        spec: { hosts: ['late.example.org'], backends: BACKENDS },
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
