/**
 * A CRD-based source started before its CustomResourceDefinition exists: the rest of the process
 * keeps syncing (a Service is published meanwhile), the source says once, naming itself and the
 * CRD, that it waits, retries quietly, says once that the CRD appeared, and then publishes.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '../../src/kube/client.ts';
import { GATEWAYS, GRPCROUTES, SERVICES } from '../../src/kube/resource.ts';
import { gatewayRouteSource, serviceSource } from '../../src/source/kube/sources.ts';
import type { KubeSourceDeps } from '../../src/source/kube/sources.ts';
import { buildTranslateOptions } from '../../src/source/translate/options.ts';
import { installCrd } from '../support/crds/load.ts';
import { capturingLogger, WARN } from '../support/log-capture.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import { KubeWriter, gatewayCrd, waitFor } from './harness.ts';
import { syncPipeline } from './source-harness.ts';

const HOSTNAME = 'external-dns.alpha.kubernetes.io/hostname';
const WAITING = 'source gateway-grpcroute: CustomResourceDefinition grpcroutes.gateway.networking.k8s.io is not installed; the source starts once it appears';
const APPEARED = 'source gateway-grpcroute: CustomResourceDefinition grpcroutes.gateway.networking.k8s.io is installed; the source starts';

describe('a CRD-based source before its CRD exists', () => {
  test('the other sources keep syncing; one warning, quiet retries, one info line, then records', async () => {
    const api = await startTestApiServer({ bookmarkIntervalMs: 200 });
    const { logger, lines } = capturingLogger('info');
    const client = new KubeClient({ config: api.kubeConfig(), logger });
    const kube = new KubeWriter(new KubeClient({ config: api.kubeConfig(), logger }));
    const deps: KubeSourceDeps = { client, logger, translateOptions: buildTranslateOptions({}), namespace: '', syncTimeoutMs: 5000 };
    const sources = [serviceSource(deps), gatewayRouteSource(deps, 'GRPCRoute')];
    const pipeline = syncPipeline(sources, client, logger, { managedRecordTypes: ['A', 'CNAME'], events: false });
    const names = async (): Promise<string[]> => (await pipeline.endpoints()).map((e) => `${e.dnsName} ${[...e.targets].join(',')}`).sort();
    try {
      // The Gateway CRD is there, GRPCRoute's is not.
      await installCrd(api, gatewayCrd('gateways', 'Gateway'));
      await kube.create(SERVICES, {
        metadata: { name: 'web', namespace: 'default', annotations: { [HOSTNAME]: 'web.example.org' } },
        spec: { type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP' }] },
      });
      await kube.patch(SERVICES, 'default', 'web', { status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } } }, 'status');
      await waitFor(
        'the Service is published while the GRPCRoute CRD is missing',
        async () => ((await names()).includes('web.example.org 192.0.2.10') ? true : undefined),
        10_000,
      );
      // Several quiet retries go by.
      await waitFor('a few retries', () => (lines.some((l) => l.msg === WAITING) ? true : undefined), 10_000);
      await new Promise((r) => setTimeout(r, 1500));

      await installCrd(api, gatewayCrd('grpcroutes', 'GRPCRoute'));
      await kube.create(GATEWAYS, {
        metadata: { name: 'edge', namespace: 'default' },
        spec: { gatewayClassName: 'test', listeners: [{ name: 'grpc', port: 443, protocol: 'HTTPS', hostname: '*.example.org' }] },
      });
      await kube.patch(GATEWAYS, 'default', 'edge', { status: { addresses: [{ type: 'IPAddress', value: '192.0.2.20' }] } }, 'status');
      const parentRef = { name: 'edge' };
      await kube.create(GRPCROUTES, { metadata: { name: 'api', namespace: 'default' }, spec: { parentRefs: [parentRef], hostnames: ['api.example.org'] } });
      const accepted = [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }];
      await kube.patch(
        GRPCROUTES,
        'default',
        'api',
        { status: { parents: [{ parentRef, controllerName: 'example.org/gw', conditions: accepted }] } },
        'status',
      );
      // The reflector's backoff has grown meanwhile (500 ms doubling, up to 30 s): a few seconds.
      await waitFor(
        'the GRPCRoute is published once its CRD exists',
        async () => ((await names()).includes('api.example.org 192.0.2.20') ? true : undefined),
        40_000,
      );
      assert.deepEqual(await names(), ['api.example.org 192.0.2.20', 'web.example.org 192.0.2.10']);

      const about = lines.filter((l) => typeof l.msg === 'string' && l.msg.includes('grpcroutes'));
      assert.deepEqual(
        about.map((l) => [l.level, l.msg]),
        [
          [WARN, WAITING],
          [30, APPEARED],
        ],
        'one warning while it is missing, one info line when it appears, nothing in between',
      );
      assert.equal(about[0]?.['crd'], 'grpcroutes.gateway.networking.k8s.io');
      assert.equal(about[0]?.['source'], 'gateway-grpcroute');
      assert.equal(lines.filter((l) => l.level >= WARN && l.msg.includes('list/watch failed')).length, 0, 'no generic retry warnings');
    } finally {
      await pipeline.close();
      await api.stop();
    }
  });
});
