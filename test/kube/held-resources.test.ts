/**
 * A template that fails on one object loses none of its records, through the real client and
 * reflectors against the test API server: a running source keeps the object's last good endpoints
 * (and reports the problem once per change of error); a source starting while the template fails,
 * or meeting a new object it fails on, holds the object's resource label instead; a fixed object
 * translates again and is no longer held.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '../../src/kube/client.ts';
import { SERVICES } from '../../src/kube/resource.ts';
import { silentLogger } from '../../src/log.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import { serviceSource } from '../../src/source/kube/sources.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { buildTranslateOptions } from '../../src/source/translate/options.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { KubeWriter, waitFor } from './harness.ts';

const HOSTNAME = 'external-dns.alpha.kubernetes.io/hostname';
const TARGET = 'external-dns.alpha.kubernetes.io/target';

describe('service source: a template failing on an object holds its records', () => {
  let api: TestApiServer;
  let client: KubeClient;
  let kube: KubeWriter;
  const sources: KubeObjectSource[] = [];
  const logger = silentLogger();
  const translateOptions = buildTranslateOptions({ fqdnTemplate: ['{{ .Labels.team | toLower }}.example.org'], combineFqdnAnnotation: true });

  const start = (problems: SourceProblem[]): KubeObjectSource => {
    const s = serviceSource({
      client: new KubeClient({ config: api.kubeConfig(), logger }),
      logger,
      translateOptions,
      namespace: '',
      syncTimeoutMs: 5000,
      onProblem: (p) => problems.push(p),
    });
    sources.push(s);
    s.start();
    return s;
  };
  const names = async (s: KubeObjectSource): Promise<string[]> => [...new Set((await s.endpoints()).map((e) => e.dnsName))].sort();
  const service = (name: string, labels: Record<string, string>, hostname?: string) => ({
    metadata: { name, namespace: 'default', labels, annotations: { [TARGET]: '192.0.2.1', ...(hostname === undefined ? {} : { [HOSTNAME]: hostname }) } },
    spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
  });

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 200 });
    client = new KubeClient({ config: api.kubeConfig(), logger });
    kube = new KubeWriter(client);
    await kube.create(SERVICES, service('web', { team: 'Shop' }, 'web.example.org'));
    await kube.create(SERVICES, service('api', { team: 'Api' }));
  });
  after(async () => {
    for (const s of sources) await s.close();
    client.close();
    await api.stop();
  });

  test('a running source keeps the last good endpoints; a new object it fails on is held', async () => {
    const problems: SourceProblem[] = [];
    const source = start(problems);
    assert.deepEqual(await names(source), ['api.example.org', 'shop.example.org', 'web.example.org']);
    assert.deepEqual([...source.heldResources()], []);

    await kube.patch(SERVICES, 'default', 'web', { metadata: { labels: { team: null } } });
    await waitFor('the problem of web', () => (problems.length > 0 ? true : undefined));
    assert.deepEqual(await names(source), ['api.example.org', 'shop.example.org', 'web.example.org']);
    assert.deepEqual([...source.heldResources()], []);
    assert.equal(problems.length, 1);
    assert.match(
      problems[0]?.message ?? '',
      /^Service\/default\/web: --fqdn-template: failed to apply template on Service default\/web: template: endpoint:1:18: .*error calling toLower: .*; the object's records are kept as they are until the template works on it$/,
    );

    // The same error again is not reported again (the api change, later in the same watch, shows it was seen).
    await kube.patch(SERVICES, 'default', 'web', { metadata: { annotations: { unrelated: 'x' } } });
    await kube.patch(SERVICES, 'default', 'api', { metadata: { labels: { team: 'Api2' } } });
    await waitFor('api2', async () => ((await names(source)).includes('api2.example.org') ? true : undefined));
    assert.equal(problems.length, 1);

    // A new object the template fails on has no last good translation: it is held.
    await kube.create(SERVICES, service('fresh', {}, 'fresh.example.org'));
    await waitFor('the problem of fresh', () => (problems.length > 1 ? true : undefined));
    assert.ok(!(await names(source)).includes('fresh.example.org'));
    assert.deepEqual([...source.heldResources()], ['service/default/fresh']);
  });

  test('a source starting while the template fails holds the object; fixing the object releases it', async () => {
    const problems: SourceProblem[] = [];
    const source = start(problems);
    assert.deepEqual(await names(source), ['api2.example.org']);
    assert.deepEqual([...source.heldResources()].sort(), ['service/default/fresh', 'service/default/web']);
    assert.equal(problems.length, 2);

    await kube.patch(SERVICES, 'default', 'web', { metadata: { labels: { team: 'Shop' } } });
    await waitFor('web translated again', async () => ((await names(source)).includes('web.example.org') ? true : undefined));
    assert.deepEqual(await names(source), ['api2.example.org', 'shop.example.org', 'web.example.org']);
    assert.deepEqual([...source.heldResources()], ['service/default/fresh']);
    await kube.delete(SERVICES, 'default', 'fresh');
    await waitFor('fresh released', async () => {
      await source.endpoints();
      return source.heldResources().size === 0 ? true : undefined;
    });
  });
});
