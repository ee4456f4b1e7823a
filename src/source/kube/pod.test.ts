import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { newEndpoint } from '../../endpoint/endpoint.ts';
import type { KubeObject } from '../../kube/resource.ts';
import { parseSelector } from '../selector.ts';
import { buildTranslateOptions } from '../translate/options.ts';
import { mergeEndpoints } from './merge.ts';
import { translatePod } from './pod.ts';

const A = 'external-dns.kubernetes.io/';

function pod(annotations: Record<string, string>, extra: { hostNetwork?: boolean; podIP?: string; labels?: Record<string, string> } = {}): KubeObject {
  const ip = extra.podIP ?? '10.0.0.5';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns', annotations, ...(extra.labels === undefined ? {} : { labels: extra.labels }) },
    spec: { hostNetwork: extra.hostNetwork ?? true, nodeName: 'n1' },
    status: ip === '' ? {} : { podIP: ip, podIPs: [{ ip }] },
  };
}

const NODE: KubeObject = {
  metadata: { name: 'n1' },
  status: {
    addresses: [
      { type: 'ExternalIP', address: '54.1.1.1' },
      { type: 'InternalIP', address: '10.9.9.9' },
      { type: 'InternalIP', address: '2001:db8::9' },
    ],
  },
};
const nodes = (name: string): KubeObject | undefined => (name === 'n1' ? NODE : undefined);
const show = (eps: readonly Endpoint[]): string[] => eps.map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')} ${e.recordTTL}`).sort();

test('hostname → node ExternalIP and InternalIP IPv6; internal-hostname → Pod IP; ttl; resource label', () => {
  const r = translatePod(pod({ [`${A}hostname`]: 'a.example.org', [`${A}internal-hostname`]: 'i.example.org', [`${A}ttl`]: '60' }), {}, {}, nodes);
  assert.deepEqual(show(r.endpoints), ['a.example.org A 54.1.1.1 60', 'a.example.org AAAA 2001:db8::9 60', 'i.example.org A 10.0.0.5 60']);
  assert.equal(r.readNode, 'n1');
  assert.equal(r.endpoints[0]?.labels['resource'], 'pod/ns/p');
});

test('the target annotation replaces Pod and Node addresses, and the pod-source-domain name gets it too', () => {
  const r = translatePod(pod({ [`${A}hostname`]: 'a.example.org', [`${A}target`]: 'lb.example.net.' }), {}, { podSourceDomain: 'pods.example.org' }, nodes);
  assert.deepEqual(show(r.endpoints), ['a.example.org CNAME lb.example.net 0', 'p.pods.example.org CNAME lb.example.net 0']);
  assert.equal(r.readNode, undefined);
});

test('--ignore-non-host-network-pods skips other Pods; by default they are read', () => {
  const p = pod({ [`${A}internal-hostname`]: 'i.example.org' }, { hostNetwork: false });
  assert.equal(translatePod(p, {}, { ignoreNonHostNetworkPods: true }, nodes).endpoints.length, 0);
  assert.equal(translatePod(p, {}, {}, nodes).endpoints.length, 1);
});

test('filters and the controller annotation apply; a Pod without an IP yet publishes nothing', () => {
  const p = pod({ [`${A}internal-hostname`]: 'i.example.org' }, { labels: { app: 'x' } });
  assert.equal(translatePod(p, { labelFilter: parseSelector('app=y', '--label-filter') }, {}, nodes).endpoints.length, 0);
  assert.equal(translatePod(p, { annotationFilter: parseSelector('team=a', '--annotation-filter') }, {}, nodes).endpoints.length, 0);
  assert.equal(translatePod(pod({ [`${A}internal-hostname`]: 'i.example.org', [`${A}controller`]: 'other' }), {}, {}, nodes).endpoints.length, 0);
  const pending = translatePod(pod({ [`${A}internal-hostname`]: 'i.example.org' }, { podIP: '' }), {}, {}, nodes);
  assert.deepEqual(pending, { endpoints: [], problems: [] });
});

test('kops-dns-controller compatibility reads kOps annotations', () => {
  const p = pod({ 'dns.alpha.kubernetes.io/internal': 'i.example.org', 'dns.alpha.kubernetes.io/external': 'e.example.org' });
  assert.deepEqual(show(translatePod(p, { compatibility: 'kops-dns-controller' }, {}, nodes).endpoints), [
    'e.example.org A 54.1.1.1 0',
    'e.example.org AAAA 2001:db8::9 0',
    'i.example.org A 10.0.0.5 0',
  ]);
  assert.equal(translatePod(p, {}, {}, nodes).endpoints.length, 0);
});

test('--fqdn-template names get every Pod IP; a failing template holds the Pod', () => {
  const options = buildTranslateOptions({ fqdnTemplate: '{{ .Name }}.{{ .Namespace }}.example.org' });
  assert.deepEqual(show(translatePod(pod({}), options, {}, nodes).endpoints), ['p.ns.example.org A 10.0.0.5 0']);
  const failing = buildTranslateOptions({ fqdnTemplate: '{{ .Name }}.{{ .Missing }}.example.org' });
  const r = translatePod(pod({}), failing, {}, nodes);
  assert.equal(r.heldResource, 'pod/ns/p');
  assert.equal(r.problems.length, 1);
});

test('mergeEndpoints joins name/type/TTL across Pods, sorted and de-duplicated; CNAMEs stay apart', () => {
  const ep = (name: string, type: 'A' | 'CNAME', targets: string[], ttl = 0): Endpoint =>
    newEndpoint({ dnsName: name, recordType: type, targets, recordTTL: ttl });
  const merged = mergeEndpoints([
    ep('a', 'A', ['10.0.0.2']),
    ep('a', 'A', ['10.0.0.1', '10.0.0.2']),
    ep('a', 'A', ['10.0.0.3'], 60),
    ep('c', 'CNAME', ['x']),
    ep('c', 'CNAME', ['y']),
  ]);
  assert.deepEqual(show(merged), ['a A 10.0.0.1,10.0.0.2 0', 'a A 10.0.0.3 60', 'c CNAME x 0', 'c CNAME y 0']);
  const owned = (r: string): Endpoint => newEndpoint({ dnsName: 'd', recordType: 'A', targets: ['10.0.0.9'], labels: { resource: r } });
  assert.equal(mergeEndpoints([owned('pod/ns/b'), owned('pod/ns/a')])[0]?.labels['resource'], 'pod/ns/a');
  assert.equal(mergeEndpoints([owned('pod/ns/a'), owned('pod/ns/b')])[0]?.labels['resource'], 'pod/ns/a');
});
