/**
 * The contour-httpproxy source through the CLI configuration, the real client and reflector against
 * the test API server with Contour's HTTPProxy CRD installed: create, update (a new fqdn, new
 * load-balancer status), delete; two proxies asking for one name are merged into one record; a bad
 * annotation is reported and skipped while the rest publish; a source started before the CRD exists
 * starts by itself once it appears.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXTRA_FLAGS, PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';
import { resolveConfig } from '../../src/config/config.ts';
import { FLAGS } from '../../src/config/flags.ts';
import { parseArgs } from '../../src/config/parse.ts';
import { involvedObjectOf } from '../../src/controller/record-events.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { HTTPPROXIES } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import { contourHTTPProxySource } from '../../src/source/kube/contour-httpproxy.ts';
import { kubeSourceFromConfig } from '../../src/source/kube/factory.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { buildTranslateOptions } from '../../src/source/translate/options.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { runCli } from '../support/cli.ts';
import { KubeWriter, eventsFor, waitFor, assertCrdAbsent } from './harness.ts';
import { loadCrd } from '../support/crds/load.ts';

const A = 'external-dns.kubernetes.io/';

const HTTPPROXY_CRD = loadCrd('contour', 'httpproxies.projectcontour.io');

describe('contour-httpproxy source against the test API server', () => {
  let api: TestApiServer;
  let client: KubeClient;
  let kube: KubeWriter;
  let dir: string;
  let kubeconfig: string;
  const sources: KubeObjectSource[] = [];
  const logger = silentLogger();

  const view = async (source: KubeObjectSource): Promise<string[]> =>
    (await source.endpoints()).map((e) => `${e.dnsName} ${e.recordType} ${[...e.targets].sort().join(',')} ${e.labels['resource'] ?? ''}`).sort();

  const until = (what: string, source: KubeObjectSource, expected: string[]): Promise<true> =>
    waitFor(what, async () => (JSON.stringify(await view(source)) === JSON.stringify(expected) ? true : undefined)).catch(async (err: unknown) => {
      assert.deepEqual(await view(source), expected, String(err));
      throw err;
    });

  /** A proxy as its owner writes it, with the load-balancer status Contour copies from its Envoy Service. */
  const createProxy = async (name: string, fqdn: string | undefined, lb: Record<string, string>[], annotations: Record<string, string> = {}): Promise<void> => {
    await kube.create(HTTPPROXIES, {
      metadata: { name, namespace: 'apps', annotations },
      spec: {
        ...(fqdn === undefined ? {} : { virtualhost: { fqdn } }),
        routes: [{ conditions: [{ prefix: '/' }], services: [{ name, port: 80 }] }],
      },
    });
    await kube.patch(
      HTTPPROXIES,
      'apps',
      name,
      { status: { currentStatus: 'valid', description: 'Valid HTTPProxy', loadBalancer: { ingress: lb } } },
      'status',
    );
  };

  const fromFlags = (...extra: string[]): KubeObjectSource => {
    const args = ['--source', 'contour-httpproxy', '--kubeconfig', kubeconfig, '--request-timeout', '5s', ...extra];
    const cfg = resolveConfig(parseArgs(args, {}, [...FLAGS, ...EXTRA_FLAGS]), { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
    const source = kubeSourceFromConfig('contour-httpproxy', cfg, { logger });
    sources.push(source);
    return source;
  };

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 200, namespaces: ['apps'] });
    api.create(HTTPPROXY_CRD);
    client = new KubeClient({ config: api.kubeConfig(), logger });
    kube = new KubeWriter(client);
    dir = await mkdtemp(join(tmpdir(), 'hostwarden-contour-'));
    kubeconfig = await api.writeKubeconfig(dir);
  });

  after(async () => {
    await Promise.all(sources.map((s) => s.close()));
    client.close();
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  });

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
    await kube.patch(HTTPPROXIES, 'apps', 'shop', { spec: { virtualhost: { fqdn: 'store.example.org' } } });
    await kube.patch(HTTPPROXIES, 'apps', 'blog', { status: { loadBalancer: { ingress: [{ ip: '192.0.2.7' }] } } }, 'status');
    await until('updated', source, [
      'blog.example.org A 192.0.2.7 HTTPProxy/apps/blog',
      'news.example.org A 192.0.2.7 HTTPProxy/apps/blog',
      'store.example.org A 192.0.2.1 HTTPProxy/apps/shop',
    ]);
    await kube.delete(HTTPPROXIES, 'apps', 'blog');
    await until('deleted', source, ['store.example.org A 192.0.2.1 HTTPProxy/apps/shop']);
    await kube.delete(HTTPPROXIES, 'apps', 'shop');
    await kube.delete(HTTPPROXIES, 'apps', 'included');
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
    for (const n of ['one', 'two', 'three']) await kube.delete(HTTPPROXIES, 'apps', n);
    await until('gone', source, []);
  });

  test('a bad annotation is reported and skipped; the proxy and the others keep publishing', async () => {
    const problems: SourceProblem[] = [];
    const source = contourHTTPProxySource({
      client: new KubeClient({ config: api.kubeConfig(), logger }),
      logger,
      translateOptions: buildTranslateOptions({}),
      namespace: 'apps',
      syncTimeoutMs: 5000,
      onProblem: (p) => problems.push(p),
    });
    sources.push(source);
    await createProxy('typo', 'typo.example.org', [{ ip: '192.0.2.31' }], { [`${A}ttl`]: 'soon', [`${A}hostname`]: 'bad..example.org' });
    await createProxy('fine', 'fine.example.org', [{ ip: '192.0.2.32' }]);
    await until('published', source, ['fine.example.org A 192.0.2.32 HTTPProxy/apps/fine', 'typo.example.org A 192.0.2.31 HTTPProxy/apps/typo']);
    assert.equal(problems.length, 2, problems.map((p) => p.message).join('\n'));
    assert.ok(problems.every((p) => p.ref?.kind === 'HTTPProxy' && p.ref.name === 'typo'));
    for (const n of ['typo', 'fine']) await kube.delete(HTTPPROXIES, 'apps', n);
  });

  test('record Events for an HTTPProxy/ resource label land on the HTTPProxy', () => {
    assert.deepEqual(involvedObjectOf('HTTPProxy/apps/shop'), { apiVersion: 'projectcontour.io/v1', kind: 'HTTPProxy', namespace: 'apps', name: 'shop' });
  });
});

describe('contour-httpproxy before its CRD exists', () => {
  test('endpoints() fails until the CRD appears, then the source starts by itself', async () => {
    const api = await startTestApiServer({ bookmarkIntervalMs: 200 });
    const logger = silentLogger();
    const client = new KubeClient({ config: api.kubeConfig(), logger });
    const writer = new KubeClient({ config: api.kubeConfig(), logger });
    const source = contourHTTPProxySource({ client, logger, translateOptions: buildTranslateOptions({}), namespace: '', syncTimeoutMs: 5000 });
    try {
      source.start();
      await assertCrdAbsent(source, 'HTTPProxy/*');
      api.create(HTTPPROXY_CRD);
      const kube = new KubeWriter(writer);
      await kube.create(HTTPPROXIES, { metadata: { name: 'late', namespace: 'default' }, spec: { virtualhost: { fqdn: 'late.example.org' } } });
      await kube.patch(HTTPPROXIES, 'default', 'late', { status: { loadBalancer: { ingress: [{ ip: '192.0.2.40' }] } } }, 'status');
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
      writer.close();
      await api.stop();
    }
  });
});

describe('hostwarden run --source contour-httpproxy', () => {
  test('records land in the zone file and RecordReady Events on the HTTPProxy', async () => {
    const api = await startTestApiServer({ namespaces: ['apps'] });
    const dir = await mkdtemp(join(tmpdir(), 'hostwarden-contour-cli-'));
    try {
      api.create(HTTPPROXY_CRD);
      api.create({
        apiVersion: 'projectcontour.io/v1',
        kind: 'HTTPProxy',
        metadata: { name: 'shop', namespace: 'apps' },
        spec: { virtualhost: { fqdn: 'shop.example.org' } },
        status: { loadBalancer: { ingress: [{ ip: '192.0.2.50' }] } },
      });
      const kubeconfig = await api.writeKubeconfig(dir);
      const data = join(dir, 'data');
      const args = ['run', '--once', '--events-emit', 'RecordReady', '--source', 'contour-httpproxy', '--kubeconfig', kubeconfig];
      const r = await runCli([...args, '--embedded-data-dir', data, '--embedded-zone', 'example.org', '--txt-owner-id', 'cli', '--metrics-address', ''], {
        timeoutMs: 60_000,
      });
      assert.equal(r.code, 0, r.stderr);
      const zone = await readFile(join(data, 'example.org.zone'), 'utf8').catch(() => readFile(join(data, 'example.org'), 'utf8'));
      assert.match(zone, /^shop\.example\.org\. \d+ IN A 192\.0\.2\.50$/m);
      await waitFor('RecordReady on the HTTPProxy', () => (eventsFor(api, 'HTTPProxy', 'shop').some((e) => e.reason === 'RecordReady') ? true : undefined));
    } finally {
      await api.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
