import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../kube/resource.ts';
import { buildTranslateOptions } from '../translate/options.ts';
import { nodePortTargets, translateNodePort } from './nodeport.ts';

const A = 'external-dns.alpha.kubernetes.io/';

function svc(annotations: Record<string, string>, ports: Record<string, unknown>[]): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'game', namespace: 'default', annotations },
    spec: { type: 'NodePort', clusterIP: '10.96.0.9', ports },
  };
}

const NODES: KubeObject[] = [
  {
    metadata: { name: 'a' },
    status: {
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'ExternalIP', address: '198.51.100.1' },
      ],
    },
  },
  {
    metadata: { name: 'b' },
    status: {
      addresses: [
        { type: 'InternalIP', address: '10.0.0.2' },
        { type: 'InternalIP', address: '2001:db8::2' },
      ],
    },
  },
];

function summary(r: ReturnType<typeof translateNodePort>): string[] {
  assert.ok(r !== undefined);
  return r.endpoints.map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')} ttl=${e.recordTTL}`).sort();
}

describe('NodePort Services', () => {
  test('node addresses: external by default (internal IPv6 too with --expose-internal-ipv6), internal with access=private', () => {
    assert.deepEqual(nodePortTargets(NODES, undefined), ['198.51.100.1']);
    assert.deepEqual(nodePortTargets(NODES, 'public'), ['198.51.100.1']);
    assert.deepEqual(nodePortTargets(NODES, undefined, { exposeInternalIPv6: true }), ['198.51.100.1', '2001:db8::2']);
    assert.deepEqual(nodePortTargets(NODES, 'public', { exposeInternalIPv6: true }), ['198.51.100.1', '2001:db8::2']);
    assert.deepEqual(nodePortTargets(NODES, 'private'), ['10.0.0.1', '10.0.0.2', '2001:db8::2']);
    assert.deepEqual(nodePortTargets([NODES[1] as KubeObject], undefined), ['10.0.0.2', '2001:db8::2']);
  });

  test('unschedulable nodes are skipped unless --exclude-unschedulable is false', () => {
    const cordoned: KubeObject = { ...(NODES[0] as KubeObject), metadata: { name: 'c' }, spec: { unschedulable: true } };
    const other: KubeObject = { metadata: { name: 'd' }, status: { addresses: [{ type: 'ExternalIP', address: '198.51.100.4' }] } };
    assert.deepEqual(nodePortTargets([cordoned, other], undefined), ['198.51.100.4']);
    assert.deepEqual(nodePortTargets([cordoned, other], undefined, { excludeUnschedulable: true }), ['198.51.100.4']);
    assert.deepEqual(nodePortTargets([cordoned, other], undefined, { excludeUnschedulable: false }), ['198.51.100.1', '198.51.100.4']);
  });

  test('an SRV record per protocol named after the Service, a target per port with a nodePort', () => {
    const r = translateNodePort(
      svc({ [`${A}hostname`]: 'game.example.org.', [`${A}ttl`]: '120' }, [
        { name: 'http', port: 80, nodePort: 30080, protocol: 'TCP' },
        { name: 'admin', port: 81, nodePort: 30081 },
        { name: 'voice', port: 9000, nodePort: 30900, protocol: 'UDP' },
        { name: 'none', port: 9001 },
      ]),
      { exposeInternalIPv6: true },
      NODES,
    );
    assert.deepEqual(summary(r), [
      '_game._tcp.game.example.org SRV 0 50 30080 game.example.org,0 50 30081 game.example.org ttl=120',
      '_game._udp.game.example.org SRV 0 50 30900 game.example.org ttl=120',
      'game.example.org A 198.51.100.1 ttl=120',
      'game.example.org AAAA 2001:db8::2 ttl=120',
    ]);
    assert.ok(r?.endpoints.every((e) => e.labels['resource'] === 'service/default/game'));
  });

  test('internal-hostname also points at the nodes; no ports with a nodePort means no SRV', () => {
    const r = translateNodePort(svc({ [`${A}internal-hostname`]: 'game.internal.example.org' }, [{ port: 80 }]), {}, NODES);
    assert.deepEqual(summary(r), ['game.internal.example.org A 198.51.100.1 ttl=0']);
  });

  test('externalTrafficPolicy Local: only nodes with ready endpoints, else serving ones, else any', () => {
    const local = (eps: { node: string; ready?: boolean; serving?: boolean }[]): string[] => {
      const slice: KubeObject = {
        metadata: { name: 's', namespace: 'default' },
        endpoints: eps.map((e) => ({ nodeName: e.node, conditions: { ready: e.ready ?? true, ...(e.serving === undefined ? {} : { serving: e.serving }) } })),
      };
      const service = {
        ...svc({ [`${A}hostname`]: 'game.example.org', [`${A}access`]: 'private' }, []),
        spec: { type: 'NodePort', externalTrafficPolicy: 'Local', ports: [] },
      };
      return summary(translateNodePort(service, {}, NODES, [slice]));
    };
    assert.deepEqual(local([{ node: 'a' }, { node: 'b', ready: false }]), ['game.example.org A 10.0.0.1 ttl=0']);
    assert.deepEqual(
      local([
        { node: 'a', ready: false, serving: false },
        { node: 'b', ready: false, serving: true },
      ]),
      ['game.example.org A 10.0.0.2 ttl=0', 'game.example.org AAAA 2001:db8::2 ttl=0'],
    );
    assert.deepEqual(local([{ node: 'a', ready: false, serving: false }]), ['game.example.org A 10.0.0.1 ttl=0']);
    assert.deepEqual(local([]), []);
  });

  test('SRV records are published even before any node has an address; the target annotation leaves the Service to the generic translation', () => {
    const r = translateNodePort(svc({ [`${A}hostname`]: 'game.example.org' }, [{ port: 80, nodePort: 30080, protocol: 'TCP' }]), {}, []);
    assert.deepEqual(summary(r), ['_game._tcp.game.example.org SRV 0 50 30080 game.example.org ttl=0']);
    assert.equal(
      translateNodePort(svc({ [`${A}hostname`]: 'game.example.org', [`${A}target`]: '192.0.2.1' }, [{ port: 80, nodePort: 30080 }]), {}, NODES),
      undefined,
    );
  });

  test('--fqdn-target-template pairs and --fqdn-template names, as for other Services', () => {
    const ports = [{ name: 'http', port: 80, nodePort: 30080 }];
    const options = buildTranslateOptions({ fqdnTemplate: ['{{.Name}}.example.org'], fqdnTargetTemplate: ['{{.Name}}.pairs.example.org:lb.example.org'] });
    assert.deepEqual(summary(translateNodePort(svc({}, ports), options, NODES)), ['game.pairs.example.org CNAME lb.example.org ttl=0']);
    const combined = buildTranslateOptions({
      fqdnTemplate: ['{{.Name}}.example.org'],
      fqdnTargetTemplate: ['{{.Name}}.pairs.example.org:lb.example.org'],
      combineFqdnAnnotation: true,
    });
    assert.deepEqual(summary(translateNodePort(svc({}, ports), combined, NODES)), [
      '_game._tcp.game.example.org SRV 0 50 30080 game.example.org ttl=0',
      'game.example.org A 198.51.100.1 ttl=0',
      // Node b's internal IPv6 address only with --expose-internal-ipv6.
      'game.pairs.example.org CNAME lb.example.org ttl=0',
    ]);
  });

  test('--compatibility kops-dns-controller: external names at the ExternalIPs of kOps worker nodes, internal at their InternalIPs', () => {
    const worker = (name: string, external: string, internal: string): KubeObject => ({
      metadata: { name, labels: { 'node-role.kubernetes.io/node': '' } },
      status: {
        addresses: [
          { type: 'InternalIP', address: internal },
          { type: 'ExternalIP', address: external },
        ],
      },
    });
    const controlPlane: KubeObject = {
      metadata: { name: 'cp', labels: { 'node-role.kubernetes.io/control-plane': '' } },
      status: { addresses: [{ type: 'ExternalIP', address: '198.51.100.99' }] },
    };
    const nodes = [worker('w1', '198.51.100.1', '10.0.0.1'), worker('w2', '198.51.100.2', '10.0.0.2'), controlPlane];
    const options = { compatibility: 'kops-dns-controller' };
    const external = translateNodePort(svc({ 'dns.alpha.kubernetes.io/external': 'game.example.org' }, []), options, nodes);
    assert.deepEqual(summary(external), ['game.example.org A 198.51.100.1,198.51.100.2 ttl=0']);
    const internal = translateNodePort(svc({ 'dns.alpha.kubernetes.io/internal': 'game.internal.example.org' }, []), options, nodes);
    assert.deepEqual(summary(internal), ['game.internal.example.org A 10.0.0.1,10.0.0.2 ttl=0']);
    const both = svc({ 'dns.alpha.kubernetes.io/external': 'a.example.org', 'dns.alpha.kubernetes.io/internal': 'b.example.org' }, []);
    assert.deepEqual(summary(translateNodePort(both, options, nodes)), [], 'both set: nothing, as the kOps dns-controller');
    assert.deepEqual(summary(translateNodePort(svc({ 'dns.alpha.kubernetes.io/external': 'game.example.org' }, []), {}, nodes)), [], 'only in kops mode');
  });
});
