/**
 * The restated Hive cases (the JSON files beside this one) and what every replay shares: loading a
 * file, the case shape, and Hive's way of checking conditions (each expected type with its status
 * and reason, the message only when the expectation gives one; other types are not checked).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

export interface Upstream {
  file: string;
  test: string;
  case: string;
}

/** A deliberate difference: why, and what Hostwarden answers instead (in the shape of `expect`). */
export interface Differs<E> {
  reason: string;
  hostwarden: E;
}

export interface Case<G, E> {
  upstream: Upstream;
  given: G;
  expect: E;
  note?: string;
  differs?: Differs<E>;
}

export interface CaseFile<G, E> {
  upstream: { repo: string; file: string; test: string };
  about: string;
  cases: Case<G, E>[];
}

export function loadCases<G, E>(file: string): CaseFile<G, E> {
  return JSON.parse(readFileSync(join(HERE, file), 'utf8')) as CaseFile<G, E>;
}

/** What a case is held to: Hive's expectation, or Hostwarden's documented answer when it differs. */
export function wanted<G, E>(c: Case<G, E>): E {
  return c.differs === undefined ? c.expect : c.differs.hostwarden;
}

export interface ExpectedCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

type Cond = { type: string; status: string; reason?: string | undefined; message?: string | undefined };

/** Hive's AssertConditions: at least as many conditions as expected, each expected one matching. */
export function assertHiveConditions(actual: readonly Cond[] | undefined, expected: readonly ExpectedCondition[]): void {
  const list = actual ?? [];
  assert.ok(list.length >= expected.length, `expected at least ${expected.length} conditions, have ${JSON.stringify(list)}`);
  for (const e of expected) {
    const got = list.find((c) => c.type === e.type);
    assert.ok(got !== undefined, `no condition ${e.type} in ${JSON.stringify(list)}`);
    assert.deepEqual(
      { status: got.status, reason: got.reason ?? '', ...(e.message ? { message: got.message ?? '' } : {}) },
      { status: e.status, reason: e.reason ?? '', ...(e.message ? { message: e.message } : {}) },
      e.type,
    );
  }
}

/** The exact set of conditions (times ignored), as Hive's ElementsMatch compares them. */
export function conditionSet(list: readonly Cond[]): string[] {
  return list.map((c) => JSON.stringify([c.type, c.status, c.reason ?? '', c.message ?? ''])).sort();
}
