import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { backoffCeiling, backoffDelay, sleep } from './backoff.ts';

test('the ceiling doubles from initialMs and stops at maxMs, whatever the attempt', () => {
  const b = { initialMs: 100, maxMs: 1000 };
  assert.deepEqual(
    [1, 2, 3, 4, 5, 1e9].map((a) => backoffCeiling(b, a)),
    [100, 200, 400, 800, 1000, 1000],
  );
  assert.equal(backoffCeiling(b, 0), 100);
});

test('the jittered delay stays between half and all of the ceiling', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 10_000 }),
      fc.integer({ min: 1, max: 1_000_000 }),
      fc.integer({ min: 1, max: 100 }),
      fc.double({ min: 0, max: 0.999999, noNaN: true }),
      (initialMs, extra, attempt, r) => {
        const b = { initialMs, maxMs: initialMs + extra };
        const d = backoffDelay(b, attempt, () => r);
        const c = backoffCeiling(b, attempt);
        assert.ok(d >= Math.floor(c / 2) && d <= c, `${d} outside [${c / 2}, ${c}]`);
      },
    ),
  );
});

test('sleep ends at once when its signal aborts, and never rejects', async () => {
  const stop = new AbortController();
  const started = Date.now();
  const slept = sleep(60_000, stop.signal);
  stop.abort();
  await slept;
  assert.ok(Date.now() - started < 1000);
  await sleep(1, AbortSignal.abort());
  await sleep(5);
});
