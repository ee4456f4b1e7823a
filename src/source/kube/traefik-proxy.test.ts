import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeClient } from '../../kube/client.ts';
import type { KubeResource } from '../../kube/resource.ts';
import { silentLogger } from '../../log.ts';
import { buildTranslateOptions } from '../translate/options.ts';
import { traefikProxySource } from './traefik-proxy.ts';
import type { TraefikGroups } from './traefik-proxy.ts';

/** The resources a source with these flags reads (its reflectors are built, never started). */
async function readResources(groups: TraefikGroups): Promise<{ resources: string[]; closed: number }> {
  const resources: string[] = [];
  let closed = 0;
  // Nothing is listed before start(): the client is only closed.
  const client = { close: () => closed++ } as unknown as KubeClient;
  const source = traefikProxySource(
    {
      client,
      logger: silentLogger(),
      translateOptions: buildTranslateOptions({}),
      namespace: '',
      onReflector: (r: KubeResource) => resources.push(`${r.plural}.${r.apiVersion}`),
    },
    groups,
  );
  await source.close();
  return { resources, closed };
}

test('the groups read follow --traefik-enable-legacy and --traefik-disable-new, as upstream', async () => {
  const now = ['ingressroutes.traefik.io/v1alpha1', 'ingressroutetcps.traefik.io/v1alpha1', 'ingressrouteudps.traefik.io/v1alpha1'];
  const legacy = now.map((r) => r.replace('traefik.io', 'traefik.containo.us'));
  assert.deepEqual(await readResources({}), { resources: now, closed: 1 });
  assert.deepEqual((await readResources({ enableLegacy: true })).resources, [...now, ...legacy]);
  assert.deepEqual((await readResources({ enableLegacy: true, disableNew: true })).resources, legacy);
  // Both off reads nothing (upstream's source then has no informers either).
  assert.deepEqual((await readResources({ disableNew: true })).resources, []);
});
