import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../errors.ts';
import { FqdnTemplate, TemplateExecutionError } from './fqdn-template.ts';
import { readMeta } from './object.ts';
import type { JsonRecord } from './object.ts';

const svc: JsonRecord = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'Web', namespace: 'shop', labels: { app: 'frontend', 'app.kubernetes.io/part-of': 'store' }, annotations: { team: 'blue' } },
  spec: { type: 'LoadBalancer', clusterIP: '10.0.0.1' },
};

function run(template: string, obj: JsonRecord = svc): string[] {
  const meta = readMeta(obj);
  assert.ok(meta);
  return FqdnTemplate.compile(template).execute(obj, meta);
}

describe('FqdnTemplate', () => {
  test('name and namespace, comma separated list', () => {
    assert.deepEqual(run('{{.Name}}.{{.Namespace}}.example.org'), ['Web.shop.example.org']);
    assert.deepEqual(run('{{ .Name }}.example.org, {{.Namespace}}.example.org.'), ['Web.example.org', 'shop.example.org']);
  });

  test('kind, labels and annotations', () => {
    assert.deepEqual(run('{{.Kind}}.example.org'), ['Service.example.org']);
    assert.deepEqual(run('{{.Labels.app}}.example.org'), ['frontend.example.org']);
    assert.deepEqual(run('{{index .Labels "app.kubernetes.io/part-of"}}.example.org'), ['store.example.org']);
    assert.deepEqual(run('{{index .Annotations "team"}}.example.org'), ['blue.example.org']);
    assert.deepEqual(run('{{.ObjectMeta.Name}}.example.org'), ['Web.example.org']);
    assert.deepEqual(run('{{.Spec.Type}}.example.org'), ['LoadBalancer.example.org']);
  });

  test('string helpers and pipelines (external-dns argument order: trimPrefix s prefix)', () => {
    assert.deepEqual(run('{{.Name | toLower}}.example.org'), ['web.example.org']);
    assert.deepEqual(run('{{toLower .Name}}.example.org'), ['web.example.org']);
    assert.deepEqual(run('{{trimPrefix .Name "W"}}.example.org'), ['eb.example.org']);
    assert.deepEqual(run('{{trimSuffix .Name "b"}}.example.org'), ['We.example.org']);
    assert.deepEqual(run('{{replace "." "-" "a.b"}}.example.org'), ['a-b.example.org']);
    assert.deepEqual(run('{{- .Name -}} .example.org'), ['Web.example.org']);
  });

  test('a missing namespace defaults like the translators do', () => {
    assert.deepEqual(run('{{.Namespace}}.example.org', { kind: 'Service', metadata: { name: 'x' } }), ['default.example.org']);
  });

  test('a missing label prints <no value>, as Go does; index gives ""', () => {
    assert.deepEqual(run('{{.Labels.nope}}'), ['<no value>']);
    assert.deepEqual(run('{{index .Labels "nope"}}'), []);
  });

  test('several values and comma lists: joined, split, trimmed, unique, sorted', () => {
    const t = FqdnTemplate.compile(['{{.Name}}.b.org, {{.Name}}.a.org', ' {{.Name}}.b.org ', '']);
    const meta = readMeta(svc);
    assert.ok(meta);
    assert.deepEqual(t.execute(svc, meta), ['Web.a.org', 'Web.b.org']);
  });

  test('control structures of the templating guide', () => {
    assert.deepEqual(run('{{ if eq .Kind "Service" }}{{ .Name }}.svc.example.com{{ end }}'), ['Web.svc.example.com']);
    assert.deepEqual(run('{{ if eq .Spec.Type "ExternalName" }}x{{ end }}'), []);
    assert.deepEqual(run('{{ range $k, $v := .Labels }}{{ if contains $k "app" }}{{ $.Name }}.{{ $v }}.example.com,{{ end }}{{ end }}'), [
      'Web.frontend.example.com',
      'Web.store.example.com',
    ]);
    assert.deepEqual(run('{{ or .Annotations.dns "invalid" }}.example.com'), ['invalid.example.com']);
    assert.deepEqual(run('{{ .GetNamespace }}.{{ index .GetLabels "app" }}.example.com'), ['shop.frontend.example.com']);
    assert.deepEqual(run('{{ index .ObjectMeta.Annotations "team" }}.{{ .Spec.ClusterIP | replace "." "-" }}.example.com'), ['blue.10-0-0-1.example.com']);
  });

  test('JSON keys work through the unstructured retry; unknown lower-case fields fail', () => {
    const route: JsonRecord = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'r', namespace: 'ns' },
      spec: { hostnames: ['a.example.com'] },
    };
    assert.deepEqual(run('{{ .Name }}.{{ range .Spec.hostnames }}{{ . }}{{ end }}', route), ['r.a.example.com']);
    assert.throws(() => run('{{ .Calibre }}.example.com'), /can't evaluate field Calibre in type \*v1\.Service/);
    assert.deepEqual(run('{{ .Spec.ExternalName }}x.example.com'), ['x.example.com']);
    assert.throws(
      () => run('{{ .Spec.hostname }}.example.com'),
      (err: unknown) =>
        err instanceof TemplateExecutionError &&
        err.message.startsWith('--fqdn-template: failed to apply template on Service shop/Web: template: endpoint:1:3:') &&
        err.message.includes("can't evaluate field hostname in type v1.ServiceSpec") &&
        err.message.includes('map has no entry for key "hostname"'),
    );
  });

  test('parse errors are ConfigErrors naming the flag, the value and the position', () => {
    for (const [bad, detail] of [
      ['{{.Name', 'template: endpoint:1:7: unclosed action'],
      ['{{unknownFn .Name}}', 'template: endpoint:1:2: function "unknownFn" not defined'],
      ['{{}}', 'template: endpoint:1:2: missing value for command'],
      ['{{if .Name}}x', 'template: endpoint:1:13: unexpected EOF'],
      ['{{ $x }}', 'template: endpoint:1:3: undefined variable "$x"'],
    ] as const) {
      assert.throws(
        () => FqdnTemplate.compile(bad),
        (err: unknown) =>
          err instanceof ConfigError && err.flag === '--fqdn-template' && err.message === `--fqdn-template[0] ${JSON.stringify(bad)}: ${detail}`,
        bad,
      );
    }
    assert.throws(
      () => FqdnTemplate.fromFlags({ fqdnTarget: ['x', '{{.Name'] }),
      (err: unknown) => err instanceof ConfigError && err.message.startsWith('--fqdn-target-template[1] "{{.Name": '),
    );
  });

  test('fqdn-target pairs: split on the first colon, incomplete pairs skipped', () => {
    const t = FqdnTemplate.fromFlags({ fqdnTarget: ['{{.Name}}.example.org:{{.Spec.ClusterIP}},bad,:x,{{.Name}}.v6.example.org:2001:db8::1'] });
    const meta = readMeta(svc);
    assert.ok(t !== undefined && meta !== undefined);
    assert.deepEqual(t.hostTargets(svc, meta), [
      { host: 'Web.example.org', target: '10.0.0.1' },
      { host: 'Web.v6.example.org', target: '2001:db8::1' },
    ]);
    assert.deepEqual(t.execute(svc, meta), []);
  });

  test('isSource answers for the bound source', () => {
    const t = FqdnTemplate.compile('{{ if isSource "service" }}yes{{ else }}no{{ end }}.example.com');
    const meta = readMeta(svc);
    assert.ok(meta);
    assert.deepEqual(t.execute(svc, meta), ['no.example.com']);
    assert.deepEqual(t.withSource('service').execute(svc, meta), ['yes.example.com']);
    assert.deepEqual(t.withSource('ingress').execute(svc, meta), ['no.example.com']);
  });
});
