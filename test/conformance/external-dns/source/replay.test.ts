/**
 * external-dns's source tests as a conformance suite: every case of the JSON files beside this
 * file either gives upstream's endpoints or, when marked `differs`, Hostwarden's own recorded
 * answer; cases waiting for a flag another change adds are skipped with the flag named.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { matchingHost } from '../../../../src/source/kube/gateway-route.ts';
import { answerOf, caseMismatches, loadCaseFiles, loadFunctionFiles } from './replay.ts';

const files = await loadCaseFiles();

for (const { file, data } of files) {
  describe(`${file} (external-dns ${data.upstream})`, () => {
    const seen = new Set<string>();
    for (const c of data.cases) {
      const title = seen.has(c.upstreamTest) ? `${c.upstreamTest} (${c.name})` : c.upstreamTest;
      seen.add(c.upstreamTest);
      test(title, async () => {
        const errs = caseMismatches(c, await answerOf(c));
        assert.deepEqual(errs, [], `${c.differs === undefined ? '' : `(differs: ${c.differs}) `}${errs.join('\n')}`);
      });
    }
  });
}

for (const { file, data } of await loadFunctionFiles()) {
  describe(`${file} (external-dns ${data.upstream}, ${data.function})`, () => {
    for (const c of data.cases) {
      test(c.upstreamTest, () => {
        // Upstream checks both argument orders.
        for (const [a, b] of [
          [c.a, c.b],
          [c.b, c.a],
        ] as const) {
          const got = matchingHost(a, b);
          assert.equal(got !== undefined, c.ok, `matchingHost(${JSON.stringify(a)}, ${JSON.stringify(b)})`);
          if (c.ok) assert.equal(got, c.host, `matchingHost(${JSON.stringify(a)}, ${JSON.stringify(b)})`);
        }
      });
    }
  });
}
