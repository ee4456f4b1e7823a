/**
 * The pod source through the real client and reflectors against the test API server: Pods and
 * their Nodes written as the kubelet would (spec by the owner, status through the subresource).
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { involvedObjectOf } from '../../src/controller/record-events.ts';
import { NODES, PODS } from '../../src/kube/resource.ts';
import type { KubeObjectSource } from '../../src/source/kube/kube-source.ts';
import { podSource } from '../../src/source/kube/sources.ts';
import type { SourceProblem } from '../../src/source/source.ts';
import { untilViewed, useTestApiServer } from './source-harness.ts';

const HOSTNAME = 'external-dns.kubernetes.io/hostname';
const INTERNAL = 'external-dns.kubernetes.io/internal-hostname';

describe('pod source against the test API server', () => {
  const suite = useTestApiServer({ namespaces: ['apps'] });

  const until = (what: string, source: KubeObjectSource, expected: string[]): Promise<void> => untilViewed(what, source, expected);

  const createNode = async (name: string, external: string): Promise<void> => {
    await suite.kube.create(NODES, { metadata: { name } });
    await suite.kube.patch(
      NODES,
      '',
      name,
      {
        status: {
          addresses: [
            { type: 'ExternalIP', address: external },
            { type: 'InternalIP', address: '10.9.9.9' },
          ],
        },
      },
      'status',
    );
  };

  const createPod = async (name: string, annotations: Record<string, string>, hostNetwork: boolean, node: string, ip: string): Promise<void> => {
    await suite.kube.create(PODS, {
      metadata: { name, namespace: 'apps', annotations },
      spec: { hostNetwork, nodeName: node, containers: [{ name: 'c', image: 'registry.example/c' }] },
    });
    await suite.kube.patch(
      PODS,
      'apps',
      name,
      { status: { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: 'True' }] } },
      'status',
    );
  };

  before(async () => {
    await createNode('n1', '54.0.0.1');
    await createNode('n2', '54.0.0.2');
    await createPod('agent-1', { [HOSTNAME]: 'agent.example.org', [INTERNAL]: 'agent.internal.example.org' }, true, 'n1', '10.0.0.1');
    await createPod('agent-2', { [HOSTNAME]: 'agent.example.org', [INTERNAL]: 'agent.internal.example.org' }, true, 'n2', '10.0.0.2');
    await createPod('web', { [INTERNAL]: 'web.internal.example.org' }, false, 'n1', '10.1.0.7');
  });

  test('names at Node and Pod addresses, merged across Pods; Node, Pod changes and deletes follow; a bad name is reported and skipped', async () => {
    const problems: SourceProblem[] = [];
    const source = podSource(suite.sourceDeps({ translateOptions: {}, onProblem: (p) => problems.push(p) }), { podSourceDomain: 'pods.example.org' });
    suite.closeAfter(() => source.close());
    source.start();
    const base = [
      'agent.example.org A 54.0.0.1,54.0.0.2',
      'agent.internal.example.org A 10.0.0.1,10.0.0.2',
      'agent-1.pods.example.org A 10.0.0.1',
      'agent-2.pods.example.org A 10.0.0.2',
      'web.internal.example.org A 10.1.0.7',
      'web.pods.example.org A 10.1.0.7',
    ];
    await until('initial', source, [...base]);

    await suite.kube.patch(NODES, '', 'n2', { status: { addresses: [{ type: 'ExternalIP', address: '54.0.0.22' }] } }, 'status');
    await until('node address changed', source, ['agent.example.org A 54.0.0.1,54.0.0.22', ...base.slice(1)]);

    await suite.kube.delete(PODS, 'apps', 'agent-2');
    await until('pod deleted', source, [
      'agent.example.org A 54.0.0.1',
      'agent.internal.example.org A 10.0.0.1',
      'agent-1.pods.example.org A 10.0.0.1',
      'web.internal.example.org A 10.1.0.7',
      'web.pods.example.org A 10.1.0.7',
    ]);

    await createPod('bad', { [INTERNAL]: 'bad..example.org' }, false, 'n1', '10.1.0.8');
    await until('bad pod: only its pod-source-domain name', source, [
      'agent.example.org A 54.0.0.1',
      'agent.internal.example.org A 10.0.0.1',
      'agent-1.pods.example.org A 10.0.0.1',
      'bad.pods.example.org A 10.1.0.8',
      'web.internal.example.org A 10.1.0.7',
      'web.pods.example.org A 10.1.0.7',
    ]);
    assert.ok(
      problems.some((p) => p.message.includes('bad..example.org')),
      problems.map((p) => p.message).join('\n'),
    );
    await suite.kube.delete(PODS, 'apps', 'bad');
  });

  test('record Events for a pod/ resource label land on the Pod', () => {
    assert.deepEqual(involvedObjectOf('pod/apps/agent-1'), { apiVersion: 'v1', kind: 'Pod', namespace: 'apps', name: 'agent-1' });
  });

  test('built from flags: --source pod --ignore-non-host-network-pods reads host-network Pods only', async () => {
    const source = suite.sourceFromFlags('pod', ['--ignore-non-host-network-pods', '--request-timeout', '5s']);
    await until('host-network only', source, ['agent.example.org A 54.0.0.1', 'agent.internal.example.org A 10.0.0.1']);
  });
});
