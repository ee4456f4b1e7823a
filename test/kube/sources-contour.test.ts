/**
 * The contour-httpproxy source through the CLI configuration, the real client and reflector against
 * the test API server with Contour's HTTPProxy CRD installed: create, update (a new fqdn, new
 * load-balancer status), delete; two proxies asking for one name are merged into one record; a bad
 * annotation is reported and skipped while the rest publish; a source started before the CRD exists
 * starts by itself once it appears.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { involvedObjectOf } from '../../src/controller/record-events.ts';
import { HTTPPROXIES } from '../../src/kube/resource.ts';
import { contourHTTPProxySource } from '../../src/source/kube/contour-httpproxy.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { eventsFor, waitFor } from './harness.ts';
import { assertStartsOnceCrdsExist, runOnce, untilViewed, useTestApiServer } from './source-harness.ts';
import { loadCrd } from '../support/crds/load.ts';

const A = 'external-dns.kubernetes.io/';

const HTTPPROXY_CRD = loadCrd('contour', 'httpproxies.projectcontour.io');

describe('contour-httpproxy source against the test API server', () => {
  const suite = useTestApiServer({ namespaces: ['apps'], crds: [HTTPPROXY_CRD] });

  const until = (what: string, source: KubeObjectSource, expected: string[]): Promise<void> => untilViewed(what, source, expected, { resource: true });

  /** A proxy as its owner writes it, with the load-balancer status Contour copies from its Envoy Service. */
  const createProxy = async (name: string, fqdn: string | undefined, lb: Record<string, string>[], annotations: Record<string, string> = {}): Promise<void> => {
    await suite.kube.create(HTTPPROXIES, {
      metadata: { name, namespace: 'apps', annotations },
      spec: {
        ...(fqdn === undefined ? {} : { virtualhost: { fqdn } }),
        routes: [{ conditions: [{ prefix: '/' }], services: [{ name, port: 80 }] }],
      },
    });
    await suite.kube.patch(
      HTTPPROXIES,
      'apps',
      name,
      { status: { currentStatus: 'valid', description: 'Valid HTTPProxy', loadBalancer: { ingress: lb } } },
      'status',
    );
  };

  const fromFlags = (...extra: string[]): KubeObjectSource => suite.sourceFromFlags('contour-httpproxy', ['--request-timeout', '5s', ...extra]);

  test('create, update, delete; an included proxy without a virtual host publishes nothing', async () => {
    const source = fromFlags();
    await createProxy('shop', 'shop.example.org', [{ ip: '192.0.2.1' }]);
    await createProxy('blog', 'blog.example.org', [{ hostname: 'lb.example.net' }], { [`${A}hostname`]: 'news.example.org' });
    await createProxy('included', undefined, [{ ip: '192.0.2.1' }]);
    await until('created', source, [
      'blog.example.org CNAME lb.example.net HTTPProxy/apps/blog',
      'news.example.org CNAME lb.example.net HTTPProxy/apps/blog',
      'shop.example.org A 192.0.2.1 HTTPProxy/apps/shop',
    ]);
    // A new fqdn renames the record; a new load balancer moves its targets.
    await suite.kube.patch(HTTPPROXIES, 'apps', 'shop', { spec: { virtualhost: { fqdn: 'store.example.org' } } });
    await suite.kube.patch(HTTPPROXIES, 'apps', 'blog', { status: { loadBalancer: { ingress: [{ ip: '192.0.2.7' }] } } }, 'status');
    await until('updated', source, [
      'blog.example.org A 192.0.2.7 HTTPProxy/apps/blog',
      'news.example.org A 192.0.2.7 HTTPProxy/apps/blog',
      'store.example.org A 192.0.2.1 HTTPProxy/apps/shop',
    ]);
    await suite.kube.delete(HTTPPROXIES, 'apps', 'blog');
    await until('deleted', source, ['store.example.org A 192.0.2.1 HTTPProxy/apps/shop']);
    await suite.kube.delete(HTTPPROXIES, 'apps', 'shop');
    await suite.kube.delete(HTTPPROXIES, 'apps', 'included');
    await until('all deleted', source, []);
  });

  test('two proxies asking for one name are merged into one record; the target annotation wins over the status', async () => {
    const source = fromFlags('--fqdn-template', '{{.Name}}.proxies.example.org');
    await createProxy('one', 'shared.example.org', [{ ip: '192.0.2.21' }]);
    await createProxy('two', 'shared.example.org', [{ ip: '192.0.2.22' }], { [`${A}target`]: '198.51.100.2' });
    await createProxy('three', undefined, [{ ip: '192.0.2.23' }]);
    await until('merged', source, [
      'shared.example.org A 192.0.2.21,198.51.100.2 HTTPProxy/apps/one',
      'three.proxies.example.org A 192.0.2.23 HTTPProxy/apps/three',
    ]);
    for (const n of ['one', 'two', 'three']) await suite.kube.delete(HTTPPROXIES, 'apps', n);
    await until('gone', source, []);
  });

  test('a bad annotation is reported and skipped; the proxy and the others keep publishing', async () => {
    const problems: SourceProblem[] = [];
    const source = contourHTTPProxySource(suite.sourceDeps({ namespace: 'apps', onProblem: (p) => problems.push(p) }));
    suite.closeAfter(() => source.close());
    await createProxy('typo', 'typo.example.org', [{ ip: '192.0.2.31' }], { [`${A}ttl`]: 'soon', [`${A}hostname`]: 'bad..example.org' });
    await createProxy('fine', 'fine.example.org', [{ ip: '192.0.2.32' }]);
    await until('published', source, ['fine.example.org A 192.0.2.32 HTTPProxy/apps/fine', 'typo.example.org A 192.0.2.31 HTTPProxy/apps/typo']);
    assert.equal(problems.length, 2, problems.map((p) => p.message).join('\n'));
    assert.ok(problems.every((p) => p.ref?.kind === 'HTTPProxy' && p.ref.name === 'typo'));
    for (const n of ['typo', 'fine']) await suite.kube.delete(HTTPPROXIES, 'apps', n);
  });

  test('record Events for an HTTPProxy/ resource label land on the HTTPProxy', () => {
    assert.deepEqual(involvedObjectOf('HTTPProxy/apps/shop'), { apiVersion: 'projectcontour.io/v1', kind: 'HTTPProxy', namespace: 'apps', name: 'shop' });
  });
});

describe('contour-httpproxy before its CRD exists', () => {
  test('endpoints() fails until the CRD appears, then the source starts by itself', () =>
    assertStartsOnceCrdsExist({
      build: contourHTTPProxySource,
      held: 'HTTPProxy/*',
      crds: [HTTPPROXY_CRD],
      write: async (kube) => {
        await kube.create(HTTPPROXIES, { metadata: { name: 'late', namespace: 'default' }, spec: { virtualhost: { fqdn: 'late.example.org' } } });
        await kube.patch(HTTPPROXIES, 'default', 'late', { status: { loadBalancer: { ingress: [{ ip: '192.0.2.40' }] } } }, 'status');
      },
      publishes: 'late.example.org',
    }));
});

describe('hostwarden run --source contour-httpproxy', () => {
  test('records land in the zone file and RecordReady Events on the HTTPProxy', () =>
    runOnce(
      {
        namespaces: ['apps'],
        crds: [HTTPPROXY_CRD],
        objects: [
          {
            apiVersion: 'projectcontour.io/v1',
            kind: 'HTTPProxy',
            metadata: { name: 'shop', namespace: 'apps' },
            spec: { virtualhost: { fqdn: 'shop.example.org' } },
            status: { loadBalancer: { ingress: [{ ip: '192.0.2.50' }] } },
          },
        ],
        args: ['--source', 'contour-httpproxy'],
      },
      async ({ zone, api }) => {
        assert.match(zone, /^shop\.example\.org\. \d+ IN A 192\.0\.2\.50$/m);
        await waitFor('RecordReady on the HTTPProxy', () => (eventsFor(api, 'HTTPProxy', 'shop').some((e) => e.reason === 'RecordReady') ? true : undefined));
      },
    ));
});
