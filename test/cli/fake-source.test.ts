/**
 * --source=fake as external-dns users run it: against the inmemory provider, a plan of dummy
 * records under the --fqdn-template domain; a template that fails stops start-up naming the flag.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../support/cli.ts';

const plan = (...args: string[]) => runCli(['plan', '--source=fake', '--provider=inmemory', '--inmemory-zone=my-company.com', '--log-level', 'error', ...args]);

test('--source=fake plans one record of each managed type under the --fqdn-template domain', async () => {
  const r = await plan('--fqdn-template={{.Name}}.my-company.com', '--managed-record-types=A,AAAA,CNAME,TXT,MX,NS');
  assert.equal(r.code, 0, r.stderr);
  const created = r.stdout.split('\n').filter((l) => l.startsWith('+ '));
  const types = created.map((l) => l.split(' ')[2]).sort();
  assert.deepEqual(types, ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT']);
  for (const l of created) assert.match(l, /^\+ (\S+\.)?fake\.my-company\.com /);
  assert.match(r.stdout, /\+ fake\.my-company\.com NS \[fake\]/);
});

test('--source=fake with a template that fails on the placeholder Pod stops start-up naming --fqdn-template', async () => {
  const r = await plan('--fqdn-template={{call .Name}}');
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /--fqdn-template/);
  assert.match(r.stderr, /rendering fqdn template/);
});
