/**
 * The template flags through the CLI, as a Deployment passes them: several --fqdn-template values
 * (one with a comma list and control structures), a template failing on one object (that object is
 * reported and skipped, the others plan), and a template that does not parse (start-up stops with
 * the flag, the value's index and the position).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../support/cli.ts';

let dir: string;

const service = (name: string, ip: string, labels: Record<string, string> = {}): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'shop', labels },
    spec: { type: 'LoadBalancer' },
    status: { loadBalancer: { ingress: [{ ip }] } },
  });

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hw-templates-'));
  await writeFile(join(dir, 'web.json'), service('web', '192.0.2.10', { env: 'prod' }));
  await writeFile(join(dir, 'api.json'), service('api', '192.0.2.11'));
});
after(async () => rm(dir, { recursive: true, force: true }));

const plan = (...flags: string[]): ReturnType<typeof runCli> =>
  runCli(['plan', '--manifests-dir', dir, '--embedded-data-dir', join(dir, 'data'), '--domain-filter', 'example.org', '--output', 'json', ...flags]);

describe('template flags', () => {
  test('several --fqdn-template values and comma lists; a failing template skips only its object', async () => {
    const r = await plan(
      '--fqdn-template',
      '{{ .Name }}.example.org, {{ if eq (index .Labels "env") "prod" }}{{ .Name }}.prod.example.org{{ end }}',
      '--fqdn-template={{ if eq .Name "api" }}{{ .Spec.hostname }}{{ end }}{{ .Namespace }}.example.org',
    );
    assert.equal(r.code, 0, r.stderr);
    const created = (JSON.parse(r.stdout) as { create: { dnsName: string; targets: string[] }[] }).create.map((e) => `${e.dnsName} ${e.targets.join(',')}`);
    assert.deepEqual(created.filter((c) => !c.startsWith('a-')).sort(), [
      'shop.example.org 192.0.2.10',
      'web.example.org 192.0.2.10',
      'web.prod.example.org 192.0.2.10',
    ]);
    assert.match(
      r.stderr,
      /--fqdn-template: failed to apply template on Service shop\/api: template: endpoint:1:\d+: executing "endpoint" at <\.Spec\.hostname>: can't evaluate field hostname in type v1\.ServiceSpec/,
    );
  });

  test('--fqdn-target-template publishes host:target pairs', async () => {
    const r = await plan('--fqdn-target-template', '{{ .Name }}.pairs.example.org:{{ (index .Status.LoadBalancer.Ingress 0).IP }}');
    assert.equal(r.code, 0, r.stderr);
    const created = (JSON.parse(r.stdout) as { create: { dnsName: string }[] }).create.map((e) => e.dnsName).filter((n) => !n.startsWith('a-'));
    assert.deepEqual(created.sort(), ['api.pairs.example.org', 'web.pairs.example.org']);
  });

  test('a template that does not parse stops start-up, naming the flag, the value and the position', async () => {
    const r = await plan('--fqdn-template', '{{ .Name }}.example.org', '--fqdn-template', '{{ .Name | foo }}.example.org');
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--fqdn-template\[1\] "\{\{ \.Name \| foo \}\}\.example\.org": template: endpoint:1:11: function "foo" not defined/);
    const bad = await plan('--target-template', '{{ if .Name }}');
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /--target-template\[0\] "\{\{ if \.Name \}\}": template: endpoint:1:14: unexpected EOF/);
  });
});
