/**
 * --resolve-service-load-balancer-hostname end to end: Services in the test API server, the real
 * service source and the real resolver (node:dns) asking a BIND 9 server on 127.0.0.1 for the
 * load balancers' addresses.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EXTRA_FLAGS, PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';
import { resolveConfig } from '../../src/config/config.ts';
import { FLAGS } from '../../src/config/flags.ts';
import { parseArgs } from '../../src/config/parse.ts';
import type { ZoneContent } from '../../src/dns/zone-content.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { silentLogger } from '../../src/log.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import { DnsHostnameResolver } from '../../src/source/kube/lb-hostnames.ts';
import { serviceSource } from '../../src/source/kube/sources.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { namedAvailable, startBind } from '../support/bind.ts';
import type { BindServer } from '../support/bind.ts';
import { startTestApiServer } from '../support/kube-apiserver/server.ts';
import type { TestApiServer } from '../support/kube-apiserver/server.ts';
import { waitFor } from './harness.ts';

const ORIGIN = 'lb.test';

/** TTL 0: the source asks BIND again on every sync, so the test sees each answer at once. */
function zone(): ZoneContent {
  const n = (s: string): string => `${s}.${ORIGIN}`;
  return {
    origin: ORIGIN,
    soa: { mname: n('ns1'), rname: n('hostmaster'), serial: 1, refresh: 3600, retry: 600, expire: 86400, minimum: 0, ttl: 3600 },
    rrsets: [
      { name: ORIGIN, type: 'NS', ttl: 3600, rdata: [n('ns1')] },
      { name: n('ns1'), type: 'A', ttl: 3600, rdata: ['127.0.0.1'] },
      { name: n('web-lb'), type: 'A', ttl: 0, rdata: ['192.0.2.1', '192.0.2.2'] },
      { name: n('web-lb'), type: 'AAAA', ttl: 0, rdata: ['2001:db8::1'] },
      // Cloud load-balancer names are often CNAMEs; the addresses at the end of the chain count.
      { name: n('elb'), type: 'CNAME', ttl: 0, rdata: [n('v6-lb')] },
      { name: n('v6-lb'), type: 'AAAA', ttl: 0, rdata: ['2001:db8::6'] },
    ],
  };
}

function lbService(name: string, ingress: Record<string, string>[]): Parameters<TestApiServer['create']>[0] {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default', annotations: { 'external-dns.alpha.kubernetes.io/hostname': `${name}.example.org` } },
    spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
    status: { loadBalancer: { ingress } },
  };
}

describe('--resolve-service-load-balancer-hostname with the real resolver against BIND', async () => {
  const available = await namedAvailable();
  let bind: BindServer | undefined;
  let api: TestApiServer;
  let source: KubeObjectSource;
  const problems: SourceProblem[] = [];

  const view = async (): Promise<string[]> => (await source.endpoints()).map((e) => `${e.dnsName} ${e.recordType} ${[...e.targets].sort().join(',')}`).sort();

  before(async () => {
    if (!available) return;
    bind = await startBind({ zones: [zone()] });
    api = await startTestApiServer({ bookmarkIntervalMs: 200 });
    const logger = silentLogger();
    source = serviceSource({
      client: new KubeClient({ config: api.kubeConfig(), logger }),
      logger,
      translateOptions: {},
      namespace: '',
      syncTimeoutMs: 5000,
      onProblem: (p) => problems.push(p),
      loadBalancerResolver: new DnsHostnameResolver({ servers: [`127.0.0.1:${bind.port}`], timeoutMs: 1000 }),
    });
  });

  after(async () => {
    await source?.close();
    await api?.stop();
    await bind?.stop();
  });

  test(
    'load-balancer hostnames become A/AAAA records; a missing name adds nothing and is reported; IPs stay',
    { skip: !available && 'named is not installed' },
    async () => {
      api.create(lbService('web', [{ hostname: `web-lb.${ORIGIN}` }]));
      api.create(lbService('chain', [{ hostname: `elb.${ORIGIN}.` }]));
      api.create(lbService('mixed', [{ ip: '198.51.100.7' }, { hostname: `nothere.${ORIGIN}` }]));
      assert.deepEqual(await view(), [
        'chain.example.org AAAA 2001:db8::6',
        'mixed.example.org A 198.51.100.7',
        'web.example.org A 192.0.2.1,192.0.2.2',
        'web.example.org AAAA 2001:db8::1',
      ]);
      assert.deepEqual(
        problems.map((p) => p.message),
        [`Service/default/mixed: load-balancer hostname nothere.${ORIGIN} has no A or AAAA records; it adds no targets`],
      );
    },
  );

  test('a Service moving to another load balancer is looked up before the next endpoints()', { skip: !available && 'named is not installed' }, async () => {
    api.update(lbService('web', [{ hostname: `elb.${ORIGIN}` }]));
    await waitFor('the moved Service', async () => ((await view()).includes('web.example.org AAAA 2001:db8::6') ? true : undefined));
    assert.deepEqual(
      (await view()).filter((l) => l.startsWith('web.')),
      ['web.example.org AAAA 2001:db8::6'],
    );
  });

  test(
    'with the DNS server gone, the addresses last seen are kept, reported, and the source keeps answering',
    { skip: !available && 'named is not installed' },
    async () => {
      const before = await view();
      await bind?.stop();
      bind = undefined;
      assert.deepEqual(await view(), before);
      assert.ok(
        problems.some((p) => /load-balancer hostname elb\.lb\.test: look-up failed \(.+\); keeping the AAAA addresses last seen/.test(p.message)),
        problems.map((p) => p.message).join('\n'),
      );
      // A new Service is still translated while its load balancer cannot be looked up.
      api.create(lbService('plain', [{ ip: '198.51.100.8' }]));
      await waitFor('the new Service', async () => ((await view()).includes('plain.example.org A 198.51.100.8') ? true : undefined));
    },
  );
});

test('--resolve-service-load-balancer-hostname: off by default, on by flag or EXTERNAL_DNS_ variable', () => {
  const value = (args: string[], env: Record<string, string> = {}): boolean =>
    resolveConfig(parseArgs(['--source', 'service', ...args], env, [...FLAGS, ...EXTRA_FLAGS]), {
      sources: SOURCE_NAMES,
      providers: PROVIDER_NAMES,
    }).flags.bool('resolve-service-load-balancer-hostname');
  assert.equal(value([]), false);
  assert.equal(value(['--resolve-service-load-balancer-hostname']), true);
  assert.equal(value([], { EXTERNAL_DNS_RESOLVE_SERVICE_LOAD_BALANCER_HOSTNAME: 'true' }), true);
});
