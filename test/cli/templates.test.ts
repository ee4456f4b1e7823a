/**
 * The template flags through the CLI, as a Deployment passes them: several --fqdn-template values
 * (one with a comma list and control structures), a template failing on one object (that object is
 * reported and its records kept, the others plan), and a template that does not parse (start-up
 * stops with the flag, the value's index and the position). `run --once` twice on one zone: a
 * template failing on an object whose records exist deletes nothing.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../support/cli.ts';

let dir: string;

const service = (name: string, ip: string, labels: Record<string, string> = {}, annotations: Record<string, string> = {}): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'shop', labels, annotations },
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

  test('a template failing on an object whose records exist deletes nothing: run --once twice, then plan and explain', async () => {
    const manifests = join(dir, 'held');
    const data = join(dir, 'held-data');
    await mkdir(manifests);
    await writeFile(join(manifests, 'web.json'), service('web', '192.0.2.20', {}, { 'external-dns.alpha.kubernetes.io/hostname': 'web.example.org' }));
    const common = ['--manifests-dir', manifests, '--embedded-data-dir', data, '--embedded-zone', 'example.org', '--txt-owner-id', 'hw-held'];
    const run = (...flags: string[]): ReturnType<typeof runCli> =>
      runCli(['run', '--once', ...common, '--metrics-address', '', '--log-format', 'json', ...flags]);
    const template = ['--combine-fqdn-annotation', '--fqdn-template', '{{ .Labels.team | toLower }}.example.org'];

    const first = await run();
    assert.equal(first.code, 0, first.stderr);
    const zone = await readFile(join(data, 'example.org.zone'), 'utf8');
    assert.match(zone, /^web\.example\.org\. \d+ IN A 192\.0\.2\.20$/m);
    assert.match(zone, /^a-web\.example\.org\. \d+ IN TXT "heritage=external-dns,external-dns\/owner=hw-held,external-dns\/resource=service\/shop\/web"$/m);

    const second = await run(...template);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(await readFile(join(data, 'example.org.zone'), 'utf8'), zone, 'the zone file is unchanged');
    assert.match(
      second.stderr,
      /Service\/shop\/web \(.*web\.json:1\): --fqdn-template: failed to apply template on Service shop\/web: template: endpoint:1:18: executing \\"endpoint\\" at <toLower>: error calling toLower: invalid value; expected string .*; the object's records are kept as they are until the template works on it/,
    );

    // Another object still syncs beside the held one.
    await writeFile(join(manifests, 'api.json'), service('api', '192.0.2.21', { team: 'Api' }));
    const planned = await runCli(['plan', ...common, ...template]);
    assert.equal(planned.code, 0, planned.stderr);
    assert.doesNotMatch(planned.stdout, /^- /m);
    assert.match(planned.stdout, /^\+ api\.example\.org A 192\.0\.2\.21/m);
    assert.match(planned.stdout, /Plan: 1 to create, 0 to update, 0 to delete\./);
    const explained = await runCli(['explain', 'web.example.org', ...common, ...template, '--output', 'json']);
    assert.equal(explained.code, 0, explained.stderr);
    const answer = JSON.parse(explained.stdout) as { decisions: { action: string; reasonCode: string }[]; problems: string[] };
    assert.deepEqual(
      answer.decisions.map((d) => `${d.action} ${d.reasonCode}`),
      ['skip resource-held'],
    );
    // The problem that holds the record is shown with it, though it names the object, not the name.
    assert.equal(answer.problems.length, 1);
    assert.match(answer.problems[0] ?? '', /failed to apply template on Service shop\/web/);
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
