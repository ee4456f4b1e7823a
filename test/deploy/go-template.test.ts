import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { TemplateError, TemplateSet } from './go-template.ts';

function run(source: string, data: unknown, helpers = ''): string {
  const set = new TemplateSet();
  set.add('_helpers.tpl', helpers);
  set.add('t', source);
  return set.render('t', data);
}

describe('Go template subset', () => {
  test('trim markers remove the whitespace on their side only', () => {
    assert.equal(run('a  {{- "b" -}}  c', {}), 'abc');
    assert.equal(run('a {{ "b" }} c', {}), 'a b c');
    assert.equal(run('x\n{{- /* a "quoted" comment */}}\ny', {}), 'x\ny');
  });

  test('if / else if / else, with, and Go truthiness', () => {
    const t = '{{ if .a }}A{{ else if .b }}B{{ else }}C{{ end }}';
    assert.equal(run(t, { a: 1 }), 'A');
    assert.equal(run(t, { a: 0, b: 'x' }), 'B');
    assert.equal(run(t, { a: [], b: {} }), 'C');
    assert.equal(run('{{ with .m }}{{ .k }}{{ else }}none{{ end }}', { m: { k: 'v' } }), 'v');
    assert.equal(run('{{ with .m }}{{ .k }}{{ else }}none{{ end }}', { m: {} }), 'none');
  });

  test('range over lists and maps (sorted keys), with variables and $', () => {
    assert.equal(run('{{ range .l }}[{{ . }}]{{ end }}', { l: ['a', 'b'] }), '[a][b]');
    assert.equal(run('{{ range $k, $v := .m }}{{ $k }}={{ $v }}{{ $.sep }}{{ end }}', { m: { b: 2, a: 1 }, sep: ';' }), 'a=1;b=2;');
    assert.equal(run('{{ range .l }}x{{ else }}empty{{ end }}', { l: [] }), 'empty');
    assert.equal(run('{{- $x := .v }}{{ if true }}{{ $x }}{{ end }}', { v: 'kept' }), 'kept');
  });

  test('include, pipelines and Helm functions', () => {
    const helpers = '{{- define "n" -}}{{ default "chart" .o | trunc 5 | trimSuffix "-" }}{{- end -}}';
    assert.equal(run('{{ include "n" . }}', { o: 'abcd-efg' }, helpers), 'abcd');
    assert.equal(run('{{ include "n" . }}', {}, helpers), 'chart');
    assert.equal(run('{{ printf "%s-%v" .a .b | quote }}', { a: 'x', b: 7 }), '"x-7"');
    assert.equal(run('k:{{ toYaml .m | nindent 2 }}', { m: { a: [1, 2] } }), 'k:\n  a:\n    - 1\n    - 2');
    assert.equal(run('{{ if and (has "crd" .s) (not (eq .p "x")) }}yes{{ end }}', { s: ['crd'], p: 'y' }), 'yes');
    assert.equal(run('{{ join ", " .s }}', { s: ['a', 'b'] }), 'a, b');
  });

  test('template bugs are errors, as in Helm', () => {
    assert.throws(() => run('{{ .a.b.c }}', { a: {} }), TemplateError);
    assert.throws(() => run('{{ nosuchfunc 1 }}', {}), /not defined/);
    assert.throws(() => run('{{ if .a }}open', {}), /unclosed/);
    assert.throws(() => run('{{ include "missing" . }}', {}), /no template named/);
    assert.throws(() => run('{{ .m }}', { m: { a: 1 } }), /toYaml/);
  });
});
