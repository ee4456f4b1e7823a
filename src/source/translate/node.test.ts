import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTranslateOptions } from './options.ts';
import { nodeAddresses, translateNode } from './node.ts';

const node = (name: string, addresses: [string, string][], extra: { annotations?: Record<string, string>; unschedulable?: boolean } = {}) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, ...(extra.annotations === undefined ? {} : { annotations: extra.annotations }) },
  ...(extra.unschedulable === true ? { spec: { unschedulable: true } } : {}),
  status: { addresses: addresses.map(([type, address]) => ({ type, address })) },
});

test('node addresses: ExternalIPs win, InternalIPs only without them, IPv6 InternalIPs on request', () => {
  const n = node('n', [
    ['ExternalIP', '1.2.3.4'],
    ['InternalIP', '10.0.0.1'],
    ['InternalIP', 'fd00::1'],
    ['Hostname', 'n.internal'],
  ]);
  assert.deepEqual(nodeAddresses(n, false), ['1.2.3.4']);
  assert.deepEqual(nodeAddresses(n, true), ['1.2.3.4', 'fd00::1']);
  assert.deepEqual(
    nodeAddresses(
      node('m', [
        ['InternalIP', '10.0.0.1'],
        ['InternalIP', 'fd00::1'],
      ]),
      false,
    ),
    ['10.0.0.1', 'fd00::1'],
  );
});

test('a node publishes its own name with A and AAAA records, labelled node/<name>, TTL from the annotation', () => {
  const r = translateNode(
    node(
      'node1.example.org',
      [
        ['ExternalIP', '1.2.3.4'],
        ['ExternalIP', '2001:db8::8'],
      ],
      { annotations: { 'external-dns.kubernetes.io/ttl': '60' } },
    ),
    {},
  );
  assert.deepEqual(r.problems, []);
  assert.deepEqual(
    r.endpoints.map((e) => [e.dnsName, e.recordType, [...e.targets], e.recordTTL, e.labels['resource']]),
    [
      ['node1.example.org', 'A', ['1.2.3.4'], 60, 'node/node1.example.org'],
      ['node1.example.org', 'AAAA', ['2001:db8::8'], 60, 'node/node1.example.org'],
    ],
  );
});

test('the target annotation replaces the addresses; the hostname annotation is not read (as upstream)', () => {
  const r = translateNode(
    node('n1.example.org', [['ExternalIP', '1.2.3.4']], {
      annotations: { 'external-dns.kubernetes.io/target': '203.0.113.7', 'external-dns.kubernetes.io/hostname': 'other.example.org' },
    }),
    {},
  );
  assert.deepEqual(
    r.endpoints.map((e) => [e.dnsName, [...e.targets]]),
    [['n1.example.org', ['203.0.113.7']]],
  );
});

test('cordoned nodes publish nothing unless --no-exclude-unschedulable', () => {
  const n = node('n1.example.org', [['ExternalIP', '1.2.3.4']], { unschedulable: true });
  assert.equal(translateNode(n, {}).endpoints.length, 0);
  assert.equal(translateNode(n, { excludeUnschedulable: false }).endpoints.length, 1);
});

test('the fqdn template replaces the node name, and sees the Node (kind, status)', () => {
  const options = buildTranslateOptions({ fqdnTemplate: '{{ .Kind | toLower }}.{{ .Name }}.{{ .Status.NodeInfo.Architecture }}.example.org' });
  const n = {
    ...node('n1', [['ExternalIP', '1.2.3.4']]),
    status: { addresses: [{ type: 'ExternalIP', address: '1.2.3.4' }], nodeInfo: { architecture: 'arm64' } },
  };
  assert.deepEqual(
    translateNode(n, options).endpoints.map((e) => e.dnsName),
    ['node.n1.arm64.example.org'],
  );
});

test('controller, annotation and label filters', () => {
  const other = node('n1', [['ExternalIP', '1.2.3.4']], { annotations: { 'external-dns.kubernetes.io/controller': 'someone-else' } });
  assert.equal(translateNode(other, {}).endpoints.length, 0);
  const options = buildTranslateOptions({ annotationFilter: 'tier=frontend', labelFilter: 'app=x' });
  assert.equal(translateNode(node('n1', [['ExternalIP', '1.2.3.4']], { annotations: { tier: 'frontend' } }), options).endpoints.length, 0);
});

test('a node without addresses is a problem and its records are held', () => {
  const r = translateNode(node('n1.example.org', []), {});
  assert.deepEqual(r.endpoints, []);
  assert.equal(r.heldResource, 'node/n1.example.org');
  assert.match(r.problems[0]?.message ?? '', /could not find node address for n1\.example\.org/);
});

test('a template failing on one node holds its records', () => {
  const r = translateNode(node('n1', [['ExternalIP', '1.2.3.4']]), buildTranslateOptions({ fqdnTemplate: '{{ .Spec.nope }}.example.org' }));
  assert.equal(r.heldResource, 'node/n1');
  assert.equal(r.problems.length, 1);
});
