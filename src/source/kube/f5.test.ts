import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import type { KubeObject } from '../../kube/resource.ts';
import { buildTranslateOptions } from '../translate/options.ts';
import type { TranslateFlags } from '../translate/options.ts';
import { hasValidAddress, slimF5, translateF5 } from './f5.ts';
import type { F5Kind } from './f5.ts';

const A = 'external-dns.kubernetes.io/';

function f5(
  kind: F5Kind,
  spec: Record<string, unknown>,
  status: Record<string, unknown> | undefined,
  metadata: { annotations?: Record<string, string>; labels?: Record<string, string> } = {},
): KubeObject {
  return {
    apiVersion: 'cis.f5.com/v1',
    kind,
    metadata: { name: 'web', namespace: 'apps', ...metadata },
    spec,
    ...(status === undefined ? {} : { status }),
  };
}

const show = (eps: readonly Endpoint[]): string[] =>
  eps.map((e) => `${e.dnsName} ${e.recordType} ${e.targets.join(',')} ${e.recordTTL} ${e.labels['resource'] ?? '-'}`).sort();
const opts = (flags: TranslateFlags = {}): ReturnType<typeof buildTranslateOptions> => buildTranslateOptions(flags);

test('targets: the target annotation, else spec.virtualServerAddress, else status.vsAddress', () => {
  const spec = { host: 'www.example.org', virtualServerAddress: '192.0.2.1' };
  const status = { vsAddress: '192.0.2.2', status: 'OK' };
  const annotated = translateF5(
    'VirtualServer',
    f5('VirtualServer', spec, status, { annotations: { [`${A}target`]: '198.51.100.1,lb.example.net.' } }),
    opts(),
  );
  assert.deepEqual(show(annotated.endpoints), [
    'www.example.org A 198.51.100.1 0 f5-virtualserver/apps/web',
    'www.example.org CNAME lb.example.net 0 f5-virtualserver/apps/web',
  ]);
  assert.deepEqual(show(translateF5('TransportServer', f5('TransportServer', spec, status), opts()).endpoints), [
    'www.example.org A 192.0.2.1 0 f5-transportserver/apps/web',
  ]);
  assert.deepEqual(show(translateF5('VirtualServer', f5('VirtualServer', { host: 'www.example.org' }, { vsAddress: '2001:db8::2' }), opts()).endpoints), [
    'www.example.org AAAA 2001:db8::2 0 f5-virtualserver/apps/web',
  ]);
});

test('nothing until status.vsAddress is set and not None (any case); the status text is not read', () => {
  for (const vsAddress of [undefined, '', 'None', 'NONE']) {
    const status = vsAddress === undefined ? undefined : { vsAddress, status: 'OK' };
    const r = translateF5('VirtualServer', f5('VirtualServer', { host: 'www.example.org', virtualServerAddress: '192.0.2.1' }, status), opts());
    assert.deepEqual(r.endpoints, [], String(vsAddress));
    assert.match(r.problems[0]?.message ?? '', /^VirtualServer\/apps\/web: F5 VirtualServer is missing a valid IP address/);
    assert.equal(r.heldResource, undefined);
  }
  const failed = translateF5(
    'TransportServer',
    f5('TransportServer', { host: 't.example.org' }, { vsAddress: '192.0.2.9', status: 'ERROR', error: 'x' }),
    opts(),
  );
  assert.deepEqual(show(failed.endpoints), ['t.example.org A 192.0.2.9 0 f5-transportserver/apps/web']);
  assert.ok(hasValidAddress('10.0.0.1') && !hasValidAddress('none'));
});

test('VirtualServer hostAliases (empty ones skipped) share the targets and TTL; a TransportServer has no aliases', () => {
  const spec = { host: 'www.example.org', virtualServerAddress: '192.0.2.1', hostAliases: ['a1.example.org', '', 'a2.example.org'] };
  const meta = { annotations: { [`${A}ttl`]: '5m' } };
  assert.deepEqual(show(translateF5('VirtualServer', f5('VirtualServer', spec, { vsAddress: '192.0.2.1' }, meta), opts()).endpoints), [
    'a1.example.org A 192.0.2.1 300 f5-virtualserver/apps/web',
    'a2.example.org A 192.0.2.1 300 f5-virtualserver/apps/web',
    'www.example.org A 192.0.2.1 300 f5-virtualserver/apps/web',
  ]);
  assert.deepEqual(show(translateF5('TransportServer', f5('TransportServer', spec, { vsAddress: '192.0.2.1' }, meta), opts()).endpoints), [
    'www.example.org A 192.0.2.1 300 f5-transportserver/apps/web',
  ]);
});

test('hostname, set-identifier and provider-specific annotations are not read; a bad TTL is reported and skipped', () => {
  const annotations = {
    [`${A}hostname`]: 'other.example.org',
    [`${A}set-identifier`]: 'eu',
    [`${A}aws-weight`]: '10',
    [`${A}ttl`]: 'forever',
  };
  const r = translateF5('VirtualServer', f5('VirtualServer', { host: 'www.example.org' }, { vsAddress: '192.0.2.1' }, { annotations }), opts());
  assert.deepEqual(show(r.endpoints), ['www.example.org A 192.0.2.1 0 f5-virtualserver/apps/web']);
  assert.equal(r.endpoints[0]?.setIdentifier, '');
  assert.deepEqual(r.endpoints[0]?.providerSpecific, []);
  assert.match(r.problems[0]?.message ?? '', /forever/);
});

test('annotation filter, label filter and the controller annotation', () => {
  const obj = (annotations: Record<string, string>, labels: Record<string, string> = {}): KubeObject =>
    f5('VirtualServer', { host: 'www.example.org' }, { vsAddress: '192.0.2.1' }, { annotations, labels });
  const filtered = opts({ annotationFilter: 'tier=frontend', labelFilter: 'env=prod' });
  assert.equal(translateF5('VirtualServer', obj({ tier: 'frontend' }, { env: 'prod' }), filtered).endpoints.length, 1);
  assert.equal(translateF5('VirtualServer', obj({ tier: 'backend' }, { env: 'prod' }), filtered).endpoints.length, 0);
  assert.equal(translateF5('VirtualServer', obj({ tier: 'frontend' }, { env: 'dev' }), filtered).endpoints.length, 0);
  const other = translateF5('VirtualServer', obj({ [`${A}controller`]: 'other' }), opts());
  assert.deepEqual([other.endpoints, other.problems], [[], []]);
});

test('an object whose fields have the wrong type is reported and its records held', () => {
  for (const [spec, status, what] of [
    [{ host: 7 }, { vsAddress: '192.0.2.1' }, 'spec.host is not a string'],
    [{ host: 'a.example.org', hostAliases: 'b.example.org' }, { vsAddress: '192.0.2.1' }, 'spec.hostAliases is not a list of strings'],
    [{ host: 'a.example.org' }, { vsAddress: ['192.0.2.1'] }, 'status.vsAddress is not a string'],
  ] as const) {
    const r = translateF5('VirtualServer', f5('VirtualServer', spec, status), opts());
    assert.deepEqual(r.endpoints, []);
    assert.equal(r.heldResource, 'f5-virtualserver/apps/web');
    assert.ok(
      r.problems.some((p) => p.message.includes(what)),
      JSON.stringify(r.problems),
    );
  }
  const notObject = translateF5(
    'TransportServer',
    { apiVersion: 'cis.f5.com/v1', kind: 'TransportServer', metadata: { name: 't', namespace: 'n' }, spec: 'x' },
    opts(),
  );
  assert.equal(notObject.heldResource, 'f5-transportserver/n/t');
  // TransportServer's type has no hostAliases: whatever is there is not read.
  const ts = translateF5('TransportServer', f5('TransportServer', { host: 'a.example.org', hostAliases: 3 }, { vsAddress: '192.0.2.1' }), opts());
  assert.equal(ts.endpoints.length, 1);
});

test('an empty host names nothing', () => {
  const r = translateF5('VirtualServer', f5('VirtualServer', { virtualServerAddress: '192.0.2.1' }, { vsAddress: '192.0.2.1' }), opts());
  assert.deepEqual(r.endpoints, []);
  assert.match(r.problems[0]?.message ?? '', /no spec.host/);
});

test('templates as external-dns ApplyTemplates: replace when there is no address, add with --combine-fqdn-annotation', () => {
  const pending = f5('VirtualServer', { host: 'www.example.org' }, { vsAddress: 'None' });
  const ready = f5(
    'VirtualServer',
    { host: 'www.example.org', virtualServerAddress: '192.0.2.1' },
    { vsAddress: '192.0.2.1' },
    { annotations: { [`${A}ttl`]: '60' } },
  );
  const fqdn = { fqdnTemplate: '{{ .Name }}.{{ .Kind | toLower }}.example.org', targetTemplate: ['lb.example.net'] };
  assert.deepEqual(show(translateF5('VirtualServer', pending, opts(fqdn)).endpoints), [
    'web.virtualserver.example.org CNAME lb.example.net 0 f5-virtualserver/apps/web',
  ]);
  assert.deepEqual(show(translateF5('VirtualServer', ready, opts(fqdn)).endpoints), ['www.example.org A 192.0.2.1 60 f5-virtualserver/apps/web']);
  assert.deepEqual(show(translateF5('VirtualServer', ready, opts({ ...fqdn, combineFqdnAnnotation: true })).endpoints), [
    'web.virtualserver.example.org CNAME lb.example.net 0 f5-virtualserver/apps/web',
    'www.example.org A 192.0.2.1 60 f5-virtualserver/apps/web',
  ]);
  // The host:target pairs come first; without combine the --fqdn-template names are then not used.
  const both = opts({ ...fqdn, fqdnTargetTemplate: ['{{ .Name }}.pair.example.org:192.0.2.7'] });
  assert.deepEqual(show(translateF5('VirtualServer', pending, both).endpoints), ['web.pair.example.org A 192.0.2.7 0 f5-virtualserver/apps/web']);
  // --fqdn-template without --target-template names nothing (upstream's EndpointsForHostsAndTargets).
  assert.deepEqual(translateF5('VirtualServer', pending, opts({ fqdnTemplate: '{{ .Name }}.example.org' })).endpoints, []);
  // isSource answers for this source.
  const scoped = opts({ fqdnTemplate: '{{ if isSource "f5-virtualserver" }}{{ .Name }}.vs.example.org{{ end }}', targetTemplate: ['192.0.2.8'] });
  assert.deepEqual(show(translateF5('VirtualServer', pending, scoped).endpoints), ['web.vs.example.org A 192.0.2.8 0 f5-virtualserver/apps/web']);
  assert.deepEqual(translateF5('TransportServer', { ...pending, kind: 'TransportServer' }, scoped).endpoints, []);
});

test('a template failing on an object is reported and the object held', () => {
  const r = translateF5(
    'VirtualServer',
    f5('VirtualServer', { host: 'w.example.org' }, {}),
    opts({ fqdnTemplate: '{{ .Spec.nope.deeper }}', targetTemplate: ['lb.example.net'] }),
  );
  assert.deepEqual(r.endpoints, []);
  assert.equal(r.heldResource, 'f5-virtualserver/apps/web');
  assert.match(r.problems[0]?.message ?? '', /--fqdn-template/);
});

test('slimF5 keeps the fields read (wrong types included) and drops the rest', () => {
  const raw = {
    apiVersion: 'cis.f5.com/v1',
    kind: 'VirtualServer',
    metadata: {
      name: 'web',
      namespace: 'apps',
      managedFields: [{ manager: 'kubectl' }],
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', [`${A}ttl`]: '60' },
    },
    spec: { host: 'w.example.org', hostAliases: ['x.example.org'], virtualServerAddress: '192.0.2.1', pools: [{ service: 's', servicePort: 80 }] },
    status: { vsAddress: 7, status: 'OK', lastUpdated: 'now' },
  };
  const slim = slimF5(raw);
  assert.deepEqual(slim.spec, { host: 'w.example.org', hostAliases: ['x.example.org'], virtualServerAddress: '192.0.2.1' });
  assert.deepEqual(slim.status, { vsAddress: 7 });
  assert.deepEqual(slim.metadata.annotations, { [`${A}ttl`]: '60' });
  assert.equal('managedFields' in slim.metadata, false);
  assert.equal(slimF5({ ...raw, spec: 'x' })['spec'], 'x');
});
