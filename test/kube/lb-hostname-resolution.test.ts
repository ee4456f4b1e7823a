/**
 * --resolve-service-load-balancer-hostname against the test API server: a LoadBalancer Service
 * whose load balancer has a hostname publishes its addresses as A/AAAA records (resolved every
 * sync) instead of a CNAME, as external-dns's service source does.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCommandArgs } from '../../src/cli/commands.ts';
import { PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';
import { resolveConfig } from '../../src/config/config.ts';
import type { Endpoint } from '../../src/endpoint/endpoint.ts';
import { silentLogger } from '../../src/log.ts';
import { kubeSourceFromConfig, serviceSourceFromConfig } from '../../src/source/kube/factory.ts';
import { LoadBalancerHostnameResolution, lookupAll } from '../../src/source/kube/lb-hostname-resolution.ts';
import type { Source } from '../../src/source/source.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { ObjectInput, TestApiServer } from '../support/kube-apiserver/server.ts';

const H = 'external-dns.alpha.kubernetes.io/';

function lb(name: string, ingress: { ip?: string; hostname?: string }[], annotations: Record<string, string> = {}): ObjectInput {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default', annotations: { [`${H}hostname`]: `${name}.example.org`, ...annotations } },
    spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
    status: { loadBalancer: { ingress } },
  } as ObjectInput;
}

const records = (eps: Endpoint[]): string[] => eps.map((e) => `${e.dnsName} ${e.recordType} ${[...e.targets].sort().join(',')}`).sort();

describe('--resolve-service-load-balancer-hostname', () => {
  let api: TestApiServer;
  let dir: string;
  let kubeconfig: string;
  const opened: Source[] = [];

  before(async () => {
    api = await startTestApiServer();
    dir = await mkdtemp(join(tmpdir(), 'hw-lbhost-'));
    kubeconfig = await api.writeKubeconfig(dir);
    api.create(lb('web', [{ hostname: 'lb-1.example.net' }]));
    api.create(lb('mixed', [{ ip: '192.0.2.7' }, { hostname: 'lb-2.example.net' }]));
    api.create(lb('pinned', [{ hostname: 'lb-1.example.net' }], { [`${H}target`]: 'edge.example.net' }));
    api.create(lb('gone', [{ hostname: 'nxdomain.example.net' }]));
  });
  after(async () => {
    for (const s of opened) await s.close?.();
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const config = (extra: string[]) =>
    resolveConfig(parseCommandArgs('run', ['--source=service', '--kubeconfig', kubeconfig, ...extra], {}), {
      sources: SOURCE_NAMES,
      providers: PROVIDER_NAMES,
    });

  test('off (the default): a CNAME to the load-balancer hostname; on: the service source resolves', async () => {
    const off = serviceSourceFromConfig(config([]), { logger: silentLogger() });
    opened.push(off);
    assert.ok(records(await off.endpoints()).includes('web.example.org CNAME lb-1.example.net'));
    const on = serviceSourceFromConfig(config(['--resolve-service-load-balancer-hostname']), { logger: silentLogger() });
    opened.push(on);
    assert.ok(on instanceof LoadBalancerHostnameResolution);
  });

  test('addresses replace the CNAME, merge with the load-balancer IPs, follow the name between syncs; target annotations and unresolvable names as upstream', async () => {
    const answers = new Map<string, string[]>([
      ['lb-1.example.net', ['192.0.2.1', '2001:db8::1']],
      ['lb-2.example.net', ['192.0.2.8']],
    ]);
    const warnings: string[] = [];
    const logger = { ...silentLogger(), warn: (_o: unknown, msg: string) => void warnings.push(msg) } as unknown as ReturnType<typeof silentLogger>;
    const source = new LoadBalancerHostnameResolution({
      source: kubeSourceFromConfig('service', config([]), { logger: silentLogger() }),
      logger,
      lookup: async (h) => {
        const a = answers.get(h);
        if (a === undefined) throw new Error(`queryA ENOTFOUND ${h}`);
        return a;
      },
    });
    opened.push(source);
    assert.deepEqual(records(await source.endpoints()), [
      'mixed.example.org A 192.0.2.7,192.0.2.8',
      'pinned.example.org CNAME edge.example.net',
      'web.example.org A 192.0.2.1',
      'web.example.org AAAA 2001:db8::1',
    ]);
    assert.match(warnings.join('\n'), /could not resolve a load-balancer hostname/);
    answers.set('lb-1.example.net', ['192.0.2.99']);
    assert.ok(records(await source.endpoints()).includes('web.example.org A 192.0.2.99'));
    const web = (await source.endpoints()).find((e) => e.dnsName === 'web.example.org');
    assert.equal(web?.labels['resource'], 'service/default/web');
  });

  test('the default resolver is the system one (localhost from /etc/hosts)', async () => {
    assert.ok((await lookupAll('localhost')).some((a) => a === '127.0.0.1' || a === '::1'));
  });
});
