import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../kube/resource.ts';
import { SliceIndex, headlessNeedsPods, isHeadless, translateHeadless } from './headless.ts';
import type { HeadlessInputs } from './headless.ts';
import { buildTranslateOptions } from '../translate/options.ts';

const A = 'external-dns.alpha.kubernetes.io/';

function svc(annotations: Record<string, string>, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kafka', namespace: 'data', annotations },
    spec: { clusterIP: 'None', selector: { app: 'kafka' }, ...spec },
  };
}

interface Ep {
  ip: string;
  pod: string;
  ready?: boolean;
  hostname?: string;
  node?: string;
}

function slice(name: string, addressType: string, eps: Ep[]): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name, namespace: 'data', labels: { 'kubernetes.io/service-name': 'kafka' } },
    addressType,
    endpoints: eps.map((e) => ({
      addresses: [e.ip],
      ...(e.ready === undefined ? {} : { conditions: { ready: e.ready } }),
      ...(e.hostname === undefined ? {} : { hostname: e.hostname }),
      ...(e.node === undefined ? {} : { nodeName: e.node }),
      targetRef: { kind: 'Pod', name: e.pod, namespace: 'data' },
    })),
  };
}

function pod(name: string, spec: Record<string, unknown>, hostIP: string, annotations: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'data', annotations }, spec, status: { hostIP } };
}

function node(name: string, external: string[], internal: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    status: { addresses: [...external.map((address) => ({ type: 'ExternalIP', address })), { type: 'InternalIP', address: internal }] },
  };
}

const NODES = new Map([
  ['n1', node('n1', ['198.51.100.1'], '10.0.0.1')],
  ['n2', node('n2', ['198.51.100.2', '2001:db8::2'], '10.0.0.2')],
]);

function inputs(slices: KubeObject[], pods?: KubeObject[]): HeadlessInputs {
  const byKey = new Map((pods ?? []).map((p) => [`data/${p.metadata.name}`, p]));
  return { slices, pod: pods === undefined ? undefined : (k) => byKey.get(k), node: (n) => NODES.get(n) };
}

function summary(r: ReturnType<typeof translateHeadless>): string[] {
  assert.ok(r !== undefined);
  return r.endpoints.map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')} ttl=${e.recordTTL} ${e.labels['resource'] ?? ''}`);
}

const READY = slice('kafka-abc', 'IPv4', [
  { ip: '10.1.0.1', pod: 'kafka-0', hostname: 'kafka-0', node: 'n1' },
  { ip: '10.1.0.2', pod: 'kafka-1', hostname: 'kafka-1', node: 'n2', ready: true },
  { ip: '10.1.0.3', pod: 'kafka-2', hostname: 'kafka-2', node: 'n2', ready: false },
]);

describe('headless Services', () => {
  test('is headless: ClusterIP None only', () => {
    assert.equal(isHeadless(svc({})), true);
    assert.equal(isHeadless(svc({}, { clusterIP: '10.96.0.1' })), false);
    assert.equal(isHeadless(svc({}, { type: 'NodePort' })), false);
  });

  test('one record with every ready address, plus one per endpoint hostname; not-ready endpoints left out', () => {
    const r = translateHeadless(svc({ [`${A}hostname`]: 'kafka.example.org.', [`${A}ttl`]: '60' }), {}, inputs([READY]));
    assert.deepEqual(summary(r), [
      'kafka-0.kafka.example.org A 10.1.0.1 ttl=60 service/data/kafka',
      'kafka-1.kafka.example.org A 10.1.0.2 ttl=60 service/data/kafka',
      'kafka.example.org A 10.1.0.1,10.1.0.2 ttl=60 service/data/kafka',
    ]);
  });

  test('publishNotReadyAddresses and --always-publish-not-ready-addresses include not-ready endpoints', () => {
    const expected = [
      'kafka-0.kafka.example.org A 10.1.0.1',
      'kafka-1.kafka.example.org A 10.1.0.2',
      'kafka-2.kafka.example.org A 10.1.0.3',
      'kafka.example.org A 10.1.0.1,10.1.0.2,10.1.0.3',
    ];
    const short = (r: ReturnType<typeof translateHeadless>): string[] => summary(r).map((s) => s.split(' ttl')[0] ?? '');
    assert.deepEqual(
      short(translateHeadless(svc({ [`${A}hostname`]: 'kafka.example.org' }, { publishNotReadyAddresses: true }), {}, inputs([READY]))),
      expected,
    );
    assert.deepEqual(
      short(translateHeadless(svc({ [`${A}hostname`]: 'kafka.example.org' }), { alwaysPublishNotReadyAddresses: true }, inputs([READY]))),
      expected,
    );
  });

  test('IPv6 slices give AAAA records; FQDN slices and non-Pod targets are skipped', () => {
    const v6 = slice('kafka-v6', 'IPv6', [{ ip: '2001:db8::10', pod: 'kafka-0' }]);
    const fqdn = slice('kafka-fqdn', 'FQDN', [{ ip: 'host.example.net', pod: 'kafka-1' }]);
    const notPod: KubeObject = {
      ...slice('kafka-x', 'IPv4', []),
      endpoints: [{ addresses: ['10.9.9.9'], targetRef: { kind: 'Node', name: 'n1' } }, { addresses: ['10.9.9.8'] }],
    };
    const r = translateHeadless(
      svc({ [`${A}hostname`]: 'kafka.example.org' }),
      {},
      inputs([v6, fqdn, notPod, slice('kafka-v4', 'IPv4', [{ ip: '10.1.0.1', pod: 'kafka-0' }])]),
    );
    assert.deepEqual(summary(r), ['kafka.example.org A 10.1.0.1 ttl=0 service/data/kafka', 'kafka.example.org AAAA 2001:db8::10 ttl=0 service/data/kafka']);
  });

  test('endpoints-type NodeExternalIP: the external addresses of each endpoint node', () => {
    const r = translateHeadless(svc({ [`${A}hostname`]: 'kafka.example.org', [`${A}endpoints-type`]: 'NodeExternalIP' }), {}, inputs([READY]));
    assert.deepEqual(
      summary(r).map((s) => s.split(' ttl')[0]),
      [
        'kafka-0.kafka.example.org A 198.51.100.1',
        'kafka-1.kafka.example.org A 198.51.100.2',
        'kafka-1.kafka.example.org AAAA 2001:db8::2',
        'kafka.example.org A 198.51.100.1,198.51.100.2',
        'kafka.example.org AAAA 2001:db8::2',
      ],
    );
  });

  test("endpoints-type NodeExternalIP with --expose-internal-ipv6 adds the nodes' internal IPv6 addresses", () => {
    const node = (name: string): KubeObject | undefined =>
      name === 'n1'
        ? {
            apiVersion: 'v1',
            kind: 'Node',
            metadata: { name },
            status: {
              addresses: [
                { type: 'ExternalIP', address: '198.51.100.1' },
                { type: 'InternalIP', address: '2001:db8::9' },
              ],
            },
          }
        : undefined;
    const annotations = { [`${A}hostname`]: 'kafka.example.org', [`${A}endpoints-type`]: 'NodeExternalIP' };
    const one = slice('kafka-one', 'IPv4', [{ ip: '10.1.0.1', pod: 'kafka-0', node: 'n1' }]);
    const names = (options: { exposeInternalIPv6?: boolean }): string[] =>
      summary(translateHeadless(svc(annotations), options, { slices: [one], pod: undefined, node })).map((s) => s.split(' ttl')[0] ?? '');
    assert.deepEqual(names({}), ['kafka.example.org A 198.51.100.1']);
    assert.deepEqual(names({ exposeInternalIPv6: true }), ['kafka.example.org A 198.51.100.1', 'kafka.example.org AAAA 2001:db8::9']);
  });

  test('endpoints-type HostIP and --publish-host-ip read the Pods: host IP, spec.hostname, target annotation; unknown Pods skipped', () => {
    const pods = [pod('kafka-0', { hostname: 'broker-a', nodeName: 'n1' }, '10.0.0.1'), pod('kafka-1', {}, '10.0.0.2', { [`${A}target`]: '203.0.113.7' })];
    const hostIP = svc({ [`${A}hostname`]: 'kafka.example.org', [`${A}endpoints-type`]: 'HostIP' });
    assert.equal(headlessNeedsPods(hostIP, {}), true);
    assert.equal(headlessNeedsPods(svc({ [`${A}hostname`]: 'x.example.org' }), {}), false);
    assert.equal(headlessNeedsPods(svc({ [`${A}hostname`]: 'x.example.org' }), { publishHostIP: true }), true);
    const expected = ['broker-a.kafka.example.org A 10.0.0.1', 'kafka.example.org A 10.0.0.1,203.0.113.7'];
    assert.deepEqual(
      summary(translateHeadless(hostIP, {}, inputs([READY], pods))).map((s) => s.split(' ttl')[0]),
      expected,
    );
    const flag = svc({ [`${A}hostname`]: 'kafka.example.org' });
    assert.deepEqual(
      summary(translateHeadless(flag, { publishHostIP: true }, inputs([READY], pods))).map((s) => s.split(' ttl')[0]),
      expected,
    );
  });

  test('a target annotation on the Service leaves the Service to the generic translation', () => {
    assert.equal(translateHeadless(svc({ [`${A}hostname`]: 'kafka.example.org', [`${A}target`]: '192.0.2.1' }), {}, inputs([READY])), undefined);
  });

  test('internal-hostname is published like hostname; the fqdn template applies when nothing else did', () => {
    const internal = translateHeadless(
      svc({ [`${A}internal-hostname`]: 'kafka.internal.example.org' }),
      {},
      inputs([slice('s', 'IPv4', [{ ip: '10.1.0.1', pod: 'kafka-0' }])]),
    );
    assert.deepEqual(
      summary(internal).map((s) => s.split(' ttl')[0]),
      ['kafka.internal.example.org A 10.1.0.1'],
    );
    const templated = translateHeadless(
      svc({}),
      { fqdnTemplate: '{{.Name}}.{{.Namespace}}.example.org' },
      inputs([slice('s', 'IPv4', [{ ip: '10.1.0.1', pod: 'kafka-0' }])]),
    );
    assert.deepEqual(
      summary(templated).map((s) => s.split(' ttl')[0]),
      ['kafka.data.example.org A 10.1.0.1'],
    );
  });

  test('--fqdn-target-template pairs come first; --fqdn-template names only when nothing else did (or combined)', () => {
    const slices = inputs([slice('s', 'IPv4', [{ ip: '10.1.0.1', pod: 'kafka-0' }])]);
    const both = (combine: boolean): string[] =>
      summary(
        translateHeadless(
          svc({}),
          buildTranslateOptions({
            fqdnTemplate: ['{{.Name}}.example.org'],
            fqdnTargetTemplate: ['{{.Name}}.pairs.example.org:192.0.2.1'],
            combineFqdnAnnotation: combine,
          }),
          slices,
        ),
      )
        .map((s) => s.split(' ttl')[0] ?? '')
        .sort();
    assert.deepEqual(both(false), ['kafka.pairs.example.org A 192.0.2.1']);
    assert.deepEqual(both(true), ['kafka.example.org A 10.1.0.1', 'kafka.pairs.example.org A 192.0.2.1']);
  });

  test('a template failing on the Service holds its records, with a problem naming the flag', () => {
    const r = translateHeadless(svc({}), buildTranslateOptions({ fqdnTemplate: ['{{ .Spec.nope }}'] }), inputs([]));
    assert.ok(r !== undefined);
    assert.deepEqual(r.endpoints, []);
    assert.equal(r.heldResource, 'service/data/kafka');
    assert.match(
      r.problems[0]?.message ?? '',
      /--fqdn-template: failed to apply template on Service data\/kafka: .*records are kept as they are until the template works on it$/,
    );
  });

  test('the slice index maps slices and Pods to their Service', () => {
    const index = new SliceIndex();
    index.update('data/kafka-abc', READY);
    index.update('data/kafka-v6', slice('kafka-v6', 'IPv6', [{ ip: '2001:db8::10', pod: 'kafka-0' }]));
    assert.deepEqual(index.slicesOf('data/kafka'), ['data/kafka-abc', 'data/kafka-v6']);
    assert.deepEqual(index.servicesOfPod('data/kafka-0'), ['data/kafka']);
    index.update('data/kafka-abc', undefined);
    assert.deepEqual(index.slicesOf('data/kafka'), ['data/kafka-v6']);
    assert.deepEqual(index.servicesOfPod('data/kafka-1'), []);
    assert.deepEqual(index.servicesOfPod('data/kafka-0'), ['data/kafka']);
  });
});
