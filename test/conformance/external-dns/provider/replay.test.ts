/**
 * Replays external-dns's zone id filter cases (zone-id-filter.json, facts only) through the
 * matcher the aws, google and azure providers use for --zone-id-filter (src/provider/zone-filter.ts).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { zoneIdFilterConfigured, zoneIdMatches } from '../../../../src/provider/zone-filter.ts';

interface Case {
  name: string;
  upstreamTest: string;
  zoneIdFilter: string[];
  zone?: string;
  expected?: boolean;
  /** IsConfigured: whether the filter selects anything (an empty value does not). */
  configured?: boolean;
}

const here = dirname(fileURLToPath(import.meta.url));
const data = JSON.parse(await readFile(join(here, 'zone-id-filter.json'), 'utf8')) as { upstream: string; cases: Case[] };

describe(`external-dns ${data.upstream}`, () => {
  for (const c of data.cases) {
    test(`${c.upstreamTest}: ${c.name}`, () => {
      if (c.expected !== undefined) assert.equal(zoneIdMatches(c.zoneIdFilter, c.zone ?? ''), c.expected);
      if (c.configured !== undefined) assert.equal(zoneIdFilterConfigured(c.zoneIdFilter), c.configured);
    });
  }
});
