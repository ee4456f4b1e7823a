/**
 * docs/external-dns-compatibility.md is generated (npm run docs:compat): the committed page must be
 * what the code and the inventories produce now, and it must show nothing missing for what
 * Hostwarden implements.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PAGE, ROOT, annotationRows, behaviourDifferences, flagRows, renderPage } from '../../bin/compat-page.ts';
import { PROVIDER_NAMES, SOURCE_NAMES } from '../../src/cli/wiring.ts';

test('the committed compatibility page is the generated one', () => {
  const committed = readFileSync(join(ROOT, PAGE), 'utf8');
  assert.ok(committed === renderPage(), `${PAGE} is out of date: run \`npm run docs:compat\` and commit the result`);
});

test('the page shows no "missing" flag or annotation, and no undocumented difference (what remains belongs to providers or sources Hostwarden lacks)', () => {
  const open = [...flagRows().map((r) => ({ ...r, name: `--${r.name}` })), ...annotationRows()]
    .filter((r) => r.status === 'missing' || r.status.endsWith('(no reason recorded)'))
    .map((r) => `${r.name}: ${r.status}`);
  assert.deepEqual(open, []);
});

test('every provider and source name external-dns has that Hostwarden implements is listed as same (aliases included)', () => {
  const inventory = JSON.parse(readFileSync(join(ROOT, 'test/conformance/external-dns/flags.json'), 'utf8')) as { providers: string[]; sources: string[] };
  const page = readFileSync(join(ROOT, PAGE), 'utf8');
  for (const p of PROVIDER_NAMES.filter((n) => inventory.providers.includes(n))) assert.match(page, new RegExp(`\\| \`${p}\` \\| same \\|`), p);
  for (const s of SOURCE_NAMES.filter((n) => inventory.sources.includes(n))) assert.match(page, new RegExp(`\\| \`${s}\` \\| same \\|`), s);
  // A provider is either implemented or known to be lacking (start-up names it): nothing is plainly missing.
  assert.deepEqual(
    page.split('\n').filter((l) => /^\| `[a-z0-9-]+` \| missing \|$/.test(l)),
    [],
  );
});

test('every behaviour difference outside the test tables names a reason and a Hostwarden test that exists', () => {
  for (const b of behaviourDifferences()) {
    assert.ok(b.why.trim() !== '' && b.hostwarden.trim() !== '', b.area);
    assert.ok(existsSync(join(ROOT, b.test)), `${b.area}: ${b.test} does not exist`);
  }
});
