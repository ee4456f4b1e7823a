import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FLAGS, envName } from '../../src/config/flags.ts';
import { EXTRA_FLAGS, PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';

test('flag names are unique across the core table and the provider and source tables', () => {
  const all = [...FLAGS, ...EXTRA_FLAGS];
  const counts = new Map<string, number>();
  for (const f of all) counts.set(f.name, (counts.get(f.name) ?? 0) + 1);
  assert.deepEqual([...counts].filter(([, n]) => n > 1), []);
  assert.equal(new Set(all.map((f) => envName(f.name))).size, all.length);
  for (const f of all) assert.ok(f.help.length > 0, `--${f.name} has help text`);
});

test('every provider and source external-dns users expect is registered', () => {
  for (const p of ['embedded', 'inmemory', 'aws', 'google', 'azure', 'azure-private-dns', 'rfc2136', 'pdns', 'coredns', 'webhook']) assert.ok(PROVIDER_NAMES.includes(p), p);
  for (const s of ['manifest', 'service', 'ingress', 'crd', 'gateway-httproute']) assert.ok(SOURCE_NAMES.includes(s), s);
});
