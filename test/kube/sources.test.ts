/**
 * Kubernetes sources end to end: objects written over HTTP to the test API server, read by the
 * real client's reflectors, planned and applied to the inmemory provider through the TXT registry,
 * with Events written back on the objects.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GATEWAYS, HTTPROUTES, INGRESSES, SERVICES, customResource } from '../../src/kube/resource.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { DNSENDPOINT_CRD, KubeWriter, eventsFor, gatewayCrd, sleep, startStack, waitFor } from './harness.ts';
import type { Stack } from './harness.ts';

const HOSTNAME = 'external-dns.alpha.kubernetes.io/hostname';
const DNSENDPOINTS = customResource('externaldns.k8s.io/v1alpha1', 'DNSEndpoint');

function lbService(
  name: string,
  hostname: string,
): Record<string, unknown> & { metadata: { name: string; namespace: string; annotations: Record<string, string> } } {
  return {
    metadata: { name, namespace: 'default', annotations: { [HOSTNAME]: hostname } },
    spec: { type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP' }] },
  };
}

describe('kubernetes sources against the test API server', () => {
  let api: TestApiServer;
  let stack: Stack;
  let kube: KubeWriter;

  before(async () => {
    api = await startTestApiServer({ bookmarkIntervalMs: 200 });
    api.create(DNSENDPOINT_CRD);
    api.create(gatewayCrd('gateways', 'Gateway'));
    api.create(gatewayCrd('httproutes', 'HTTPRoute'));
    stack = await startStack(api, { sources: ['service', 'ingress', 'crd', 'gateway-httproute'] });
    kube = new KubeWriter(stack.client);
  });

  after(async () => {
    await stack.stop();
    await api.stop();
  });

  const record = async (name: string, type = 'A'): Promise<{ targets: string[]; owner: string | undefined; resource: string | undefined } | undefined> => {
    const ep = (await stack.records()).find((e) => e.dnsName === name && e.recordType === type);
    return ep === undefined ? undefined : { targets: [...ep.targets].sort(), owner: ep.labels['owner'], resource: ep.labels['resource'] };
  };

  test('a LoadBalancer Service with a hostname annotation is published, renamed and removed', async () => {
    await kube.create(SERVICES, lbService('web', 'web.example.org'));
    await kube.patch(SERVICES, 'default', 'web', { status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } } }, 'status');
    const created = await waitFor('web.example.org A', () => record('web.example.org'));
    assert.deepEqual(created, { targets: ['192.0.2.10'], owner: 'hostwarden-test', resource: 'service/default/web' });
    await waitFor('RecordReady on web', () => (eventsFor(api, 'Service', 'web').some((e) => e.reason === 'RecordReady') ? true : undefined));

    await kube.patch(SERVICES, 'default', 'web', { metadata: { annotations: { [HOSTNAME]: 'www.example.org' } } });
    const renamed = await waitFor('www.example.org A', () => record('www.example.org'));
    assert.deepEqual(renamed, { targets: ['192.0.2.10'], owner: 'hostwarden-test', resource: 'service/default/web' });
    await waitFor('web.example.org gone', async () => ((await record('web.example.org')) === undefined ? true : undefined));
    await waitFor('RecordDeleted on web', () =>
      eventsFor(api, 'Service', 'web').some((e) => e.reason === 'RecordDeleted' && e.note.includes('web.example.org')) ? true : undefined,
    );

    await kube.delete(SERVICES, 'default', 'web');
    await waitFor('www.example.org gone', async () => ((await record('www.example.org')) === undefined ? true : undefined));
    const txt = (await stack.provider.records()).filter((e) => e.dnsName.includes('www.example.org') || e.dnsName.includes('web.example.org'));
    assert.deepEqual(txt, [], 'ownership records are removed with the records');
  });

  test('two Services claiming one name: one record with both addresses, as external-dns merges them', async () => {
    await kube.create(SERVICES, lbService('first', 'shared.example.org'));
    await kube.patch(SERVICES, 'default', 'first', { status: { loadBalancer: { ingress: [{ ip: '192.0.2.21' }] } } }, 'status');
    await waitFor('shared.example.org from first', async () => ((await record('shared.example.org'))?.resource === 'service/default/first' ? true : undefined));

    await kube.create(SERVICES, lbService('second', 'shared.example.org'));
    await kube.patch(SERVICES, 'default', 'second', { status: { loadBalancer: { ingress: [{ ip: '192.0.2.22' }] } } }, 'status');
    await waitFor('both addresses', async () => ((await record('shared.example.org'))?.targets.length === 2 ? true : undefined));
    // The merged record keeps the labels of the Service that sorts first, whichever changed last.
    assert.deepEqual(await record('shared.example.org'), {
      targets: ['192.0.2.21', '192.0.2.22'],
      owner: 'hostwarden-test',
      resource: 'service/default/first',
    });
    await stack.recorder.flush();
    assert.equal(
      eventsFor(api, 'Service', 'second').find((e) => e.reason === 'RecordError'),
      undefined,
      'no conflict: the names are merged',
    );

    // A steady state writes nothing more, however often it syncs.
    await stack.recorder.flush();
    const before = api.list('events.k8s.io/v1', 'Event').length;
    const syncsBefore = stack.controller.lastSuccessAt;
    for (let i = 0; i < 5; i++) {
      stack.controller.trigger();
      await sleep(60);
    }
    assert.ok(stack.controller.lastSuccessAt > syncsBefore, 'the loop synchronised again');
    await stack.recorder.flush();
    await sleep(100);
    assert.equal(api.list('events.k8s.io/v1', 'Event').length, before);
    await kube.delete(SERVICES, 'default', 'first');
    await kube.delete(SERVICES, 'default', 'second');
  });

  test('Ingress rules and TLS hosts are published with the load balancer targets', async () => {
    await kube.create(INGRESSES, {
      metadata: { name: 'shop', namespace: 'default' },
      spec: {
        rules: [
          { host: 'shop.example.org', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'shop', port: { number: 80 } } } }] } },
        ],
        tls: [{ hosts: ['secure.example.org'], secretName: 'tls' }],
      },
    });
    await kube.patch(INGRESSES, 'default', 'shop', { status: { loadBalancer: { ingress: [{ hostname: 'lb.example.net' }] } } }, 'status');
    const rule = await waitFor('shop CNAME', () => record('shop.example.org', 'CNAME'));
    const tls = await waitFor('secure CNAME', () => record('secure.example.org', 'CNAME'));
    assert.deepEqual(rule.targets, ['lb.example.net']);
    assert.deepEqual(tls.targets, ['lb.example.net']);
    assert.equal(rule.resource, 'ingress/default/shop');
  });

  test('a NodePort Service points at the nodes: ExternalIP by default, InternalIP with access=private', async () => {
    for (const [name, internal, external] of [
      ['node-a', '10.0.0.1', '198.51.100.1'],
      ['node-b', '10.0.0.2', '198.51.100.2'],
    ] as const) {
      api.create({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name },
        status: {
          addresses: [
            { type: 'InternalIP', address: internal },
            { type: 'ExternalIP', address: external },
            { type: 'Hostname', address: name },
          ],
        },
      });
    }
    await kube.create(SERVICES, {
      metadata: { name: 'np', namespace: 'default', annotations: { [HOSTNAME]: 'np.example.org' } },
      spec: { type: 'NodePort', ports: [{ name: 'http', port: 80, nodePort: 30080, protocol: 'TCP' }] },
    });
    await kube.create(SERVICES, {
      metadata: {
        name: 'np-private',
        namespace: 'default',
        annotations: { [HOSTNAME]: 'np-private.example.org', 'external-dns.alpha.kubernetes.io/access': 'private' },
      },
      spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 30081, protocol: 'TCP' }] },
    });
    assert.deepEqual((await waitFor('np A', () => record('np.example.org'))).targets, ['198.51.100.1', '198.51.100.2']);
    assert.deepEqual((await waitFor('np-private A', () => record('np-private.example.org'))).targets, ['10.0.0.1', '10.0.0.2']);
    // A node leaving changes the targets.
    api.delete({ apiVersion: 'v1', kind: 'Node', name: 'node-b' });
    await waitFor('np follows the nodes', async () => ((await record('np.example.org'))?.targets.join() === '198.51.100.1' ? true : undefined));
  });

  test('an HTTPRoute is published at the addresses of its parent Gateway, and follows them', async () => {
    await kube.create(GATEWAYS, {
      metadata: { name: 'gw', namespace: 'default' },
      spec: { gatewayClassName: 'test', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] },
    });
    await kube.patch(GATEWAYS, 'default', 'gw', { status: { addresses: [{ type: 'IPAddress', value: '192.0.2.50' }] } }, 'status');
    await kube.create(HTTPROUTES, {
      metadata: { name: 'route', namespace: 'default' },
      spec: { hostnames: ['route.example.org'], parentRefs: [{ name: 'gw' }], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] },
    });
    // Published only once the Gateway accepted the route.
    const accepted = {
      parents: [
        {
          parentRef: { name: 'gw' },
          controllerName: 'example.org/gateway',
          conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }],
        },
      ],
    };
    await kube.patch(HTTPROUTES, 'default', 'route', { status: accepted }, 'status');
    const rec = await waitFor('route A', () => record('route.example.org'));
    assert.deepEqual(rec, { targets: ['192.0.2.50'], owner: 'hostwarden-test', resource: 'httproute/default/route' });
    await kube.patch(GATEWAYS, 'default', 'gw', { status: { addresses: [{ type: 'IPAddress', value: '192.0.2.51' }] } }, 'status');
    await waitFor('route follows the gateway', async () => ((await record('route.example.org'))?.targets.join() === '192.0.2.51' ? true : undefined));
  });

  test('a DNSEndpoint is published and its status.observedGeneration written', async () => {
    await kube.create(DNSENDPOINTS, {
      metadata: { name: 'api', namespace: 'default' },
      spec: { endpoints: [{ dnsName: 'api.example.org', recordType: 'A', targets: ['192.0.2.30'], recordTTL: 60 }] },
    });
    await waitFor('api A', () => record('api.example.org'));
    const obj = await waitFor('observedGeneration', async () => {
      const o = await kube.get(DNSENDPOINTS, 'default', 'api');
      const status = o['status'] as { observedGeneration?: number } | undefined;
      return status?.observedGeneration === (o['metadata'] as { generation: number }).generation ? o : undefined;
    });
    assert.equal((obj['metadata'] as { generation: number }).generation, 1);

    await kube.patch(DNSENDPOINTS, 'default', 'api', { spec: { endpoints: [{ dnsName: 'api.example.org', recordType: 'A', targets: ['192.0.2.31'] }] } });
    await waitFor('api updated', async () => ((await record('api.example.org'))?.targets[0] === '192.0.2.31' ? true : undefined));
    await waitFor('observedGeneration 2', async () => {
      const o = await kube.get(DNSENDPOINTS, 'default', 'api');
      return (o['status'] as { observedGeneration?: number } | undefined)?.observedGeneration === 2 ? true : undefined;
    });
  });
});
