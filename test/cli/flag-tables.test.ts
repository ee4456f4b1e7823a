import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FLAGS, envName } from '../../src/config/flags.ts';
import { ALL_FLAGS, COMMANDS, COMMAND_FLAGS, commandFlags } from '../../src/cli/commands.ts';
import { EXTRA_FLAGS, PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';
import { runCli } from '../support/cli.ts';

test('flag names are unique across the core table and the provider and source tables', () => {
  const all = [...FLAGS, ...EXTRA_FLAGS];
  const counts = new Map<string, number>();
  for (const f of all) counts.set(f.name, (counts.get(f.name) ?? 0) + 1);
  assert.deepEqual(
    [...counts].filter(([, n]) => n > 1),
    [],
  );
  assert.equal(new Set(all.map((f) => envName(f.name))).size, all.length);
  for (const f of all) assert.ok(f.help.length > 0, `--${f.name} has help text`);
});

test('every provider and source external-dns users expect is registered', () => {
  for (const p of ['embedded', 'inmemory', 'aws', 'google', 'azure', 'azure-private-dns', 'rfc2136', 'pdns', 'coredns', 'webhook'])
    assert.ok(PROVIDER_NAMES.includes(p), p);
  for (const s of ['manifest', 'service', 'ingress', 'crd', 'gateway-httproute']) assert.ok(SOURCE_NAMES.includes(s), s);
});

test('one flag table per command: every flag belongs to a command, and no command lists a flag twice', () => {
  const owned = new Set(COMMANDS.flatMap((c) => commandFlags(c).map((f) => f.name)));
  assert.deepEqual(
    ALL_FLAGS.map((f) => f.name).filter((n) => !owned.has(n)),
    [],
  );
  for (const c of COMMANDS) {
    const names = COMMAND_FLAGS[c].flatMap((g) => g.flags.map((f) => f.name));
    const groups = COMMAND_FLAGS[c].map((g) => g.title);
    assert.equal(new Set(groups).size, groups.length, `${c}: a group title twice`);
    assert.ok(names.length > 0, c);
  }
  assert.ok(commandFlags('run').length > commandFlags('operator').length);
});

test("a flag of another command is an error naming the command that owns it; --help lists only the command's flags, grouped, with defaults", async () => {
  const plan = await runCli(['plan', '--operand-image', 'x', '--records', 'r.json']);
  assert.equal(plan.code, 2);
  assert.match(plan.stderr, /--operand-image is not a flag of "hostwarden plan"; it belongs to "hostwarden operator"/);
  const run = await runCli(['--hive-namespace', 'y']);
  assert.match(run.stderr, /--hive-namespace is not a flag of "hostwarden run"; it belongs to "hostwarden privatelink-controller"/);
  assert.match((await runCli(['plan', '--no-such-flag'])).stderr, /unknown flag --no-such-flag/);
  const help = await runCli(['operator', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: hostwarden operator/);
  assert.match(help.stdout, /\nOperator:\n {2}--operator-namespace VALUE/);
  assert.match(help.stdout, /--operand-image VALUE +.*\(default /);
  assert.doesNotMatch(help.stdout, /--txt-owner-id|--rfc2136-host|--hive-namespace/);
  const top = await runCli(['--help']);
  assert.match(top.stdout, /hostwarden <command> --help/);
  assert.match(top.stdout, /\nRegistry \(TXT ownership\):\n {2}--txt-owner-id/);
  assert.doesNotMatch(top.stdout, /--operand-image/);
});

test('environment variables of other commands are ignored, not errors (one environment can serve several commands)', async () => {
  const r = await runCli(['plan', '--records', '/nonexistent.json'], { env: { EXTERNAL_DNS_OPERAND_IMAGE: 'x' } });
  assert.doesNotMatch(r.stderr, /operand/);
});

test('tables list what each command reads: the DNSRecord embedded zones fall back to --domain-filter; ignored flags are not offered', () => {
  const names = (c: (typeof COMMANDS)[number]): string[] => commandFlags(c).map((f) => f.name);
  assert.ok(names('dnsrecord-controller').includes('domain-filter'));
  for (const unread of ['rfc2136-host', 'azure-config-file', 'embedded-hostmaster', 'kube-watch-inactivity-timeout']) {
    assert.ok(!names('dnsrecord-controller').includes(unread), unread);
  }
  assert.ok(!names('admission-webhook').includes('request-timeout'));
  assert.ok(names('admission-webhook').includes('kube-context'));
  for (const c of ['operator', 'privatelink-controller', 'dnsrecord-controller'] as const) assert.ok(names(c).includes('kube-context'), c);
  assert.ok(!names('webhook-server').includes('metrics-address'));
  assert.ok(!names('webhook-server').includes('managed-record-types'));
});
