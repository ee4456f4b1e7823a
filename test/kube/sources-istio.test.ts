/**
 * istio-gateway and istio-virtualservice through the CLI configuration, the real client and
 * reflectors against the test API server with Istio's Gateway and VirtualService CRDs installed
 * (test/support/crds/istio): create, update (a renamed host), delete; two objects asking for one
 * name share it; targets follow the ingress-gateway Service and the Ingress of the `ingress`
 * annotation; a Gateway whose targets cannot be worked out is reported and held while the rest
 * keep syncing. A source started before its CRD exists starts by itself once it appears.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { INGRESSES, ISTIO_GATEWAYS, ISTIO_VIRTUALSERVICES, SERVICES } from '../../src/kube/resource.ts';
import type { KubeSourceName } from '../../src/source/kube/factory.ts';
import { istioVirtualServiceSource } from '../../src/source/kube/istio-sources.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { waitFor } from './harness.ts';
import { assertStartsOnceCrdsExist, untilViewed, useTestApiServer, viewOf } from './source-harness.ts';
import { loadCrd } from '../support/crds/load.ts';
import type { CrdObject } from '../support/crds/load.ts';

const TARGET = 'external-dns.alpha.kubernetes.io/target';
const INGRESS = 'external-dns.alpha.kubernetes.io/ingress';
const LB = '192.0.2.10';
const HTTP = { number: 80, name: 'http', protocol: 'HTTP' };

const istioCrd = (plural: 'gateways' | 'virtualservices'): CrdObject => loadCrd('istio', `${plural}.networking.istio.io`);

describe('istio-gateway and istio-virtualservice against the test API server', () => {
  const suite = useTestApiServer({ namespaces: ['istio-system', 'apps'], crds: [istioCrd('gateways'), istioCrd('virtualservices')] });

  before(async () => {
    await suite.kube.create(SERVICES, {
      metadata: { name: 'istio-ingressgateway', namespace: 'istio-system' },
      spec: { type: 'LoadBalancer', selector: { istio: 'ingressgateway', app: 'istio-ingressgateway' }, ports: [{ port: 80 }] },
    });
    await suite.kube.patch(SERVICES, 'istio-system', 'istio-ingressgateway', { status: { loadBalancer: { ingress: [{ ip: LB }] } } }, 'status');
    await suite.kube.create(INGRESSES, { metadata: { name: 'edge', namespace: 'istio-system' }, spec: { ingressClassName: 'alb' } });
    await suite.kube.patch(INGRESSES, 'istio-system', 'edge', { status: { loadBalancer: { ingress: [{ hostname: 'lb.example.net' }] } } }, 'status');
  });

  function open(name: KubeSourceName, problems: SourceProblem[]): KubeObjectSource {
    const source = suite.sourceFromFlags(name, [], problems);
    source.start();
    return source;
  }

  const gateway = (name: string, hosts: string[], annotations: Record<string, string> = {}): Promise<unknown> =>
    suite.kube.create(ISTIO_GATEWAYS, {
      metadata: { name, namespace: 'istio-system', annotations },
      spec: { selector: { istio: 'ingressgateway' }, servers: [{ port: HTTP, hosts }] },
    });

  test('istio-gateway: create, rename, two Gateways for one name, Service and Ingress targets, a broken Gateway held, delete', async () => {
    await gateway('public', ['apps/a.example.org', '*']);
    const problems: SourceProblem[] = [];
    const source = open('istio-gateway', problems);
    assert.deepEqual(await viewOf(source), [`a.example.org A ${LB}`]);

    await suite.kube.patch(ISTIO_GATEWAYS, 'istio-system', 'public', { spec: { servers: [{ port: HTTP, hosts: ['b.example.org'] }] } });
    await untilViewed('rename', source, [`b.example.org A ${LB}`]);

    // A second Gateway for the same name with its own target: one record with both addresses.
    await gateway('second', ['b.example.org'], { [TARGET]: '192.0.2.20' });
    await untilViewed('two Gateways, one name', source, [`b.example.org A ${LB},192.0.2.20`]);

    // The ingress annotation: the Ingress's load-balancer hostname.
    await gateway('via-ingress', ['c.example.org'], { [INGRESS]: 'edge' });
    await untilViewed('ingress annotation', source, [`b.example.org A ${LB},192.0.2.20`, 'c.example.org CNAME lb.example.net']);

    // The ingress-gateway Service's address moves: the Gateways selecting it follow.
    await suite.kube.patch(SERVICES, 'istio-system', 'istio-ingressgateway', { status: { loadBalancer: { ingress: [{ ip: '192.0.2.11' }] } } }, 'status');
    await untilViewed('service address', source, ['b.example.org A 192.0.2.11,192.0.2.20', 'c.example.org CNAME lb.example.net']);

    // Targets that cannot be worked out (an Ingress that does not exist; a reference with two
    // slashes): reported and held, while the other Gateways keep their records.
    await gateway('missing-ingress', ['d.example.org'], { [INGRESS]: 'istio-system/nope' });
    await gateway('bad-ref', ['e.example.org'], { [INGRESS]: 'a/b/c' });
    await waitFor('problems reported', () => (problems.length >= 2 ? true : undefined), 20_000);
    assert.match(problems.find((p) => p.message.includes('nope'))?.message ?? '', /^Gateway\/istio-system\/missing-ingress: .*does not exist/);
    assert.match(problems.find((p) => p.message.includes('a/b/c'))?.message ?? '', /^Gateway\/istio-system\/bad-ref: .*invalid ingress name/);
    assert.deepEqual(await viewOf(source), ['b.example.org A 192.0.2.11,192.0.2.20', 'c.example.org CNAME lb.example.net']);
    assert.deepEqual([...source.heldResources()].sort(), ['gateway/istio-system/bad-ref', 'gateway/istio-system/missing-ingress']);

    // The Ingress appears: the held Gateway is published.
    await suite.kube.create(INGRESSES, { metadata: { name: 'nope', namespace: 'istio-system' } });
    await suite.kube.patch(INGRESSES, 'istio-system', 'nope', { status: { loadBalancer: { ingress: [{ ip: '192.0.2.30' }] } } }, 'status');
    await untilViewed('held Gateway published', source, [
      'b.example.org A 192.0.2.11,192.0.2.20',
      'c.example.org CNAME lb.example.net',
      'd.example.org A 192.0.2.30',
    ]);
    assert.deepEqual([...source.heldResources()], ['gateway/istio-system/bad-ref']);

    for (const name of ['second', 'via-ingress', 'missing-ingress', 'bad-ref']) await suite.kube.delete(ISTIO_GATEWAYS, 'istio-system', name);
    await untilViewed('deletes', source, ['b.example.org A 192.0.2.11']);
    await suite.kube.patch(SERVICES, 'istio-system', 'istio-ingressgateway', { status: { loadBalancer: { ingress: [{ ip: LB }] } } }, 'status');
  });

  test('istio-virtualservice: hosts bound to the Gateways they name, mesh skipped, exportTo, Gateway changes, delete', async () => {
    await gateway('shared', ['apps/*.apps.example.org']);
    const vs = (name: string, hosts: string[], spec: Record<string, unknown> = {}): Promise<unknown> =>
      suite.kube.create(ISTIO_VIRTUALSERVICES, { metadata: { name, namespace: 'apps' }, spec: { hosts, gateways: ['mesh', 'istio-system/shared'], ...spec } });
    await vs('web', ['web.apps.example.org', 'web.other.example.org']);
    const problems: SourceProblem[] = [];
    const source = open('istio-virtualservice', problems);
    // Only the host the Gateway's `*.apps.example.org` server admits.
    await untilViewed('first list', source, [`web.apps.example.org A ${LB}`]);

    await suite.kube.patch(ISTIO_VIRTUALSERVICES, 'apps', 'web', { spec: { hosts: ['www.apps.example.org'] } });
    await untilViewed('rename', source, [`www.apps.example.org A ${LB}`]);

    // Not exported to the Gateway's namespace: nothing; a second VirtualService for the same name shares it.
    await vs('private', ['private.apps.example.org'], { exportTo: ['.'] });
    await vs('www-too', ['www.apps.example.org']);
    await waitFor('three VirtualServices cached', () => (source.objectCount() === 3 ? true : undefined), 20_000);
    assert.deepEqual(await viewOf(source), [`www.apps.example.org A ${LB}`]);
    assert.deepEqual(
      (await source.endpoints()).map((e) => e.labels['resource']),
      ['virtualservice/apps/web'],
      'the merged record names the object whose resource label sorts first',
    );

    // The ingress-gateway Service's address moves: VirtualServices on Gateways selecting it follow.
    await suite.kube.patch(SERVICES, 'istio-system', 'istio-ingressgateway', { status: { loadBalancer: { ingress: [{ ip: '192.0.2.12' }] } } }, 'status');
    await untilViewed('service address', source, ['www.apps.example.org A 192.0.2.12']);

    // The Gateway gains a target annotation: its VirtualServices follow.
    await suite.kube.patch(ISTIO_GATEWAYS, 'istio-system', 'shared', { metadata: { annotations: { [TARGET]: 'gw.example.net' } } });
    await untilViewed('gateway target', source, ['www.apps.example.org CNAME gw.example.net']);

    // A Gateway reference with two slashes: reported and held; the rest keep syncing.
    await suite.kube.create(ISTIO_VIRTUALSERVICES, {
      metadata: { name: 'bad', namespace: 'apps' },
      spec: { hosts: ['bad.apps.example.org'], gateways: ['a/b/c'] },
    });
    await waitFor('problem reported', () => (problems.some((p) => p.message.includes('a/b/c')) ? true : undefined), 20_000);
    assert.match(problems.find((p) => p.message.includes('a/b/c'))?.message ?? '', /^VirtualService\/apps\/bad: /);
    assert.deepEqual(await viewOf(source), ['www.apps.example.org CNAME gw.example.net']);
    assert.deepEqual([...source.heldResources()], ['virtualservice/apps/bad']);

    for (const name of ['web', 'www-too', 'private', 'bad']) await suite.kube.delete(ISTIO_VIRTUALSERVICES, 'apps', name);
    await untilViewed('deletes', source, []);
  });
});

describe('istio-virtualservice before the Istio CRDs exist', () => {
  test('endpoints() fails until the CRDs appear, then the source starts by itself', () =>
    assertStartsOnceCrdsExist({
      build: istioVirtualServiceSource,
      held: 'virtualservice/*',
      crds: [istioCrd('gateways'), istioCrd('virtualservices')],
      write: async (kube) => {
        await kube.create(ISTIO_GATEWAYS, {
          metadata: { name: 'g', namespace: 'default', annotations: { [TARGET]: LB } },
          spec: { servers: [{ port: HTTP, hosts: ['*'] }] },
        });
        await kube.create(ISTIO_VIRTUALSERVICES, { metadata: { name: 'v', namespace: 'default' }, spec: { hosts: ['v.example.org'], gateways: ['g'] } });
      },
      publishes: 'v.example.org',
    }));
});
