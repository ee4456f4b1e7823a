/**
 * Replays external-dns's template tests (source/template/engine_test.go and functions_test.go,
 * restated as the JSON files beside this file) through Hostwarden's template engine: the flags are
 * compiled as `run` compiles them, the object is a Kubernetes JSON object, and the answer is what
 * the engine (or, for `translate` cases, the whole translation of the objects) gives.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Endpoint } from '../../../../src/endpoint/endpoint.ts';
import { newEndpoint } from '../../../../src/endpoint/endpoint.ts';
import { externalDnsFunctions } from '../../../../src/template/functions.ts';
import { GoMap } from '../../../../src/template/values.ts';
import { FqdnTemplate } from '../../../../src/source/translate/fqdn-template.ts';
import { readMeta } from '../../../../src/source/translate/object.ts';
import type { JsonRecord } from '../../../../src/source/translate/object.ts';
import { buildTranslateOptions, combineTemplated, templateOf } from '../../../../src/source/translate/options.ts';
import type { KindContext } from '../../../../src/source/translate/options.ts';
import { translateObject } from '../../../../src/source/translate/translate.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

export function loadCases<T>(file: string): { upstream: string; cases: T[] } {
  return JSON.parse(readFileSync(join(HERE, file), 'utf8')) as { upstream: string; cases: T[] };
}

export interface CaseEndpoint {
  dnsName: string;
  recordType: string;
  targets: string[];
}

/** What a case expects (or what the engine answered), in one comparable shape. */
export interface EngineAnswer {
  parses?: boolean;
  configured?: boolean;
  parseErrorContains?: string;
  errorContains?: string;
  result?: string[];
  endpoints?: CaseEndpoint[] | null;
  problemsContain?: string[];
}

export interface EngineCase {
  name: string;
  upstreamTest: string;
  fqdn?: string[];
  target?: string[];
  fqdnTarget?: string[];
  combine?: boolean;
  source?: string;
  object?: JsonRecord;
  objects?: JsonRecord[];
  op?: 'fqdn' | 'target' | 'fqdnTarget' | 'combine' | 'translate';
  own?: CaseEndpoint[];
  templated?: CaseEndpoint[];
  templateFails?: boolean;
  expect: EngineAnswer;
  differs?: string;
  hostwarden?: EngineAnswer;
}

const endpointOf = (e: CaseEndpoint): Endpoint => newEndpoint({ dnsName: e.dnsName, recordType: e.recordType as Endpoint['recordType'], targets: e.targets });
const caseEndpoint = (e: Endpoint): CaseEndpoint => ({ dnsName: e.dnsName, recordType: e.recordType, targets: [...e.targets] });

/** Runs one engine case and reports the answer in the shape of its expectation. */
export function engineAnswer(c: EngineCase): EngineAnswer {
  let engine: FqdnTemplate | undefined;
  try {
    engine = FqdnTemplate.fromFlags({ fqdn: c.fqdn ?? [], target: c.target ?? [], fqdnTarget: c.fqdnTarget ?? [] });
  } catch (err) {
    return { parseErrorContains: (err as Error).message };
  }
  if (c.op === undefined) return { parses: true, configured: engine?.hasFqdn === true };
  if (c.op === 'translate') return translateAnswer(c);
  if (c.op === 'combine') return combineAnswer(c, engine);
  const obj = c.object ?? {};
  const meta = readMeta(obj);
  if (meta === undefined) throw new Error(`${c.name}: the object needs a kind and a name`);
  const scoped = engine === undefined || c.source === undefined ? engine : engine.withSource(c.source);
  try {
    if (c.op === 'fqdn') return { result: scoped?.execute(obj, meta) ?? [] };
    if (c.op === 'target') return { result: scoped?.targets(obj, meta) ?? [] };
    return { result: (scoped?.hostTargets(obj, meta) ?? []).map((p) => `${p.host}:${p.target}`) };
  } catch (err) {
    return { errorContains: (err as Error).message };
  }
}

function combineAnswer(c: EngineCase, engine: FqdnTemplate | undefined): EngineAnswer {
  const options = { combineFqdnAnnotation: c.combine === true, ...(engine === undefined ? {} : { fqdnTemplate: engine }) };
  const ctx = { options, template: templateOf(options) } as KindContext;
  try {
    const out = combineTemplated(ctx, (c.own ?? []).map(endpointOf), () => {
      if (c.templateFails === true) throw new Error('template error');
      return (c.templated ?? []).map(endpointOf);
    });
    return { endpoints: out.map(caseEndpoint) };
  } catch (err) {
    return { errorContains: (err as Error).message };
  }
}

function translateAnswer(c: EngineCase): EngineAnswer {
  const options = buildTranslateOptions({ fqdnTemplate: c.fqdn ?? [], combineFqdnAnnotation: c.combine === true });
  const endpoints: CaseEndpoint[] = [];
  const problems: string[] = [];
  for (const obj of c.objects ?? []) {
    const result = translateObject(obj, options);
    endpoints.push(...result.endpoints.map(caseEndpoint));
    problems.push(...result.problems.map((p) => p.message));
  }
  return { endpoints, problemsContain: problems };
}

/** Differences between an answer and an expectation (substring matches for error texts). */
export function engineMismatches(actual: EngineAnswer, expected: EngineAnswer): string[] {
  const errs: string[] = [];
  const contains = (what: string, got: string | undefined, want: string | undefined): void => {
    if (want !== undefined && (got === undefined || !got.includes(want)))
      errs.push(`${what}: expected to contain ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
  };
  contains('parse error', actual.parseErrorContains, expected.parseErrorContains);
  contains('error', actual.errorContains, expected.errorContains);
  if (expected.parseErrorContains === undefined && actual.parseErrorContains !== undefined) errs.push(`unexpected parse error: ${actual.parseErrorContains}`);
  if (expected.errorContains === undefined && actual.errorContains !== undefined) errs.push(`unexpected error: ${actual.errorContains}`);
  if (expected.parses === true && actual.parses !== true) errs.push('expected the templates to parse');
  if (expected.configured !== undefined && actual.configured !== expected.configured) errs.push(`expected configured=${expected.configured}`);
  if (expected.result !== undefined && JSON.stringify(actual.result) !== JSON.stringify(expected.result))
    errs.push(`expected ${JSON.stringify(expected.result)}, got ${JSON.stringify(actual.result)}`);
  if (expected.endpoints !== undefined && expected.endpoints !== null && JSON.stringify(actual.endpoints) !== JSON.stringify(expected.endpoints))
    errs.push(`expected endpoints ${JSON.stringify(expected.endpoints)}, got ${JSON.stringify(actual.endpoints)}`);
  for (const want of expected.problemsContain ?? []) {
    if (!(actual.problemsContain ?? []).some((p) => p.includes(want)))
      errs.push(`expected a problem containing ${JSON.stringify(want)}, got ${JSON.stringify(actual.problemsContain)}`);
  }
  return errs;
}

export interface FunctionCase {
  name: string;
  upstreamTest: string;
  function: string;
  args: unknown[];
  activeSource?: string;
  expected?: unknown;
  errorContains?: string;
  differs?: string;
}

/** Calls one of external-dns's helpers as a template would (a label map arrives as map[string]string). */
export function functionAnswer(c: FunctionCase): { value: unknown } | { error: string } {
  const spec = externalDnsFunctions(c.activeSource ?? '')[c.function];
  if (spec === undefined) return { error: `function ${c.function} not defined` };
  const args = c.args.map((a) =>
    typeof a === 'object' && a !== null && !Array.isArray(a) ? new GoMap(a as Record<string, unknown>, 'map[string]string', '') : a,
  );
  try {
    return { value: spec.call(args) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}
