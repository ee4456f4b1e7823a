import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { endpointToJSON } from '../../endpoint/endpoint.ts';
import type { JsonRecord } from './object.ts';
import { translateObject } from './translate.ts';

function dnsEndpoint(endpoints: unknown[], annotations: Record<string, string> = {}): JsonRecord {
  return {
    apiVersion: 'externaldns.k8s.io/v1alpha1',
    kind: 'DNSEndpoint',
    metadata: { name: 'records', namespace: 'infra', annotations },
    spec: { endpoints },
  };
}

describe('DNSEndpoint translation', () => {
  test('every field of the endpoint shape is carried; resource label is set', () => {
    const result = translateObject(
      dnsEndpoint([
        {
          dnsName: 'DB.example.org.',
          targets: ['192.0.2.30'],
          recordType: 'A',
          setIdentifier: 'primary',
          recordTTL: 120,
          labels: { team: 'data' },
          providerSpecific: [{ name: 'aws/weight', value: '5' }],
        },
        { dnsName: 'example.org', targets: ['v=spf1 -all'], recordType: 'TXT' },
        { dnsName: 'v6.example.org', targets: ['2001:db8::30'], recordType: 'AAAA' },
        { dnsName: 'example.org', targets: ['10 mail.example.org.'], recordType: 'MX' },
      ]),
    );
    assert.deepEqual(result.problems, []);
    assert.deepEqual(result.endpoints.map(endpointToJSON), [
      {
        dnsName: 'db.example.org',
        targets: ['192.0.2.30'],
        recordType: 'A',
        setIdentifier: 'primary',
        recordTTL: 120,
        labels: { team: 'data', resource: 'crd/infra/records' },
        providerSpecific: [{ name: 'aws/weight', value: '5' }],
      },
      { dnsName: 'example.org', targets: ['v=spf1 -all'], recordType: 'TXT', labels: { resource: 'crd/infra/records' } },
      { dnsName: 'v6.example.org', targets: ['2001:db8::30'], recordType: 'AAAA', labels: { resource: 'crd/infra/records' } },
      { dnsName: 'example.org', targets: ['10 mail.example.org'], recordType: 'MX', labels: { resource: 'crd/infra/records' } },
    ]);
  });

  test('bad entries are problems naming the object and entry, with their line; good ones survive', () => {
    const lines: Record<string, number> = { 'spec.endpoints.1': 14, 'spec.endpoints.2': 20, 'spec.endpoints.3': 25, 'spec.endpoints.4': 30 };
    const result = translateObject(
      dnsEndpoint([
        { dnsName: 'ok.example.org', targets: ['192.0.2.1'], recordType: 'A' },
        { dnsName: 'bad..example.org', targets: ['192.0.2.1'], recordType: 'A' },
        { dnsName: 'ip.example.org', targets: ['not-an-ip'], recordType: 'A' },
        { dnsName: 'x.example.org', targets: ['a'], recordType: 'HINFO' },
        { targets: ['192.0.2.1'], recordType: 'A' },
      ]),
      {},
      { file: 'crd.yaml', line: 1, lineOf: (p) => lines[p.join('.')] },
    );
    assert.deepEqual(
      result.endpoints.map((e) => e.dnsName),
      ['ok.example.org'],
    );
    assert.equal(result.problems.length, 4);
    assert.deepEqual(
      result.problems.map((p) => p.line),
      [14, 20, 25, 30],
    );
    for (const p of result.problems) assert.match(p.message, /^DNSEndpoint\/infra\/records \(crd\.yaml:\d+\): /);
    assert.match(result.problems[2]?.message ?? '', /spec\.endpoints\[3\].*HINFO/);
  });

  test('entries without targets are problems unless kept for default targets', () => {
    const obj = dnsEndpoint([
      { dnsName: 'empty.example.org', recordType: 'A' },
      { dnsName: 'txt.example.org', recordType: 'TXT', targets: [] },
    ]);
    const strict = translateObject(obj);
    assert.deepEqual(strict.endpoints, []);
    assert.equal(strict.problems.length, 2);
    const kept = translateObject(obj, { keepEmptyTargets: true });
    assert.deepEqual(
      kept.endpoints.map((e) => [e.dnsName, e.targets.length]),
      [['empty.example.org', 0]],
    );
    assert.equal(kept.problems.length, 1, 'TXT without targets cannot be filled');
  });

  test('controller annotation does not apply to DNSEndpoints; filters do', () => {
    const obj = dnsEndpoint([{ dnsName: 'a.example.org', targets: ['192.0.2.1'], recordType: 'A' }], {
      'external-dns.alpha.kubernetes.io/controller': 'other',
    });
    assert.equal(translateObject(obj).endpoints.length, 1);
  });

  test('a spec.endpoints that is not a list is a problem', () => {
    const obj = dnsEndpoint([]);
    obj['spec'] = { endpoints: 'oops' };
    const result = translateObject(obj);
    assert.equal(result.problems.length, 1);
    assert.equal(result.outcome, 'translated');
  });
});
