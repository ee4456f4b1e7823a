/**
 * external-dns's template tests as a conformance suite: every case of the JSON files beside this
 * file gives upstream's answer or, when marked `differs`, Hostwarden's own recorded answer.
 */
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { engineAnswer, engineMismatches, functionAnswer, loadCases } from './replay.ts';
import type { EngineCase, FunctionCase } from './replay.ts';
import { sourceAnswer, sourceMismatches, type SourceCase } from './sources.ts';
import { FqdnTemplate } from '../../../../src/source/translate/fqdn-template.ts';
import { readMeta } from '../../../../src/source/translate/object.ts';
import type { JsonRecord } from '../../../../src/source/translate/object.ts';
import { titleCaseKey, unstructuredTemplateView } from '../../../../src/source/translate/unstructured.ts';
import { answerOf, caseMismatches } from '../source/replay.ts';
import type { SourceCase as UnstructuredFqdnCase } from '../source/replay.ts';

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

// Every `<source>_fqdn.json` beside this file (a new source's cases join by being written), but
// unstructured's, which has its own shape (below).
const FQDN_FILES = readdirSync(dirname(fileURLToPath(import.meta.url)))
  .filter((f) => f.endsWith('_fqdn.json') && f !== 'unstructured_fqdn.json')
  .sort();
for (const file of FQDN_FILES) {
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

/** The unstructured source's template cases: its examples through the source runner, what its wrapper shows a template, its Go field names. */
const unstructured = loadCases<UnstructuredFqdnCase>('unstructured_fqdn.json') as ReturnType<typeof loadCases<UnstructuredFqdnCase>> & {
  wrapperCases: { name: string; upstreamTest: string; fqdnTemplate: string; object: JsonRecord; want: string[] }[];
  titleCaseKeys: { upstreamTest: string; in: string; want: string }[];
};
describe(`unstructured_fqdn.json (external-dns ${unstructured.upstream})`, () => {
  const seen = new Set<string>();
  for (const c of unstructured.cases) {
    test(title(seen, c), async () => {
      const errs = caseMismatches(c, await answerOf(c));
      assert.deepEqual(errs, [], `${c.differs === undefined ? '' : `(differs: ${c.differs}) `}${errs.join('\n')}`);
    });
  }
  for (const c of unstructured.wrapperCases) {
    test(title(seen, c), () => {
      const meta = readMeta(c.object);
      assert.ok(meta !== undefined);
      const names = FqdnTemplate.compile(c.fqdnTemplate).withSource('unstructured').execute(c.object, meta, unstructuredTemplateView);
      assert.deepEqual(names, c.want);
    });
  }
  test('TestTitleCaseKey_KnownInitialisms', () => {
    for (const c of unstructured.titleCaseKeys) assert.equal(titleCaseKey(c.in), c.want, `titleCaseKey(${JSON.stringify(c.in)})`);
  });
});
