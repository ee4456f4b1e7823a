/**
 * The DNSEndpoint CRD: the same group, names and fields as external-dns's, so DNSEndpoints written
 * for external-dns are accepted unchanged and lose no field to pruning; malformed entries are
 * rejected by the schema.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { parseYamlDocuments } from './chart.ts';
import { get } from './checks.ts';
import { checkSchema } from './schema.ts';
import type { Schema } from './schema.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CRD_FILE = 'dnsendpoints.externaldns.k8s.io.yaml';

function loadCrd(): Record<string, unknown> {
  const docs = parseYamlDocuments(readFileSync(join(ROOT, 'deploy/crds', CRD_FILE), 'utf8'), CRD_FILE);
  assert.equal(docs.length, 1);
  return docs[0] as Record<string, unknown>;
}

function schemaOf(crd: Record<string, unknown>): Schema {
  return get(crd, 'spec', 'versions', 0, 'schema', 'openAPIV3Schema') as Schema;
}

// As external-dns's documentation writes them: every endpoint field, and a status.
const EXTERNAL_DNS_SAMPLE = `
apiVersion: externaldns.k8s.io/v1alpha1
kind: DNSEndpoint
metadata:
  name: examplednsrecord
  namespace: default
spec:
  endpoints:
  - dnsName: foo.bar.com
    recordTTL: 180
    recordType: A
    targets:
    - 192.168.99.216
    labels:
      team: web
    setIdentifier: eu-west
    providerSpecific:
    - name: aws/weight
      value: "10"
  - dnsName: _sip._udp.bar.com.
    recordType: SRV
    targets:
    - "10 5 5060 sip.bar.com."
  - dnsName: "*.apps.bar.com"
    recordType: CNAME
    targets: [lb.bar.com]
status:
  observedGeneration: 3
`;

/** Entries external-dns's own schema rejects too: each must fail here. */
const BAD_ENTRIES: readonly [string, unknown][] = [
  ['no dnsName', { recordType: 'A', targets: ['192.0.2.1'] }],
  ['no recordType', { dnsName: 'a.example.org', targets: ['192.0.2.1'] }],
  ['targets not a list', { dnsName: 'a.example.org', recordType: 'A', targets: '192.0.2.1' }],
  ['negative TTL', { dnsName: 'a.example.org', recordType: 'A', recordTTL: -1 }],
  ['TTL as a string', { dnsName: 'a.example.org', recordType: 'A', recordTTL: '60' }],
  ['empty target', { dnsName: 'a.example.org', recordType: 'A', targets: [''] }],
  ['providerSpecific without a name', { dnsName: 'a.example.org', recordType: 'A', providerSpecific: [{ value: 'x' }] }],
  ['label that is not a string', { dnsName: 'a.example.org', recordType: 'A', labels: { n: 1 } }],
];

describe('DNSEndpoint CRD', () => {
  test('is externaldns.k8s.io/v1alpha1 DNSEndpoint, namespaced, served and stored, with a status subresource', () => {
    const crd = loadCrd();
    assert.equal(crd['apiVersion'], 'apiextensions.k8s.io/v1');
    assert.equal(crd['kind'], 'CustomResourceDefinition');
    assert.equal(get(crd, 'metadata', 'name'), 'dnsendpoints.externaldns.k8s.io');
    // The API server refuses CRDs in a *.k8s.io group without this annotation.
    assert.match(String(get(crd, 'metadata', 'annotations', 'api-approved.kubernetes.io')), /^https:\/\//);
    assert.equal(get(crd, 'spec', 'group'), 'externaldns.k8s.io');
    assert.equal(get(crd, 'spec', 'scope'), 'Namespaced');
    assert.deepEqual(get(crd, 'spec', 'names'), { kind: 'DNSEndpoint', listKind: 'DNSEndpointList', plural: 'dnsendpoints', singular: 'dnsendpoint' });
    const versions = get(crd, 'spec', 'versions') as Record<string, unknown>[];
    assert.equal(versions.length, 1);
    assert.equal(versions[0]?.['name'], 'v1alpha1');
    assert.equal(versions[0]?.['served'], true);
    assert.equal(versions[0]?.['storage'], true);
    assert.deepEqual(get(versions[0], 'subresources'), { status: {} });
  });

  test('the schema is structural: every node has a type, every object its properties, every array its items', () => {
    const problems: string[] = [];
    const walk = (s: Schema, at: string): void => {
      if (s.type === undefined) problems.push(`${at}: no type`);
      if (s.type === 'array' && s.items === undefined) problems.push(`${at}: array without items`);
      for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, `${at}.${k}`);
      if (s.items !== undefined) walk(s.items, `${at}[]`);
      if (typeof s.additionalProperties === 'object') walk(s.additionalProperties, `${at}{}`);
    };
    walk(schemaOf(loadCrd()), '');
    assert.deepEqual(problems, []);
  });

  test('accepts an external-dns DNSEndpoint and prunes none of its fields', () => {
    const result = checkSchema(schemaOf(loadCrd()), parse(EXTERNAL_DNS_SAMPLE));
    assert.deepEqual(result.errors, []);
    // metadata is the API server's, not the schema's; everything else must be declared.
    assert.deepEqual(
      result.pruned.filter((p) => !p.startsWith('metadata.')),
      [],
    );
  });

  test('accepts the DNSEndpoints in examples/', () => {
    const docs = parseYamlDocuments(readFileSync(join(ROOT, 'examples/dnsendpoint.yaml'), 'utf8'), 'examples/dnsendpoint.yaml');
    const endpoints = docs.filter((d) => d['kind'] === 'DNSEndpoint');
    assert.ok(endpoints.length > 0);
    for (const d of endpoints) assert.deepEqual(checkSchema(schemaOf(loadCrd()), d).errors, []);
  });

  for (const [what, entry] of BAD_ENTRIES) {
    test(`rejects an entry with ${what}`, () => {
      const obj = { apiVersion: 'externaldns.k8s.io/v1alpha1', kind: 'DNSEndpoint', metadata: { name: 'x' }, spec: { endpoints: [entry] } };
      const result = checkSchema(schemaOf(loadCrd()), obj);
      assert.notDeepEqual(result.errors, [], `${what} was accepted`);
    });
  }

  test('the chart ships the same CRD', () => {
    const a = readFileSync(join(ROOT, 'deploy/crds', CRD_FILE), 'utf8');
    const b = readFileSync(join(ROOT, 'charts/hostwarden/crds', CRD_FILE), 'utf8');
    assert.equal(b, a, 'charts/hostwarden/crds and deploy/crds have drifted; copy deploy/crds over');
  });
});
