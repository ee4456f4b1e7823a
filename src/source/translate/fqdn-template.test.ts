import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../errors.ts';
import { FqdnTemplate } from './fqdn-template.ts';
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

  test('string helpers and pipelines', () => {
    assert.deepEqual(run('{{.Name | toLower}}.example.org'), ['web.example.org']);
    assert.deepEqual(run('{{toLower .Name}}.example.org'), ['web.example.org']);
    assert.deepEqual(run('{{trimPrefix "W" .Name}}.example.org'), ['eb.example.org']);
    assert.deepEqual(run('{{.Name | trimSuffix "b"}}.example.org'), ['We.example.org']);
    assert.deepEqual(run('{{replace "." "-" "a.b"}}.example.org'), ['a-b.example.org']);
    assert.deepEqual(run('{{- .Name -}} .example.org'), ['Web.example.org']);
  });

  test('a missing namespace defaults like the translators do', () => {
    assert.deepEqual(run('{{.Namespace}}.example.org', { kind: 'Service', metadata: { name: 'x' } }), ['default.example.org']);
  });

  test('missing fields render empty and empty names are dropped', () => {
    assert.deepEqual(run('{{.Labels.nope}}'), []);
  });

  test('unsupported syntax is a ConfigError naming --fqdn-template', () => {
    for (const bad of [
      '{{if .Name}}x{{end}}',
      '{{.Name',
      '{{$x := .Name}}',
      '{{printf "%s" .Name}}',
      '{{unknownFn .Name}}',
      '{{(.Name)}}',
      '{{}}',
      '{{toLower}}',
      '{{.Name .Namespace}}',
    ]) {
      assert.throws(
        () => FqdnTemplate.compile(bad),
        (err: unknown) => err instanceof ConfigError && err.flag === '--fqdn-template' && err.message.startsWith('--fqdn-template'),
        bad,
      );
    }
  });
});
