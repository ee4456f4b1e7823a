/** Replays secret-hash.json (upstream's TestBuildSecretHash) through secretHash. */
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { secretHash } from '../../../../src/operator/operand.ts';

interface Case {
  test: string;
  line: number;
  data: Record<string, string>;
  expectHash: string;
  differs?: string;
  hostwardenHash?: string;
}
const doc = JSON.parse(readFileSync(new URL('./secret-hash.json', import.meta.url), 'utf8')) as { cases: Case[] };

describe('upstream credentials-secret hash (TestBuildSecretHash)', () => {
  for (const c of doc.cases) {
    test(`${c.test} (deployment_test.go:${c.line})${c.differs === undefined ? '' : ' — differs'}`, () => {
      const data = Object.fromEntries(Object.entries(c.data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]));
      const got = secretHash({ data });
      if (c.differs !== undefined) {
        assert.notEqual(got, c.expectHash);
        assert.equal(got, c.hostwardenHash, c.differs);
      } else assert.equal(got, c.expectHash);
    });
  }
});
