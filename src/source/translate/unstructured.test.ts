import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FqdnTemplate } from './fqdn-template.ts';
import { readMeta } from './object.ts';
import type { JsonRecord } from './object.ts';
import { titleCaseKey, translateUnstructured, unstructuredTemplateView } from './unstructured.ts';
import { endpointsForHostsAndTargets } from './apply-templates.ts';

const vmi = (extra: JsonRecord = {}, annotations: Record<string, string> = {}): JsonRecord => ({
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstance',
  metadata: { name: 'vm', namespace: 'ns', annotations },
  status: { interfaces: [{ ipAddress: '10.0.0.1' }] },
  ...extra,
});

const compiled = (fqdn: string, target = '', fqdnTarget = ''): FqdnTemplate | undefined =>
  FqdnTemplate.fromFlags({ fqdn: [fqdn], target: [target], fqdnTarget: [fqdnTarget] })?.withSource('unstructured');

const summary = (eps: { dnsName: string; recordType: string; targets: readonly string[]; recordTTL: number }[]): string[] =>
  eps.map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')} ${e.recordTTL}`);

test('titleCaseKey: Go field names with initialisms, as external-dns', () => {
  assert.equal(titleCaseKey('dnsNames'), 'DNSNames');
  assert.equal(titleCaseKey('ipAddress'), 'IPAddress');
  assert.equal(titleCaseKey('hostname'), 'Hostname');
  assert.equal(titleCaseKey('Already'), 'Already');
  assert.equal(titleCaseKey(''), '');
});

test('the wrapper reads typed-style fields, raw sections and title-cased aliases without changing the object', () => {
  const obj = vmi({ spec: { hostnames: ['a.example.org'], records: { x: '1' } } }, { team: 'blue' });
  const before = JSON.stringify(obj);
  const meta = readMeta(obj);
  assert.ok(meta !== undefined);
  const run = (t: string): string[] => FqdnTemplate.compile(t).execute(obj, meta, unstructuredTemplateView);
  assert.deepEqual(run('{{.Kind}}.{{.APIVersion}}'), ['VirtualMachineInstance.kubevirt.io/v1']);
  assert.deepEqual(run('{{index .Spec.Hostnames 0}}'), ['a.example.org']);
  assert.deepEqual(run('{{index .Annotations "team"}}.{{.GetName}}.{{.Metadata.name}}'), ['blue.vm.vm']);
  assert.deepEqual(run('{{len .Spec.records}}'), ['1']);
  // A missing map key prints <no value> on the first pass, as in Go.
  assert.deepEqual(run('{{.Spec.nothing}}'), ['<no value>']);
  assert.equal(JSON.stringify(obj), before);
});

test('endpointsForHostsAndTargets: one endpoint per name and type, CNAMEs one target each', () => {
  const eps = endpointsForHostsAndTargets(
    ['b.example.org', 'a.example.org', 'a.example.org'],
    ['10.0.0.2', '10.0.0.1', 'lb1.example.net', 'lb2.example.net', '::1'],
    'r',
  );
  assert.deepEqual(summary(eps), [
    'a.example.org A 10.0.0.1,10.0.0.2 0',
    'a.example.org AAAA ::1 0',
    'a.example.org CNAME lb1.example.net 0',
    'a.example.org CNAME lb2.example.net 0',
    'b.example.org A 10.0.0.1,10.0.0.2 0',
    'b.example.org AAAA ::1 0',
    'b.example.org CNAME lb1.example.net 0',
    'b.example.org CNAME lb2.example.net 0',
  ]);
  assert.deepEqual(endpointsForHostsAndTargets(['a.example.org'], [], 'r'), []);
});

test('annotations need both hostname and target; the ttl annotation applies to templated endpoints too', () => {
  const hostnameOnly = translateUnstructured(vmi({}, { 'external-dns.kubernetes.io/hostname': 'a.example.org' }), {}, undefined);
  assert.deepEqual(hostnameOnly.endpoints, []);
  const t = translateUnstructured(
    vmi({}, { 'external-dns.kubernetes.io/ttl': '60' }),
    {},
    compiled('{{.Name}}.example.org', '{{index .Status.interfaces 0 "ipAddress"}}'),
  );
  assert.deepEqual(summary(t.endpoints), ['vm.example.org A 10.0.0.1 60']);
  assert.equal(t.endpoints[0]?.labels['resource'], 'virtualmachineinstance/ns/vm');
});

test('cluster-scoped objects: resource label with an empty namespace, as external-dns', () => {
  const obj: JsonRecord = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', annotations: { 'external-dns.kubernetes.io/hostname': 'w.example.org', 'external-dns.kubernetes.io/target': '10.0.0.9' } },
  };
  assert.equal(translateUnstructured(obj, {}, undefined).endpoints[0]?.labels['resource'], 'widget//w');
});

test('a controller annotation for another controller skips the object', () => {
  const obj = vmi(
    {},
    {
      'external-dns.kubernetes.io/controller': 'other',
      'external-dns.kubernetes.io/hostname': 'a.example.org',
      'external-dns.kubernetes.io/target': '10.0.0.1',
    },
  );
  assert.deepEqual(translateUnstructured(obj, {}, undefined).endpoints, []);
});

test('a template failing on the object is a problem and holds its records', () => {
  const t = translateUnstructured(vmi({ status: { interfaces: 'none' } }), {}, compiled('{{.Name}}.example.org', '{{index .Status.interfaces 0 "ipAddress"}}'));
  assert.deepEqual(t.endpoints, []);
  assert.equal(t.heldResource, 'virtualmachineinstance/ns/vm');
  assert.match(t.problems[0]?.message ?? '', /VirtualMachineInstance\/ns\/vm: --target-template/);
});

test('isSource answers "unstructured"', () => {
  const t = translateUnstructured(vmi(), {}, compiled('{{if isSource "unstructured"}}{{.Name}}.example.org{{end}}', '10.0.0.7'));
  assert.deepEqual(summary(t.endpoints), ['vm.example.org A 10.0.0.7 0']);
});
