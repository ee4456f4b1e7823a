/**
 * Replays external-dns's provider-specific annotation table (provider-specific.json, facts only)
 * through the annotation reader every Hostwarden translator uses, with the default
 * --annotation-prefix. Properties compare as sets: the planner compares them that way. A case
 * marked `differs` asserts Hostwarden's own answer, given in `hostwarden`.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ProviderSpecificProperty } from '../../../../src/endpoint/endpoint.ts';
import { parseAnnotations } from '../../../../src/source/translate/annotations.ts';

interface Case {
  name: string;
  upstreamTest: string;
  annotations: Record<string, string>;
  expected: ProviderSpecificProperty[];
  setIdentifier: string;
  differs?: string;
  hostwarden?: ProviderSpecificProperty[];
}

const here = dirname(fileURLToPath(import.meta.url));
const data = JSON.parse(await readFile(join(here, 'provider-specific.json'), 'utf8')) as { upstream: string; cases: Case[] };
const sorted = (props: readonly ProviderSpecificProperty[]): string[] => props.map((p) => `${p.name}=${p.value}`).sort();

describe(`external-dns ${data.upstream}`, () => {
  for (const c of data.cases) {
    test(`${c.upstreamTest}${c.differs === undefined ? '' : ' (differs)'}`, () => {
      const parsed = parseAnnotations(c.annotations, 0, (problem) => assert.fail(problem));
      const expected = c.differs === undefined ? c.expected : c.hostwarden;
      assert.ok(expected !== undefined, "a differing case gives Hostwarden's answer");
      assert.deepEqual(sorted(parsed.providerSpecific), sorted(expected));
      assert.equal(parsed.setIdentifier, c.setIdentifier);
    });
  }
});
