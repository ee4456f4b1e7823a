/**
 * external-dns's template tests as a conformance suite: every case of the JSON files beside this
 * file gives upstream's answer or, when marked `differs`, Hostwarden's own recorded answer.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { engineAnswer, engineMismatches, functionAnswer, loadCases } from './replay.ts';
import type { EngineCase, FunctionCase } from './replay.ts';
import { sourceAnswer, sourceMismatches, type SourceCase } from './sources.ts';

const title = (seen: Set<string>, c: { upstreamTest: string; name: string }): string => {
  const t = `${c.upstreamTest}/${c.name}`;
  seen.add(t);
  return t;
};

const engine = loadCases<EngineCase>('engine.json');
describe(`engine.json (external-dns ${engine.upstream})`, () => {
  const seen = new Set<string>();
  for (const c of engine.cases) {
    test(title(seen, c), () => {
      const expected = c.differs === undefined ? c.expect : c.hostwarden;
      assert.ok(expected !== undefined, `${c.name}: a differs case needs "hostwarden"`);
      const errs = engineMismatches(engineAnswer(c), expected);
      assert.deepEqual(errs, [], `${c.differs === undefined ? '' : `(differs: ${c.differs}) `}${errs.join('\n')}`);
    });
  }
});

const functions = loadCases<FunctionCase>('functions.json');
describe(`functions.json (external-dns ${functions.upstream})`, () => {
  const seen = new Set<string>();
  for (const c of functions.cases) {
    test(title(seen, c), () => {
      const answer = functionAnswer(c);
      if (c.errorContains !== undefined) {
        assert.ok('error' in answer && answer.error.includes(c.errorContains), JSON.stringify(answer));
        return;
      }
      assert.deepEqual(answer, { value: c.expected });
    });
  }
});

for (const file of ['service_fqdn.json', 'ingress_fqdn.json', 'openshift_route_fqdn.json', 'pod_fqdn.json', 'node_fqdn.json', 'gloo_proxy_fqdn.json']) {
  const data = loadCases<SourceCase>(file);
  describe(`${file} (external-dns ${data.upstream})`, () => {
    const seen = new Set<string>();
    for (const c of data.cases) {
      test(title(seen, c), async () => {
        const expected = c.differs === undefined ? c.expected : c.hostwarden;
        assert.ok(expected !== undefined, `${c.name}: a differs case needs "hostwarden"`);
        const errs = sourceMismatches(await sourceAnswer(c), expected);
        assert.deepEqual(errs, [], `${c.differs === undefined ? '' : `(differs: ${c.differs}) `}${errs.join('\n')}`);
      });
    }
  });
}
