/**
 * The upstream flag inventory (flags.json, restated from external-dns's docs/flags.md and
 * types.go) against the code: what Hostwarden knows it lacks (src/config/upstream-flags.ts) is
 * exactly the flags of the providers, sources and registries it does not implement, and the
 * flags it implements match upstream's kind, repeatability and default or say why not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ALL_FLAGS } from '../../../src/cli/commands.ts';
import { PROVIDER_NAMES, SOURCE_NAMES } from '../../../src/cli/wiring.ts';
import {
  FLAG_DIFFERENCES,
  UNIMPLEMENTED_FLAGS,
  UNIMPLEMENTED_PROVIDERS,
  UNIMPLEMENTED_REGISTRIES,
  UNIMPLEMENTED_SOURCES,
} from '../../../src/config/upstream-flags.ts';
import { flagMismatch } from '../../../bin/compat-page.ts';
import type { UpstreamFlag } from '../../../bin/compat-page.ts';

const inventory = JSON.parse(readFileSync(new URL('./flags.json', import.meta.url), 'utf8')) as {
  providers: string[];
  sources: string[];
  registries: string[];
  flags: UpstreamFlag[];
};
const byName = new Map(inventory.flags.map((f) => [f.name, f]));
const REGISTRIES = ['txt', 'noop'];

test('the inventory: 180 flags, each once, with a kind and an owner', () => {
  assert.equal(inventory.flags.length, 180);
  assert.equal(byName.size, 180);
  for (const f of inventory.flags) assert.ok(['bool', 'string', 'int', 'duration', 'enum', 'regexp', 'key=value'].includes(f.kind), f.name);
});

test('what Hostwarden lacks: every unimplemented choice is an external-dns one Hostwarden does not offer', () => {
  for (const p of UNIMPLEMENTED_PROVIDERS) assert.ok(inventory.providers.includes(p) && !PROVIDER_NAMES.includes(p), p);
  for (const s of UNIMPLEMENTED_SOURCES) assert.ok(inventory.sources.includes(s) && !SOURCE_NAMES.includes(s), s);
  for (const r of UNIMPLEMENTED_REGISTRIES) assert.ok(inventory.registries.includes(r) && !REGISTRIES.includes(r), r);
  // And the other way round: nothing external-dns offers is neither implemented nor known to be lacking.
  assert.deepEqual(
    inventory.providers.filter((p) => !PROVIDER_NAMES.includes(p) && !UNIMPLEMENTED_PROVIDERS.includes(p)),
    [],
  );
  assert.deepEqual(
    inventory.sources.filter((s) => !SOURCE_NAMES.includes(s) && !UNIMPLEMENTED_SOURCES.includes(s)),
    [],
  );
});

test('the unimplemented flag groups are exactly the flags whose every owner Hostwarden lacks', () => {
  const lacking = (kind: string, name: string): boolean =>
    kind === 'provider'
      ? UNIMPLEMENTED_PROVIDERS.includes(name)
      : kind === 'source'
        ? UNIMPLEMENTED_SOURCES.includes(name)
        : kind === 'registry' && UNIMPLEMENTED_REGISTRIES.includes(name);
  const expected = inventory.flags
    .filter((f) => f.belongsTo.names !== undefined && f.belongsTo.names.every((n) => lacking(f.belongsTo.kind, n)))
    .map((f) => f.name)
    .sort();
  assert.deepEqual(UNIMPLEMENTED_FLAGS.flatMap((g) => g.flags).sort(), expected);
  for (const g of UNIMPLEMENTED_FLAGS) {
    for (const flag of g.flags) {
      const up = byName.get(flag);
      assert.equal(up?.belongsTo.kind, g.kind, flag);
      assert.ok(up?.belongsTo.names?.includes(g.owner), `${flag} belongs to ${g.owner}`);
      assert.ok(!ALL_FLAGS.some((f) => f.name === flag), `${flag} is defined by a Hostwarden table and listed as lacking`);
    }
  }
});

test('every recorded difference names an upstream flag Hostwarden defines', () => {
  for (const name of Object.keys(FLAG_DIFFERENCES)) {
    assert.ok(byName.has(name), `${name} is not an external-dns flag`);
    assert.ok(
      ALL_FLAGS.some((f) => f.name === name),
      `${name} is not a Hostwarden flag`,
    );
  }
});

test("Hostwarden's flags of the same name match upstream's kind, repeatability and default, or record why not", () => {
  const undocumented = ALL_FLAGS.flatMap((hw) => {
    const up = byName.get(hw.name);
    if (up === undefined || FLAG_DIFFERENCES[hw.name] !== undefined) return [];
    const mismatch = flagMismatch(up, hw);
    return mismatch === '' ? [] : [`--${hw.name}: ${mismatch}`];
  });
  assert.deepEqual(undocumented, []);
});
