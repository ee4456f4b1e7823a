import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { setCondition } from './conditions.ts';
import { WorkQueue } from './work-queue.ts';

const logger = pino({ level: 'silent' });

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('WorkQueue', () => {
  test('deduplicates keys queued before they run', async () => {
    const seen: string[] = [];
    const q = new WorkQueue({ name: 't', logger, reconcile: (key) => Promise.resolve(void seen.push(key)) });
    q.add('a');
    q.add('a');
    q.add('b');
    q.start();
    await q.idle();
    assert.deepEqual(seen, ['a', 'b']);
    await q.stop();
  });

  test('a key added while it runs is run once more afterwards, never twice at once', async () => {
    const gate = deferred();
    let runs = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    const q = new WorkQueue({
      name: 't',
      logger,
      concurrency: 4,
      reconcile: async () => {
        runs++;
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        if (runs === 1) await gate.promise;
        concurrent--;
      },
    });
    q.start();
    q.add('a');
    q.add('a');
    q.add('a');
    gate.resolve();
    await q.idle();
    await new Promise((r) => setImmediate(r));
    await q.idle();
    assert.equal(runs, 2);
    assert.equal(maxConcurrent, 1);
    await q.stop();
  });

  test('errors back off per key, doubling, and success resets the count', async () => {
    let calls = 0;
    const q = new WorkQueue({
      name: 't',
      logger,
      backoff: { initialMs: 1000, maxMs: 5000 },
      reconcile: () => {
        calls++;
        return Promise.reject(new Error('boom'));
      },
    });
    q.start();
    q.add('a');
    await q.idle();
    assert.equal(calls, 1);
    const first = q.pendingDelays().get('a');
    assert.ok(first !== undefined && first > 900 && first <= 1000);
    await q.stop();
  });

  test('requeueAfterMs schedules the key; an immediate add overrides the timer', async () => {
    let calls = 0;
    const q = new WorkQueue({ name: 't', logger, reconcile: () => Promise.resolve({ requeueAfterMs: 60_000 + 0 * calls++ }) });
    q.start();
    q.add('a');
    await q.idle();
    assert.ok((q.pendingDelays().get('a') ?? 0) > 59_000);
    q.add('a');
    await q.idle();
    assert.equal(calls, 2);
    await q.stop();
    assert.equal(q.pendingDelays().size, 0);
  });

  test('keys wait while canRun is false and run after kick()', async () => {
    let leader = false;
    const seen: string[] = [];
    const q = new WorkQueue({ name: 't', logger, canRun: () => leader, reconcile: (key) => Promise.resolve(void seen.push(key)) });
    q.start();
    q.add('a');
    await q.idle();
    assert.deepEqual(seen, []);
    leader = true;
    q.kick();
    await q.idle();
    assert.deepEqual(seen, ['a']);
    await q.stop();
  });
});

describe('setCondition', () => {
  test('keeps the transition time while the status is unchanged', () => {
    const t1 = new Date('2026-01-01T00:00:00Z');
    const t2 = new Date('2026-01-02T00:00:00Z');
    const a = setCondition(undefined, { type: 'Ready', status: 'False', reason: 'Waiting', message: 'x' }, t1);
    const b = setCondition(a, { type: 'Ready', status: 'False', reason: 'StillWaiting', message: 'y' }, t2);
    assert.equal(b[0]?.lastTransitionTime, t1.toISOString());
    assert.equal(b[0]?.reason, 'StillWaiting');
    const c = setCondition(b, { type: 'Ready', status: 'True', reason: 'Done', message: '' }, t2);
    assert.equal(c[0]?.lastTransitionTime, t2.toISOString());
    assert.equal(c.length, 1);
  });
});
