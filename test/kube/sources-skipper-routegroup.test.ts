/**
 * The skipper-routegroup source end to end: RouteGroups (the CRD restated from Skipper's published
 * CRD, status under `routegroup`) written to the test API server, read back by the real reflector,
 * synced by the controller into the inmemory provider. Covers create, a new load-balancer status,
 * a rename, two RouteGroups asking for one name (merged), --fqdn-template, delete, a bad annotation
 * (reported, the rest published), a template failing on a RouteGroup (reported, its records
 * held), Events on the RouteGroup, --skipper-routegroup-groupversion, and a source started before
 * the CRD exists.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '../../src/kube/client.ts';
import { ROUTEGROUPS } from '../../src/kube/resource.ts';
import { kubeSourceFromConfig } from '../../src/source/kube/factory.ts';
import { skipperRouteGroupSource } from '../../src/source/kube/skipper-routegroup.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { buildTranslateOptions } from '../../src/source/translate/options.ts';
import { loadCrd } from '../support/crds/load.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import { eventsFor, waitFor } from './harness.ts';
import { assertStartsOnceCrdsExist, configFromFlags, syncPipeline, until, useTestApiServer } from './source-harness.ts';

const HOSTNAME = 'external-dns.kubernetes.io/hostname';
const TTL = 'external-dns.kubernetes.io/ttl';
const BACKENDS = [{ name: 'app', type: 'service', serviceName: 'app', servicePort: 80 }];
const CRD = (): ReturnType<typeof loadCrd> => loadCrd('skipper', 'routegroups.zalando.org');

describe('skipper-routegroup source against the test API server', () => {
  const suite = useTestApiServer({ namespaces: ['web'], crds: [CRD()] });

  const status = (entry: Record<string, string>): unknown => ({ status: { loadBalancer: { routegroup: [entry] } } });
  /** As Skipper's controller does: the RouteGroup, then its load balancer through the status subresource. */
  const create = async (name: string, annotations: Record<string, string>, hosts: string[] | undefined, ip: string): Promise<void> => {
    const spec = hosts === undefined ? { backends: BACKENDS } : { hosts, backends: BACKENDS };
    await suite.kube.create(ROUTEGROUPS, { metadata: { name, namespace: 'web', annotations }, spec });
    await suite.kube.patch(ROUTEGROUPS, 'web', name, status({ ip }), 'status');
  };

  test('built from flags: create, status change, rename, merge, template, delete; bad objects reported; Events on the RouteGroup', async () => {
    await create('shop', { [HOSTNAME]: 'www.example.org' }, ['shop.example.org'], '192.0.2.1');
    // Another RouteGroup asking for shop.example.org: one record with both addresses.
    await create('shop-canary', { [TTL]: '60' }, ['shop.example.org'], '192.0.2.9');
    // No hosts: --fqdn-template names it.
    await create('api', {}, undefined, '192.0.2.2');

    const args = ['--source', 'skipper-routegroup', '--fqdn-template', '{{.Metadata.Name}}.{{.Namespace}}.example.org', '--kubeconfig', suite.kubeconfig];
    const cfg = configFromFlags(args);
    const problems: SourceProblem[] = [];
    const source = kubeSourceFromConfig('skipper-routegroup', cfg, { logger: suite.logger, onProblem: (p) => problems.push(p) });
    const { records, close } = syncPipeline(source, suite.writer, suite.logger);
    suite.closeAfter(close);
    // The canary's TTL differs: its endpoint is merged only with others of the same TTL, as upstream.
    await until('first sync', records, ['api.web.example.org A 192.0.2.2 0', 'shop.example.org A 192.0.2.1 0', 'www.example.org A 192.0.2.1 0']);
    await suite.kube.patch(ROUTEGROUPS, 'web', 'shop-canary', { metadata: { annotations: { [TTL]: null } } });
    await until('merged', records, ['api.web.example.org A 192.0.2.2 0', 'shop.example.org A 192.0.2.1,192.0.2.9 0', 'www.example.org A 192.0.2.1 0']);

    // The load balancer moves to a hostname.
    await suite.kube.patch(ROUTEGROUPS, 'web', 'api', status({ hostname: 'lb.example.net' }), 'status');
    await until('new status', records, [
      'api.web.example.org CNAME lb.example.net 0',
      'shop.example.org A 192.0.2.1,192.0.2.9 0',
      'www.example.org A 192.0.2.1 0',
    ]);

    // Renamed: the host changes.
    await suite.kube.patch(ROUTEGROUPS, 'web', 'shop', { spec: { hosts: ['store.example.org'] } });
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

    const ready = await waitFor('a RecordReady Event on RouteGroup api', () =>
      eventsFor(suite.api, 'RouteGroup', 'api').find((e) => e.reason === 'RecordReady'),
    );
    assert.match(ready.note, /api\.web\.example\.org/);

    for (const name of ['shop', 'shop-canary', 'api', 'bad']) await suite.kube.delete(ROUTEGROUPS, 'web', name);
    await until('all deleted', records, []);
  });

  test('a template failing on a RouteGroup is reported and its records are held (external-dns fails the whole sync)', async () => {
    await create('held', {}, undefined, '192.0.2.5');
    const args = ['--source', 'skipper-routegroup', '--fqdn-template', '{{ index . 0 }}', '--kubeconfig', suite.kubeconfig];
    const cfg = configFromFlags(args);
    const problems: SourceProblem[] = [];
    const source = kubeSourceFromConfig('skipper-routegroup', cfg, { logger: suite.logger, onProblem: (p) => problems.push(p) });
    suite.closeAfter(() => source.close());
    assert.deepEqual(await source.endpoints(), []);
    assert.deepEqual([...source.heldResources()], ['routegroup/web/held']);
    assert.match(problems.at(-1)?.message ?? '', /^RouteGroup\/web\/held: .*kept as they are/);
    await suite.kube.delete(ROUTEGROUPS, 'web', 'held');
  });

  test('--skipper-routegroup-groupversion reads another version of the same CRD', async () => {
    const crd = CRD() as unknown as { spec: { versions: Record<string, unknown>[] } };
    crd.spec.versions = [{ ...crd.spec.versions[0], name: 'v1beta1', storage: true }];
    const other = await startTestApiServer({ bookmarkIntervalMs: 200 });
    other.create(crd as unknown as ReturnType<typeof loadCrd>);
    const client = new KubeClient({ config: other.kubeConfig(), logger: suite.logger });
    const source = skipperRouteGroupSource(
      { client, logger: suite.logger, translateOptions: buildTranslateOptions({}), namespace: '', syncTimeoutMs: 5000 },
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

  test('started before the RouteGroup CRD exists: syncs fail until it appears, then the source starts by itself', () =>
    assertStartsOnceCrdsExist({
      build: skipperRouteGroupSource,
      held: 'routegroup/*',
      crds: [CRD()],
      write: async (kube) => {
        await kube.create(ROUTEGROUPS, {
          metadata: { name: 'r', namespace: 'default', annotations: { 'external-dns.kubernetes.io/target': '192.0.2.7' } },
          spec: { hosts: ['late.example.org'], backends: BACKENDS },
        });
      },
      publishes: 'late.example.org',
    }));
});
